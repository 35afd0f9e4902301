// The GraphQL route over real loopback sockets with a stand-in for the queries: upstream's
// status codes and texts, in upstream's order of checks, and how the body is read.
import { connect } from 'node:net';
import { Registry } from 'prom-client';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredCatalog } from '../storage/index.ts';
import { GRAPHQL_BODY_LIMIT, decodeQuery, type GraphQLQueries } from './graphql.ts';
import { createCatalogServer, type CatalogServer } from './server.ts';

const body = (text: string, truncated = false) => ({ bytes: Buffer.from(text), truncated });

describe('decodeQuery: json.Decoder into struct{ Query string }', () => {
  it('takes the first JSON value only, its query key in any case, ignoring other keys', () => {
    expect(decodeQuery(body('{"query":"{ a }"}'))).toBe('{ a }');
    expect(decodeQuery(body(' \n{"QUERY":"{ a }","variables":{"x":1}} trailing {garbage'))).toBe('{ a }');
    expect(decodeQuery(body('{"query":"a","Query":"b"}'))).toBe('b');
    expect(decodeQuery(body('{"query":"a","query":null}'))).toBe('a');
    expect(decodeQuery(body('{"other":1}'))).toBe('');
    expect(decodeQuery(body('null'))).toBe('');
    expect(decodeQuery(body('{"query":"x\\"}"}'))).toBe('x"}');
  });

  it('fails where the decode fails: no value, bad syntax, not an object, query not a string', () => {
    for (const text of ['', '  \n', '{invalid json', '{"query":"a"', '[1]', '"text"', '42', 'true', '{"query":5}', '{"query":["a"]}', 'nul']) {
      expect(decodeQuery(body(text)), text).toBeUndefined();
    }
    expect(decodeQuery(undefined)).toBeUndefined();
  });

  it('a body over 1 MiB decodes only when its first value ends within the first MiB', () => {
    const head = '{"query":"{ a }"}';
    expect(decodeQuery(body(head + ' '.repeat(GRAPHQL_BODY_LIMIT), true))).toBe('{ a }');
    expect(decodeQuery(body(`{"query":"{ a }","pad":"${'x'.repeat(GRAPHQL_BODY_LIMIT)}"}`, true))).toBeUndefined();
  });
});

describe('POST /catalogs/{catalog}/api/v1/graphql', () => {
  const calls: [string, string][] = [];
  const queries: GraphQLQueries = {
    async execute(catalog, query) {
      calls.push([catalog, query]);
      if (catalog === 'gone') throw Object.assign(new Error('no content'), { code: 'ENOENT' });
      if (catalog === 'broken') throw new Error('cannot build');
      if (query === 'big') return JSON.stringify({ data: { x: 'y'.repeat(5000) } });
      return '{"data":{"summary":{"totalSchemas":3}}}';
    },
  };
  const store = { get: (): StoredCatalog | undefined => undefined };
  let on: CatalogServer;
  let off: CatalogServer;
  let client: Client;
  let offClient: Client;

  beforeAll(async () => {
    on = createCatalogServer({ store, registry: new Registry(), graphql: queries });
    off = createCatalogServer({ store, registry: new Registry() });
    client = new Client((await on.listen('127.0.0.1', 0)).url);
    offClient = new Client((await off.listen('127.0.0.1', 0)).url);
  });

  afterAll(async () => {
    await client.close();
    await offClient.close();
    await on.close();
    await off.close();
  });

  const post = async (
    path: string,
    text: string | undefined,
    opts: { method?: string; headers?: Record<string, string>; via?: Client } = {},
  ): Promise<{ status: number; headers: Record<string, unknown>; text: string }> => {
    const res = await (opts.via ?? client).request({ path, method: (opts.method ?? 'POST') as 'POST', ...(text !== undefined && { body: text }), headers: opts.headers ?? {} });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  };
  const q = JSON.stringify({ query: '{ summary { totalSchemas } }' });

  it('runs the query: 200 application/json, the result and a newline', async () => {
    calls.length = 0;
    const r = await post('/catalogs/test/api/v1/graphql', q, { headers: { 'content-type': 'application/json' } });
    expect(r).toMatchObject({ status: 200, text: '{"data":{"summary":{"totalSchemas":3}}}\n' });
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['content-length']).toBe('40');
    expect(calls).toEqual([['test', '{ summary { totalSchemas } }']]);
    // without a Content-Type, and with any other one
    expect((await post('/catalogs/test/api/v1/graphql', q)).status).toBe(200);
    expect((await post('/catalogs/test/api/v1/graphql', q, { headers: { 'content-type': 'text/plain' } })).status).toBe(200);
  });

  it('gzips big answers for clients that ask', async () => {
    const res = await client.request({ path: '/catalogs/test/api/v1/graphql', method: 'POST', body: JSON.stringify({ query: 'big' }), headers: { 'accept-encoding': 'gzip' } });
    await res.body.arrayBuffer();
    expect(res.headers['content-encoding']).toBe('gzip');
  });

  it('400 texts for bodies upstream refuses', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'Invalid request body\n'],
      ['', 'Invalid request body\n'],
      ['{invalid json', 'Invalid request body\n'],
      ['{"query": 5}', 'Invalid request body\n'],
      ['{"query": ""}', 'Query cannot be empty\n'],
      ['null', 'Query cannot be empty\n'],
      [JSON.stringify({ query: 'a'.repeat(100_001) }), 'Query too large\n'],
      [JSON.stringify({ query: 'é'.repeat(50_001) }), 'Query too large\n'], // bytes, not characters
    ];
    for (const [text, want] of cases) {
      const r = await post('/catalogs/test/api/v1/graphql', text);
      expect([r.status, r.text], String(text).slice(0, 40)).toEqual([400, want]);
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
    expect((await post('/catalogs/test/api/v1/graphql', JSON.stringify({ query: 'a'.repeat(100_000) }))).status).toBe(200);
  });

  it('a body over 1 MiB: 400 unless its value ended in time, and the connection closes after the answer', async () => {
    for (const [text, status] of [
      ['a'.repeat(GRAPHQL_BODY_LIMIT + 1), 400],
      [q + ' '.repeat(2 * GRAPHQL_BODY_LIMIT), 200],
    ] as const) {
      const c = new Client(on.url as string);
      const r = await post('/catalogs/test/api/v1/graphql', text, { via: c });
      expect(r.status).toBe(status);
      expect(r.headers.connection).toBe('close');
      await c.close();
    }
    // and the next request on a fresh connection is served as usual
    expect((await post('/catalogs/test/api/v1/graphql', q)).status).toBe(200);
  });

  it('checks in upstream’s order: route, method, catalog name, body, then the query', async () => {
    calls.length = 0;
    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']) {
      const r = await post('/catalogs/test/api/v1/graphql', undefined, { method });
      expect(r.status, method).toBe(405);
      if (method !== 'HEAD') expect(r.text).toBe('Method Not Allowed\n');
      expect(r.headers.allow).toBeUndefined();
    }
    const badName = await post('/catalogs/Bad_Name/api/v1/graphql', 'not json');
    expect(badName.status).toBe(400);
    expect(badName.text).toMatch(/^invalid catalog name: a lowercase RFC 1123 subdomain/);
    expect(await post('/catalogs/gone/api/v1/graphql', q)).toMatchObject({ status: 404, text: '404 Not Found\n' });
    expect(await post('/catalogs/broken/api/v1/graphql', q)).toMatchObject({ status: 500, text: '500 Internal Server Error\n' });
    expect(calls.map((c) => c[0])).toEqual(['gone', 'broken']);
    // the other routes still refuse POST
    expect((await post('/catalogs/test/api/v1/all', q)).status).toBe(405);
    expect((await post('/catalogs/test/api/v1/metas', q)).status).toBe(405);
  });

  it('unrouted when off: 404 "404 page not found" for any method', async () => {
    for (const method of ['POST', 'GET']) {
      const r = await post('/catalogs/test/api/v1/graphql', method === 'POST' ? q : undefined, { method, via: offClient });
      expect([r.status, r.text]).toEqual([404, '404 page not found\n']);
    }
  });

  it('a body sent slowly is waited for', async () => {
    const url = new URL(on.url as string);
    const reply = await new Promise<string>((resolve, reject) => {
      const sock = connect({ host: url.hostname, port: Number(url.port) });
      let got = '';
      sock.on('data', (d: Buffer) => (got += d.toString()));
      sock.on('end', () => resolve(got));
      sock.on('error', reject);
      sock.write(`POST /catalogs/test/api/v1/graphql HTTP/1.1\r\nHost: x\r\nContent-Length: ${q.length}\r\nConnection: close\r\n\r\n${q.slice(0, 10)}`);
      setTimeout(() => sock.write(q.slice(10)), 200);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(reply.endsWith('{"data":{"summary":{"totalSchemas":3}}}\n')).toBe(true);
  });
});
