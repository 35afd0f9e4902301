// catalogd's options: what its flags set (cmd/catalogd/flags.ts) plus knobs for tests and
// embedding, and the URL a catalog is served at.
import type { RateLimiter } from '../shared/controller/index.ts';
import type { RegistriesConf, RegistryClientOptions, UnpackLimits } from '../shared/image/index.ts';
import type { Logger, Metrics } from '../shared/observability/index.ts';
import type { TLSProfile } from '../shared/tlsprofile/index.ts';
import type { GraphQLQueries } from './server/index.ts';
import type { CatalogStore } from './storage/index.ts';

/** Default `--max-catalog-files`: files one catalog image may unpack (its configs directory). */
export const DEFAULT_MAX_CATALOG_FILES = 100_000;

/** Upstream's default `--external-address`: the catalogd Service in olmv1-system. */
export const DEFAULT_EXTERNAL_ADDRESS = 'catalogd-service.olmv1-system.svc';

export interface CatalogdOptions {
  /** `--catalogs-server-addr`, e.g. `:8443`. */
  readonly catalogsServerAddr: string;
  /** `--external-address`: host[:port] in `status.urls.base`. */
  readonly externalAddress: string;
  /** `--cache-dir`: `unpack/<catalog>/` image caches and `catalogs/` served content. */
  readonly cacheDir: string;
  /** `--gc-interval` in ms. */
  readonly gcIntervalMs: number;
  /** `--global-pull-secret`. */
  readonly globalPullSecret?: { readonly namespace: string; readonly name: string };
  /** `--tls-cert` / `--tls-key`: the catalog server speaks HTTPS and URLs say https; `--tls-profile` etc.: its TLS profile. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly profile?: TLSProfile };
  /** `--insecure-registries`. */
  readonly insecureRegistries: readonly string[];
  /** `--registries-conf` (or its default): registries.conf mirrors, location rewrites, insecure and blocked registries. */
  readonly registriesConf?: RegistriesConf;
  /** `--platform`. */
  readonly platform?: string;
  /** `--pull-cas-dir`. */
  readonly pullCasDir?: string;
  /** `--feature-gates` APIV1MetasHandler: `/api/v1/metas` served (default true here; upstream's default is false). */
  readonly metasHandler?: boolean;
  /** `--feature-gates` GraphQLCatalogQueries: `POST /catalogs/<name>/api/v1/graphql` served (default false). */
  readonly graphqlQueries?: boolean;
  /** `--max-catalog-files` (default DEFAULT_MAX_CATALOG_FILES). */
  readonly maxCatalogFiles?: number;

  // Knobs for tests and embedding; no flags.
  /** Length of one `pollIntervalMinutes` minute (default 60,000 ms). */
  readonly minuteMs?: number;
  readonly unpackLimits?: Partial<UnpackLimits>;
  /** Extra registry client options (retries, timeouts). */
  readonly registry?: Pick<RegistryClientOptions, 'retries' | 'retryDelayMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'>;
  /** Backoff of both controllers (default: client-go's default controller rate limiter). */
  readonly rateLimiter?: () => RateLimiter<string>;
}

/** The catalog HTTP server as the wiring needs it: listening once created, closed at stop. */
export interface CatalogServer {
  /** Where it listens, e.g. `http://0.0.0.0:8443`. */
  readonly url: string;
  /** Serves until `signal` aborts, then closes; rejects when serving fails (upstream's `catalog server on "<addr>" failed: …`). */
  run(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export interface CatalogServerOptions {
  readonly store: CatalogStore;
  readonly host: string;
  readonly port: number;
  /** `--catalogs-server-addr` as given, which errors name. */
  readonly address?: string;
  /** PEM certificate and key files: HTTPS, under the TLS profile (default intermediate). */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly profile?: TLSProfile };
  /** Serve `/api/v1/metas` (default true). */
  readonly metasEnabled?: boolean;
  /** Serve `/api/v1/graphql` with these queries (unrouted when absent). */
  readonly graphql?: GraphQLQueries;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** What the GraphQL implementation gives the wiring: the store to use instead, and the queries. */
export interface CatalogGraphQL {
  /** The store wrapped so that a catalog's schema is built when it is stored and dropped when it goes. */
  readonly store: CatalogStore;
  readonly queries: GraphQLQueries;
}

/**
 * The concrete store and server (internal/catalogd/storage and internal/catalogd/server),
 * injected by cmd/catalogd so that this folder depends only on their interfaces.
 */
export interface CatalogdImplementations {
  /** A store rooted at `root` (`<cache-dir>/catalogs`), with what is already on disk registered. */
  readonly store: (root: string, logger: Logger) => Promise<CatalogStore> | CatalogStore;
  /** Starts the server; rejects when it cannot listen. */
  readonly server: (options: CatalogServerOptions) => Promise<CatalogServer>;
  /** GraphQL queries over `store` (used when `graphqlQueries` is on; loaded only then). */
  readonly graphql?: (store: CatalogStore, logger: Logger) => Promise<CatalogGraphQL>;
}

/** `<scheme>://<external-address>/catalogs/<name>`. */
export function catalogBaseUrl(options: Pick<CatalogdOptions, 'externalAddress' | 'tls'>, name: string): string {
  return `${options.tls ? 'https' : 'http'}://${options.externalAddress}/catalogs/${name}`;
}

