// net/http semantics the server relies on: parseRange (Go's range_test.go table), http.ParseTime
// layouts, checkPreconditions, url.ParseQuery, ServeMux's cleanPath, gzhttp's Accept-Encoding.
import { describe, expect, it } from 'vitest';
import {
  type Validators,
  checkPreconditions,
  cleanPath,
  formatHTTPTime,
  gzipQuality,
  multipartFraming,
  parseHTTPTime,
  parseQuery,
  parseRange,
  scanETag,
} from './gohttp.ts';

describe('parseRange', () => {
  it.each<[string, number, [number, number][] | string]>([
    ['', 0, []],
    ['', 1000, []],
    ['foo', 0, 'invalid range'],
    ['bytes=', 0, []],
    ['bytes=7', 10, 'invalid range'],
    ['bytes= 7 ', 10, 'invalid range'],
    ['bytes=1-', 0, 'invalid range: failed to overlap'],
    ['bytes=5-4', 10, 'invalid range'],
    ['bytes=0-2,5-4', 10, 'invalid range'],
    ['bytes=--5,4--3', 10, 'invalid range'],
    ['bytes=A-', 10, 'invalid range'],
    ['bytes=5-Z', 10, 'invalid range'],
    ['bytes=0x01-0x02', 10, 'invalid range'],
    ['bytes=         ', 10, []],
    ['bytes= , , ,   ', 10, []],
    ['bytes=0-9', 10, [[0, 10]]],
    ['bytes=0-', 10, [[0, 10]]],
    ['bytes=5-', 10, [[5, 5]]],
    ['bytes=0-20', 10, [[0, 10]]],
    ['bytes=15-,0-5', 10, [[0, 6]]],
    ['bytes=1-2,5-', 10, [[1, 2], [5, 5]]],
    ['bytes=-2 , 7-', 11, [[9, 2], [7, 4]]],
    ['bytes=0-0 ,2-2, 7-', 11, [[0, 1], [2, 1], [7, 4]]],
    ['bytes=-5', 10, [[5, 5]]],
    ['bytes=-15', 10, [[0, 10]]],
    ['bytes=0-499', 10000, [[0, 500]]],
    ['bytes=20-', 10, 'invalid range: failed to overlap'],
    ['bytes=   1 -2   ,  4- 5, 7 - 8 , ,,', 11, [[1, 2], [4, 2], [7, 2]]],
  ])('%j over %i bytes', (header, size, want) => {
    const got = parseRange(header, size);
    if (typeof want === 'string') expect(got).toEqual({ error: want });
    else expect(got).toEqual(want.map(([start, length]) => ({ start, length })));
  });

  it('lays out multipart/byteranges as mime/multipart does', () => {
    const { heads, tail } = multipartFraming(
      [
        { start: 0, length: 2 },
        { start: 5, length: 1 },
      ],
      'application/jsonl',
      10,
      'B',
    );
    expect(heads).toEqual([
      '--B\r\nContent-Range: bytes 0-1/10\r\nContent-Type: application/jsonl\r\n\r\n',
      '\r\n--B\r\nContent-Range: bytes 5-5/10\r\nContent-Type: application/jsonl\r\n\r\n',
    ]);
    expect(tail).toBe('\r\n--B--\r\n');
  });
});

describe('HTTP dates', () => {
  const t = Date.UTC(1994, 10, 6, 8, 49, 37) / 1000;
  it('parses the three layouts http.ParseTime accepts', () => {
    expect(parseHTTPTime('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(t);
    expect(parseHTTPTime('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(t);
    expect(parseHTTPTime('Sun Nov  6 08:49:37 1994')).toBe(t);
    expect(parseHTTPTime('sun, 06 nov 1994 08:49:37 GMT')).toBe(t); // names in any case
    expect(parseHTTPTime('Mon, 06 Nov 1994 08:49:37 GMT')).toBe(t); // the day name is not checked against the date
  });

  it('rejects what none of them fits', () => {
    for (const bad of ['', 'yesterday', 'Sun, 6 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:37 UTC', 'Sun, 31 Nov 1994 08:49:37 GMT', 'Xyz, 06 Nov 1994 08:49:37 GMT']) {
      expect(parseHTTPTime(bad)).toBeUndefined();
    }
  });

  it('formats http.TimeFormat, nothing for a zero time', () => {
    expect(formatHTTPTime(new Date(t * 1000 + 999))).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(formatHTTPTime(new Date(0))).toBeUndefined();
  });
});

describe('checkPreconditions', () => {
  const modified = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
  const lm = 'Tue, 02 Jan 2024 03:04:05 GMT';
  const earlier = 'Tue, 02 Jan 2024 03:04:04 GMT';
  const v: Validators = { etag: '"abc"', modified };
  const run = (method: string, h: Record<string, string>, validators: Validators = v): unknown => checkPreconditions(method, h, validators);

  it('If-None-Match: weak comparison, * matches; 304 for GET/HEAD, 412 otherwise', () => {
    expect(run('GET', { 'if-none-match': '"abc"' })).toEqual({ done: 304 });
    expect(run('HEAD', { 'if-none-match': 'W/"abc"' })).toEqual({ done: 304 });
    expect(run('GET', { 'if-none-match': '"x", "abc"' })).toEqual({ done: 304 });
    expect(run('GET', { 'if-none-match': '*' })).toEqual({ done: 304 });
    expect(run('POST', { 'if-none-match': '"abc"' })).toEqual({ done: 412 });
    expect(run('GET', { 'if-none-match': '"x"' })).toEqual({ done: false, range: '' });
  });

  it('If-None-Match present means If-Modified-Since is not looked at', () => {
    expect(run('GET', { 'if-none-match': '"x"', 'if-modified-since': lm })).toEqual({ done: false, range: '' });
  });

  it('If-Modified-Since compares whole seconds; unparsable dates are ignored', () => {
    expect(run('GET', { 'if-modified-since': lm })).toEqual({ done: 304 });
    expect(run('GET', { 'if-modified-since': earlier })).toEqual({ done: false, range: '' });
    expect(run('GET', { 'if-modified-since': 'garbage' })).toEqual({ done: false, range: '' });
    expect(run('POST', { 'if-modified-since': lm })).toEqual({ done: false, range: '' });
  });

  it('If-Match: strong comparison, * holds; else If-Unmodified-Since', () => {
    expect(run('GET', { 'if-match': '"abc"' })).toEqual({ done: false, range: '' });
    expect(run('GET', { 'if-match': 'W/"abc"' })).toEqual({ done: 412 });
    expect(run('GET', { 'if-match': '"x"' })).toEqual({ done: 412 });
    expect(run('GET', { 'if-match': '*' })).toEqual({ done: false, range: '' });
    expect(run('GET', { 'if-unmodified-since': earlier })).toEqual({ done: 412 });
    expect(run('GET', { 'if-unmodified-since': lm })).toEqual({ done: false, range: '' });
    expect(run('GET', { 'if-match': '"abc"', 'if-unmodified-since': earlier })).toEqual({ done: false, range: '' });
  });

  it('without an ETag no entity tag matches, * still does (catalogd metas)', () => {
    const noTag = { etag: undefined, modified };
    expect(run('GET', { 'if-match': '"abc"' }, noTag)).toEqual({ done: 412 });
    expect(run('GET', { 'if-match': '*' }, noTag)).toEqual({ done: false, range: '' });
    expect(run('GET', { 'if-none-match': '"abc"' }, noTag)).toEqual({ done: false, range: '' });
    expect(run('GET', { 'if-none-match': '*' }, noTag)).toEqual({ done: 304 });
  });

  it('If-Range keeps the Range only when it matches', () => {
    expect(run('GET', { range: 'bytes=0-1' })).toEqual({ done: false, range: 'bytes=0-1' });
    expect(run('GET', { range: 'bytes=0-1', 'if-range': '"abc"' })).toEqual({ done: false, range: 'bytes=0-1' });
    expect(run('GET', { range: 'bytes=0-1', 'if-range': '"x"' })).toEqual({ done: false, range: '' });
    expect(run('GET', { range: 'bytes=0-1', 'if-range': lm })).toEqual({ done: false, range: 'bytes=0-1' });
    expect(run('GET', { range: 'bytes=0-1', 'if-range': earlier })).toEqual({ done: false, range: '' });
  });

  it('a zero modification time disables the date preconditions', () => {
    const zero = { etag: undefined, modified: new Date(0) };
    expect(run('GET', { 'if-modified-since': lm }, zero)).toEqual({ done: false, range: '' });
    expect(run('GET', { 'if-unmodified-since': earlier }, zero)).toEqual({ done: false, range: '' });
  });

  it('scanETag reads strong and weak tags and refuses the rest', () => {
    expect(scanETag(' "a" , "b"')).toEqual({ etag: '"a"', rest: ' , "b"' });
    expect(scanETag('W/"a"')).toEqual({ etag: 'W/"a"', rest: '' });
    expect(scanETag('a')).toBeUndefined();
    expect(scanETag('"a b"')).toBeUndefined();
  });
});

describe('query strings, paths, Accept-Encoding', () => {
  it('parses like url.ParseQuery, dropping what it cannot', () => {
    const q = parseQuery('schema=olm.bundle&package=a+b&name=%41&schema=x&&=v&bad=%zz&semi;colon=1&flag');
    expect([...q.entries()]).toEqual([
      ['schema', ['olm.bundle', 'x']],
      ['package', ['a b']],
      ['name', ['A']],
      ['', ['v']],
      ['flag', ['']],
    ]);
  });

  it('cleans paths like ServeMux', () => {
    expect(cleanPath('/catalogs/a/api/v1/all')).toBe('/catalogs/a/api/v1/all');
    expect(cleanPath('/catalogs//api/v1/all')).toBe('/catalogs/api/v1/all');
    expect(cleanPath('/catalogs/./a/../b/')).toBe('/catalogs/b/');
    expect(cleanPath('/..')).toBe('/');
    expect(cleanPath('')).toBe('/');
  });

  it('reads the gzip q-value as gzhttp does', () => {
    expect(gzipQuality(undefined)).toBe(0);
    expect(gzipQuality('gzip')).toBe(1);
    expect(gzipQuality('deflate, GZIP;q=0.5')).toBe(0.5);
    expect(gzipQuality('gzip;q=0')).toBe(0);
    expect(gzipQuality('br, identity')).toBe(0);
    expect(gzipQuality('gzip;q=x')).toBe(0);
  });
});
