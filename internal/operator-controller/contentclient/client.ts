// The content client: catalogd's `/api/v1/all` fetched into a per-package CatalogIndex, one
// version per catalog, with upstream's semantics (catalogmetadata/client + cache, olmv1.md §3.1):
// - the cache is keyed by catalog name and `status.resolvedSource.image.ref`; a new ref replaces;
// - transport failures (and bodies that do not parse) are cached for that catalog + ref and
//   returned by later reads; a non-200 answer is not cached;
// - reads check the catalog first (`is not being served`, nil resolvedSource / image) and answer
//   `cache for catalog "<n>" not found` when the cached ref is another one.
// Beyond upstream: concurrent populates of one ref share one fetch; `getPackage` populates on
// demand when nothing is cached for the catalog's ref (off with `populateOnDemand: false`); the
// body is streamed and indexed line by line, never held as one string.
import { mkdir, rm } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { loadUndici, type Dispatcher, type Undici } from '../../shared/http/index.ts';
import type { CaPool } from '../../shared/image/index.ts';
import { clientOptions, type TLSProfile } from '../../shared/tlsprofile/index.ts';
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import { TypeServing } from '../../../api/v1/index.ts';
import { collectGarbage, noopLogger, type Logger } from '../../shared/observability/index.ts';
import { errorMessage, raceAbort, tryOr, tryOrThrow } from '../../shared/toolkit/index.ts';
import { CatalogIndexBuilder, type CatalogIndex, type CatalogIndexOptions } from './catalog-index.ts';
import { ContentClientError, msg } from './messages.ts';
import type { CatalogContentClient, PackageContent } from './types.ts';

/** Upstream's http.Client timeout for catalogd requests (the whole exchange, body included). */
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const API_V1_ALL = 'api/v1/all';
/** Background cache fills that may fail in a row before it is logged as an error. */
const QUIET_CACHE_ATTEMPTS = 3;

export interface HttpContentClientOptions {
  /**
   * PEM CA certificates trusted for https bases (`--catalogd-cas-dir`), added to the system roots; a CaPool (the
   * directory watched) is read per request, and new connections are made when its generation changes.
   */
  readonly caCerts?: readonly (Buffer | string)[] | CaPool;
  /** The TLS profile of https connections (`--tls-profile` etc.; default intermediate, as upstream's). */
  readonly tlsProfile?: TLSProfile;
  /** Whole-request timeout (default 5 minutes, as upstream). */
  readonly timeoutMs?: number;
  /** A dispatcher of the caller's (tests); default: an Agent of this client's own (proxy from the environment). */
  readonly dispatcher?: Dispatcher;
  /** `getPackage` fetches when nothing is cached for the catalog's ref (default true; upstream: false). */
  readonly populateOnDemand?: boolean;
  /** LRU bounds of each catalog's decoded packages. */
  readonly index?: CatalogIndexOptions;
  /**
   * Keep each catalog's lines in a file in this directory (emptied first; `<--cache-path>/catalogs`, as upstream's
   * cache) instead of memory: written as the lines arrive, unlinked as soon as it is opened, read through its descriptor.
   */
  readonly cacheDir?: string;
  readonly logger?: Logger;
  /** First delay before `catalogChanged` retries a failed populate (default 1 s, doubling to 5 min). */
  readonly retryBaseMs?: number;
}

type Entry = { readonly ref: string; readonly index: CatalogIndex } | { readonly ref: string; readonly error: Error };

interface InFlight {
  readonly ref: string;
  readonly promise: Promise<CatalogIndex>;
}

/** Thrown by populate for what upstream does not cache (a non-200 answer). */
class UncachedError extends ContentClientError {}

const proxyConfigured = (): boolean =>
  ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some((k) => (process.env[k] ?? '') !== '');

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]';

/** upstream validateCatalog: what every read and populate checks first. Returns the resolved ref. */
export function validateCatalog(catalog: ClusterCatalog): string {
  const name = catalog.metadata.name ?? '';
  const serving = catalog.status?.conditions?.some((c) => c.type === TypeServing && c.status === 'True') ?? false;
  if (!serving) throw new ContentClientError(msg.notServed(name));
  const resolved = catalog.status?.resolvedSource;
  if (resolved === undefined || resolved === null) throw new ContentClientError(msg.nilResolvedSource(name));
  if (resolved.image === undefined || resolved.image === null) throw new ContentClientError(msg.nilResolvedImage(name));
  return resolved.image.ref;
}

/** Go's url.JoinPath(base, "api/v1/all") for the bases catalogd writes. */
export function allEndpoint(base: string): string {
  const u = tryOrThrow(() => new URL(base), (e) => new ContentClientError(msg.formingEndpoint(errorMessage(e))));
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${API_V1_ALL}`;
  return u.toString();
}

const UNKNOWN_AUTHORITY = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** TLS alerts the server sent, as Go's crypto/tls words them (`remote error: tls: <alert>`). */
const REMOTE_ALERTS: Readonly<Record<string, string>> = {
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'handshake failure',
  // OpenSSL 3.5 (Node 24) names the same alert so.
  'ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE': 'handshake failure',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'protocol version not supported',
};

/** The proxy the environment names for a URL of this scheme (undici's EnvHttpProxyAgent and Go read the same variables). */
function environmentProxy(protocol: string): URL | undefined {
  const raw = protocol === 'https:' ? (process.env['HTTPS_PROXY'] ?? process.env['https_proxy']) : (process.env['HTTP_PROXY'] ?? process.env['http_proxy']);
  return tryOr(() => (raw ? new URL(raw) : undefined), undefined);
}

/** The cause of a failed request, worded like Go's net/http where the cases are common. */
function transportError(url: string, e: unknown, timedOut: boolean): string {
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException & { address?: string; port?: number } };
  const cause = err.cause ?? (err as typeof err.cause & object);
  const u = new URL(url);
  const proxy = environmentProxy(u.protocol);
  const proxyPort = proxy && (proxy.port || (proxy.protocol === 'https:' ? '443' : '80'));
  const tunnel = /Proxy response \((\d{3})\) !== 200/.exec(`${err.message} ${cause.message}`);
  let detail: string;
  if (timedOut) detail = 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
  // The proxy itself refused the connection: Go's `proxyconnect` error names the proxy's address.
  else if (proxy && cause.code === 'ECONNREFUSED' && String(cause.port) === proxyPort) detail = `proxyconnect tcp: dial tcp ${proxy.hostname}:${proxyPort}: connect: connection refused`;
  // The proxy answered CONNECT with another status: Go gives the status text (`Bad Gateway`).
  else if (tunnel) detail = STATUS_CODES[Number(tunnel[1])] ?? 'unknown status code';
  else if (cause.code === 'ECONNREFUSED') detail = `dial tcp ${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}: connect: connection refused`;
  else if (cause.code === 'ENOTFOUND') detail = `dial tcp: lookup ${u.hostname}: no such host`;
  else if (cause.code !== undefined && UNKNOWN_AUTHORITY.has(cause.code)) detail = 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  else if (cause.code !== undefined && REMOTE_ALERTS[cause.code] !== undefined) detail = `remote error: tls: ${REMOTE_ALERTS[cause.code]}`;
  else detail = cause.message || err.message || String(e);
  return `Get ${JSON.stringify(url)}: ${detail}`;
}

/**
 * operator-controller's catalog content cache over catalogd's HTTP API. Also the
 * `CatalogContentCache` the controller wiring expects (`catalogChanged` / `catalogDeleted`).
 */
export class HttpContentClient implements CatalogContentClient {
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Map<string, InFlight>();
  /** Bumped by every populate start and remove: a fetch only stores its result while it is the latest. */
  readonly #generation = new Map<string, number>();
  readonly #retries = new Map<string, { timer: NodeJS.Timeout; attempt: number; ref: string }>();
  /** The options as given; those read once are read there, with their defaults. */
  readonly #o: HttpContentClientOptions;
  /** This client's own dispatchers, made on the first fetch without a caller's (with a proxy one when configured). */
  #own: { direct: Dispatcher; proxy: Dispatcher | undefined; caGeneration: number } | undefined;
  readonly #timeoutMs: number;
  /** The cache directory emptied and created, once. */
  #cacheReady: Promise<void> | undefined;
  #files = 0;
  readonly #logger: Logger;
  #fetches = 0;

  constructor(opts: HttpContentClientOptions = {}) {
    this.#o = opts;
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#logger = opts.logger ?? noopLogger;
  }

  /** undici's `request` and the dispatcher for `url`: the caller's, or this client's own (made once). */
  async #http(url: string): Promise<{ request: Undici['request']; dispatcher: Dispatcher }> {
    const undici = await loadUndici();
    if (this.#o.dispatcher) return { request: undici.request, dispatcher: this.#o.dispatcher };
    const ca = this.#o.caCerts;
    const caGeneration = ca && 'generation' in ca ? ca.generation : 0;
    if (this.#own && this.#own.caGeneration !== caGeneration) {
      // upstream builds each fetch's client from the watched pool: connections from now on trust the reloaded one.
      for (const d of [this.#own.direct, this.#own.proxy]) void d?.close().catch(() => undefined);
      this.#own = undefined;
    }
    if (!this.#own) {
      const certs = ca && 'generation' in ca ? ca.certs : ca;
      // Upstream's client applies the TLS profile (default intermediate: TLS 1.2+, AEAD ECDHE suites, its curves).
      const connect = {
        ...clientOptions(this.#o.tlsProfile),
        ...(certs && certs.length > 0 && { ca: [...rootCertificates, ...certs.map((c) => c.toString())] }),
      };
      const timeouts = { headersTimeout: this.#timeoutMs, bodyTimeout: this.#timeoutMs };
      // Go's ProxyFromEnvironment: proxies per HTTP(S)_PROXY / NO_PROXY, never for loopback hosts.
      this.#own = {
        direct: new undici.Agent({ ...timeouts, connect }),
        proxy: proxyConfigured() ? new undici.EnvHttpProxyAgent({ ...timeouts, connect }) : undefined,
        caGeneration,
      };
    }
    const { direct, proxy } = this.#own;
    return { request: undici.request, dispatcher: proxy && !isLoopback(new URL(url).hostname) ? proxy : direct };
  }

  /** Fetches started so far (tests and metrics). */
  get fetches(): number {
    return this.#fetches;
  }

  /** The ref cached for a catalog and whether it holds content or an error (undefined: nothing cached). */
  cached(catalogName: string): { readonly ref: string; readonly error?: Error; readonly index?: CatalogIndex } | undefined {
    return this.#entries.get(catalogName);
  }

  /**
   * upstream PopulateCache: GET `<status.urls.base>/api/v1/all` and replace the catalog's cache
   * with its content (or with the error, unless the answer was a non-200). Concurrent calls for
   * the same catalog and ref share one fetch. Rejects with the error either way.
   */
  async populateCache(catalog: ClusterCatalog, signal?: AbortSignal): Promise<CatalogIndex> {
    const ref = validateCatalog(catalog);
    const name = catalog.metadata.name ?? '';
    const running = this.#inFlight.get(name);
    if (running && running.ref === ref) return raceAbort(running.promise, signal);
    const generation = (this.#generation.get(name) ?? 0) + 1;
    this.#generation.set(name, generation);
    const promise = this.#fetch(name, ref, catalog.status?.urls?.base).then(
      (index) => {
        this.#settle(name, generation, { ref, index });
        return index;
      },
      (e: unknown) => {
        const err = e instanceof Error ? e : new Error(String(e));
        this.#settle(name, generation, err instanceof UncachedError ? undefined : { ref, error: err });
        throw err;
      },
    );
    promise.catch(() => {}); // a caller that stopped waiting must not leave an unhandled rejection
    this.#inFlight.set(name, { ref, promise });
    return raceAbort(promise, signal);
  }

  #settle(name: string, generation: number, entry: Entry | undefined): void {
    if (this.#generation.get(name) !== generation) return; // removed, or a newer populate started
    this.#inFlight.delete(name);
    if (entry) this.#entries.set(name, entry);
  }

  async #fetch(name: string, ref: string, base: string | undefined): Promise<CatalogIndex> {
    this.#fetches++;
    if (base === undefined || base === null) throw new ContentClientError(msg.nilUrls(name));
    const url = allEndpoint(base);
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let res: Dispatcher.ResponseData;
    try {
      const { request, dispatcher } = await this.#http(url);
      res = await request(url, { method: 'GET', dispatcher, signal: timeout });
    } catch (e) {
      throw new ContentClientError(msg.performingRequest(transportError(url, e, timeout.aborted)), { cause: e });
    }
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => {});
      throw new UncachedError(msg.unexpectedStatus(res.statusCode));
    }
    const dir = this.#o.cacheDir;
    const builder = await (dir ? this.#fileBuilder(dir, name) : Promise.resolve(new CatalogIndexBuilder(this.#o.index))).catch(async (e: unknown) => {
      await res.body.dump().catch(() => {});
      throw e;
    });
    let index: CatalogIndex;
    try {
      for await (const chunk of res.body) builder.push(chunk as Buffer);
      index = builder.finish();
    } catch (e) {
      res.body.destroy();
      builder.discard();
      if (e instanceof ContentClientError) throw e; // already `error parsing catalog contents: …` or `error writing …`
      const detail = timeout.aborted ? 'context deadline exceeded (Client.Timeout or context cancellation while reading body)' : errorMessage(e);
      throw new ContentClientError(msg.parsingContents(detail), { cause: e });
    }
    collectGarbage(); // the download's chunks and the parse's garbage, gone at once (shared/observability/memory.ts)
    this.#logger.debug('catalog content cached', { catalog: name, ref, bytes: index.jsonlBytes, packages: index.packageNames().length });
    return index;
  }

  /** A builder writing the catalog's lines to a new file in the cache directory (emptied on first use) as they come. */
  async #fileBuilder(dir: string, name: string): Promise<CatalogIndexBuilder> {
    this.#cacheReady ??= rm(dir, { recursive: true, force: true }).then(async () => void (await mkdir(dir, { recursive: true, mode: 0o700 })));
    await this.#cacheReady.catch((e: unknown) => {
      this.#cacheReady = undefined; // tried again by the next populate
      throw new ContentClientError(msg.creatingCacheDir(errorMessage(e)), { cause: e });
    });
    return CatalogIndexBuilder.toFile(join(dir, `${name}.${++this.#files}.jsonl`), this.#o.index);
  }

  /**
   * upstream GetPackage: the package's content in the catalog as cached for its resolved ref.
   * Nothing cached for that ref: fetched first when `populateOnDemand` (the default), else
   * `cache for catalog "<n>" not found`. A cached populate error is returned as
   * `error retrieving cache for catalog "<n>": <err>`.
   */
  async getPackage(catalog: ClusterCatalog, packageName: string, signal?: AbortSignal): Promise<PackageContent> {
    const ref = validateCatalog(catalog);
    const name = catalog.metadata.name ?? '';
    let entry = this.#entries.get(name);
    if ((!entry || entry.ref !== ref) && (this.#o.populateOnDemand ?? true)) {
      await this.populateCache(catalog, signal).catch((e: unknown) => {
        if (signal?.aborted) throw e;
        // The outcome, cached or not, is read back below as upstream's reads see it.
      });
      entry = this.#entries.get(name);
    }
    if (!entry || entry.ref !== ref) throw new ContentClientError(msg.cacheNotFound(name));
    if ('error' in entry) throw new ContentClientError(msg.retrievingCache(name, entry.error.message), { cause: entry.error });
    return entry.index.getPackage(packageName);
  }

  /** upstream cache Remove: forget a deleted catalog (and any fetch still running for it). */
  remove(catalogName: string): void {
    this.#entries.delete(catalogName);
    this.#inFlight.delete(catalogName);
    this.#generation.set(catalogName, (this.#generation.get(catalogName) ?? 0) + 1);
    this.#cancelRetry(catalogName);
  }

  /**
   * upstream's ClusterCatalog reconcile for operator-controller: `undefined` (the catalog is gone)
   * removes its cache; a catalog without a resolved ref is skipped; one whose ref is already
   * cached with content is left alone; otherwise (new ref, or a cached error) it is populated.
   * Rejects with `error populating cache for catalog "<n>": <err>`.
   */
  async syncCatalog(name: string, catalog: ClusterCatalog | undefined, signal?: AbortSignal): Promise<void> {
    if (catalog === undefined) {
      this.remove(name);
      return;
    }
    const ref = catalog.status?.resolvedSource?.image?.ref;
    if (ref === undefined || ref === '') return; // not resolved yet: a later event brings it
    const entry = this.#entries.get(name);
    if (entry && entry.ref === ref && 'index' in entry) return;
    if (entry && entry.ref === ref && 'error' in entry) this.#logger.info('retrying cache population: found previous error from catalog cache', { catalog: name, cacheErr: entry.error.message });
    await this.populateCache(catalog, signal).catch((e: unknown) => {
      throw new ContentClientError(msg.populating(name, errorMessage(e)), { cause: e });
    });
  }

  /** Informer add/update: sync in the background, retrying failures with backoff while the ref stays. */
  catalogChanged(catalog: ClusterCatalog): void {
    const name = catalog.metadata.name ?? '';
    const ref = catalog.status?.resolvedSource?.image?.ref ?? '';
    const pending = this.#retries.get(name);
    if (pending && pending.ref !== ref) this.#cancelRetry(name);
    this.syncCatalog(name, catalog).then(
      () => this.#cancelRetry(name),
      (e: unknown) => {
        const attempt = (this.#retries.get(name)?.attempt ?? 0) + 1;
        // A catalog just served, or catalogd busy, often answers the next try: only a run of failures is an error.
        const level = attempt > QUIET_CACHE_ATTEMPTS ? 'error' : 'info';
        this.#logger[level]('catalog content not cached', { catalog: name, ref, attempt, error: errorMessage(e) });
        this.#cancelRetry(name);
        const delay = Math.min((this.#o.retryBaseMs ?? 1000) * 2 ** (attempt - 1), 5 * 60_000);
        const timer = setTimeout(() => {
          this.#retries.set(name, { timer, attempt, ref });
          this.catalogChanged(catalog);
        }, delay);
        timer.unref();
        this.#retries.set(name, { timer, attempt, ref });
      },
    );
  }

  /** Informer delete. */
  catalogDeleted(name: string): void {
    this.remove(name);
  }

  #cancelRetry(name: string): void {
    const r = this.#retries.get(name);
    if (r) clearTimeout(r.timer);
    this.#retries.delete(name);
  }

  /** Stops retries and closes the client's own connections. */
  async close(): Promise<void> {
    for (const name of [...this.#retries.keys()]) this.#cancelRetry(name);
    await this.#own?.direct.close();
    await this.#own?.proxy?.close();
  }
}
