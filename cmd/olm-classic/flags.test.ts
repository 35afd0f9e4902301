import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError, parseManagerArgs } from '../../internal/shared/manager/index.ts';
import { olmClassicFlags, olmClassicOptions, olmOperatorOptions, packageServerOptions, writeStatusName } from './flags.ts';

const parse = (...argv: string[]) => olmClassicOptions(parseManagerArgs('olm-classic', argv, olmClassicFlags).extra);

describe('olm-classic flags', () => {
  it('defaults: the global catalog namespace is upstream’s olm', () => {
    expect(parse('--insecure-registries=')).toEqual({
      globalCatalogNamespace: 'olm',
      cacheDir: '/var/cache/olm-classic',
      platform: 'linux/amd64',
      installPlanRetryTimeoutMs: 60_000,
      insecureRegistries: [],
    });
  });

  it('takes every flag', () => {
    const o = parse('--namespace=operators', '--cache-dir=/tmp/c', '--platform=linux/arm64', '--insecure-registries=localhost:5000');
    expect(o).toMatchObject({ globalCatalogNamespace: 'operators', cacheDir: '/tmp/c', platform: 'linux/arm64', insecureRegistries: ['localhost:5000'] });
  });

  it('--install-plan-retry-timeout is a Go duration (upstream’s flag)', () => {
    expect(parse('--install-plan-retry-timeout=90s').installPlanRetryTimeoutMs).toBe(90_000);
    expect(parse('--install-plan-retry-timeout=1h2m').installPlanRetryTimeoutMs).toBe(3_720_000);
    expect(() => parse('--install-plan-retry-timeout=soon')).toThrow('olm-classic: --install-plan-retry-timeout: time: invalid duration "soon"');
  });

  it('refuses a namespace that cannot be one, naming the flag', () => {
    expect(() => parse('--namespace=Not_A_Namespace')).toThrow(UsageError);
    expect(() => parse('--namespace=Not_A_Namespace')).toThrow('olm-classic: --namespace: must be a namespace name, got "Not_A_Namespace"');
  });

  it('the package server is off unless --package-server-bind-address is set', () => {
    const values = (...argv: string[]) => parseManagerArgs('olm-classic', argv, olmClassicFlags).extra;
    expect(packageServerOptions(values())).toBeUndefined();
    const service = { namespace: 'olmv1-system', name: 'packageserver-service' };
    expect(packageServerOptions(values('--package-server-bind-address=:5443'))).toEqual({ host: '0.0.0.0', port: 5443, service });
    expect(packageServerOptions(values('--package-server-bind-address=127.0.0.1:0', '--package-server-cert-dir=/certs'))).toEqual({ host: '127.0.0.1', port: 0, certDir: '/certs', service });
    expect(() => packageServerOptions(values('--package-server-bind-address=:http'))).toThrow('olm-classic: --package-server-bind-address: invalid bind address ":http"');
  });

  it('--package-server-service names the Service (namespace/name) whose certificate the leader keeps', () => {
    const values = (...argv: string[]) => parseManagerArgs('olm-classic', ['--package-server-bind-address=:5443', ...argv], olmClassicFlags).extra;
    expect(packageServerOptions(values('--package-server-service=olm/packageserver-service'))?.service).toEqual({ namespace: 'olm', name: 'packageserver-service' });
    for (const bad of ['packageserver-service', 'olm/', 'a/b/c', 'Olm/x']) {
      expect(() => packageServerOptions(values(`--package-server-service=${bad}`))).toThrow(`olm-classic: --package-server-service: must be <namespace>/<name> of a Service, got ${JSON.stringify(bad)}`);
    }
  });

  it('protected namespaces for copied CSVs (upstream olm flag)', () => {
    const values = (...argv: string[]) => parseManagerArgs('olm-classic', argv, olmClassicFlags).extra;
    expect(olmOperatorOptions(values())).toEqual({});
    expect(olmOperatorOptions(values('--protectedCopiedCSVNamespaces=openshift, default'))).toEqual({ protectedCopiedCSVNamespaces: ['openshift', 'default'] });
    expect(() => olmOperatorOptions(values('--protectedCopiedCSVNamespaces=Bad_NS'))).toThrow('olm-classic: --protectedCopiedCSVNamespaces: must be namespace names, got "Bad_NS"');
  });

  it('lists its flags in --help', () => {
    const { help } = parseManagerArgs('olm-classic', ['--help'], olmClassicFlags);
    for (const f of Object.keys(olmClassicFlags)) expect(help).toContain(`--${f}`);
  });

  it('--writeStatusName (upstream’s spelling) or --write-status-name names the ClusterOperator; unset is off', () => {
    const name = (...argv: string[]) => writeStatusName(parseManagerArgs('olm-classic', argv, olmClassicFlags).extra);
    expect(name()).toBeUndefined();
    expect(name('--writeStatusName=')).toBeUndefined();
    expect(name('--writeStatusName=operator-lifecycle-manager')).toBe('operator-lifecycle-manager');
    expect(name('--write-status-name', 'operator-lifecycle-manager')).toBe('operator-lifecycle-manager');
    expect(() => name('--writeStatusName=a', '--write-status-name=b')).toThrow('olm-classic: --writeStatusName and --write-status-name disagree: "a", "b"');
  });
});

describe('olm-classic --registries-conf', () => {
  it('reads the named registries.conf into the registry options; a missing named file stops it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'registries-conf-'));
    try {
      const file = join(dir, 'registries.conf');
      writeFileSync(file, '[[registry]]\nprefix = "mirrored.example:5000"\nlocation = "127.0.0.1:5000"\ninsecure = true\n');
      expect(parse(`--registries-conf=${file}`).registriesConf?.registries.map((r) => [r.prefix, r.location, r.insecure])).toEqual([
        ['mirrored.example:5000', '127.0.0.1:5000', true],
      ]);
      expect(() => parse(`--registries-conf=${join(dir, 'missing.conf')}`)).toThrow(
        `olm-classic: --registries-conf: loading registries configuration ${JSON.stringify(join(dir, 'missing.conf'))}: no such file or directory`,
      );
      expect(parseManagerArgs('olm-classic', ['--help'], olmClassicFlags).help).toContain('--registries-conf');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
