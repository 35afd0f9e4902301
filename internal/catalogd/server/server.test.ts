// The catalog server over real loopback sockets (undici and node:http clients): every status
// code and header of catalogd's handlers, ServeContent and gzhttp; metas answers checked against
// an independent filter of catalog.jsonl's lines; metrics, access log, timeouts, TLS reload.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { gunzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { Agent, Client, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../shared/observability/index.ts';
import { poll } from '../../../test/support/net.ts';
import { LocalDirStore } from '../storage/index.ts';
import { writeSyntheticCatalog } from '../storage/testing.ts';
import type { StoredCatalog } from '../storage/index.ts';
import { createCatalogServer, type CatalogServer } from './server.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const NAME_FORMAT =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

let tmp: string;
let store: LocalDirStore;
let stored: StoredCatalog;
let big: StoredCatalog;
let fileBytes: Buffer;
let server: CatalogServer;
let base: string;
let client: Client;
const registry = new Registry();
const logLines: Record<string, unknown>[] = [];

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  const res = await client.request({ path, method: method as 'GET', headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/** catalog.jsonl's lines filtered by their own JSON, in file order: what a metas query must return. */
function linesWhere(bytes: Buffer, pred: (meta: { schema?: string; package?: string; name?: string }) => boolean): string {
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '' && pred(JSON.parse(l) as { schema?: string; package?: string; name?: string }))
    .map((l) => l + '\n')
    .join('');
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'catalog-server-'));
  await writeSyntheticCatalog(join(tmp, 'fbc'), { packages: 3, bundlesPerPackage: 4, prefix: 'op' });
  await writeSyntheticCatalog(join(tmp, 'fbc-big'), { packages: 1, bundlesPerPackage: 500, prefix: 'big' });
  store = new LocalDirStore({ root: join(tmp, 'catalogs') });
  stored = await store.store('test', D1, join(tmp, 'fbc'));
  big = await store.store('big', D1, join(tmp, 'fbc-big'));
  fileBytes = await readFile(stored.jsonlPath);
  const logger = createLogger({ level: 'info', write: (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  server = createCatalogServer({ store, logger, registry });
  const { url } = await server.listen('127.0.0.1', 0);
  base = url;
  client = new Client(base, { pipelining: 1 });
});

afterAll(async () => {
  await client.close();
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

/** The handshake_failure alert as the client's OpenSSL names it (3.0: SSLV3_…; 3.5, in Node 24: SSL/TLS_…). */
const HANDSHAKE_FAILURE = /^ERR_SSL_(SSLV3|SSL\/TLS)_ALERT_HANDSHAKE_FAILURE$/;
const ALL = '/catalogs/test/api/v1/all';
const METAS = '/catalogs/test/api/v1/metas';

describe('/api/v1/all (http.ServeContent)', () => {
  it('GET streams catalog.jsonl with its validators', async () => {
    const r = await get(ALL);
    expect(r.status).toBe(200);
    expect(r.body.equals(fileBytes)).toBe(true);
    expect(r.headers).toMatchObject({
      'content-type': 'application/jsonl',
      'content-length': String(fileBytes.length),
      etag: stored.etag,
      'last-modified': stored.modified.toUTCString(),
      'accept-ranges': 'bytes',
      vary: 'Accept-Encoding',
    });
    expect(r.headers['content-encoding']).toBeUndefined();
  });

  it('HEAD answers the same headers and no body', async () => {
    const r = await get(ALL, {}, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
    expect(r.headers['content-length']).toBe(String(fileBytes.length));
    expect(r.headers.etag).toBe(stored.etag);
  });

  it('304 for a matching If-None-Match (weakly compared) or a fresh If-Modified-Since', async () => {
    const fresh: Record<string, string>[] = [
      { 'if-none-match': stored.etag },       { 'if-none-match': `W/${stored.etag}` },
      { 'if-none-match': '"x", *' },
      { 'if-modified-since': stored.modified.toUTCString() },
    ];
    for (const h of fresh) {
      const r = await get(ALL, h);
      expect(r.status).toBe(304);
      expect(r.body.length).toBe(0);
      expect(r.headers.etag).toBe(stored.etag);
      expect(r.headers['last-modified']).toBeUndefined(); // dropped when there is an ETag
      expect(r.headers['content-type']).toBeUndefined();
      expect(r.headers['content-length']).toBeUndefined();
    }
    expect((await get(ALL, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await get(ALL, { 'if-modified-since': new Date(stored.modified.getTime() - 2000).toUTCString() })).status).toBe(200);
    expect((await get(ALL, { 'if-modified-since': 'not a date' })).status).toBe(200);
  });

  it('412 when If-Match or If-Unmodified-Since fails', async () => {
    const failing: Record<string, string>[] = [{ 'if-match': '"other"' }, { 'if-unmodified-since': new Date(stored.modified.getTime() - 2000).toUTCString() }];
    for (const h of failing) {
      const r = await get(ALL, h);
      expect(r.status).toBe(412);
      expect(r.headers['content-length']).toBe('0');
      expect(r.body.length).toBe(0);
    }
    expect((await get(ALL, { 'if-match': stored.etag })).status).toBe(200);
  });

  it('serves single ranges, suffixes and multipart/byteranges', async () => {
    const one = await get(ALL, { range: 'bytes=10-19' });
    expect(one.status).toBe(206);
    expect(one.headers['content-range']).toBe(`bytes 10-19/${fileBytes.length}`);
    expect(one.headers['content-length']).toBe('10');
    expect(one.body.equals(fileBytes.subarray(10, 20))).toBe(true);

    const suffix = await get(ALL, { range: 'bytes=-7' });
    expect(suffix.body.equals(fileBytes.subarray(fileBytes.length - 7))).toBe(true);

    const multi = await get(ALL, { range: 'bytes=0-4,100-109' });
    expect(multi.status).toBe(206);
    const ct = String(multi.headers['content-type']);
    expect(ct).toMatch(/^multipart\/byteranges; boundary=[0-9a-f]{60}$/);
    const boundary = ct.slice(ct.indexOf('=') + 1);
    const size = fileBytes.length;
    const expected = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Range: bytes 0-4/${size}\r\nContent-Type: application/jsonl\r\n\r\n`),
      fileBytes.subarray(0, 5),
      Buffer.from(`\r\n--${boundary}\r\nContent-Range: bytes 100-109/${size}\r\nContent-Type: application/jsonl\r\n\r\n`),
      fileBytes.subarray(100, 110),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(multi.body.equals(expected)).toBe(true);
    expect(multi.headers['content-length']).toBe(String(expected.length));
  });

  it('416 for ranges that cannot be served, without the success validators', async () => {
    const none = await get(ALL, { range: `bytes=${fileBytes.length}-` });
    expect(none.status).toBe(416);
    expect(none.body.toString()).toBe('invalid range: failed to overlap\n');
    expect(none.headers['content-range']).toBe(`bytes */${fileBytes.length}`);
    expect(none.headers.etag).toBeUndefined();
    expect(none.headers['last-modified']).toBeUndefined();
    expect(none.headers['content-type']).toBe('text/plain; charset=utf-8');
    const bad = await get(ALL, { range: 'lines=1-2' });
    expect(bad.status).toBe(416);
    expect(bad.body.toString()).toBe('invalid range\n');
  });

  it('If-Range with another validator serves the whole file', async () => {
    const r = await get(ALL, { range: 'bytes=0-9', 'if-range': '"other"' });
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(fileBytes.length);
  });

  it('gzip when asked: no Content-Length or Accept-Ranges, a weak ETag; never for HEAD or ranges', async () => {
    const r = await get(ALL, { 'accept-encoding': 'gzip, deflate' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.headers['accept-ranges']).toBeUndefined();
    expect(r.headers.etag).toBe(`W/${stored.etag}`);
    expect(gunzipSync(r.body).equals(fileBytes)).toBe(true);
    const revalidate = await get(ALL, { 'accept-encoding': 'gzip', 'if-none-match': `W/${stored.etag}` });
    expect(revalidate.status).toBe(304);

    const head = await get(ALL, { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(fileBytes.length));
    const range = await get(ALL, { 'accept-encoding': 'gzip', range: 'bytes=0-1999' });
    expect(range.status).toBe(206);
    expect(range.headers['content-encoding']).toBeUndefined();
    expect(range.body.equals(fileBytes.subarray(0, 2000))).toBe(true);
    expect((await get(ALL, { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });

  it('an open response keeps streaming the old content across a swap', async () => {
    const first = await store.store('swap', D1, join(tmp, 'fbc-big'));
    const expected = await readFile(first.jsonlPath);
    const res = await request(`${base}/catalogs/swap/api/v1/all`);
    const reader = res.body;
    const chunks: Buffer[] = [];
    let swapped = false;
    for await (const chunk of reader) {
      chunks.push(chunk as Buffer);
      if (!swapped) {
        swapped = true;
        await store.store('swap', D2, join(tmp, 'fbc'));
      }
    }
    expect(Buffer.concat(chunks).equals(expected)).toBe(true);
    const after = await get('/catalogs/swap/api/v1/all');
    expect(after.body.equals(await readFile(store.get('swap')?.jsonlPath ?? ''))).toBe(true);
    expect(after.headers.etag).toBe(`"${D2}.v1"`);
  });
});

describe('/api/v1/metas', () => {
  it.each<[string, (m: { schema?: string; package?: string; name?: string }) => boolean]>([
    ['schema=olm.bundle&package=op-00001', (m) => m.schema === 'olm.bundle' && m.package === 'op-00001'],
    ['package=op-00002', (m) => m.schema !== undefined && m.package === 'op-00002'],
    ['schema=olm.package', (m) => m.schema === 'olm.package'],
    ['schema=olm.channel&name=stable', (m) => m.schema === 'olm.channel' && m.name === 'stable'],
    ['name=op-00000.v1.0.2', (m) => m.name === 'op-00000.v1.0.2'],
    ['schema=olm.bundle&package=op-00001&name=op-00001.v1.0.3', (m) => m.name === 'op-00001.v1.0.3'],
    ['schema=olm.bundle&schema=olm.package&package=op-00000', (m) => m.schema === 'olm.bundle' && m.package === 'op-00000'],
  ])('?%s answers the matching blobs in file order', async (query, pred) => {
    const r = await get(`${METAS}?${query}`);
    expect(r.status).toBe(200);
    const want = linesWhere(fileBytes, pred);
    expect(want.length).toBeGreaterThan(0);
    expect(r.body.toString('utf8')).toBe(want);
    expect(r.headers['content-type']).toBe('application/jsonl');
    expect(r.headers['last-modified']).toBe(stored.modified.toUTCString());
    expect(r.headers.etag).toBeUndefined();
  });

  it('no parameters (or only empty ones) is the whole catalog', async () => {
    expect((await get(METAS)).body.equals(fileBytes)).toBe(true);
    expect((await get(`${METAS}?schema=&package=`)).body.equals(fileBytes)).toBe(true);
  });

  it('unknown values answer 200 with an empty body', async () => {
    for (const q of ['package=nope', 'schema=olm.package&package=op-00000&name=op-00001']) {
      const r = await get(`${METAS}?${q}`);
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(0);
      expect(r.headers['content-length']).toBe('0');
      expect(r.headers['content-type']).toBe('application/jsonl');
    }
  });

  it('any other parameter is 400 "400 Bad Request"', async () => {
    for (const q of ['schema=olm.bundle&limit=1', 'foo', '=x']) {
      const r = await get(`${METAS}?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.toString()).toBe('400 Bad Request\n');
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('HEAD has the headers and no body', async () => {
    const r = await get(`${METAS}?schema=olm.package`, {}, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
    expect(r.headers['content-type']).toBe('application/jsonl');
    expect(r.headers['last-modified']).toBe(stored.modified.toUTCString());
  });

  it('preconditions without an ETag: dates, and * for the entity-tag headers', async () => {
    const notModified = await get(`${METAS}?schema=olm.package`, { 'if-modified-since': stored.modified.toUTCString() });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['last-modified']).toBe(stored.modified.toUTCString());
    expect(notModified.headers['content-type']).toBeUndefined();
    expect((await get(`${METAS}?schema=olm.package`, { 'if-none-match': '*' })).status).toBe(304);
    expect((await get(`${METAS}?schema=olm.package`, { 'if-none-match': '"x"', 'if-modified-since': stored.modified.toUTCString() })).status).toBe(200);
    const failed = await get(`${METAS}?schema=olm.package`, { 'if-match': '"x"' });
    expect(failed.status).toBe(412);
    expect(failed.headers['content-type']).toBeUndefined();
    expect((await get(`${METAS}?schema=olm.package`, { 'if-match': '*' })).status).toBe(200);
    const early = new Date(stored.modified.getTime() - 2000).toUTCString();
    expect((await get(`${METAS}?schema=olm.package`, { 'if-unmodified-since': early })).status).toBe(412);
  });

  it('gzip only from 1400 bytes on', async () => {
    const small = await get(`${METAS}?schema=olm.package&name=op-00000`, { 'accept-encoding': 'gzip' });
    expect(small.body.length).toBeLessThan(1400);
    expect(small.headers['content-encoding']).toBeUndefined();
    const large = await get(`${METAS}?schema=olm.bundle&package=op-00000`, { 'accept-encoding': 'gzip' });
    expect(large.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(large.body).toString()).toBe(linesWhere(fileBytes, (m) => m.schema === 'olm.bundle' && m.package === 'op-00000'));
  });

  it('answers from the cache stay right across a swap to a new digest', async () => {
    await store.store('cached', D1, join(tmp, 'fbc'));
    const path = '/catalogs/cached/api/v1/metas?schema=olm.package';
    const before = await get(path);
    expect((await get(path)).body.equals(before.body)).toBe(true);
    const next = await store.store('cached', D2, join(tmp, 'fbc-big'));
    const after = await get(path);
    expect(after.body.toString()).toBe(linesWhere(await readFile(next.jsonlPath), (m) => m.schema === 'olm.package'));
    expect(after.body.equals(before.body)).toBe(false);
  });

  // Issue 32: an answer keeps the StoredCatalog it was read from (its index too); a deleted catalog's
  // answers used to stay until newer ones pushed them out of the cache.
  it('a deleted or replaced catalog keeps nothing in the answer cache', async () => {
    await store.store('goes', D1, join(tmp, 'fbc'));
    const path = '/catalogs/goes/api/v1/metas?schema=olm.package';
    expect((await get(path)).status).toBe(200);
    expect((await get(`${path}&name=op-00001`)).status).toBe(200);
    expect(server.cachedAnswerBytes('goes')).toBeGreaterThan(0);
    await store.delete('goes');
    expect(server.cachedAnswerBytes('goes')).toBe(0);
    expect((await get(path)).status).toBe(404);

    await store.store('swapped', D1, join(tmp, 'fbc'));
    expect((await get('/catalogs/swapped/api/v1/metas?schema=olm.package')).status).toBe(200);
    expect(server.cachedAnswerBytes('swapped')).toBeGreaterThan(0);
    await store.store('swapped', D2, join(tmp, 'fbc-big'));
    expect(server.cachedAnswerBytes('swapped')).toBe(0);

    await store.store('collected', D1, join(tmp, 'fbc'));
    expect((await get('/catalogs/collected/api/v1/metas?schema=olm.package')).status).toBe(200);
    expect(server.cachedAnswerBytes('collected')).toBeGreaterThan(0);
    const keep = new Set((await readdir(join(tmp, 'catalogs'))).filter((n) => n !== 'collected'));
    await store.garbageCollect(keep);
    expect(server.cachedAnswerBytes('collected')).toBe(0);
  });

  it('a cached answer (repeated GET) is the first one: headers, bytes, gzip, preconditions and HEAD', async () => {
    const repeat = await store.store('repeat', D1, join(tmp, 'fbc'));
    const path = '/catalogs/repeat/api/v1/metas?package=op-00001&schema=olm.bundle';
    const want = linesWhere(fileBytes, (m) => m.schema === 'olm.bundle' && m.package === 'op-00001');
    const first = await get(path);
    const again = await get(path);
    for (const r of [first, again]) {
      expect(r.status).toBe(200);
      expect(r.body.toString()).toBe(want);
      expect(r.headers['content-length']).toBe(String(Buffer.byteLength(want)));
      expect(r.headers['content-type']).toBe('application/jsonl');
      expect(r.headers.vary).toBe('Accept-Encoding');
      expect(r.headers['last-modified']).toBe(repeat.modified.toUTCString());
      expect(r.headers['content-encoding']).toBeUndefined();
    }
    for (let i = 0; i < 2; i++) {
      const gz = await get(path, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.headers['content-length']).toBeUndefined();
      expect(gz.headers.vary).toBe('Accept-Encoding');
      expect(gunzipSync(gz.body).toString()).toBe(want);
    }
    expect((await get(path, { 'if-modified-since': repeat.modified.toUTCString() })).status).toBe(304);
    expect((await get(path, { 'if-match': '"x"' })).status).toBe(412);
    const head = await get(path, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(want)));
    expect((await get(path)).body.toString()).toBe(want);
    await store.delete('repeat');
    expect((await get(path)).status).toBe(404);
  });

  it('streams answers bigger than 1 MiB, reading only their sections', async () => {
    const bigBytes = await readFile(big.jsonlPath);
    const r = await get('/catalogs/big/api/v1/metas?schema=olm.bundle');
    const want = linesWhere(bigBytes, (m) => m.schema === 'olm.bundle');
    expect(Buffer.byteLength(want)).toBeGreaterThan(1 << 20);
    expect(r.body.toString()).toBe(want);
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(want)));
    const gz = await get('/catalogs/big/api/v1/metas?schema=olm.bundle', { 'accept-encoding': 'gzip' });
    expect(gunzipSync(gz.body).toString()).toBe(want);
  });

  it("a streamed answer's sections are worked out once per stored catalog and query, and anew for new content", async () => {
    const memo = await store.store('memo', D1, join(tmp, 'fbc-big'));
    const path = '/catalogs/memo/api/v1/metas?schema=olm.bundle';
    const sections = vi.spyOn(memo.index, 'sections');
    const want = linesWhere(await readFile(memo.jsonlPath), (m) => m.schema === 'olm.bundle');
    for (let i = 0; i < 3; i++) expect((await get(path)).body.toString()).toBe(want);
    expect((await get(path, {}, 'HEAD')).headers['content-length']).toBe(String(Buffer.byteLength(want)));
    expect(sections).toHaveBeenCalledTimes(1);
    expect((await get('/catalogs/memo/api/v1/metas?package=big-00000&schema=olm.bundle')).body.toString()).toBe(want); // another query
    expect(sections).toHaveBeenCalledTimes(2);
    const next = await store.store('memo', D2, join(tmp, 'fbc'));
    expect((await get(path)).body.toString()).toBe(linesWhere(await readFile(next.jsonlPath), (m) => m.schema === 'olm.bundle'));
    await store.delete('memo');
    expect((await get(path)).status).toBe(404);
  });
});

describe('errors and routing (Go ServeMux + net/http texts)', () => {
  const plain = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

  it('405 "Method Not Allowed" for other methods, without an Allow header, whatever the body', async () => {
    for (const [method, path] of [
      ['POST', ALL],
      ['PUT', METAS],
      ['DELETE', ALL],
      ['OPTIONS', METAS],
      ['PATCH', '/catalogs/Bad_Name/api/v1/all'],
    ] as const) {
      const res = await client.request({ path, method, headers: { 'content-type': 'application/json' }, body: '{not json' });
      const body = await res.body.text();
      expect(res.statusCode).toBe(405);
      expect(body).toBe('Method Not Allowed\n');
      expect(res.headers).toMatchObject(plain);
      expect(res.headers.allow).toBeUndefined();
    }
  });

  it('400 with the IsDNS1123Subdomain messages for an invalid catalog name', async () => {
    const r = await get('/catalogs/Bad_Name/api/v1/all');
    expect(r.status).toBe(400);
    expect(r.body.toString()).toBe(`invalid catalog name: ${NAME_FORMAT}\n`);
    expect(r.headers).toMatchObject(plain);
    const long = await get(`/catalogs/${'-'.repeat(254)}/api/v1/metas`);
    expect(long.body.toString()).toBe(`invalid catalog name: must be no more than 253 characters; ${NAME_FORMAT}\n`);
  });

  it('404 "404 Not Found" for a catalog without content, "404 page not found" for other paths', async () => {
    for (const path of ['/catalogs/missing/api/v1/all', '/catalogs/missing/api/v1/metas?schema=olm.bundle']) {
      const r = await get(path);
      expect(r.status).toBe(404);
      expect(r.body.toString()).toBe('404 Not Found\n');
      expect(r.headers).toMatchObject(plain);
    }
    for (const path of ['/', '/catalogs/test', '/catalogs/test/api/v1/all/', '/catalogs/test/api/v2/all', '/catalogs/test/api/v1/graphql', '/other/test/api/v1/all']) {
      const r = await get(path);
      expect(r.status).toBe(404);
      expect(r.body.toString()).toBe('404 page not found\n');
    }
  });

  it('HEAD errors carry the length of the text but no body', async () => {
    const r = await get('/catalogs/missing/api/v1/all', {}, 'HEAD');
    expect(r.status).toBe(404);
    expect(r.headers['content-length']).toBe('14');
    expect(r.body.length).toBe(0);
  });

  it('redirects a path that is not clean, and matches escaped segments unescaped', async () => {
    const r = await get('/catalogs/x/../test/api/v1/all?a=b');
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe('/catalogs/test/api/v1/all?a=b');
    expect(r.body.toString()).toBe('<a href="/catalogs/test/api/v1/all?a=b">Moved Permanently</a>.\n\n');
    expect((await get('/catalogs/t%65st/api/v1/%61ll')).body.equals(fileBytes)).toBe(true);
    expect((await get('/catalogs/a%2Fb/api/v1/all')).body.toString()).toMatch(/^invalid catalog name: /);
  });

  it('a metas route that is switched off is not routed', async () => {
    const off = createCatalogServer({ store, metasEnabled: false });
    const { url } = await off.listen('127.0.0.1', 0);
    try {
      const r = await request(`${url}${METAS}`);
      expect(r.statusCode).toBe(404);
      expect(await r.body.text()).toBe('404 page not found\n');
      expect((await request(`${url}${ALL}`)).statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe('metrics, access log, connections', () => {
  it('observes catalogd_http_request_duration_seconds{code} with upstream buckets', async () => {
    await get('/catalogs/missing/api/v1/all');
    const text = await registry.metrics();
    expect(text).toContain('# HELP catalogd_http_request_duration_seconds Histogram of request duration in seconds');
    expect(text).toMatch(/catalogd_http_request_duration_seconds_bucket\{le="0\.1",code="200"\} \d+/);
    expect(text).toMatch(/catalogd_http_request_duration_seconds_bucket\{le="10",code="404"\} \d+/);
    const les = [...text.matchAll(/catalogd_http_request_duration_seconds_bucket\{le="([^"]+)",code="404"\}/g)].map((m) => m[1]);
    expect(les).toEqual(['0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9', '1', '1.2', '1.6', '2', '2.4', '2.8', '3.2', '3.6', '4', '10', '+Inf']);
  });

  it('writes one "handled request" line per request', async () => {
    logLines.length = 0;
    await get(`${METAS}?schema=olm.package`);
    await poll(() => logLines.some((l) => l.msg === 'handled request'), { timeoutMs: 2000, intervalMs: 5 });
    const line = logLines.find((l) => l.msg === 'handled request');
    expect(line).toMatchObject({
      level: 'info',
      host: '127.0.0.1',
      username: '-',
      method: 'GET',
      uri: `${METAS}?schema=olm.package`,
      protocol: 'HTTP/1.1',
      status: 200,
      size: Buffer.byteLength(linesWhere(fileBytes, (m) => m.schema === 'olm.package')),
    });
  });

  it('keeps connections alive between requests', async () => {
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    const once = (): Promise<boolean> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(`${base}${METAS}?schema=olm.package`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(req.reusedSocket));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await once()).toBe(false);
    expect(await once()).toBe(true);
    agent.destroy();
  });

  it('drops a connection whose request does not arrive within the read timeout', async () => {
    const slow = createCatalogServer({ store, readTimeoutMs: 300 });
    const { port } = await slow.listen('127.0.0.1', 0);
    try {
      const started = Date.now();
      const reply = await new Promise<string>((resolve, reject) => {
        const sock = netConnect(port, '127.0.0.1', () => sock.write('GET /catalogs/test/api/v1/all HTTP/1.1\r\nHost: x\r\n'));
        let data = '';
        sock.on('data', (d) => (data += d.toString()));
        sock.on('close', () => resolve(data));
        sock.on('error', reject);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 408 /);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await slow.close();
    }
  });

  it('a request it cannot read gets 400 Bad Request and a closed connection; a bad escape is refused before routing', async () => {
    const port = Number(new URL(base).port);
    const raw = (text: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const sock = netConnect(port, '127.0.0.1', () => sock.write(text));
        let data = '';
        sock.on('data', (d) => (data += d.toString()));
        sock.on('close', () => resolve(data));
        sock.on('error', reject);
      });
    const unreadable = 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 15\r\nConnection: close\r\n\r\n400 Bad Request';
    expect(await raw('GARBAGE\r\n\r\n')).toBe(unreadable);
    expect(await raw(`GET ${ALL} HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`)).toBe(unreadable);
    expect(await raw(`GET ${ALL} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    logLines.length = 0;
    for (const target of ['/catalogs/%zz/api/v1/all', '/catalogs/%FF/api/v1/all', 'http://[bad/catalogs']) {
      const reply = await raw(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(reply).toMatch(/\r\nconnection: close\r\n/);
      expect(reply.endsWith('\r\n\r\n400 Bad Request')).toBe(true);
    }
    // a routed request after them: once its line is logged, theirs would have been
    await get(ALL);
    await poll(() => logLines.some((l) => l.msg === 'handled request' && l.uri === ALL), { timeoutMs: 2000, intervalMs: 5 });
    const before = logLines.slice(0, logLines.findIndex((l) => l.msg === 'handled request' && l.uri === ALL));
    expect(before.filter((l) => l.msg === 'handled request')).toEqual([]); // refused before routing: not logged
  });

  it('runnable serves until its signal aborts, then closes', async () => {
    const s = createCatalogServer({ store });
    await expect(s.runnable(new AbortController().signal)).rejects.toThrow('call listen() first');
    const { url } = await s.listen('127.0.0.1', 0);
    expect(s.url).toBe(url);
    const stop = new AbortController();
    const running = s.runnable(stop.signal);
    expect((await request(`${url}${ALL}`, { method: 'HEAD' })).statusCode).toBe(200);
    stop.abort();
    await running;
    await expect(request(`${url}${ALL}`)).rejects.toThrow();
  });

  // upstream serverutil: net.Listen's error wrapped as `error creating catalog server listener: %w`, Go's OpError
  // naming `listen tcp <--catalogs-server-addr>`; a Serve error as `catalog server on %q failed: %w` (b177be35).
  it('a bind that fails names the address in upstream words', async () => {
    const taken = createCatalogServer({ store });
    const { port } = await taken.listen('127.0.0.1', 0);
    try {
      await expect(createCatalogServer({ store }).listen('127.0.0.1', port)).rejects.toThrow(
        `error creating catalog server listener: listen tcp 127.0.0.1:${port}: bind: address already in use`,
      );
      await expect(createCatalogServer({ store }).listen('127.0.0.1', port, `127.0.0.1:${port}`)).rejects.toThrow(
        `error creating catalog server listener: listen tcp 127.0.0.1:${port}: bind: address already in use`,
      );
      // An address this machine does not have (TEST-NET-1 is never assigned): Go's EADDRNOTAVAIL words.
      await expect(createCatalogServer({ store }).listen('192.0.2.1', 0, '192.0.2.1:0')).rejects.toThrow(
        'error creating catalog server listener: listen tcp 192.0.2.1:0: bind: cannot assign requested address',
      );
    } finally {
      await taken.close();
    }
  });
});

describe('TLS', () => {
  const openssl = (dir: string, cn: string): void => {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${cn}`, '-keyout', join(dir, `${cn}.key`), '-out', join(dir, `${cn}.crt`)],
      { stdio: 'ignore' },
    );
  };

  const peerSubject = (port: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const sock = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
        const cert = sock.getPeerX509Certificate();
        const alpn = sock.alpnProtocol;
        sock.end();
        resolve(`${cert ? new X509Certificate(cert.raw).subject : ''} ${String(alpn)}`);
      });
      sock.on('error', reject);
    });

  /** The cipher suite a client offering `options` gets, or the handshake's error. */
  const negotiated = (port: number, options: ConnectionOptions = {}): Promise<string> =>
    new Promise((resolve) => {
      const sock = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
        const suite = sock.getCipher().standardName;
        sock.end();
        resolve(suite);
      });
      sock.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });

  it("chooses the cipher suite as Go's crypto/tls server does with upstream's default (intermediate) TLS profile, whatever order the client offers", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-tls-'));
    openssl(dir, 'suites');
    const tlsServer = createCatalogServer({ store, tls: { certFile: join(dir, 'suites.crt'), keyFile: join(dir, 'suites.key') } });
    try {
      const { port } = await tlsServer.listen('127.0.0.1', 0);
      // Node's and OpenSSL's clients offer AES-256 first; Go's server takes AES-128 (10 rounds, not 14).
      expect(await negotiated(port)).toBe('TLS_AES_128_GCM_SHA256');
      // A client without AES hardware lists ChaCha20 first and gets it.
      expect(await negotiated(port, { ciphers: 'TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256' })).toBe('TLS_CHACHA20_POLY1305_SHA256');
      expect(await negotiated(port, { ciphers: 'TLS_AES_256_GCM_SHA384' })).toBe('TLS_AES_256_GCM_SHA384');
      const tls12 = { maxVersion: 'TLSv1.2' } as const;
      expect(await negotiated(port, { ...tls12, ciphers: 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256' })).toBe('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
      expect(await negotiated(port, { ...tls12, ciphers: 'ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-GCM-SHA256' })).toBe('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256');
      // Not in the intermediate profile: RSA key exchange, DHE, and every CBC suite (Go alone would take ECDHE with
      // AES-CBC-SHA); nor TLS 1.1.
      for (const ciphers of ['AES128-GCM-SHA256', 'ECDHE-RSA-AES256-SHA384', 'DHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES256-SHA']) {
        expect(await negotiated(port, { ...tls12, ciphers })).toMatch(HANDSHAKE_FAILURE);
      }
      // Its key exchange groups: X25519, P-256, P-384 (and X25519MLKEM768 where OpenSSL has it), not P-521.
      for (const ecdhCurve of ['X25519', 'P-256', 'P-384']) expect(await negotiated(port, { ecdhCurve })).toBe('TLS_AES_128_GCM_SHA256');
      expect(await negotiated(port, { ecdhCurve: 'P-521' })).toMatch(HANDSHAKE_FAILURE);
      expect(await negotiated(port, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' })).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
    } finally {
      await tlsServer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers plain HTTP on the TLS port as Go does (400, one line) and still serves TLS on the same port', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-tls-'));
    openssl(dir, 'plain');
    const tlsServer = createCatalogServer({ store, tls: { certFile: join(dir, 'plain.crt'), keyFile: join(dir, 'plain.key') } });
    const agent = new Agent({ connect: { rejectUnauthorized: false } });
    try {
      const { port, url } = await tlsServer.listen('127.0.0.1', 0);
      const raw = await new Promise<string>((resolve, reject) => {
        const sock = netConnect({ host: '127.0.0.1', port }, () => sock.write(`GET ${ALL} HTTP/1.1\r\nHost: x\r\n\r\n`));
        const got: Buffer[] = [];
        sock.on('data', (c: Buffer) => got.push(c));
        sock.on('end', () => resolve(Buffer.concat(got).toString()));
        sock.on('error', reject);
      });
      expect(raw).toBe('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
      const plain = await request(`http://127.0.0.1:${port}${ALL}`, { method: 'HEAD' });
      expect(plain.statusCode).toBe(400);
      // The same port still speaks TLS.
      expect(await peerSubject(port)).toBe('CN=plain http/1.1');
      const res = await request(`${url}${ALL}`, { dispatcher: agent });
      expect(res.statusCode).toBe(200);
      expect(Buffer.from(await res.body.arrayBuffer()).equals(fileBytes)).toBe(true);
    } finally {
      await agent.close();
      await tlsServer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serves HTTPS from cert files and reloads them when they change', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-tls-'));
    const logs: Record<string, unknown>[] = [];
    const tlsServer = createCatalogServer({
      store,
      tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
      tlsReloadIntervalMs: 100,
      logger: createLogger({ level: 'info', write: (l) => void logs.push(JSON.parse(l) as Record<string, unknown>) }),
    });
    const agent = new Agent({ connect: { rejectUnauthorized: false } });
    try {
      openssl(dir, 'first');
      openssl(dir, 'second');
      await writeFile(join(dir, 'tls.crt'), await readFile(join(dir, 'first.crt')));
      await writeFile(join(dir, 'tls.key'), await readFile(join(dir, 'first.key')));
      const { port, url } = await tlsServer.listen('127.0.0.1', 0);
      expect(url).toBe(`https://127.0.0.1:${port}`);
      expect(await peerSubject(port)).toBe('CN=first http/1.1');
      const res = await request(`${url}${ALL}`, { dispatcher: agent });
      expect(res.statusCode).toBe(200);
      expect(Buffer.from(await res.body.arrayBuffer()).equals(fileBytes)).toBe(true);

      // A broken pair is refused; the server keeps the one it has.
      await writeFile(join(dir, 'tls.crt'), await readFile(join(dir, 'second.crt')));
      await poll(() => logs.some((l) => l.msg === 'cannot load the serving certificate; keeping the previous one'), { timeoutMs: 5000, intervalMs: 20 });
      expect(await peerSubject(port)).toBe('CN=first http/1.1');
      expect(logs.some((l) => l.msg === 'cannot load the serving certificate; keeping the previous one')).toBe(true);

      await writeFile(join(dir, 'tls.key'), await readFile(join(dir, 'second.key')));
      let subject = '';
      await poll(async () => (subject = await peerSubject(port)).startsWith('CN=second'), { timeoutMs: 5000, intervalMs: 50 });
      expect(subject).toBe('CN=second http/1.1');
      expect(await negotiated(port)).toBe('TLS_AES_128_GCM_SHA256'); // the reloaded context keeps Go's suite order
      expect(logs.some((l) => l.msg === 'reloaded the serving certificate')).toBe(true);
    } finally {
      await agent.close();
      await tlsServer.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails to listen with a cert that does not load', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-tls-'));
    try {
      await writeFile(join(dir, 'tls.crt'), 'not a cert');
      await writeFile(join(dir, 'tls.key'), 'not a key');
      const s = createCatalogServer({ store, tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') } });
      await expect(s.listen('127.0.0.1', 0)).rejects.toThrow();
      await s.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
