// catalogd's catalog HTTP(S) server on node:http / node:https (CatalogHttpServer, one method per part): handlers.ts's
// answers, sent the way upstream's middleware chain sends them — handler → gzhttp (gzip for `Accept-Encoding: gzip`
// and bodies of at least 1400 bytes; `Vary: Accept-Encoding` always) → histogram
// `catalogd_http_request_duration_seconds{code}` → one "handled request" access-log line.
//
// Timeouts as upstream's http.Server: 5 s to read a request (headers and body) and 5 s idle on
// a keep-alive connection (ReadTimeout, which IdleTimeout defaults to); a response still being
// written after 5 min is cut (WriteTimeout); close() waits up to 30 s for requests in flight.
// TLS from cert/key files, reloaded when they change (../../shared/tlsprofile's watchCertificate). HTTP/1.1 only, as upstream.
//
//   const server = createCatalogServer({ store, logger, registry: metrics.registry, tls });
//   await server.listen('0.0.0.0', 8443, ':8443'); // fails fast (EADDRINUSE, bad cert), in upstream's words
//   parts.runnables.push(server.runnable);         // serves until the manager stops, then closes; rejects when serving fails
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { pipeline } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { Histogram, type Logger, noopLogger, type Registry } from '../../shared/observability/index.ts';
import { listen, tryOr, untilAborted } from '../../shared/toolkit/index.ts';
import type { CatalogStore } from '../storage/index.ts';
import { closeFile, isFileBody, writeFileBody } from './body.ts';
import { answerCache } from './cache.ts';
import { goListenError, gzipQuality } from './gohttp.ts';
import { GRAPHQL_BODY_LIMIT, type GraphQLQueries, type RequestBody } from './graphql.ts';
import { BAD_REQUEST, answer, goError, isGraphQLTarget, type Answer, type CachedMetas, type HandlerOptions } from './handlers.ts';
import { answerPlainHttp, goTLSServer } from './tls.ts';
import { watchCertificate, type CertWatcher, type TLSProfile } from '../../shared/tlsprofile/index.ts';

export const REQUEST_DURATION_METRIC = 'catalogd_http_request_duration_seconds';
/** Upstream's buckets: every 100 ms to 1 s, ×4 of those, and 10 s. */
export const REQUEST_DURATION_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.2, 1.6, 2, 2.4, 2.8, 3.2, 3.6, 4, 10];
export const DEFAULT_METAS_CACHE_BYTES = 32 << 20;
/** gzhttp: smaller bodies are sent as they are. */
export const GZIP_MIN_SIZE = 1400;
/** WriteTimeout: a response not finished by then is cut. */
const WRITE_TIMEOUT_MS = 5 * 60_000;
/** Graceful shutdown limit; then open connections are closed. */
const SHUTDOWN_TIMEOUT_MS = 30_000;

export interface CatalogServerOptions {
  /** Read per request; when it has `onChange`, a catalog's cached answers go as soon as its content is replaced or removed. */
  readonly store: Pick<CatalogStore, 'get' | 'onChange'>;
  readonly logger?: Logger;
  /** Where the request histogram is registered (the process's metrics registry). */
  readonly registry?: Registry;
  /** Serve `/api/v1/metas` (default true). */
  readonly metasEnabled?: boolean;
  /** Serve `POST /api/v1/graphql` with these queries (the GraphQLCatalogQueries gate; unrouted when absent). */
  readonly graphql?: GraphQLQueries;
  /** Serve HTTPS with this pair, reloaded when the files change. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly profile?: TLSProfile };
  /** Re-read period of the TLS files besides change events (default 10 s). */
  readonly tlsReloadIntervalMs?: number;
  /** ReadTimeout (default 5 s): request headers+body, and keep-alive idle time. */
  readonly readTimeoutMs?: number;
  /** Memory for cached metas answers (default 32 MiB; 0 turns the cache off). */
  readonly metasCacheBytes?: number;
}

export interface CatalogServer {
  /**
   * Binds and serves; resolves to the bound port and `http(s)://host:port`. `address` (default `host:port`) is how
   * errors name it, as upstream names `--catalogs-server-addr`: a bind that fails rejects with
   * `error creating catalog server listener: listen tcp <address>: bind: <errno text>`.
   */
  listen(host: string, port: number, address?: string): Promise<{ port: number; url: string }>;
  /** The URL once listening. */
  readonly url: string | undefined;
  /** Stops accepting, lets requests in flight finish (up to the shutdown timeout), stops the cert watcher. */
  close(): Promise<void>;
  /**
   * A ManagerParts runnable: after listen(), serves until `signal` aborts, then closes; rejects with
   * `catalog server on "<address>" failed: <error>` when the listening server fails.
   */
  readonly runnable: (signal: AbortSignal) => Promise<void>;
  /** Bytes of cached metas answers (of `catalog`, when given). */
  cachedAnswerBytes(catalog?: string): number;
}

/** gzhttp's DefaultContentTypeFilter: not audio/video, nothing already compressed. */
function compressibleType(ct: string): boolean {
  const t = ct.trim().toLowerCase();
  return !(t.includes('compress') || t.includes('zip') || t.startsWith('video/') || t.startsWith('audio/'));
}

/** gzhttp's conditions on the response: not already encoded, no range, big enough, a compressible type. */
function gzipAllowed(headers: Readonly<Record<string, string>>, length: number | undefined): boolean {
  return (
    headers['content-encoding'] === undefined &&
    headers['content-range'] === undefined &&
    (length ?? 0) >= GZIP_MIN_SIZE &&
    compressibleType(headers['content-type'] ?? '')
  );
}

/**
 * The headers an answer goes out with, as gzhttp sends them: Vary on every response it wraps; gzipped, no
 * Accept-Ranges and the ETag made weak (our choice: the gzip bytes are another representation), else the length
 * (none for 304 and 204).
 */
function sendHeaders(a: Answer, gzip: boolean, length: number | undefined): Record<string, string> {
  const headers: Record<string, string> = { vary: 'Accept-Encoding', ...a.headers };
  if (gzip) {
    delete headers['accept-ranges'];
    headers['content-encoding'] = 'gzip';
    if (headers.etag && !headers.etag.startsWith('W/')) headers.etag = `W/${headers.etag}`;
  } else if (length !== undefined && a.status !== 304 && a.status !== 204) headers['content-length'] = String(length);
  if (a.close) headers.connection = 'close';
  return headers;
}

function requestHistogram(registry: Registry | undefined): Histogram<'code'> {
  const existing = registry?.getSingleMetric(REQUEST_DURATION_METRIC);
  if (existing) return existing as Histogram<'code'>;
  return new Histogram({
    name: REQUEST_DURATION_METRIC,
    help: 'Histogram of request duration in seconds',
    labelNames: ['code'],
    buckets: REQUEST_DURATION_BUCKETS,
    registers: registry ? [registry] : [],
  });
}

/** Methods whose request body the GraphQL route may read (the others' bodies are never read). */
const BODY_METHODS = new Set(['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'QUERY']);

/**
 * A request target refused before any handler runs, with BAD_REQUEST and neither logged nor counted: an absolute
 * form that is not a URL with a host (or carries a fragment), or a path (up to `?` or `#`) with a `%` that is not
 * followed by two hex digits or does not decode to UTF-8.
 */
export function unroutableTarget(target: string): boolean {
  let path = target;
  if (path.charCodeAt(0) !== 0x2f) {
    const schemeEnd = path.indexOf('://');
    const scheme = schemeEnd < 0 ? '' : path.slice(0, schemeEnd).toLowerCase();
    if (scheme === 'http' || scheme === 'https') {
      const authority = schemeEnd + 3;
      const slash = path.indexOf('/', authority);
      const query = path.indexOf('?', authority);
      let end = slash < 0 ? path.length : slash;
      if (query >= 0 && query < end) end = query;
      if (path.includes('#', authority) || end === authority) return true;
      const parsed = URL.canParse(path) ? new URL(path) : undefined;
      if (!parsed || parsed.protocol !== `${scheme}:` || parsed.host === '') return true;
      path = end === path.length ? '/' : end === query ? `/${path.slice(query)}` : path.slice(slash);
    }
  }
  let cut = path.length;
  for (const c of ['?', '#']) {
    const i = path.indexOf(c, 1);
    if (i >= 0 && i < cut) cut = i;
  }
  const p = path.slice(0, cut);
  // decodeURI throws on a bad escape or bad UTF-8.
  return p.includes('%', 1) && tryOr(() => decodeURI(p) === undefined, true);
}

/** What a client is told before its connection closes when its request cannot be read (node:http's clientError), by code. */
const CLIENT_ERROR_ANSWERS: Readonly<Record<string, string>> = {
  ERR_HTTP_REQUEST_TIMEOUT:
    'HTTP/1.1 408 Request Timeout\r\nContent-Length: 71\r\nContent-Type: application/json\r\n\r\n' +
    '{"error":"Request Timeout","message":"Client Timeout","statusCode":408}',
  HPE_HEADER_OVERFLOW:
    'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 114\r\nContent-Type: application/json\r\n\r\n' +
    '{"error":"Request Header Fields Too Large","message":"Exceeded maximum allowed HTTP header size","statusCode":431}',
};

/** BAD_REQUEST's answer, written before any request exists: for any other code. */
const CLIENT_BAD_REQUEST =
  `HTTP/1.1 400 Bad Request\r\nContent-Type: ${BAD_REQUEST.headers['content-type'] ?? ''}\r\nContent-Length: ${BAD_REQUEST.body?.length ?? 0}\r\n` +
  `Connection: close\r\n\r\n${BAD_REQUEST.body?.toString() ?? ''}`;

function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const text = CLIENT_ERROR_ANSWERS[err.code ?? ''] ?? CLIENT_BAD_REQUEST;
  if (socket.writable) socket.write(text);
  socket.destroy(err);
}

/** The answer to a request arriving on an open connection while the server closes. */
const CLOSING_BODY = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';

/** The catalog HTTP(S) server: `createCatalogServer` builds one. */
class CatalogHttpServer implements CatalogServer {
  readonly #options: CatalogServerOptions;
  readonly #log: Logger;
  readonly #histogram: Histogram<'code'>;
  readonly #handlerOptions: HandlerOptions;
  readonly #readTimeout: number;
  /** Body bytes sent per response, for the access log. */
  readonly #sent = new WeakMap<ServerResponse, number>();
  /** What a shared answer's response is, once worked out (sendShared). */
  readonly #prepared = new WeakMap<Answer, Prepared>();
  #server: Server | undefined;
  #certs: CertWatcher | undefined;
  #url: string | undefined;
  #closing: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  /** Settles with the error of a server that failed after it began listening. */
  #failed: Promise<never> | undefined;

  constructor(options: CatalogServerOptions) {
    this.#options = options;
    this.#log = options.logger ?? noopLogger;
    this.#histogram = requestHistogram(options.registry);
    this.#handlerOptions = {
      store: options.store,
      metasEnabled: options.metasEnabled ?? true,
      prefix: '/catalogs/',
      ...(options.graphql && { graphql: options.graphql }),
      ...(options.metasCacheBytes !== 0 && { cache: answerCache<CachedMetas>(options.metasCacheBytes ?? DEFAULT_METAS_CACHE_BYTES) }),
    };
    // A deleted or replaced catalog's answers (and the StoredCatalog, index included, that each keeps) go at once,
    // not when newer answers push them out of the cache (issue 32).
    const { cache } = this.#handlerOptions;
    const { store } = options;
    if (cache && store.onChange) this.#unsubscribe = store.onChange((name) => cache.deleteWhere((_, v) => v.catalog === name && store.get(name) !== v.stored));
    this.#readTimeout = options.readTimeoutMs ?? 5000;
  }

  get url(): string | undefined {
    return this.#url;
  }

  async listen(host: string, port: number, address?: string): Promise<{ port: number; url: string }> {
    if (this.#server) throw new Error('the catalog server is already listening');
    const named = address ?? (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
    let bound: { port: number; hostPort: string };
    let s: Server;
    try {
      s = this.#server = await this.#build();
    } catch (err) {
      this.#server = undefined;
      throw err;
    }
    try {
      bound = await listen(s, host, port, 'catalog server');
    } catch (err) {
      this.#certs?.stop();
      this.#server = undefined;
      throw new Error(`error creating catalog server listener: ${goListenError(err, named)}`, { cause: err });
    }
    // upstream: `catalog server on %q failed: %w` from http.Server.Serve, which the manager's runnable returns.
    this.#failed = new Promise<never>((_, reject) => {
      s.once('error', (err) => reject(new Error(`catalog server on ${JSON.stringify(named)} failed: ${err.message}`, { cause: err })));
    });
    this.#failed.catch(() => undefined); // observed by runnable
    const url = `${this.#options.tls ? 'https' : 'http'}://${bound.hostPort}`;
    this.#url = url;
    this.#log.info('serving catalogs', { address: url, tls: this.#options.tls !== undefined });
    return { port: bound.port, url };
  }

  cachedAnswerBytes(catalog?: string): number {
    const cache = this.#handlerOptions.cache;
    if (!cache) return 0;
    if (catalog === undefined) return cache.bytes;
    return [...cache.values()].filter((v) => v.catalog === catalog).reduce((n, v) => n + v.length, 0);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#unsubscribe?.();
      this.#certs?.stop();
      if (!this.#server) return;
      const s = this.#server;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          s.closeAllConnections();
          resolve();
        }, SHUTDOWN_TIMEOUT_MS);
        timer.unref();
      });
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      await Promise.race([closed, deadline]);
      clearTimeout(timer);
    })();
    return this.#closing;
  }

  readonly runnable = async (signal: AbortSignal): Promise<void> => {
    if (!this.#server || !this.#failed) throw new Error('the catalog server is not listening: call listen() first');
    try {
      await Promise.race([untilAborted(signal), this.#failed]);
    } finally {
      await this.close();
    }
  };

  /** The node:http(s) server with upstream's timeouts; HTTPS with the watched certificate pair. */
  async #build(): Promise<Server> {
    const timeouts = { headersTimeout: this.#readTimeout, requestTimeout: this.#readTimeout, connectionsCheckingInterval: Math.min(1000, this.#readTimeout) };
    let s: Server;
    if (this.#options.tls) {
      const { profile, ...files } = this.#options.tls;
      const goTLS = goTLSServer(profile);
      this.#certs = await watchCertificate({
        ...files,
        ...(this.#options.tlsReloadIntervalMs !== undefined && { intervalMs: this.#options.tlsReloadIntervalMs }),
        logger: this.#log,
        onChange: (pair) => (this.#server as ReturnType<typeof createHttpsServer> | undefined)?.setSecureContext({ ...pair, ...goTLS }),
      });
      try {
        s = createHttpsServer({ ...this.#certs.current, ...goTLS, ALPNProtocols: ['http/1.1'], ...timeouts }, this.#onRequest); // throws when the pair does not load
      } catch (err) {
        this.#certs.stop();
        throw err;
      }
      answerPlainHttp(s, this.#readTimeout);
    } else {
      s = createHttpServer(timeouts, this.#onRequest);
    }
    s.keepAliveTimeout = this.#readTimeout;
    s.requestTimeout = this.#readTimeout;
    s.on('clientError', onClientError);
    return s;
  }

  /** Every request: refused targets, the 503 while closing, else observed and answered (the GraphQL body read first). */
  readonly #onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const target = req.url ?? '/';
    if (unroutableTarget(target)) return this.#send(req, res, BAD_REQUEST);
    if (this.#closing) {
      res.setHeader('Connection', 'close');
      res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': '80' });
      res.end(CLOSING_BODY);
      return;
    }
    this.#observe(req, res);
    const method = req.method ?? 'GET';
    const h = req.headers;
    const hasBody = h['content-type'] !== undefined || h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
    if (this.#options.graphql && hasBody && BODY_METHODS.has(method) && isGraphQLTarget(target)) readBody(req, (b) => this.#handle(req, res, b));
    else this.#handle(req, res, undefined);
  };

  /** Per request: the write timeout, and the histogram and access log once the response closes. */
  #observe(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const cut = setTimeout(() => res.destroy(), WRITE_TIMEOUT_MS);
    cut.unref();
    res.once('close', () => {
      clearTimeout(cut);
      const code = String(res.statusCode);
      this.#histogram.observe({ code }, (performance.now() - started) / 1000);
      this.#log.info('handled request', {
        host: req.socket.remoteAddress ?? '',
        username: '-',
        method: req.method,
        uri: req.url,
        protocol: `HTTP/${req.httpVersion}`,
        status: res.statusCode,
        size: this.#sent.get(res) ?? 0,
      });
    });
  }

  /** The handlers' answer (handlers.ts) to one request, sent; a failure is a 500 (or a cut response). */
  #handle(req: IncomingMessage, res: ServerResponse, body: RequestBody | undefined): void {
    const fail = (err: unknown): void => {
      this.#log.error('catalog request failed', { err });
      if (res.headersSent) res.destroy();
      else this.#send(req, res, goError(500, '500 Internal Server Error'));
    };
    // A body left partly unread: the connection cannot carry another request (net/http closes it too).
    const sendIt = (x: Answer): void => this.#send(req, res, body?.truncated && !x.close ? { ...x, close: true } : x);
    try {
      const a = answer({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ...(body && { body }) }, this.#handlerOptions);
      if (a instanceof Promise) a.then(sendIt).catch(fail);
      else sendIt(a);
    } catch (err) {
      fail(err);
    }
  }

  /** An answer sent the way gzhttp sends it: Vary, gzip when asked and allowed, else Content-Length. */
  #send(req: IncomingMessage, res: ServerResponse, a: Answer): void {
    const method = req.method ?? 'GET';
    if (a.shared && Buffer.isBuffer(a.body) && method === 'GET') return this.#sendShared(req, res, a, a.body);
    let body = a.body;
    const length = a.length ?? (Buffer.isBuffer(body) ? body.length : undefined);
    if (method === 'HEAD' && body !== undefined) {
      if (isFileBody(body)) closeFile(body.fd);
      body = undefined;
    }
    const gzip =
      body !== undefined &&
      method !== 'HEAD' && // gzhttp never compresses HEAD (nginx bug 358)
      gzipQuality(req.headers['accept-encoding']) > 0 &&
      gzipAllowed(a.headers, length);
    const headers = sendHeaders(a, gzip, length);
    if (body === undefined) {
      // No body: an explicit zero length, except where none may be sent (304, HEAD keeps the GET's).
      if (a.status >= 200 && a.status !== 204 && a.status !== 304 && method !== 'HEAD') headers['content-length'] = '0';
      res.writeHead(a.status, headers);
      res.end();
      return;
    }
    if (gzip) {
      // Chunked, no Content-Length; the head goes out with the first compressed bytes.
      res.statusCode = a.status;
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      const compressed = createGzip();
      let n = 0;
      compressed.on('data', (chunk: Buffer) => void (n += chunk.length));
      compressed.once('end', () => this.#sent.set(res, n));
      // A failed read (writeFileBody destroys the gzip stream) or a client gone cuts the response, as a failed copy
      // cuts a Go one.
      pipeline(compressed, res, (err) => void (err && res.destroy()));
      if (Buffer.isBuffer(body)) compressed.end(body);
      else writeFileBody(compressed, body);
      return;
    }
    if (Buffer.isBuffer(body)) return this.#sendBuffer(res, a.status, headers, body);
    // A file body: its bytes are counted as they go (body.ts writeFileBody).
    this.#sent.set(res, 0);
    res.writeHead(a.status, headers);
    writeFileBody(res, body, (bytes) => this.#sent.set(res, bytes));
  }

  /**
   * A shared answer (a cached metas GET): its headers, and its gzip bytes when a client first
   * asks for them, are worked out once and kept with it (the same rules as send()).
   */
  #sendShared(req: IncomingMessage, res: ServerResponse, a: Answer, body: Buffer): void {
    let p = this.#prepared.get(a);
    if (!p) {
      p = { plain: sendHeaders(a, false, body.length) };
      this.#prepared.set(a, p);
    }
    const accept = req.headers['accept-encoding'];
    if (accept !== undefined && gzipQuality(accept) > 0) {
      if (!p.gzip && gzipAllowed(a.headers, body.length)) p.gzip = { headers: sendHeaders(a, true, body.length), body: gzipSync(body) };
      // writeHead without Content-Length, then end(): chunked, as the streamed gzip answers are.
      if (p.gzip) return this.#sendBuffer(res, a.status, p.gzip.headers, p.gzip.body);
    }
    return this.#sendBuffer(res, a.status, p.plain, body);
  }

  /** Status line, headers and a buffer body onto the socket (one writev). */
  #sendBuffer(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
    this.#sent.set(res, body.length);
    res.writeHead(status, headers);
    res.end(body);
  }
}

/** What a shared answer's response is, once worked out: final headers, and the gzip bytes. */
interface Prepared {
  readonly plain: Record<string, string>;
  gzip?: { readonly headers: Record<string, string>; readonly body: Buffer };
}

/**
 * The body of a request to the GraphQL route: up to GRAPHQL_BODY_LIMIT bytes and one more to
 * tell a longer body (the rest is left unread and the connection closes after the answer).
 */
function readBody(payload: IncomingMessage, done: (body: RequestBody) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  const finish = (truncated: boolean): void => {
    if (finished) return;
    finished = true;
    payload.removeListener('data', onData);
    done({ bytes: Buffer.concat(chunks, length), truncated });
  };
  const onData = (chunk: Buffer): void => {
    const room = GRAPHQL_BODY_LIMIT + 1 - length;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    length += Math.min(room, chunk.length);
    if (length > GRAPHQL_BODY_LIMIT) {
      payload.pause();
      finish(true);
    }
  };
  payload.on('data', onData);
  payload.once('end', () => finish(false));
  payload.once('error', () => finish(true)); // a body that cannot be read cannot be decoded
}

export function createCatalogServer(options: CatalogServerOptions): CatalogServer {
  return new CatalogHttpServer(options);
}
