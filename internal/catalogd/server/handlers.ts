// What the catalog server answers, as data (status, headers, body) computed from the request:
// the routes of catalogd's handlers.go behind a Go 1.22 ServeMux, with net/http's exact error
// texts. server.ts turns an Answer into bytes (and gzip); nothing here touches the socket.
//
//   GET|HEAD /catalogs/{catalog}/api/v1/all      http.ServeContent of catalog.jsonl
//   GET|HEAD /catalogs/{catalog}/api/v1/metas    ?schema=&package=&name= from the byte-offset index
//   POST /catalogs/{catalog}/api/v1/graphql      GraphQL query (graphql.ts), routed only when enabled
//   other methods on those paths                  405 "Method Not Allowed" (no Allow header)
//   invalid catalog name                          400 "invalid catalog name: <IsDNS1123Subdomain>"
//   catalog without content                       404 "404 Not Found"
//   any other path                                404 "404 page not found" (ServeMux)
//   a path that is not clean                      301 to the cleaned path (ServeMux)
import { randomBytes } from 'node:crypto';
import { openSync } from 'node:fs';
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { dns1123SubdomainErrors } from '../storage/index.ts';
import type { CatalogStore, StoredCatalog } from '../storage/index.ts';
import type { AnswerCache } from './cache.ts';
import { graphQLRequest, type GraphQLQueries, type RequestBody } from './graphql.ts';
import { SYNC_READ_LIMIT, closeFile, fileBody, readSectionsSync, type FileBody, type Section } from './body.ts';
import {
  NO_OVERLAP,
  checkPreconditions,
  cleanPath,
  contentRange,
  formatHTTPTime,
  multipartFraming,
  parseQuery,
  parseRange,
  pathUnescape,
  type ByteRange,
} from './gohttp.ts';

/** A response to send: lower-case header names; `length` is the body's (or, for HEAD, a GET's) size. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** A FileBody owns its open file: whoever drops it unsent closes it (closeFile(body.fd)). */
  readonly body?: Buffer | FileBody;
  readonly length?: number;
  /** Close the connection after this response (Go does for requests it cannot parse). */
  readonly close?: boolean;
  /**
   * The same object (headers and body never change) is returned again for the same request:
   * the server may keep what it derives from it (its final headers, its gzip bytes).
   */
  readonly shared?: boolean;
}

/** A cached metas answer and the stored entry it was read from. */
export interface CachedMetas {
  readonly catalog: string;
  readonly stored: StoredCatalog;
  readonly answer: Answer & { readonly body: Buffer };
  /** Body bytes (what the cache budget counts). */
  readonly length: number;
}

export interface HandlerOptions {
  readonly store: Pick<CatalogStore, 'get'>;
  /** `/api/v1/metas` served (upstream feature gate APIV1MetasHandler; default on here). */
  readonly metasEnabled: boolean;
  /** Path the routes hang under, with slashes: `/catalogs/`. */
  readonly prefix: string;
  /** Metas answers kept in memory, by request target (none when absent). */
  readonly cache?: AnswerCache<CachedMetas>;
  /** `/api/v1/graphql` served with these queries (upstream feature gate GraphQLCatalogQueries; unrouted when absent). */
  readonly graphql?: GraphQLQueries;
}

export interface RequestInfo {
  readonly method: string;
  /** The request target as sent (path and query, still escaped). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body, read only for the GraphQL route. */
  readonly body?: RequestBody;
}

export const JSONL = 'application/jsonl';
const METAS_PARAMS = new Set(['schema', 'package', 'name']);

/** http.Error: text/plain, nosniff, the message and a newline; no Content-Length of the old body. */
export function goError(status: number, message: string, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { ...headers, 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
    body: Buffer.from(message + '\n'),
  };
}

/** catalogd's httpError texts: `<code> <status text>` (Go's texts are node's for the codes used here). */
const statusError = (status: 400 | 403 | 404 | 500): Answer => goError(status, `${status} ${STATUS_CODES[status] ?? ''}`);

/** Go's answer to a request line it cannot parse (before any handler). */
export const BAD_REQUEST: Answer = {
  status: 400,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body: Buffer.from('400 Bad Request'),
  close: true,
};

const htmlEscape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c] ?? c);

/** http.Redirect with 301 (a short HTML body for GET, as Go writes it). */
function redirect(method: string, location: string): Answer {
  const headers: Record<string, string> = { location };
  if (method === 'GET' || method === 'HEAD') headers['content-type'] = 'text/html; charset=utf-8';
  const body = method === 'GET' ? Buffer.from(`<a href="${htmlEscape(location)}">Moved Permanently</a>.\n\n`) : undefined;
  return { status: 301, headers, ...(body && { body }) };
}

/**
 * Routes one request. Never throws for a request's content; I/O errors become 403/500. Only a
 * GraphQL query is answered asynchronously.
 */
export function answer(req: RequestInfo, options: HandlerOptions): Answer | Promise<Answer> {
  if (req.method === 'GET' && options.cache) {
    const hit = cachedMetas(req, options.cache, options.store);
    if (hit) return hit;
  }
  let target = req.url;
  if (target === '*') return { status: 400, headers: {}, close: true }; // ServeMux's answer to `OPTIONS *`
  if (/^https?:\/\//i.test(target)) {
    // absolute-form: only its path and query are routed
    const u = URL.canParse(target) ? new URL(target) : undefined;
    if (!u) return BAD_REQUEST;
    target = u.pathname + u.search;
  }
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQuery = q < 0 ? '' : target.slice(q + 1);
  if (!rawPath.startsWith('/')) return BAD_REQUEST;
  if (req.method !== 'CONNECT') {
    const clean = cleanPath(rawPath);
    if (clean !== rawPath) return redirect(req.method, clean + (q < 0 ? '' : `?${rawQuery}`));
  }
  const segments = rawPath.split('/').slice(1).map(pathUnescape);
  if (segments.some((s) => s === undefined)) return BAD_REQUEST;
  const route = matchRoute(segments as string[], options);
  if (!route) return goError(404, '404 page not found');
  const allowed = route.endpoint === 'graphql' ? req.method === 'POST' : req.method === 'GET' || req.method === 'HEAD';
  if (!allowed) return goError(405, 'Method Not Allowed');
  const nameErrors = dns1123SubdomainErrors(route.catalog);
  if (nameErrors.length) return goError(400, `invalid catalog name: ${nameErrors.join('; ')}`);
  if (route.endpoint === 'graphql') return serveGraphQL(req, route.catalog, options.graphql as GraphQLQueries);
  try {
    return route.endpoint === 'all' ? serveAll(req, route.catalog, options) : serveMetas(req, route.catalog, rawQuery, options);
  } catch (err) {
    return ioError(err);
  }
}

type Endpoint = 'all' | 'metas' | 'graphql';

function matchRoute(segments: readonly string[], options: HandlerOptions): { catalog: string; endpoint: Endpoint } | undefined {
  const prefix = options.prefix.split('/').filter((s) => s !== '');
  if (segments.length !== prefix.length + 4) return undefined;
  if (prefix.some((p, i) => segments[i] !== p)) return undefined;
  const [catalog = '', api, v1, endpoint] = segments.slice(prefix.length);
  if (catalog === '' || api !== 'api' || v1 !== 'v1') return undefined;
  const routed = endpoint === 'all' || (endpoint === 'metas' && options.metasEnabled) || (endpoint === 'graphql' && options.graphql !== undefined);
  return routed ? { catalog, endpoint } : undefined;
}

/** Whether a request target could be the GraphQL route (its body is worth reading). */
export function isGraphQLTarget(url: string): boolean {
  const q = url.indexOf('?');
  return (q < 0 ? url : url.slice(0, q)).endsWith('/api/v1/graphql');
}

/** The GraphQL route once method and name are checked: the body, then the query (graphql.ts). */
async function serveGraphQL(req: RequestInfo, catalog: string, graphql: GraphQLQueries): Promise<Answer> {
  const request = graphQLRequest(req.body);
  if ('status' in request) return goError(request.status, request.message);
  return graphql.execute(catalog, request.query).then(
    (json): Answer => ({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(json + '\n') }),
    ioError,
  );
}

/** catalogd's httpError for file errors: not-exist 404, permission 403, else 500. */
function ioError(err: unknown): Answer {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return statusError(404);
  if (code === 'EACCES' || code === 'EPERM') return statusError(403);
  return statusError(500);
}

/**
 * The catalog's current content with its file open. The entry can be swapped (and its file
 * removed) between the lookup and the open; then the new entry is taken once more.
 */
function openCurrent(store: Pick<CatalogStore, 'get'>, name: string): { stored: StoredCatalog; fd: number } | undefined {
  for (let attempt = 0; ; attempt++) {
    const stored = store.get(name);
    if (!stored) return undefined;
    try {
      return { stored, fd: openSync(stored.jsonlPath, 'r') }; // synchronously: see body.ts
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0 || store.get(name) === stored) throw err;
    }
  }
}

/** http.ServeContent over catalog.jsonl, with the stored time as Last-Modified and the digest's ETag. */
function serveAll(req: RequestInfo, name: string, options: HandlerOptions): Answer {
  const opened = openCurrent(options.store, name);
  if (!opened) return statusError(404);
  const { stored, fd } = opened;
  let keepOpen = false;
  try {
    const headers: Record<string, string> = { 'content-type': JSONL, etag: stored.etag };
    const lastModified = formatHTTPTime(stored.modified);
    if (lastModified) headers['last-modified'] = lastModified;
    const pre = checkPreconditions(req.method, req.headers, { etag: stored.etag, modified: stored.modified });
    if (pre.done !== false) return pre.done === 412 ? { status: 412, headers } : notModified(headers);

    const size = stored.size;
    const parsed = parseRange(pre.range, size);
    // serveError: the success-only headers go (an empty file ignores a range that fails to overlap).
    if ('error' in parsed && !(parsed.error === NO_OVERLAP && size === 0)) {
      return goError(416, parsed.error, parsed.error === NO_OVERLAP ? { 'content-range': `bytes */${size}` } : {});
    }
    let ranges = 'error' in parsed ? [] : parsed;
    if (ranges.reduce((n, r) => n + r.length, 0) > size) ranges = []; // more than the file: ignore the header

    const head = req.method === 'HEAD';
    let status = 200;
    let length = size;
    let body: FileBody | undefined;
    if (ranges.length === 1) {
      const r = ranges[0] as ByteRange;
      status = 206;
      length = r.length;
      headers['content-range'] = contentRange(r, size);
      if (!head) body = fileBody(fd, [{ offset: r.start, length: r.length }]);
    } else if (ranges.length > 1) {
      status = 206;
      const boundary = randomBytes(30).toString('hex');
      const { heads, tail } = multipartFraming(ranges, JSONL, size, boundary);
      const parts: (Section | Buffer)[] = [];
      ranges.forEach((r, i) => parts.push(Buffer.from(heads[i] ?? ''), { offset: r.start, length: r.length }));
      parts.push(Buffer.from(tail));
      length = parts.reduce((n, p) => n + p.length, 0);
      headers['content-type'] = `multipart/byteranges; boundary=${boundary}`;
      if (!head) body = fileBody(fd, parts);
    } else if (!head) {
      body = fileBody(fd, [{ offset: 0, length: size }]);
    }
    headers['accept-ranges'] = 'bytes';
    keepOpen = body !== undefined;
    return { status, headers, length, ...(body && { body }) };
  } finally {
    if (!keepOpen) closeFile(fd);
  }
}

/**
 * The fast path of a repeated metas GET: the same request target, no precondition header, and
 * the catalog still serving the entry the answer was read from — then the answer is the one the
 * full path would compute (the route, name, query and Last-Modified all depend on nothing else),
 * so it is returned as it is, without parsing the target again.
 */
function cachedMetas(req: RequestInfo, cache: AnswerCache<CachedMetas>, store: Pick<CatalogStore, 'get'>): Answer | undefined {
  const h = req.headers;
  if (h['if-match'] !== undefined || h['if-none-match'] !== undefined || h['if-modified-since'] !== undefined || h['if-unmodified-since'] !== undefined) {
    return undefined;
  }
  const hit = cache.get(req.url);
  if (hit === undefined || store.get(hit.catalog) !== hit.stored) return undefined;
  return hit.answer;
}

/** writeNotModified: no representation headers; Last-Modified only when there is no ETag. */
function notModified(headers: Record<string, string>): Answer {
  const { 'content-type': _type, 'content-length': _length, 'content-encoding': _encoding, ...h } = headers;
  if (h.etag) delete h['last-modified'];
  return { status: 304, headers: h };
}

/** Sections kept per stored catalog for answers too big for the answer cache: 64 Ki of them, ~3 MiB at most. */
const MEMO_SECTIONS = 64 * 1024;
const sectionsMemo = new WeakMap<StoredCatalog, { readonly lists: Map<string, { readonly sections: readonly Section[]; readonly length: number }>; count: number }>();

/**
 * The index's sections of a metas query and their total length. Those of an answer over SYNC_READ_LIMIT — streamed
 * from the file, never cached whole — are kept per stored catalog (dropped with it; the oldest lists first beyond
 * MEMO_SECTIONS), and every request for it shares them: worked out per request, 50 clients asking for
 * `schema=olm.channel` of a 57 MB-class catalog (1,040 sections) made ~8 MB/s of objects that live as long as a
 * response, so they reach V8's old generation and catalogd's RSS grew by ~40 MiB until its next major collection.
 */
function metasSections(stored: StoredCatalog, schema: string, pkg: string, name: string): { readonly sections: readonly Section[]; readonly length: number } {
  const key = `${schema}\0${pkg}\0${name}`;
  const memo = sectionsMemo.get(stored);
  const hit = memo?.lists.get(key);
  if (hit) return hit;
  const sections = stored.index.sections({ schema, package: pkg, name });
  const found = { sections, length: sections.reduce((n, s) => n + s.length, 0) };
  if (found.length <= SYNC_READ_LIMIT || sections.length > MEMO_SECTIONS) return found;
  const kept = memo ?? { lists: new Map(), count: 0 };
  if (!memo) sectionsMemo.set(stored, kept);
  for (const [oldest, list] of kept.lists) {
    if (kept.count + sections.length <= MEMO_SECTIONS) break;
    kept.lists.delete(oldest);
    kept.count -= list.sections.length;
  }
  kept.lists.set(key, found);
  kept.count += sections.length;
  return found;
}

/**
 * catalogd's metas handler: only schema/package/name (anything else 400); Last-Modified and
 * the preconditions (no ETag: an entity tag never matches, `*` does); no parameter is the whole
 * file; otherwise the index's sections, in file order — only those bytes are read. A GET
 * answer small enough to read at once is cached by request target (see cachedMetas).
 */
function serveMetas(req: RequestInfo, name: string, rawQuery: string, options: HandlerOptions): Answer {
  const params = parseQuery(rawQuery);
  for (const key of params.keys()) if (!METAS_PARAMS.has(key)) return statusError(400);
  const schema = params.get('schema')?.[0] ?? '';
  const pkg = params.get('package')?.[0] ?? '';
  const blobName = params.get('name')?.[0] ?? '';
  const whole = schema === '' && pkg === '' && blobName === '';

  const opened = openCurrent(options.store, name);
  if (!opened) return statusError(404);
  const { stored, fd } = opened;
  let keepOpen = false;
  try {
    const headers: Record<string, string> = {};
    const lastModified = formatHTTPTime(stored.modified);
    if (lastModified) headers['last-modified'] = lastModified;
    const pre = checkPreconditions(req.method, req.headers, { etag: undefined, modified: stored.modified });
    if (pre.done !== false) return pre.done === 412 ? { status: 412, headers } : notModified(headers);
    headers['content-type'] = JSONL;

    const { sections, length } = whole ? { sections: [{ offset: 0, length: stored.size }], length: stored.size } : metasSections(stored, schema, pkg, blobName);
    if (req.method === 'HEAD') return { status: 200, headers, length };
    if (length === 0) return { status: 200, headers, length, body: Buffer.alloc(0) };
    keepOpen = true; // the readers below close it
    if (length <= SYNC_READ_LIMIT) {
      const body = readSectionsSync(fd, sections, length);
      if (whole || !options.cache) return { status: 200, headers, length, body };
      const shared = { status: 200, headers, length, body, shared: true };
      options.cache.set(req.url, { catalog: name, stored, answer: shared, length });
      return shared;
    }
    return { status: 200, headers, length, body: fileBody(fd, sections) };
  } finally {
    if (!keepOpen) closeFile(fd);
  }
}
