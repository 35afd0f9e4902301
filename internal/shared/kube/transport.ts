// HTTP to one API server over undici: one keep-alive Agent per cluster (rebuilt when the TLS
// material rotates), credentials from ClusterAccess on every request, one retry after a 401 with
// freshly read credentials, every response body consumed, failures turned into ApiError or
// NetworkError. Watches use `stream()`, which turns the body-idle timeout off.
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from '../http/index.ts';
import type { Status } from '../../../api/meta/v1.ts';
import type { ClusterAccess, TlsOptions } from './config.ts';
import { ApiError, NetworkError } from './errors.ts';
import { noopLogger, type Logger } from './types.ts';

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
  /** Time to wait for response headers, and most idle time within a body (not for watches). Default 60 s. */
  readonly requestTimeoutMs?: number;
}

const DEFAULT_USER_AGENT = `olmv1 (node ${process.version})`;
const MAX_REMEMBERED_WARNINGS = 200;

/** A connection to one API server; share it (and its keep-alive sockets) between clients. */
export class Connection {
  readonly access: ClusterAccess;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #log: Logger;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #warned = new Set<string>();
  #agent: { agent: Agent; tls: TlsOptions } | undefined;
  #closed = false;

  constructor(access: ClusterAccess, options: ConnectionOptions = {}) {
    this.access = access;
    const url = new URL(access.server);
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#log = options.logger ?? noopLogger;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#timeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  get server(): string {
    return this.access.server;
  }

  /** Sends one request; resolves the parsed JSON body (undefined when empty). */
  async request<T = unknown>(req: HttpRequest): Promise<T> {
    const res = await this.#send(req, false);
    const text = await this.#readBody(req, res);
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
    const text = await this.#readBody(req, res);
    throw apiError(res.statusCode, text, req);
  }

  /** Closes the keep-alive sockets; requests in flight finish first. */
  async close(): Promise<void> {
    this.#closed = true;
    const a = this.#agent;
    this.#agent = undefined;
    if (a) await a.agent.close();
  }

  async #send(req: HttpRequest, streaming: boolean): Promise<Dispatcher.ResponseData> {
    if (this.#closed) throw new Error('kube connection is closed');
    let res = await this.#dispatch(req, streaming, false);
    if (res.statusCode === 401) {
      // Tokens rotate (bound service-account tokens, exec plugins): read them again and retry once.
      await res.body.dump().catch(() => undefined);
      res = await this.#dispatch(req, streaming, true);
    }
    this.#warnings(req, res.headers['warning']);
    return res;
  }

  async #dispatch(req: HttpRequest, streaming: boolean, fresh: boolean): Promise<Dispatcher.ResponseData> {
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
    }
    try {
      return await this.#agentFor(creds.tls).request({
        origin: this.#origin,
        path: this.#prefix + req.path + queryString(req.query),
        method: req.method,
        headers,
        body,
        signal: req.signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: streaming ? 0 : this.#timeoutMs,
      });
    } catch (err) {
      throw networkError(err, req);
    }
  }

  async #readBody(req: HttpRequest, res: Dispatcher.ResponseData): Promise<string> {
    try {
      return await res.body.text();
    } catch (err) {
      throw networkError(err, req);
    }
  }

  #agentFor(tls: TlsOptions): Agent {
    const current = this.#agent;
    if (current && sameTls(current.tls, tls)) return current.agent;
    const agent = new Agent({
      connect: { ...tls },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
    });
    this.#agent = { agent, tls };
    if (current) {
      this.#log.info('Kubernetes TLS credentials changed; new connections use them', { server: this.server });
      void current.agent.close().catch(() => undefined);
    }
    return agent;
  }

  #warnings(req: HttpRequest, header: string | string[] | undefined): void {
    if (!header) return;
    for (const raw of Array.isArray(header) ? header : [header]) {
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
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') status = parsed;
  } catch {
    /* not JSON: a proxy or load balancer answered */
  }
  status ??= { kind: 'Status', status: 'Failure', code, message: text.trim().slice(0, 500) || '' };
  return new ApiError(code, status, req);
}

function networkError(err: unknown, req: HttpRequest): unknown {
  if (req.signal?.aborted) return req.signal.reason ?? err;
  const e = err as { code?: string; name?: string; message?: string; errors?: { message?: string }[] };
  const code = e.code ?? e.name ?? 'UNKNOWN';
  const detail = e.message || e.errors?.[0]?.message || code;
  return new NetworkError(`${req.method} ${req.path}: ${detail}`, code, { cause: err });
}
