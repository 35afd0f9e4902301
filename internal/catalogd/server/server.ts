// catalogd's catalog HTTP(S) server on fastify 5: handlers.ts's answers, sent the way upstream's
// middleware chain sends them — handler → gzhttp (gzip for `Accept-Encoding: gzip` and bodies of
// at least 1400 bytes; `Vary: Accept-Encoding` always) → histogram
// `catalogd_http_request_duration_seconds{code}` → one "handled request" access-log line.
//
// Timeouts as upstream's http.Server: 5 s to read a request (headers and body) and 5 s idle on
// a keep-alive connection (ReadTimeout, which IdleTimeout defaults to); a response still being
// written after 5 min is cut (WriteTimeout); close() waits up to 30 s for requests in flight.
// TLS from cert/key files, reloaded when they change (tls.ts). HTTP/1.1 only, as upstream.
//
//   const server = createCatalogServer({ store, logger, registry: metrics.registry, tls });
//   await server.listen('0.0.0.0', 8443);          // fails fast (EADDRINUSE, bad cert)
//   parts.runnables.push(server.runnable);         // serves until the manager stops, then closes
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { Readable, pipeline } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { Histogram, type Registry } from 'prom-client';
import { noopLogger, type Logger } from '../../shared/observability/index.ts';
import type { CatalogStore } from '../storage/index.ts';
import { discardFileBody, fileBodyStream, isFileBody, writeFileBody, type FileBody } from './body.ts';
import { answerCache } from './cache.ts';
import { gzipQuality } from './gohttp.ts';
import { GRAPHQL_BODY_LIMIT, type GraphQLQueries, type RequestBody } from './graphql.ts';
import { BAD_REQUEST, answer, isGraphQLTarget, type Answer, type CachedMetas, type HandlerOptions } from './handlers.ts';
import { answerPlainHttp, watchCertificate, type CertWatcher } from './tls.ts';

/** Upstream's `--catalogs-server-addr` default. */
export const DEFAULT_CATALOGS_SERVER_ADDR = ':8443';
export const REQUEST_DURATION_METRIC = 'catalogd_http_request_duration_seconds';
/** Upstream's buckets: every 100 ms to 1 s, ×4 of those, and 10 s. */
export const REQUEST_DURATION_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.2, 1.6, 2, 2.4, 2.8, 3.2, 3.6, 4, 10];
export const DEFAULT_METAS_CACHE_BYTES = 32 << 20;
/** gzhttp: smaller bodies are sent as they are. */
export const GZIP_MIN_SIZE = 1400;

export interface CatalogServerOptions {
  readonly store: Pick<CatalogStore, 'get'>;
  readonly logger?: Logger;
  /** Where the request histogram is registered (the process's metrics registry). */
  readonly registry?: Registry;
  /** Serve `/api/v1/metas` (default true). */
  readonly metasEnabled?: boolean;
  /** Serve `POST /api/v1/graphql` with these queries (the GraphQLCatalogQueries gate; unrouted when absent). */
  readonly graphql?: GraphQLQueries;
  /** Serve HTTPS with this pair, reloaded when the files change. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Re-read period of the TLS files besides change events (default 10 s). */
  readonly tlsReloadIntervalMs?: number;
  /** Path of the catalogs base URL (default `/catalogs/`). */
  readonly pathPrefix?: string;
  /** ReadTimeout (default 5 s): request headers+body, and keep-alive idle time. */
  readonly readTimeoutMs?: number;
  /** WriteTimeout (default 5 min): a response not finished by then is cut. */
  readonly writeTimeoutMs?: number;
  /** Graceful shutdown limit (default 30 s); then open connections are closed. */
  readonly shutdownTimeoutMs?: number;
  /** Memory for cached metas answers (default 32 MiB; 0 turns the cache off). */
  readonly metasCacheBytes?: number;
}

export interface CatalogServer {
  /** Binds and serves; resolves to the bound port and `http(s)://host:port`. */
  listen(host: string, port: number): Promise<{ port: number; url: string }>;
  /** The URL once listening. */
  readonly url: string | undefined;
  /** Stops accepting, lets requests in flight finish (up to the shutdown timeout), stops the cert watcher. */
  close(): Promise<void>;
  /** A ManagerParts runnable: after listen(), serves until `signal` aborts, then closes. */
  readonly runnable: (signal: AbortSignal) => Promise<void>;
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

/** Headers of a gzipped answer: no Accept-Ranges, and the ETag made weak. */
function gzipHeaders(headers: Record<string, string>): void {
  delete headers['accept-ranges'];
  headers['content-encoding'] = 'gzip';
  // Our choice (gzhttp leaves it): the gzip bytes are another representation, so the tag is weak.
  if (headers.etag && !headers.etag.startsWith('W/')) headers.etag = `W/${headers.etag}`;
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

export function createCatalogServer(options: CatalogServerOptions): CatalogServer {
  const log = options.logger ?? noopLogger;
  const histogram = requestHistogram(options.registry);
  const handlerOptions: HandlerOptions = {
    store: options.store,
    metasEnabled: options.metasEnabled ?? true,
    prefix: options.pathPrefix ?? '/catalogs/',
    ...(options.graphql && { graphql: options.graphql }),
    ...(options.metasCacheBytes !== 0 && { cache: answerCache<CachedMetas>(options.metasCacheBytes ?? DEFAULT_METAS_CACHE_BYTES) }),
  };
  const readTimeout = options.readTimeoutMs ?? 5000;
  const writeTimeout = options.writeTimeoutMs ?? 5 * 60_000;
  const shutdownTimeout = options.shutdownTimeoutMs ?? 30_000;
  /** Body bytes sent per response, for the access log. */
  const sent = new WeakMap<ServerResponse, number>();
  let app: FastifyInstance | undefined;
  let certs: CertWatcher | undefined;
  let url: string | undefined;
  let closing: Promise<void> | undefined;

  const onRequest = (req: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const started = performance.now();
    const res = reply.raw;
    const cut = setTimeout(() => res.destroy(), writeTimeout);
    cut.unref();
    res.once('close', () => {
      clearTimeout(cut);
      const code = String(res.statusCode);
      histogram.observe({ code }, (performance.now() - started) / 1000);
      const raw = req.raw;
      log.info('handled request', {
        host: raw.socket.remoteAddress ?? '',
        username: '-',
        method: raw.method,
        uri: raw.url,
        protocol: `HTTP/${raw.httpVersion}`,
        status: res.statusCode,
        size: sent.get(res) ?? 0,
      });
    });
    done();
  };

  /** What a shared answer's response is, once worked out: final headers, and the gzip bytes. */
  interface Prepared {
    readonly plain: Record<string, string>;
    gzip?: { readonly headers: Record<string, string>; readonly body: Buffer };
  }
  const prepared = new WeakMap<Answer, Prepared>();

  /** Status line, headers and a buffer body straight onto the socket (one writev), outside fastify's reply. */
  const sendBuffer = (reply: FastifyReply, status: number, headers: Record<string, string>, body: Buffer): FastifyReply => {
    reply.hijack();
    const res = reply.raw;
    sent.set(res, body.length);
    res.writeHead(status, headers);
    res.end(body);
    return reply;
  };

  /** Status line, headers and a file body straight onto the socket, outside fastify's reply (body.ts writeFileBody). */
  const sendFile = (reply: FastifyReply, status: number, headers: Record<string, string>, body: FileBody): FastifyReply => {
    reply.hijack();
    const res = reply.raw;
    sent.set(res, 0);
    res.writeHead(status, headers);
    writeFileBody(res, body, (bytes) => sent.set(res, bytes));
    return reply;
  };

  const send = (req: FastifyRequest, reply: FastifyReply, a: Answer): FastifyReply => {
    const method = req.raw.method ?? 'GET';
    if (a.shared && Buffer.isBuffer(a.body) && method === 'GET') return sendShared(req, reply, a, a.body);
    // gzhttp adds Vary to every response it wraps, then its own headers decide the rest.
    const headers: Record<string, string> = { vary: 'Accept-Encoding', ...a.headers };
    let body = a.body;
    const length = a.length ?? (Buffer.isBuffer(body) ? body.length : undefined);
    if (method === 'HEAD' && body !== undefined) {
      if (isFileBody(body)) discardFileBody(body);
      body = undefined;
    }
    const gzip =
      body !== undefined &&
      method !== 'HEAD' && // gzhttp never compresses HEAD (nginx bug 358)
      gzipQuality(req.headers['accept-encoding']) > 0 &&
      gzipAllowed(headers, length);
    if (gzip) gzipHeaders(headers);
    else if (length !== undefined && a.status !== 304 && a.status !== 204) {
      headers['content-length'] = String(length);
    }
    if (a.close) headers.connection = 'close';
    if (body === undefined) return reply.code(a.status).headers(headers).send();
    if (gzip) {
      reply.code(a.status).headers(headers);
      const res = reply.raw;
      const source = Buffer.isBuffer(body) ? Readable.from([body]) : fileBodyStream(body);
      const compressed = pipeline(source, createGzip(), () => undefined);
      reply.send(compressed);
      let n = 0;
      compressed.on('data', (chunk: Buffer) => void (n += chunk.length));
      compressed.once('end', () => sent.set(res, n));
      return reply;
    }
    if (Buffer.isBuffer(body)) return sendBuffer(reply, a.status, headers, body);
    return sendFile(reply, a.status, headers, body);
  };

  /**
   * A shared answer (a cached metas GET): its headers, and its gzip bytes when a client first
   * asks for them, are worked out once and kept with it (the same rules as send()).
   */
  const sendShared = (req: FastifyRequest, reply: FastifyReply, a: Answer, body: Buffer): FastifyReply => {
    let p = prepared.get(a);
    if (!p) {
      const plain: Record<string, string> = { vary: 'Accept-Encoding', ...a.headers, 'content-length': String(body.length) };
      if (a.close) plain.connection = 'close';
      p = { plain };
      prepared.set(a, p);
    }
    const accept = req.headers['accept-encoding'];
    if (accept !== undefined && gzipQuality(accept) > 0) {
      if (!p.gzip) {
        const headers: Record<string, string> = { vary: 'Accept-Encoding', ...a.headers };
        if (gzipAllowed(headers, body.length)) {
          gzipHeaders(headers);
          if (a.close) headers.connection = 'close';
          p.gzip = { headers, body: gzipSync(body) };
        }
      }
      // writeHead without Content-Length, then end(): chunked, as the streamed gzip answers are.
      if (p.gzip) return sendBuffer(reply, a.status, p.gzip.headers, p.gzip.body);
    }
    return sendBuffer(reply, a.status, p.plain, body);
  };

  const handler = (req: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> => {
    const body = req.body as RequestBody | undefined;
    const a = answer({ method: req.raw.method ?? 'GET', url: req.raw.url ?? '/', headers: req.headers, ...(body && { body }) }, handlerOptions);
    // A body left partly unread: the connection cannot carry another request (net/http closes it too).
    const sendIt = (x: Answer): FastifyReply => send(req, reply, body?.truncated && !x.close ? { ...x, close: true } : x);
    return a instanceof Promise ? a.then(sendIt) : sendIt(a);
  };

  /**
   * The body of a request to the GraphQL route: up to GRAPHQL_BODY_LIMIT bytes and one more to
   * tell a longer body (the rest is left unread and the connection closes after the answer).
   */
  const readBody = (payload: NodeJS.ReadableStream, done: (err: Error | null, body?: RequestBody) => void): void => {
    const chunks: Buffer[] = [];
    let length = 0;
    let finished = false;
    const finish = (truncated: boolean): void => {
      if (finished) return;
      finished = true;
      payload.removeListener('data', onData);
      done(null, { bytes: Buffer.concat(chunks, length), truncated });
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
  };

  const build = async (): Promise<FastifyInstance> => {
    const timeouts = { headersTimeout: readTimeout, requestTimeout: readTimeout, connectionsCheckingInterval: Math.min(1000, readTimeout) };
    let https: Record<string, unknown> | null = null;
    if (options.tls) {
      certs = await watchCertificate({
        ...options.tls,
        ...(options.tlsReloadIntervalMs !== undefined && { intervalMs: options.tlsReloadIntervalMs }),
        logger: log,
        onChange: (pair) => (app?.server as HttpsServer | undefined)?.setSecureContext({ ...pair }),
      });
      https = { ...certs.current, ALPNProtocols: ['http/1.1'], ...timeouts };
    }
    const fastify = Fastify({
      logger: false,
      ...(https ? { https } : { http: timeouts }),
      keepAliveTimeout: readTimeout,
      requestTimeout: readTimeout,
      forceCloseConnections: 'idle',
      return503OnClosing: true,
      frameworkErrors: (_err: Error, req: FastifyRequest, reply: FastifyReply) => void send(req, reply, BAD_REQUEST),
    } as Parameters<typeof Fastify>[0]) as unknown as FastifyInstance;
    // Bodies are read only for the GraphQL route: any other POST gets its 405 whatever it carries.
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { bodyLimit: Number.MAX_SAFE_INTEGER }, (req, payload, done) => {
      if (options.graphql && isGraphQLTarget(req.raw.url ?? '')) readBody(payload, done);
      else done(null, undefined);
    });
    if (https) answerPlainHttp(fastify.server, readTimeout);
    fastify.addHook('onRequest', onRequest);
    fastify.all('*', handler);
    fastify.setNotFoundHandler(handler); // methods the router does not know
    return fastify;
  };

  const close = (): Promise<void> => {
    closing ??= (async () => {
      certs?.stop();
      if (!app) return;
      const a = app;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          a.server.closeAllConnections();
          resolve();
        }, shutdownTimeout);
        timer.unref();
      });
      await Promise.race([a.close(), deadline]);
      clearTimeout(timer);
    })();
    return closing;
  };

  return {
    get url() {
      return url;
    },
    async listen(host, port) {
      if (app) throw new Error('the catalog server is already listening');
      try {
        app = await build();
        await app.listen({ host, port });
      } catch (err) {
        certs?.stop();
        app = undefined;
        throw err;
      }
      const bound = app.server.address();
      if (bound === null || typeof bound === 'string') throw new Error(`catalog server bound to unexpected address ${String(bound)}`);
      const h = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
      url = `${options.tls ? 'https' : 'http'}://${h}:${bound.port}`;
      log.info('serving catalogs', { address: url, tls: options.tls !== undefined });
      return { port: bound.port, url };
    },
    close,
    runnable: async (signal) => {
      if (!app) throw new Error('the catalog server is not listening: call listen() first');
      if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await close();
    },
  };
}
