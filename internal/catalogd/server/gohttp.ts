// The pieces of Go's net/http that the catalog server's answers depend on, as plain functions:
// conditional requests (RFC 9110 §13 as http.ServeContent's checkPreconditions evaluates them),
// HTTP dates (http.TimeFormat and the two legacy formats http.ParseTime accepts), Range parsing
// (parseRange, multipart/byteranges layout), url.ParseQuery, ServeMux's cleanPath and gzhttp's
// Accept-Encoding parsing; and the words of net.Listen's bind errors.

import { getSystemErrorMap } from 'node:util';

/** Result of one precondition: absent, holds, or fails. */
export type Cond = 'none' | 'true' | 'false';

/** Request headers the preconditions read (lower-case names, as Node gives them). */
export interface ConditionalHeaders {
  readonly 'if-match'?: string | undefined;
  readonly 'if-none-match'?: string | undefined;
  readonly 'if-modified-since'?: string | undefined;
  readonly 'if-unmodified-since'?: string | undefined;
  readonly 'if-range'?: string | undefined;
  readonly range?: string | undefined;
}

/** What the response is validated against. `etag` is the full header value (e.g. `"abc"`), or undefined. */
export interface Validators {
  readonly etag: string | undefined;
  readonly modified: Date;
}

/** Outcome: answer 412 or 304 now, or go on (with the Range header still to honour, if any). */
export type PreconditionOutcome = { readonly done: 412 | 304 } | { readonly done: false; readonly range: string };

/** textproto.TrimString: ASCII space, tab, CR and LF off both ends. */
const trimString = (s: string): string => s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');

/** scanETag: a syntactically valid ETag at the start of `s` and what follows it, or undefined. */
export function scanETag(input: string): { etag: string; rest: string } | undefined {
  const s = trimString(input);
  const start = s.startsWith('W/') ? 2 : 0;
  if (s.length - start < 2 || s[start] !== '"') return undefined;
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80) continue;
    if (c === 0x22) return { etag: s.slice(0, i + 1), rest: s.slice(i + 1) };
    return undefined;
  }
  return undefined;
}

const strongMatch = (a: string, b: string | undefined): boolean => b !== undefined && a === b && a !== '' && a[0] === '"';
const weakMatch = (a: string, b: string | undefined): boolean => b !== undefined && a.replace(/^W\//, '') === b.replace(/^W\//, '');

/** Walks a list of entity tags: `*` → `star`; returns whether `match` accepted any tag. */
function scanList(header: string, match: (etag: string) => boolean): 'star' | boolean {
  let buf = header;
  for (;;) {
    buf = trimString(buf);
    if (buf === '') return false;
    if (buf[0] === ',') {
      buf = buf.slice(1);
      continue;
    }
    if (buf[0] === '*') return 'star';
    const t = scanETag(buf);
    if (!t) return false;
    if (match(t.etag)) return true;
    buf = t.rest;
  }
}

function checkIfMatch(h: ConditionalHeaders, etag: string | undefined): Cond {
  const im = h['if-match'];
  if (!im) return 'none';
  return scanList(im, (t) => strongMatch(t, etag)) !== false ? 'true' : 'false';
}

function checkIfNoneMatch(h: ConditionalHeaders, etag: string | undefined): Cond {
  const inm = h['if-none-match'];
  if (!inm) return 'none';
  return scanList(inm, (t) => weakMatch(t, etag)) !== false ? 'false' : 'true';
}

/** isZeroTime: unset or the Unix epoch. */
const isZeroTime = (d: Date): boolean => d.getTime() === 0 || Number.isNaN(d.getTime());
/** Seconds since the epoch, truncated (Last-Modified has no sub-second part). */
const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/** Whether nothing changed after an If-Unmodified-Since / If-Modified-Since time; 'none' when either time is unusable. */
function unmodifiedSince(header: string | undefined, modified: Date): Cond {
  const t = header && !isZeroTime(modified) ? parseHTTPTime(header) : undefined;
  return t === undefined ? 'none' : seconds(modified) <= t ? 'true' : 'false';
}

function checkIfRange(method: string, h: ConditionalHeaders, v: Validators): Cond {
  if (method !== 'GET' && method !== 'HEAD') return 'none';
  const ir = h['if-range'];
  if (!ir) return 'none';
  const t = scanETag(ir);
  if (t && t.etag !== '') return strongMatch(t.etag, v.etag) ? 'true' : 'false';
  if (isZeroTime(v.modified)) return 'false';
  const at = parseHTTPTime(ir);
  return at !== undefined && at === seconds(v.modified) ? 'true' : 'false';
}

/**
 * http.ServeContent's checkPreconditions (RFC 9110 §13.2.2 order): If-Match, else
 * If-Unmodified-Since (412); If-None-Match (304 for GET/HEAD, else 412), else If-Modified-Since
 * (304); then If-Range decides whether the Range header counts.
 */
export function checkPreconditions(method: string, h: ConditionalHeaders, v: Validators): PreconditionOutcome {
  const getOrHead = method === 'GET' || method === 'HEAD';
  let ch = checkIfMatch(h, v.etag);
  if (ch === 'none') ch = unmodifiedSince(h['if-unmodified-since'], v.modified);
  if (ch === 'false') return { done: 412 };
  switch (checkIfNoneMatch(h, v.etag)) {
    case 'false':
      return { done: getOrHead ? 304 : 412 };
    case 'none':
      if (getOrHead && unmodifiedSince(h['if-modified-since'], v.modified) === 'true') return { done: 304 };
      break;
    case 'true':
      break;
  }
  let range = h.range ?? '';
  if (range !== '' && checkIfRange(method, h, v) === 'false') range = '';
  return { done: false, range };
}

// ---------------------------------------------------------------------------------------------
// Dates

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const LONG_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** http.TimeFormat (`Mon, 02 Jan 2006 15:04:05 GMT`) of `d`, or undefined for a zero time. */
export function formatHTTPTime(d: Date): string | undefined {
  return isZeroTime(d) ? undefined : d.toUTCString();
}

// http.TimeFormat, time.RFC850 and time.ANSIC, as Go's time.Parse reads those layouts: names in
// any case, `15` hours with one or two digits, `_2` days space-padded, a zone abbreviation other
// than a known one parsed with offset zero.
const IMF_FIXDATE = /^([A-Za-z]{3}), (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{1,2}):(\d{2}):(\d{2}) GMT$/;
const RFC850 = /^([A-Za-z]+), (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2}) ([A-Z]{3,5}|[+-]\d{2,4})$/;
const ANSIC = /^([A-Za-z]{3}) ([A-Za-z]{3}) ( \d|\d{1,2}) (\d{1,2}):(\d{2}):(\d{2}) (\d{4})$/;

/** http.ParseTime: seconds since the epoch, or undefined when no layout fits. */
export function parseHTTPTime(text: string): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return civil(DAYS, m[1], m[4], m[3], m[2], m[5], m[6], m[7]);
  m = RFC850.exec(text);
  if (m) {
    const yy = Number(m[4]);
    return civil(LONG_DAYS, m[1], String(yy >= 69 ? 1900 + yy : 2000 + yy), m[3], m[2], m[5], m[6], m[7]);
  }
  m = ANSIC.exec(text);
  return m ? civil(DAYS, m[1], m[7], m[2], m[3]?.trim(), m[4], m[5], m[6]) : undefined;
}

function civil(
  dayNames: readonly string[],
  day: string | undefined,
  year: string | undefined,
  month: string | undefined,
  dom: string | undefined,
  hh: string | undefined,
  mm: string | undefined,
  ss: string | undefined,
): number | undefined {
  if (!dayNames.includes((day ?? '').toLowerCase())) return undefined; // the name must exist, not match the date
  const mon = MONTHS.indexOf((month ?? '').toLowerCase());
  const [y, d, h, mi, s] = [year, dom, hh, mm, ss].map(Number) as [number, number, number, number, number];
  if (mon < 0 || h > 23 || mi > 59 || s > 59 || d < 1) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mon + 1, 0); // the month's last day (years below 100 stay as they are)
  if (d > date.getUTCDate()) return undefined;
  date.setUTCFullYear(y, mon, d);
  date.setUTCHours(h, mi, s, 0);
  return Math.floor(date.getTime() / 1000);
}

// ---------------------------------------------------------------------------------------------
// Ranges

export interface ByteRange {
  readonly start: number;
  readonly length: number;
}

export const INVALID_RANGE = 'invalid range';
export const NO_OVERLAP = 'invalid range: failed to overlap';

/** net/http parseRange: the ranges of a `Range` header over `size` bytes, or the error text. */
export function parseRange(header: string, size: number): ByteRange[] | { error: string } {
  if (header === '') return [];
  const b = 'bytes=';
  if (!header.startsWith(b)) return { error: INVALID_RANGE };
  const ranges: ByteRange[] = [];
  let noOverlap = false;
  for (const raw of header.slice(b.length).split(',')) {
    const ra = trimString(raw);
    if (ra === '') continue;
    const dash = ra.indexOf('-');
    if (dash < 0) return { error: INVALID_RANGE };
    const start = trimString(ra.slice(0, dash));
    const end = trimString(ra.slice(dash + 1));
    if (start === '') {
      // A suffix: the last `end` bytes.
      if (end === '' || end[0] === '-') return { error: INVALID_RANGE };
      const n = parseInt64(end);
      if (n === undefined || n < 0) return { error: INVALID_RANGE };
      const from = size - Math.min(n, size);
      ranges.push({ start: from, length: size - from });
      continue;
    }
    const from = parseInt64(start);
    if (from === undefined || from < 0) return { error: INVALID_RANGE };
    if (from >= size) {
      noOverlap = true;
      continue;
    }
    if (end === '') {
      ranges.push({ start: from, length: size - from });
      continue;
    }
    let to = parseInt64(end);
    if (to === undefined || from > to) return { error: INVALID_RANGE };
    if (to >= size) to = size - 1;
    ranges.push({ start: from, length: to - from + 1 });
  }
  if (noOverlap && ranges.length === 0) return { error: NO_OVERLAP };
  return ranges;
}

/** strconv.ParseInt(s, 10, 64) for the values a file size can reach. */
function parseInt64(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `bytes <first>-<last>/<size>`. */
export const contentRange = (r: ByteRange, size: number): string => `bytes ${r.start}-${r.start + r.length - 1}/${size}`;

/** The framing of a multipart/byteranges body (mime/multipart's Writer): part headers and the closing line. */
export function multipartFraming(ranges: readonly ByteRange[], contentType: string, size: number, boundary: string): { heads: string[]; tail: string } {
  const heads = ranges.map(
    (r, i) => `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Range: ${contentRange(r, size)}\r\nContent-Type: ${contentType}\r\n\r\n`,
  );
  return { heads, tail: `\r\n--${boundary}--\r\n` };
}

// ---------------------------------------------------------------------------------------------
// Query strings and paths

/**
 * url.ParseQuery as `r.URL.Query()` uses it (errors dropped): `&`-separated, pairs with a `;`
 * skipped, `+` is a space, a pair whose escapes do not decode is skipped.
 */
export function parseQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of raw.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    // url.QueryUnescape: `+` is a space.
    const key = pathUnescape((eq < 0 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
    const value = pathUnescape((eq < 0 ? '' : part.slice(eq + 1)).replace(/\+/g, ' '));
    if (key === undefined || value === undefined) continue;
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/**
 * url.PathUnescape of one path segment: `%XX` escapes to bytes, read as UTF-8; undefined when a `%` is not followed
 * by two hex digits.
 */
export function pathUnescape(s: string): string | undefined {
  if (!s.includes('%')) return s;
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return undefined;
  const bytes = s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** ServeMux's cleanPath: path.Clean of a rooted path, keeping a trailing slash. */
export function cleanPath(p: string): string {
  if (p === '') return '/';
  const rooted = p[0] === '/' ? p : '/' + p;
  const out: string[] = [];
  for (const seg of rooted.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  let np = '/' + out.join('/');
  if (rooted.endsWith('/') && np !== '/') np += '/';
  return np;
}

/** gzhttp's parseEncodingGzip: the q-value of `gzip` in Accept-Encoding (0 when absent). */
export function gzipQuality(header: string | undefined): number {
  if (!header) return 0;
  for (const coding of header.trim().split(',')) {
    const parts = coding.split(';');
    if ((parts[0] ?? '').trim().toLowerCase() !== 'gzip') continue;
    let q = 1;
    for (const p of parts.slice(1)) {
      const t = p.trim();
      if (t.startsWith('q=')) {
        const v = Number.parseFloat(t.slice(2));
        q = Number.isNaN(v) ? 0 : Math.min(1, Math.max(0, v));
      }
    }
    return q;
  }
  return 0;
}

/** Go's syscall.Errno texts where libuv words them differently (libuv's text otherwise). */
const GO_ERRNO_TEXT: Readonly<Record<string, string>> = {
  EADDRNOTAVAIL: 'cannot assign requested address',
  EAFNOSUPPORT: 'address family not supported by protocol',
};

/**
 * What Go's net.Listen("tcp", address) returns for the bind error Node gave (`listen tcp :8443: bind: address already
 * in use`); an error that is not an errno of the listen call keeps Node's words after `listen tcp <address>: `.
 */
export function goListenError(err: unknown, address: string): string {
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string' && e.syscall === 'listen' && typeof e.errno === 'number') {
    const text = GO_ERRNO_TEXT[e.code] ?? getSystemErrorMap().get(e.errno)?.[1] ?? e.code;
    return `listen tcp ${address}: bind: ${text}`;
  }
  return `listen tcp ${address}: ${e instanceof Error ? e.message : String(err)}`;
}
