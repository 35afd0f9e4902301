// olm-classic's own flags (upstream's catalog operator names where it has them) and their
// translation into each capability's options. Problems are a UsageError naming the flag.
import { DNS1123_LABEL } from '../../internal/shared/gocompat/index.ts';
import { parseGoDuration, type CatalogSourceOptions } from '../../internal/classic/catalogsource/index.ts';
import type { CSVOptions } from '../../internal/classic/csv/index.ts';
import { parseBindAddress, registryFlags, registryOptions, UsageError, type Flag } from '../../internal/shared/manager/index.ts';

export const olmClassicFlags = {
  namespace: {
    type: 'string',
    default: 'olm',
    help: 'the global catalog namespace: its CatalogSources serve Subscriptions in every namespace (upstream catalog operator flag)',
  },
  'cache-dir': { type: 'string', default: '/var/cache/olm-classic', help: 'directory of the CatalogSource image caches' },
  platform: { type: 'string', default: 'linux/amd64', help: 'os/arch[/variant] picked from multi-platform catalog images' },
  'install-plan-retry-timeout': {
    type: 'string',
    default: '1m0s',
    help: 'time since first attempt at which plan execution errors are considered fatal (upstream catalog operator flag; a Go duration)',
  },
  protectedCopiedCSVNamespaces: {
    type: 'string',
    default: '',
    help: 'A comma-delimited set of namespaces where global Copied CSVs will always appear, even if Copied CSVs are disabled (upstream olm flag)',
  },
  'package-server-bind-address': {
    type: 'string',
    default: '0',
    help: 'serve packages.operators.coreos.com/v1 PackageManifests (the package server, an aggregated API) on this address over TLS; "0" turns it off',
  },
  'package-server-cert-dir': {
    type: 'string',
    default: '',
    help: 'directory with the package server\'s tls.crt and tls.key (e.g. from cert-manager); empty: the leader keeps a CA and certificate in the Secret <service>-cert and sets the APIService\'s caBundle',
  },
  'package-server-service': {
    type: 'string',
    default: 'olmv1-system/packageserver-service',
    help: 'namespace/name of the package server\'s Service: the names of the certificate the leader keeps, and where its Secret is',
  },
  writeStatusName: { type: 'string', help: 'ClusterOperator name in which to write status, unset or "" to disable (upstream olm operator flag; OpenShift uses operator-lifecycle-manager)' },
  'write-status-name': { type: 'string', help: 'the same as --writeStatusName' },
  ...registryFlags,
} as const satisfies Record<string, Flag>;

export type OlmClassicFlagValues = Record<keyof typeof olmClassicFlags, string | boolean | undefined>;

const str = (v: string | boolean | undefined): string => (typeof v === 'string' ? v.trim() : '');

export interface OlmClassicOptions extends CatalogSourceOptions {
  /** `--install-plan-retry-timeout` in milliseconds. */
  readonly installPlanRetryTimeoutMs: number;
}

/** The ClusterOperator the classic gating controller writes (`--writeStatusName`), or undefined when off. */
export function writeStatusName(values: OlmClassicFlagValues): string | undefined {
  const a = str(values.writeStatusName);
  const b = str(values['write-status-name']);
  if (a !== '' && b !== '' && a !== b) throw new UsageError(`olm-classic: --writeStatusName and --write-status-name disagree: ${JSON.stringify(a)}, ${JSON.stringify(b)}`);
  return a || b || undefined;
}

export function olmClassicOptions(values: OlmClassicFlagValues): OlmClassicOptions {
  const fail = (flag: string, why: string): never => {
    throw new UsageError(`olm-classic: --${flag}: ${why}`);
  };
  const namespace = str(values.namespace);
  if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) fail('namespace', `must be a namespace name, got ${JSON.stringify(namespace)}`);
  const cacheDir = str(values['cache-dir']);
  if (!cacheDir) fail('cache-dir', 'must not be empty');
  const platform = str(values.platform);
  if (!/^[a-z0-9]+\/[a-z0-9_]+(\/[a-z0-9]+)?$/.test(platform)) fail('platform', `must be os/arch[/variant], got ${JSON.stringify(platform)}`);
  const retry = str(values['install-plan-retry-timeout']);
  const parsed = parseGoDuration(retry);
  if ('error' in parsed) fail('install-plan-retry-timeout', parsed.error);
  const installPlanRetryTimeoutMs = 'ms' in parsed ? parsed.ms : 0;
  if (installPlanRetryTimeoutMs < 0) fail('install-plan-retry-timeout', `must not be negative, got ${JSON.stringify(retry)}`);
  return { globalCatalogNamespace: namespace, cacheDir, platform, installPlanRetryTimeoutMs, ...registryOptions('olm-classic', values) };
}

/** The package server's address and certificate directory, or undefined when `--package-server-bind-address` is "0". */
export function packageServerOptions(values: OlmClassicFlagValues): { host: string; port: number; certDir?: string; service: { namespace: string; name: string } } | undefined {
  let bind: { host: string; port: number } | undefined;
  try {
    bind = parseBindAddress(str(values['package-server-bind-address']));
  } catch (err) {
    throw new UsageError(`olm-classic: --package-server-bind-address: ${(err as Error).message}`);
  }
  if (!bind) return undefined;
  const certDir = str(values['package-server-cert-dir']);
  const given = str(values['package-server-service']);
  const [namespace = '', name = '', ...rest] = given.split('/');
  if (rest.length > 0 || ![namespace, name].every((n) => n.length <= 63 && DNS1123_LABEL.test(n))) {
    throw new UsageError(`olm-classic: --package-server-service: must be <namespace>/<name> of a Service, got ${JSON.stringify(given)}`);
  }
  return { ...bind, ...(certDir && { certDir }), service: { namespace, name } };
}

/** The olm-operator side's options (CSV controller). */
export function olmOperatorOptions(values: OlmClassicFlagValues): CSVOptions {
  const protectedNs = str(values.protectedCopiedCSVNamespaces)
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  for (const ns of protectedNs) {
    if (ns.length > 63 || !DNS1123_LABEL.test(ns)) throw new UsageError(`olm-classic: --protectedCopiedCSVNamespaces: must be namespace names, got ${JSON.stringify(ns)}`);
  }
  return protectedNs.length > 0 ? { protectedCopiedCSVNamespaces: protectedNs } : {};
}
