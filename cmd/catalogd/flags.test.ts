import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError, parseManagerArgs } from '../../internal/shared/manager/index.ts';
import { CATALOGD_METRICS, catalogdFlags, catalogdOptions, parseDuration } from './flags.ts';

const parse = (...argv: string[]) => catalogdOptions(parseManagerArgs('catalogd', argv, catalogdFlags).extra);

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('catalogd flags', () => {
  it('defaults are upstream’s', () => {
    const o = parse('--insecure-registries=');
    expect(o).toEqual({
      catalogsServerAddr: ':8443',
      externalAddress: 'catalogd-service.olmv1-system.svc',
      cacheDir: '/var/cache/catalogd',
      gcIntervalMs: 12 * 3600_000,
      insecureRegistries: [],
      platform: 'linux/amd64',
      maxCatalogFiles: 100_000,
    });
  });

  it('takes every flag', () => {
    const o = parse(
      '--catalogs-server-addr=127.0.0.1:9443',
      '--external-address',
      'catalogs.example.com:8443',
      '--cache-dir=/tmp/c',
      '--gc-interval=1h30m',
      '--global-pull-secret=olmv1-system/pull',
      '--tls-cert=/tls/tls.crt',
      '--tls-key=/tls/tls.key',
      '--pull-cas-dir=/cas',
      '--insecure-registries= localhost:5000, registry.local ,',
      '--platform=linux/arm64/v8',
      '--feature-gates=GraphQLCatalogQueries=true, APIV1MetasHandler=false',
      '--max-catalog-files=250000',
    );
    expect(o).toEqual({
      catalogsServerAddr: '127.0.0.1:9443',
      externalAddress: 'catalogs.example.com:8443',
      cacheDir: '/tmp/c',
      gcIntervalMs: 90 * 60_000,
      globalPullSecret: { namespace: 'olmv1-system', name: 'pull' },
      tls: { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' },
      pullCasDir: '/cas',
      insecureRegistries: ['localhost:5000', 'registry.local'],
      platform: 'linux/arm64/v8',
      metasHandler: false,
      graphqlQueries: true,
      maxCatalogFiles: 250_000,
    });
  });

  it('refuses what cannot work, naming the flag', () => {
    expect(usageError(() => parse('--gc-interval=12'))).toBe('catalogd: --gc-interval: must be a positive duration such as 12h or 30m, got "12"');
    expect(usageError(() => parse('--gc-interval=0s'))).toMatch(/^catalogd: --gc-interval: /);
    expect(usageError(() => parse('--tls-cert=/a'))).toBe('catalogd: tls-cert and tls-key flags must be used together');
    expect(usageError(() => parse('--global-pull-secret=pull'))).toBe('catalogd: --global-pull-secret: must be <namespace>/<name>, got "pull"');
    expect(usageError(() => parse('--external-address=https://x.example.com'))).toBe(
      'catalogd: --external-address: must be host[:port] without a scheme or path, got "https://x.example.com"',
    );
    expect(usageError(() => parse('--catalogs-server-addr=0'))).toBe('catalogd: --catalogs-server-addr: the catalog server cannot be turned off');
    expect(usageError(() => parse('--catalogs-server-addr=:99999'))).toBe('catalogd: --catalogs-server-addr: invalid bind address ":99999"');
    expect(usageError(() => parse('--platform=amd64'))).toBe('catalogd: --platform: must be os/arch[/variant], got "amd64"');
    expect(usageError(() => parse('--feature-gates=GraphQLCatalogQueries'))).toBe('catalogd: --feature-gates: missing bool value for GraphQLCatalogQueries');
    expect(usageError(() => parse('--feature-gates=Nope=true'))).toBe('catalogd: --feature-gates: unrecognized feature gate: Nope');
    expect(usageError(() => parse('--max-catalog-files=0'))).toBe('catalogd: --max-catalog-files: must be a positive whole number, got "0"');
    expect(usageError(() => parse('--max-catalog-files=1e5'))).toBe('catalogd: --max-catalog-files: must be a positive whole number, got "1e5"');
  });

  it('takes upstream’s TLS profile flags, refusing with pflag’s words', () => {
    const tls = (...argv: string[]) => parse('--tls-cert=/c', '--tls-key=/k', ...argv).tls;
    expect(tls()).toEqual({ certFile: '/c', keyFile: '/k' });
    expect(tls('--tls-profile=modern')?.profile?.name).toBe('modern');
    expect(tls('--tls-profile=custom', '--tls-custom-version=TLSv1.3', '--tls-custom-curves=X25519,prime256v1')?.profile).toMatchObject({
      name: 'custom',
      minVersion: 'TLSv1.3',
      curves: ['X25519', 'P-256'],
    });
    expect(usageError(() => parse('--tls-profile=x'))).toBe('catalogd: invalid argument "x" for "--tls-profile" flag: unknown TLS profile: "x"');
    expect(usageError(() => parse('--tls-custom-ciphers=FOO'))).toBe('catalogd: invalid argument "FOO" for "--tls-custom-ciphers" flag: unknown cipher "FOO"');
  });

  it('serves metrics as upstream: HTTPS on :7443 with the certificate, off without it', () => {
    const options = (...argv: string[]) => parseManagerArgs('catalogd', argv, catalogdFlags, CATALOGD_METRICS).options;
    expect(options().metricsBindAddress).toBe('0');
    expect(options().metricsTLS).toBeUndefined();
    expect(options('--tls-cert=/c', '--tls-key=/k')).toMatchObject({ metricsBindAddress: ':7443', metricsTLS: { certFile: '/c', keyFile: '/k', profile: { name: 'intermediate' } } });
    expect(options('--tls-cert=/c', '--tls-key=/k', '--metrics-bind-address=127.0.0.1:9000', '--tls-profile=old').metricsTLS?.profile.name).toBe('old');
    expect(usageError(() => options('--metrics-bind-address=:7443'))).toBe('catalogd: metrics-bind-address requires tls-cert and tls-key flags');
    expect(usageError(() => options('--metrics-bind-address=0'))).toBe('catalogd: metrics-bind-address requires tls-cert and tls-key flags');
    expect(usageError(() => options('--tls-key=/k'))).toBe('catalogd: tls-cert and tls-key flags must be used together');
  });

  it('parses Go durations', () => {
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('1h30m10s')).toBe(5_410_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('')).toBeUndefined();
    expect(parseDuration('12')).toBeUndefined();
    expect(parseDuration('1d')).toBeUndefined();
    expect(parseDuration('h')).toBeUndefined();
  });

  it('lists its flags in --help', () => {
    const { help } = parseManagerArgs('catalogd', ['--help'], catalogdFlags);
    for (const f of Object.keys(catalogdFlags)) expect(help).toContain(`--${f}`);
  });
});

describe('catalogd --registries-conf', () => {
  it('reads the named registries.conf into the registry options; a missing named file stops it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'registries-conf-'));
    try {
      const file = join(dir, 'registries.conf');
      writeFileSync(file, '[[registry]]\nprefix = "mirrored.example:5000"\nlocation = "127.0.0.1:5000"\ninsecure = true\n');
      expect(parse(`--registries-conf=${file}`).registriesConf?.registries.map((r) => [r.prefix, r.location, r.insecure])).toEqual([
        ['mirrored.example:5000', '127.0.0.1:5000', true],
      ]);
      expect(() => parse(`--registries-conf=${join(dir, 'missing.conf')}`)).toThrow(
        `catalogd: --registries-conf: loading registries configuration ${JSON.stringify(join(dir, 'missing.conf'))}: no such file or directory`,
      );
      expect(parseManagerArgs('catalogd', ['--help'], catalogdFlags).help).toContain('--registries-conf');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
