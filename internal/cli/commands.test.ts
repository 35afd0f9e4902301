// The command list: each lazy line names the module's own path and summary, every command's help has
// an example, and help or a command's --help loads only what it shows.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commands } from './commands.ts';
import { dispatch, helpText } from './dispatch.ts';
import { lazy, loadCommand, type CliCommand, type CliIO } from './types.ts';

function io(): CliIO & { out: () => string; err: () => string } {
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  const stdout = new PassThrough().on('data', (c: Buffer) => o.push(c));
  const stderr = new PassThrough().on('data', (c: Buffer) => e.push(c));
  return { stdout, stderr, cwd: '/', env: {}, out: () => Buffer.concat(o).toString(), err: () => Buffer.concat(e).toString() };
}

describe('commands', () => {
  it.each(commands.map((c) => [c.path.join(' '), c] as const))('%s: the list names the module’s path and summary', async (_name, entry) => {
    const loaded = await loadCommand(entry);
    expect(loaded.path).toEqual(entry.path);
    expect(loaded.summary).toBe(entry.summary);
  });

  // `resolve` (resolve.ts) is extended by another change, which adds its example; every other command has one.
  it.each(commands.filter((c) => !['resolve', '__complete'].includes(c.path.join(' '))).map((c) => [c.path.join(' '), c] as const))(
    '%s: help has an example',
    async (_name, entry) => {
      const { usage } = await loadCommand(entry);
      expect(usage).toMatch(/^Usage: kubectl olm /);
      expect(usage).toMatch(/\nExamples?:\n {2}(kubectl olm|source) /);
    },
  );

  it('paths are unique and hidden commands are not in help', () => {
    const paths = commands.map((c) => c.path.join(' '));
    expect(new Set(paths).size).toBe(paths.length);
    expect(helpText(commands)).not.toContain('__complete');
    expect(helpText(commands)).toContain('  catalog add ');
  });
});

describe('dispatch with lazy commands', () => {
  const loads: string[] = [];
  const fake = (name: string, run: CliCommand['run'] = async () => 0): ReturnType<typeof lazy> =>
    lazy([name], `${name} summary`, async () => {
      loads.push(name);
      return { path: [name], summary: `${name} summary`, usage: `Usage: kubectl olm ${name}`, run };
    });
  const list = [fake('one', async (args, o) => (o.stdout.write(args.join(',')), 3)), fake('two'), lazy(['grp', 'sub'], 'sub', async () => (loads.push('sub'), { path: ['grp', 'sub'], summary: 'sub', usage: 'u', run: async () => 0 }))];

  it('--help loads no command', async () => {
    loads.length = 0;
    const o = io();
    expect(await dispatch(list, ['--help'], o)).toBe(0);
    expect(loads).toEqual([]);
    expect(o.out()).toContain('one summary');
  });

  it('a command loads only itself, and gets the rest of argv', async () => {
    loads.length = 0;
    const o = io();
    expect(await dispatch(list, ['one', 'a', '--b'], o)).toBe(3);
    expect(loads).toEqual(['one']);
    expect(o.out()).toBe('a,--b');
  });

  it('<command> --help and help <command> print its usage', async () => {
    for (const argv of [['two', '--help'], ['help', 'two'], ['two', '-h']]) {
      const o = io();
      expect(await dispatch(list, argv, o)).toBe(0);
      expect(o.out()).toBe('Usage: kubectl olm two\n');
    }
  });

  it('a group word lists its commands; an unknown word is a usage error', async () => {
    let o = io();
    expect(await dispatch(list, ['grp'], o)).toBe(2);
    expect(o.err()).toContain('grp sub');
    expect(o.err()).not.toContain('one summary');
    o = io();
    expect(await dispatch(list, ['nope'], o)).toBe(2);
    expect(o.err()).toMatch(/^unknown command "nope"/);
  });

  it('no arguments prints help on stderr, exit 2', async () => {
    const o = io();
    expect(await dispatch(list, [], o)).toBe(2);
    expect(o.err()).toContain('Commands:');
  });
});
