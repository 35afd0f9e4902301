import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError, parseManagerArgs } from '../../internal/shared/manager/index.ts';
import { OPERATOR_CONTROLLER_FEATURE_GATES, OPERATOR_CONTROLLER_METRICS, operatorControllerFlags, operatorControllerOptions, v1GatingOptions } from './flags.ts';

const parse = (...argv: string[]) => operatorControllerOptions(parseManagerArgs('operator-controller', argv, operatorControllerFlags).extra);

describe('operator-controller flags', () => {
  it('defaults to upstream’s cache path and no extra trust', () => {
    expect(parse('--insecure-registries=')).toEqual({ cachePath: '/var/cache', systemNamespace: process.env.POD_NAMESPACE || 'olmv1-system', insecureRegistries: [] });
  });

  it('takes every flag', () => {
    expect(
      parse(
        '--cache-path=/tmp/oc',
        '--system-namespace=olm',
        '--catalogd-cas-dir=/etc/catalogd-ca',
        '--pull-cas-dir=/etc/pull-ca',
        '--global-pull-secret=olmv1-system/pull',
        '--insecure-registries=127.0.0.1:5000, localhost:5001',
      ),
    ).toEqual({
      cachePath: '/tmp/oc',
      systemNamespace: 'olm',
      catalogdCasDir: '/etc/catalogd-ca',
      pullCasDir: '/etc/pull-ca',
      globalPullSecret: { namespace: 'olmv1-system', name: 'pull' },
      insecureRegistries: ['127.0.0.1:5000', 'localhost:5001'],
    });
  });

  it('--feature-gates picks the webhook certificate provider as upstream: cert-manager, else OpenShift service-ca, else none', () => {
    expect(parse('--feature-gates=').certProvider).toBeUndefined(); // cert-manager, the default
    expect(parse('--feature-gates=WebhookProviderCertManager=false').certProvider).toBe('openshift-serviceca');
    expect(parse('--feature-gates=WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=false').certProvider).toBeNull();
    expect(parse('--feature-gates=WebhookProviderOpenshiftServiceCA=false').certProvider).toBeUndefined();
    expect(() => parse('--feature-gates=Nope=true')).toThrow('operator-controller: --feature-gates: unrecognized feature gate: Nope');
  });

  it('--feature-gates=ServiceAccountInstalls (ours, off by default) honours spec.serviceAccount; upstream ignores it', () => {
    expect(parse('--feature-gates=')).not.toHaveProperty('serviceAccountInstalls');
    expect(parse('--feature-gates=ServiceAccountInstalls=false')).not.toHaveProperty('serviceAccountInstalls');
    expect(parse('--feature-gates=ServiceAccountInstalls=true').serviceAccountInstalls).toBe(true);
    expect(parse('--feature-gates=ServiceAccountInstalls=true,WebhookProviderCertManager=false')).toMatchObject({ serviceAccountInstalls: true, certProvider: 'openshift-serviceca' });
    expect(() => parse('--feature-gates=ServiceAccountInstalls')).toThrow('operator-controller: --feature-gates: missing bool value for ServiceAccountInstalls');
    expect(() => parse('--feature-gates=ServiceAccountInstalls=yes')).toThrow(
      'operator-controller: --feature-gates: invalid value of ServiceAccountInstalls=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(() => parse('--feature-gates=PreflightPermissions=true')).toThrow('operator-controller: --feature-gates: unrecognized feature gate: PreflightPermissions');
    const { help } = parseManagerArgs('operator-controller', ['--help'], operatorControllerFlags);
    expect(help).toContain('ServiceAccountInstalls=true|false (default false; not upstream)');
  });

  it('--feature-gates has upstream’s alpha gates, off by default, each reaching its option', () => {
    const gates = (o: ReturnType<typeof parse>) => [o.singleOwnNamespaceInstallSupport, o.deploymentConfig, o.bundleReleaseSupport, o.boxcutterRuntime];
    expect(gates(parse('--feature-gates='))).toEqual([undefined, undefined, undefined, undefined]);
    expect(gates(parse('--feature-gates=SingleOwnNamespaceInstallSupport=true'))).toEqual([true, undefined, undefined, undefined]);
    expect(gates(parse('--feature-gates=DeploymentConfig=true'))).toEqual([undefined, true, undefined, undefined]);
    expect(gates(parse('--feature-gates=BundleReleaseSupport=true'))).toEqual([undefined, undefined, true, undefined]);
    expect(gates(parse('--feature-gates=SingleOwnNamespaceInstallSupport=true,DeploymentConfig=true,BundleReleaseSupport=true,BoxcutterRuntime=true'))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(gates(parse('--feature-gates=SingleOwnNamespaceInstallSupport=false,DeploymentConfig=false,BundleReleaseSupport=false'))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(Object.keys(OPERATOR_CONTROLLER_FEATURE_GATES).sort()).toEqual([
      'BoxcutterRuntime',
      'BundleReleaseSupport',
      'DeploymentConfig',
      'ServiceAccountInstalls',
      'SingleOwnNamespaceInstallSupport',
      'WebhookProviderCertManager',
      'WebhookProviderOpenshiftServiceCA',
    ]);
  });

  it('takes upstream’s TLS profile flags for its client of catalogd, refusing with pflag’s words', () => {
    expect(parse().tlsProfile).toBeUndefined(); // intermediate
    expect(parse('--tls-profile=Modern').tlsProfile?.name).toBe('modern');
    expect(parse('--tls-profile=custom', '--tls-custom-ciphers=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256').tlsProfile?.tls12Ciphers).toEqual(['ECDHE-RSA-AES128-GCM-SHA256']);
    expect(() => parse('--tls-profile=strict')).toThrow('operator-controller: invalid argument "strict" for "--tls-profile" flag: unknown TLS profile: "strict"');
    expect(() => parse('--tls-custom-version=TLSv1.4')).toThrow('operator-controller: invalid argument "TLSv1.4" for "--tls-custom-version" flag: unknown TLS version: "TLSv1.4"');
    expect(() => parse('--tls-custom-curves=X448')).toThrow('operator-controller: invalid argument "X448" for "--tls-custom-curves" flag: unknown curve "X448"');
  });

  it('serves metrics as upstream: HTTPS on :8443 with --tls-cert/--tls-key, off without them', () => {
    const options = (...argv: string[]) => parseManagerArgs('operator-controller', argv, operatorControllerFlags, OPERATOR_CONTROLLER_METRICS).options;
    expect(options()).toMatchObject({ metricsBindAddress: '0' });
    expect(options('--tls-cert=/c', '--tls-key=/k')).toMatchObject({ metricsBindAddress: ':8443', metricsTLS: { certFile: '/c', keyFile: '/k' } });
    expect(() => options('--metrics-bind-address=:8443')).toThrow('operator-controller: metrics-bind-address requires tls-cert and tls-key flags to be set');
    expect(() => options('--tls-cert=/c')).toThrow('operator-controller: unable to configure TLS certificates: tls-cert and tls-key flags must be used together');
  });

  it('names the flag that is wrong', () => {
    expect(() => parse('--cache-path=')).toThrow(UsageError);
    expect(() => parse('--cache-path=')).toThrow('operator-controller: --cache-path: must not be empty');
    expect(() => parse('--system-namespace=Bad_NS')).toThrow('operator-controller: --system-namespace: must be a namespace name, got "Bad_NS"');
    expect(() => parse('--global-pull-secret=nonamespace')).toThrow(/^operator-controller: --global-pull-secret: /);
  });

  it('--write-status-name turns OpenShift gating on with the minor of RELEASE_VERSION, refusing one it cannot parse', () => {
    const gating = (release: string | undefined, ...argv: string[]) =>
      v1GatingOptions(parseManagerArgs('operator-controller', argv, operatorControllerFlags).extra, release);
    expect(gating('4.22.3')).toBeUndefined();
    expect(gating('4.22.3', '--write-status-name=olm')).toMatchObject({ name: 'olm', currentMinor: { major: 4, minor: 22, patch: 0 } });
    expect(() => gating(undefined, '--write-status-name=olm')).toThrow(UsageError);
    expect(() => gating('4.22', '--write-status-name=olm')).toThrow('operator-controller: --write-status-name: RELEASE_VERSION "4.22": No Major.Minor.Patch elements found');
  });
});

describe('operator-controller --registries-conf', () => {
  it('reads the named registries.conf into the registry options; a missing named file stops it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'registries-conf-'));
    try {
      const file = join(dir, 'registries.conf');
      writeFileSync(file, '[[registry]]\nprefix = "mirrored.example:5000"\nlocation = "127.0.0.1:5000"\ninsecure = true\n');
      expect(parse(`--registries-conf=${file}`).registriesConf?.registries.map((r) => [r.prefix, r.location, r.insecure])).toEqual([
        ['mirrored.example:5000', '127.0.0.1:5000', true],
      ]);
      expect(() => parse(`--registries-conf=${join(dir, 'missing.conf')}`)).toThrow(
        `operator-controller: --registries-conf: loading registries configuration ${JSON.stringify(join(dir, 'missing.conf'))}: no such file or directory`,
      );
      expect(parseManagerArgs('operator-controller', ['--help'], operatorControllerFlags).help).toContain('--registries-conf');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
