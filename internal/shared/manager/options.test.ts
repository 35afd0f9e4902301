import { describe, expect, it } from 'vitest';
import { UsageError, parseBindAddress, parseManagerArgs } from './options.ts';

describe('parseManagerArgs', () => {
  it('applies defaults', () => {
    const { options } = parseManagerArgs('catalogd', []);
    expect(options).toEqual({
      kubeconfig: undefined,
      leaderElect: false,
      leaderElectionNamespace: 'olmv1-system',
      leaderElectionId: 'catalogd-operator-lock',
      healthProbeBindAddress: ':8081',
      metricsBindAddress: ':8080',
      logLevel: process.env.LOG_LEVEL ?? 'info',
      logFormat: process.stdout.isTTY === true ? 'text' : 'json',
    });
  });

  it.each([
    { args: ['--log-format=text'], want: 'text' },
    { args: ['--log-format', 'json'], want: 'json' },
  ])('reads --log-format: $args', ({ args, want }) => {
    expect(parseManagerArgs('x', args).options.logFormat).toBe(want);
  });

  it.each([
    { args: ['--leader-elect'], want: true },
    { args: ['--leader-elect=true'], want: true },
    { args: ['--leader-elect=false'], want: false },
    { args: ['--leader-elect', '--no-leader-elect'], want: false },
  ])('reads boolean flags: $args', ({ args, want }) => {
    expect(parseManagerArgs('x', args).options.leaderElect).toBe(want);
  });

  it('takes both --flag=value and --flag value, and the binary’s own flags', () => {
    const { options, extra } = parseManagerArgs('x', ['--kubeconfig', '/k', '--log-level=debug', '--storage-dir=/s'], {
      'storage-dir': { type: 'string', help: 'where' },
    });
    expect(options.kubeconfig).toBe('/k');
    expect(options.logLevel).toBe('debug');
    expect(extra['storage-dir']).toBe('/s');
  });

  it.each([
    { args: ['--bogus'], message: "x: Unknown option '--bogus'" },
    { args: ['--log-level=loud'], message: 'x: --log-level must be one of error, warn, info, debug; got "loud"' },
    { args: ['--log-format=yaml'], message: 'x: --log-format must be json or text; got "yaml"' },
    { args: ['positional'], message: "x: Unexpected argument 'positional'" },
  ])('refuses $args with one clear line', ({ args, message }) => {
    expect(() => parseManagerArgs('x', args)).toThrow(new UsageError(message).message);
  });

  it('prints usage for --help', () => {
    const { help } = parseManagerArgs('catalogd', ['--help']);
    expect(help).toContain('Usage: catalogd [flags]');
    expect(help).toContain('--leader-election-namespace string');
  });

  it('prints --help in aligned columns, as pflag: flag and type, three spaces past the widest, help and a non-zero default', () => {
    const { help } = parseManagerArgs('x', ['--help'], { 'a-flag-name-longer-than-all-the-others': { type: 'string', default: 'v', help: 'mine' } });
    const lines = help!.split('\n');
    expect(lines.slice(0, 3)).toEqual(['Usage: x [flags]', '', 'Flags:']);
    const width = '      --a-flag-name-longer-than-all-the-others string   '.length;
    expect(lines).toContain('      --a-flag-name-longer-than-all-the-others string   mine (default "v")');
    expect(lines).toContain(`${'      --leader-election-namespace string'.padEnd(width)}namespace of the leader-election Lease (default "olmv1-system")`);
    expect(lines).toContain(`${'      --leader-elect'.padEnd(width)}elect a leader through a Lease; only the leader reconciles`);
    for (const line of lines.slice(3)) expect(line.slice(0, width)).toMatch(/^ {6}--\S+( string)? +$/);
  });
});

describe('parseBindAddress', () => {
  it.each([
    { addr: ':8081', want: { host: '0.0.0.0', port: 8081 } },
    { addr: '127.0.0.1:0', want: { host: '127.0.0.1', port: 0 } },
    { addr: '[::1]:9', want: { host: '::1', port: 9 } },
    { addr: '0', want: undefined },
  ])('$addr', ({ addr, want }) => {
    expect(parseBindAddress(addr)).toEqual(want);
  });

  it('refuses a bad port', () => {
    expect(() => parseBindAddress(':http')).toThrow('invalid bind address ":http"');
  });
});
