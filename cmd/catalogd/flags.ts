// catalogd's own flags (names as upstream's cmd/catalogd where upstream has them) and their
// translation into CatalogdOptions. Problems are a UsageError naming the flag.
import { DEFAULT_EXTERNAL_ADDRESS, DEFAULT_MAX_CATALOG_FILES, type CatalogdOptions } from '../../internal/catalogd/index.ts';
import {
  parseBindAddress,
  parseFeatureGates,
  registryFlags,
  registryOptions,
  secureMetricsFlags,
  tlsFlags,
  tlsProfileOption,
  UsageError,
  type Flag,
  type SecureMetrics,
} from '../../internal/shared/manager/index.ts';

/** catalogd's feature gates and their defaults here (upstream's APIV1MetasHandler defaults to false). */
export const CATALOGD_FEATURE_GATES = { APIV1MetasHandler: true, GraphQLCatalogQueries: false } as const;

/** Upstream catalogd's metrics: HTTPS on :7443 with --tls-cert/--tls-key, off without them. */
export const CATALOGD_METRICS: SecureMetrics = {
  defaultAddress: ':7443',
  pairError: 'tls-cert and tls-key flags must be used together',
  addressError: 'metrics-bind-address requires tls-cert and tls-key flags',
};

export const catalogdFlags = {
  'catalogs-server-addr': { type: 'string', default: ':8443', help: 'address the catalog content server listens on' },
  'external-address': {
    type: 'string',
    default: DEFAULT_EXTERNAL_ADDRESS,
    help: 'host[:port] clients reach the catalog server at; status.urls.base = <scheme>://<this>/catalogs/<name>',
  },
  'cache-dir': { type: 'string', default: '/var/cache/catalogd', help: 'directory of image caches (unpack/) and served catalogs (catalogs/)' },
  'gc-interval': { type: 'string', default: '12h', help: 'interval between garbage collections of orphaned content (Go duration)' },
  'tls-cert': { type: 'string', help: 'certificate (PEM) of the catalog server and the metrics server; with --tls-key both serve HTTPS (metrics only then)' },
  'tls-key': { type: 'string', help: 'private key (PEM) of the catalog server and the metrics server' },
  ...secureMetricsFlags(CATALOGD_METRICS.defaultAddress),
  ...tlsFlags,
  platform: { type: 'string', default: 'linux/amd64', help: 'os/arch[/variant] picked from multi-platform catalog images' },
  'feature-gates': {
    type: 'string',
    default: '',
    help: 'key=value pairs of feature gates: APIV1MetasHandler=true|false (default true), GraphQLCatalogQueries=true|false (default false)',
  },
  'max-catalog-files': {
    type: 'string',
    default: String(DEFAULT_MAX_CATALOG_FILES),
    help: 'files (regular files and links) one catalog image may unpack into its configs directory; a catalog with more is refused',
  },
  ...registryFlags,
} as const satisfies Record<string, Flag>;

export type CatalogdFlagValues = Record<keyof typeof catalogdFlags, string | boolean | undefined>;

const UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration (`12h`, `1h30m`, `90s`, `500ms`) in milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    end = re.lastIndex;
  }
  return end === text.length && end > 0 ? total : undefined;
}

const str = (v: string | boolean | undefined): string => (typeof v === 'string' ? v.trim() : '');

export function catalogdOptions(values: CatalogdFlagValues): CatalogdOptions {
  const fail = (flag: string, why: string): never => {
    throw new UsageError(`catalogd: --${flag}: ${why}`);
  };
  const addr = str(values['catalogs-server-addr']);
  let bind: ReturnType<typeof parseBindAddress>;
  try {
    bind = parseBindAddress(addr);
  } catch (err) {
    fail('catalogs-server-addr', (err as Error).message);
  }
  if (!bind) fail('catalogs-server-addr', 'the catalog server cannot be turned off');
  const external = str(values['external-address']);
  if (external === '' || /^[a-z]+:\/\//i.test(external) || /[/?#\s]/.test(external)) {
    fail('external-address', `must be host[:port] without a scheme or path, got ${JSON.stringify(external)}`);
  }
  const cacheDir = str(values['cache-dir']);
  if (cacheDir === '') fail('cache-dir', 'must not be empty');
  const gc = parseDuration(str(values['gc-interval']));
  if (gc === undefined || gc <= 0) fail('gc-interval', `must be a positive duration such as 12h or 30m, got ${JSON.stringify(values['gc-interval'])}`);
  const cert = str(values['tls-cert']);
  const key = str(values['tls-key']);
  if ((cert === '') !== (key === '')) throw new UsageError('catalogd: tls-cert and tls-key flags must be used together');
  const profile = tlsProfileOption('catalogd', values);
  const platform = str(values.platform);
  if (!/^[a-z0-9_.-]+\/[a-z0-9_.-]+(\/[a-z0-9_.-]+)?$/i.test(platform)) fail('platform', `must be os/arch[/variant], got ${JSON.stringify(platform)}`);
  let gates: { APIV1MetasHandler: boolean; GraphQLCatalogQueries: boolean } = { ...CATALOGD_FEATURE_GATES };
  try {
    gates = parseFeatureGates(typeof values['feature-gates'] === 'string' ? values['feature-gates'] : '', CATALOGD_FEATURE_GATES);
  } catch (err) {
    fail('feature-gates', (err as Error).message);
  }
  const maxFilesText = str(values['max-catalog-files']);
  const maxFiles = /^[0-9]+$/.test(maxFilesText) ? Number(maxFilesText) : NaN;
  if (!Number.isSafeInteger(maxFiles) || maxFiles < 1) fail('max-catalog-files', `must be a positive whole number, got ${JSON.stringify(values['max-catalog-files'])}`);
  return {
    catalogsServerAddr: addr,
    externalAddress: external,
    cacheDir,
    gcIntervalMs: gc!,
    platform,
    maxCatalogFiles: maxFiles,
    ...registryOptions('catalogd', values),
    ...(cert !== '' && { tls: { certFile: cert, keyFile: key, ...(profile.name !== 'intermediate' && { profile }) } }),
    ...(!gates.APIV1MetasHandler && { metasHandler: false }),
    ...(gates.GraphQLCatalogQueries && { graphqlQueries: true }),
  };
}
