// HTTP to one API server over Node's own http/https client: one keep-alive Agent per cluster (rebuilt when the TLS
// material rotates), credentials from ClusterAccess on every request, one retry after a 401 with freshly read
// credentials, every response body consumed, failures turned into ApiError or NetworkError. Watches use `stream()`,
// which turns the idle timeout off. Node's client is loaded by every controller anyway (its servers), so talking to
// the API server adds no library to start-up (undici cost ~25 ms of it: bench/footprint.ts).
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { createSecureContext } from 'node:tls';
import type { Status } from '../../../api/meta/v1.ts';
import type { ClusterAccess, TlsOptions } from './config.ts';
import { ApiError, NetworkError } from './errors.ts';
import { noopLogger, tryOr, type Logger } from '../toolkit/index.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined;

export interface HttpRequest {
  readonly method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/namespaces/x/configmaps`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** Sent as JSON (strings as they are). */
  readonly body?: unknown;
  readonly contentType?: string;
  /** Extra headers; arrays become repeated header lines (Impersonate-Group). */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly signal?: AbortSignal | undefined;
  /** Called with every `Warning` header of the answer (client-go's WarningHandler), besides the log line. */
  readonly onWarning?: WarningHandler | undefined;
}

/** One `Warning` response header: `<code> <agent> "<text>"` (RFC 7234; the API server sends code 299). */
export interface ApiWarning {
  readonly code: number;
  readonly agent: string;
  readonly text: string;
}

export type WarningHandler = (warning: ApiWarning) => void;

/** Splits a `Warning` header value into code, agent and unquoted text (Go's net/http rules). */
export function parseWarningHeader(raw: string): ApiWarning {
  const m = /^(\d{3})\s+(\S+)\s+(.*)$/s.exec(raw.trim());
  if (!m) return { code: 0, agent: '', text: raw.trim() };
  let text = m[3]!;
  const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(text);
  if (quoted) text = quoted[1]!.replace(/\\(.)/g, '$1');
  return { code: Number(m[1]), agent: m[2]!, text };
}

export interface ConnectionOptions {
  readonly logger?: Logger;
  readonly userAgent?: string;
  /** How long the connection may stay silent, waiting for the response or within its body (not for watches). Default 60 s. */
  readonly requestTimeoutMs?: number;
}

const DEFAULT_USER_AGENT = `olmv1 (node ${process.version})`;
const MAX_REMEMBERED_WARNINGS = 200;

/** An answer whose body has not been read yet. */
interface Answer {
  readonly statusCode: number;
  readonly body: IncomingMessage;
}

/** Sockets kept open between requests this long (the API server keeps them longer). */
const KEEP_ALIVE_IDLE_MS = 30_000;

/** A connection to one API server; share it (and its keep-alive sockets) between clients. */
export class Connection {
  readonly access: ClusterAccess;
  readonly #url: URL;
  readonly #prefix: string;
  readonly #log: Logger;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #warned = new Set<string>();
  #agent: { agent: HttpAgent; tls: TlsOptions } | undefined;
  #closed = false;
  /** Requests whose answer has not been read to the end (or dropped) yet, and close() calls waiting for none. */
  #inFlight = 0;
  #drained: (() => void)[] = [];

  constructor(access: ClusterAccess, options: ConnectionOptions = {}) {
    this.access = access;
    this.#url = new URL(access.server);
    this.#prefix = this.#url.pathname.replace(/\/+$/, '');
    this.#log = options.logger ?? noopLogger;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#timeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  /** Sends one request; resolves the parsed JSON body (undefined when empty). */
  async request<T = unknown>(req: HttpRequest): Promise<T> {
    const res = await this.#send(req, false);
    const text = await readBody(req, res.body);
    if (res.statusCode >= 200 && res.statusCode < 300) {
      if (!text) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (err) {
        throw new NetworkError(`${req.method} ${req.path}: response is not JSON: ${text.slice(0, 200)}`, 'EBADRESPONSE', { cause: err });
      }
    }
    throw apiError(res.statusCode, text, req);
  }

  /**
   * Opens a long-lived response (a watch). Resolves the body once the server answered 200; the
   * caller must consume or destroy it. Non-200 answers reject with ApiError.
   */
  async stream(req: HttpRequest): Promise<Readable> {
    const res = await this.#send(req, true);
    if (res.statusCode === 200) return res.body;
    const text = await readBody(req, res.body);
    throw apiError(res.statusCode, text, req);
  }

  /** Closes the keep-alive sockets once the requests in flight have finished. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#inFlight > 0) await new Promise<void>((resolve) => this.#drained.push(resolve));
    const a = this.#agent;
    this.#agent = undefined;
    a?.agent.destroy();
  }

  async #send(req: HttpRequest, streaming: boolean): Promise<Answer> {
    if (this.#closed) throw new Error('kube connection is closed');
    let res = await this.#dispatch(req, streaming, false);
    if (res.statusCode === 401) {
      // Tokens rotate (bound service-account tokens, exec plugins): read them again and retry once.
      res.body.resume();
      res = await this.#dispatch(req, streaming, true);
    }
    this.#warnings(req, res.body.headersDistinct['warning']);
    return res;
  }

  async #dispatch(req: HttpRequest, streaming: boolean, fresh: boolean): Promise<Answer> {
    const creds = await this.access.credentials({ force: fresh });
    const headers: Record<string, string | string[]> = {
      ...creds.headers,
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = typeof v === 'string' ? v : [...v];
    let body: string | undefined;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const https = this.#url.protocol === 'https:';
    const timeoutMs = streaming ? 0 : this.#timeoutMs;
    try {
      return await new Promise<Answer>((resolve, reject) => {
        const out: ClientRequest = (https ? httpsRequest : httpRequest)({
          agent: this.#agentFor(creds.tls, https),
          protocol: this.#url.protocol,
          hostname: this.#url.hostname.replace(/^\[|\]$/g, ''),
          port: this.#url.port,
          path: this.#prefix + req.path + queryString(req.query),
          method: req.method,
          headers,
          ...(req.signal && { signal: req.signal }),
          timeout: timeoutMs,
        });
        this.#inFlight++;
        out.once('close', () => {
          if (--this.#inFlight === 0) for (const wake of this.#drained.splice(0)) wake();
        });
        // The socket stayed silent for timeoutMs, before the answer or within its body.
        let answer: IncomingMessage | undefined;
        out.on('timeout', () => (answer ?? out).destroy(Object.assign(new Error(`no answer from the server for ${timeoutMs / 1000}s`), { code: 'ETIMEDOUT' })));
        // Before the answer: the request failed. After it: the body's reader sees the failure too; nothing to do here.
        out.on('error', reject);
        out.once('response', (res: IncomingMessage) => {
          answer = res;
          resolve({ statusCode: res.statusCode ?? 0, body: res });
        });
        out.end(body);
      });
    } catch (err) {
      throw networkError(err, req);
    }
  }

  #agentFor(tls: TlsOptions, https: boolean): HttpAgent {
    const current = this.#agent;
    if (current && sameTls(current.tls, tls)) return current.agent;
    const options = { keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS, scheduling: 'lifo' as const };
    // One TLS context for every connection (node makes a new one per connection otherwise: with a CA given, each copies
    // node's ~140 root certificates into a new store, ~1 ms of CPU each: 21 ms for olm-classic's 20 connections at start).
    const agent = https ? new HttpsAgent({ ...options, ...tls, secureContext: createSecureContext({ ca: tls.ca, cert: tls.cert, key: tls.key }) }) : new HttpAgent(options);
    this.#agent = { agent, tls };
    if (current) {
      this.#log.info('Kubernetes TLS credentials changed; new connections use them', { server: this.access.server });
      // Idle sockets go now; those of requests in flight finish their request and time out in the old agent's pool.
      for (const sockets of Object.values(current.agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    }
    return agent;
  }

  #warnings(req: HttpRequest, header: readonly string[] | undefined): void {
    if (!header) return;
    for (const raw of header) {
      const warning = parseWarningHeader(raw);
      req.onWarning?.(warning);
      const text = warning.text;
      if (this.#warned.has(text)) continue;
      if (this.#warned.size >= MAX_REMEMBERED_WARNINGS) this.#warned.clear();
      this.#warned.add(text);
      this.#log.warn('Kubernetes API warning', { warning: text, method: req.method, path: req.path });
    }
  }
}

/** The whole body as text; a connection lost or gone silent on the way is a NetworkError. */
function readBody(req: HttpRequest, res: IncomingMessage): Promise<string> {
  return text(res).catch((err: unknown) => {
    throw networkError(err, req);
  });
}

function queryString(query: HttpRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function sameTls(a: TlsOptions, b: TlsOptions): boolean {
  const eq = (x: string | Buffer | undefined, y: string | Buffer | undefined): boolean =>
    x === y || (x !== undefined && y !== undefined && Buffer.from(x).equals(Buffer.from(y)));
  return eq(a.ca, b.ca) && eq(a.cert, b.cert) && eq(a.key, b.key) && a.servername === b.servername && a.rejectUnauthorized === b.rejectUnauthorized;
}

function apiError(code: number, text: string, req: HttpRequest): ApiError {
  // Not a Status (not even JSON): a proxy or load balancer answered.
  const parsed = tryOr(() => JSON.parse(text) as Status | null, undefined);
  const status: Status = parsed?.kind === 'Status' ? parsed : { kind: 'Status', status: 'Failure', code, message: text.trim().slice(0, 500) || '' };
  return new ApiError(code, status, req);
}

function networkError(err: unknown, req: HttpRequest): unknown {
  if (req.signal?.aborted) return req.signal.reason ?? err;
  const e = err as { code?: string; name?: string; message?: string; errors?: { message?: string }[] };
  const code = e.code ?? e.name ?? 'UNKNOWN';
  const detail = e.message || e.errors?.[0]?.message || code;
  return new NetworkError(`${req.method} ${req.path}: ${detail}`, code, { cause: err });
}
