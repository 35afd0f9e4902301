// catalogd's GraphQL endpoint (feature gate GraphQLCatalogQueries) end to end: the real community
// catalog pushed as an image, a ClusterCatalog created through the real API server, catalogd
// (in process, leader, gate on) pulls, stores and serves it; POST `<status.urls.base>/api/v1/graphql`
// answers field selections, nested objects and limit/offset pages that agree with
// `/api/v1/metas` and EXPECTED-SUMMARY.json, plus upstream's status codes and error bodies.
// A second catalogd (a non-leader replica with the gate off) serves the same catalog and
// answers the GraphQL path with 404. A small FBC with olm.deprecations and a custom schema
// shows the schema is derived from the content, and follows it to a new digest.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createCatalog, deleteCatalogs, fbc, getCatalog, releaseFinalizers, serving, uniqueName, waitForCatalog } from './catalogs.ts';
import { startCatalogd, stopAll, type RunningCatalogd } from './harness.ts';
import { waitFor } from '../../support/net.ts';
import { CATALOG_SUMMARY, realCatalogDir } from '../../support/testdata.ts';

const CATALOG = 'community-operators-v4.21';
const expected = (
  JSON.parse(readFileSync(CATALOG_SUMMARY, 'utf8')) as {
    catalogs: Record<string, { packages: number; channels: number; bundles: number; packagesDetail: Record<string, { defaultChannel: string; bundles: number }> }>;
  }
).catalogs[CATALOG]!;

const created = new Set<string>();
let cd: RunningCatalogd;
let off: RunningCatalogd;
let name: string;
let base: string;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

async function post(url: string, body: string | undefined, method = 'POST'): Promise<Reply> {
  const res = await request(url, { method: method as 'POST', ...(body !== undefined && { body }), headers: { 'content-type': 'application/json' } });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

/** A query's `data`, failing on any error. */
async function data<T>(url: string, query: string): Promise<T> {
  const r = await post(url, JSON.stringify({ query }));
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  const parsed = JSON.parse(r.text) as { data: T; errors?: unknown };
  expect(parsed.errors, r.text.slice(0, 300)).toBeUndefined();
  return parsed.data;
}

async function metas(url: string): Promise<Record<string, unknown>[]> {
  const res = await request(url);
  const text = await res.body.text();
  expect(res.statusCode).toBe(200);
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  cd = await startCatalogd({ options: { graphqlQueries: true } });
  off = await startCatalogd({ leader: false });
  const pushed = await pushCatalogImage(registry(), `catalogd/graphql-${CATALOG}:v1`, { dir: realCatalogDir(CATALOG) });
  name = uniqueName('gql');
  created.add(name);
  await createCatalog(name, { ref: pushed.ref });
  const c = await waitForCatalog(name, 'Serving', serving, 60_000);
  base = c.status?.urls?.base ?? '';
});

afterAll(async () => {
  await deleteCatalogs(created);
  await stopAll();
  await releaseFinalizers();
});

describe('GraphQL over the real community catalog', () => {
  it('schema built when stored (logged), one list field per schema plus summary (introspection)', async () => {
    expect(cd.logs.some((l) => l.msg === 'built GraphQL schema' && l.catalog === name)).toBe(true);
    const d = await data<{ __schema: { queryType: { fields: { name: string }[] } } }>(`${base}/api/v1/graphql`, '{ __schema { queryType { fields { name } } } }');
    expect(d.__schema.queryType.fields.map((f) => f.name)).toEqual(['olmbundles', 'olmchannels', 'olmpackages', 'summary']);
    const s = await data<{ summary: { totalSchemas: number; schemas: { name: string; totalObjects: number }[] } }>(
      `${base}/api/v1/graphql`,
      '{ summary { totalSchemas schemas { name totalObjects } } }',
    );
    expect(s.summary).toEqual({
      totalSchemas: 3,
      schemas: [
        { name: 'olm.bundle', totalObjects: expected.bundles },
        { name: 'olm.channel', totalObjects: expected.channels },
        { name: 'olm.package', totalObjects: expected.packages },
      ],
    });
  });

  it('field selection: only the fields asked for, values as served', async () => {
    const d = await data<{ olmpackages: Record<string, unknown>[] }>(`${base}/api/v1/graphql`, '{ olmpackages { name defaultChannel } }');
    expect(d.olmpackages).toHaveLength(expected.packages);
    for (const p of d.olmpackages) expect(Object.keys(p)).toEqual(['defaultChannel', 'name']); // graphql-go's sorted keys
    expect(Object.fromEntries(d.olmpackages.map((p) => [p.name, p.defaultChannel]))).toEqual(
      Object.fromEntries(Object.entries(expected.packagesDetail).map(([n, p]) => [n, p.defaultChannel])),
    );
  });

  it('pagination: limit/offset pages walk every bundle once, in the served order, at most 100 a page', async () => {
    const served = (await metas(`${base}/api/v1/metas?schema=olm.bundle`)).map((b) => b.name);
    const walked: unknown[] = [];
    for (let offset = 0; ; offset += 100) {
      const d = await data<{ olmbundles: { name: string }[] }>(`${base}/api/v1/graphql`, `{ olmbundles(limit: 500, offset: ${offset}) { name } }`);
      expect(d.olmbundles.length).toBeLessThanOrEqual(100);
      if (d.olmbundles.length === 0) break;
      walked.push(...d.olmbundles.map((b) => b.name));
    }
    expect(walked).toEqual(served);
    expect(walked).toHaveLength(expected.bundles);
    const page = await data<{ olmbundles: { name: string }[] }>(`${base}/api/v1/graphql`, '{ olmbundles(limit: 3, offset: 7) { name } }');
    expect(page.olmbundles.map((b) => b.name)).toEqual(served.slice(7, 10));
  });

  it('a package with its bundles and nested objects, the same data as /api/v1/metas', async () => {
    const pkg = 'apicurio-registry-3';
    const all = (await metas(`${base}/api/v1/metas?schema=olm.bundle`)).map((b) => b.package);
    const offset = all.indexOf(pkg);
    const count = all.filter((p) => p === pkg).length;
    expect(count).toBe(expected.packagesDetail[pkg]?.bundles);
    const d = await data<{
      olmpackages: { name: string }[];
      olmbundles: { name: string; package: string; image: string; properties: { type: string; value: string }[]; relatedImages: { image: string; name: string }[] }[];
      olmchannels: { name: string; package: string; entries: { name: string; replaces: string | null; skipRange: string | null; skips: string[] | null }[] }[];
    }>(
      `${base}/api/v1/graphql`,
      `{ olmbundles(limit: ${count}, offset: ${offset}) { name package image properties { type value } relatedImages { name image } }
         olmchannels { name package entries { name replaces skipRange skips } } }`,
    );
    const want = await metas(`${base}/api/v1/metas?schema=olm.bundle&package=${pkg}`);
    expect(d.olmbundles.map((b) => b.package)).toEqual(want.map(() => pkg));
    expect(d.olmbundles.map((b) => [b.name, b.image])).toEqual(want.map((b) => [b.name, b.image]));
    const wantProps = want.map((b) => (b.properties as { type: string; value: unknown }[]).map((p) => ({ type: p.type, value: p.value })));
    expect(d.olmbundles.map((b) => b.properties.map((p) => ({ type: p.type, value: JSON.parse(p.value) as unknown })))).toEqual(wantProps);
    expect(d.olmbundles.map((b) => b.relatedImages)).toEqual(want.map((b) => (b.relatedImages as { image: string; name: string }[]).map((r) => ({ image: r.image, name: r.name }))));

    const channels = await metas(`${base}/api/v1/metas?schema=olm.channel&package=${pkg}`);
    const got = d.olmchannels.filter((c) => c.package === pkg);
    expect(got.map((c) => c.name)).toEqual(channels.map((c) => c.name));
    expect(got.map((c) => c.entries)).toEqual(
      channels.map((c) =>
        (c.entries as Record<string, unknown>[]).map((e) => ({ name: e.name, replaces: e.replaces ?? null, skipRange: e.skipRange ?? null, skips: e.skips ?? null })),
      ),
    );
  });

  it('upstream’s statuses and error bodies', async () => {
    const url = `${base}/api/v1/graphql`;
    // an invalid query: 200 with data null and the parse error
    const invalid = await post(url, JSON.stringify({ query: '{ olmbundles { name ' }));
    expect(invalid.status).toBe(200);
    expect(invalid.headers['content-type']).toBe('application/json');
    expect(invalid.text).toBe('{"data":null,"errors":[{"message":"query parse error: Syntax Error: Expected Name, found \\u003cEOF\\u003e.","locations":[]}]}\n');
    // a field the schema does not have
    const unknown = JSON.parse((await post(url, JSON.stringify({ query: '{ olmbundles { zzz } }' }))).text) as { data: null; errors: { message: string; locations: unknown[] }[] };
    expect(unknown).toEqual({ data: null, errors: [{ message: 'Cannot query field "zzz" on type "OlmBundle".', locations: [{ line: 1, column: 16 }] }] });
    // beyond the bounds
    const deep = '{ ' + 'a { '.repeat(10) + 'b' + ' }'.repeat(10) + ' }';
    expect(JSON.parse((await post(url, JSON.stringify({ query: deep }))).text)).toEqual({ data: null, errors: [{ message: 'query exceeds maximum depth of 10', locations: [] }] });
    // wrong method, missing body, empty query, unknown or invalid catalog
    expect(await post(url, undefined, 'GET')).toMatchObject({ status: 405, text: 'Method Not Allowed\n' });
    expect(await post(url, undefined)).toMatchObject({ status: 400, text: 'Invalid request body\n' });
    expect(await post(url, '{"query":""}')).toMatchObject({ status: 400, text: 'Query cannot be empty\n' });
    expect(await post(`${cd.serverUrl}/catalogs/no-such-catalog/api/v1/graphql`, JSON.stringify({ query: '{ summary { totalSchemas } }' }))).toMatchObject({
      status: 404,
      text: '404 Not Found\n',
    });
    expect((await post(`${cd.serverUrl}/catalogs/No_Such/api/v1/graphql`, JSON.stringify({ query: '{ summary { totalSchemas } }' }))).status).toBe(400);
  });

  it('with the gate off (a replica serving the same catalog): 404 "404 page not found"', async () => {
    const offBase = `${off.serverUrl}/catalogs/${name}`;
    await waitFor('the replica to serve the catalog', async () => (await request(`${offBase}/api/v1/all`, { method: 'HEAD' })).statusCode === 200, { timeoutMs: 60_000, intervalMs: 200 });
    expect(await post(`${offBase}/api/v1/graphql`, JSON.stringify({ query: '{ summary { totalSchemas } }' }))).toMatchObject({ status: 404, text: '404 page not found\n' });
    expect(off.parts.graphql).toBeUndefined();
  });
});

describe('GraphQL over a small FBC: any schema, following the content', () => {
  it('olm.deprecations and a custom schema get their own types; a new digest gets a new schema; deletion ends it', async () => {
    const files = {
      ...fbc('small', ['1.0.0', '1.1.0']),
      'small/deprecations.json': { schema: 'olm.deprecations', package: 'small', entries: [{ reference: { schema: 'olm.bundle', name: 'small.v1.0.0' }, message: 'use 1.1.0' }] },
      'extra/charts.json': { schema: 'helm.chart', name: 'demo', 'app-version': 3, tags: ['a', 'b'], maintainers: [{ name: 'm', email: 'm@example.com' }] },
    };
    const tag = `catalogd/graphql-small-${Date.now().toString(36)}:v1`;
    const first = await pushCatalogImage(registry(), tag, { files });
    const small = uniqueName('gql-small');
    created.add(small);
    await createCatalog(small, { ref: first.ref, pollIntervalMinutes: 1 });
    const url = `${(await waitForCatalog(small, 'Serving', serving, 45_000)).status?.urls?.base ?? ''}/api/v1/graphql`;

    const d = await data<{ olmdeprecationss: unknown[]; helmcharts: unknown[]; summary: { totalSchemas: number } }>(
      url,
      '{ olmdeprecationss { package entries { reference message } } helmcharts { name appVersion tags maintainers { name email } } summary { totalSchemas } }',
    );
    expect(d).toEqual({
      olmdeprecationss: [{ package: 'small', entries: [{ reference: '{"name":"small.v1.0.0","schema":"olm.bundle"}', message: 'use 1.1.0' }] }],
      helmcharts: [{ name: 'demo', appVersion: 3, tags: ['a', 'b'], maintainers: [{ name: 'm', email: 'm@example.com' }] }],
      summary: { totalSchemas: 5 },
    });

    // New content under the same tag: the catalog polls it (one minute is 1 s here) and the schema follows.
    const second = await pushCatalogImage(registry(), tag, { files: { ...fbc('small', ['1.0.0', '1.1.0', '1.2.0']), 'extra/other.json': { schema: 'x.other', answer: 42 } } });
    await waitForCatalog(small, 'the new digest', (c) => c.status?.resolvedSource?.image?.ref.endsWith(second.digest) ?? false, 45_000);
    await waitFor('the new schema', async () => JSON.parse((await post(url, JSON.stringify({ query: '{ xothers { answer } }' }))).text).data !== null, { timeoutMs: 15_000, intervalMs: 200 });
    const after = await data<{ xothers: unknown[]; olmbundles: unknown[]; summary: { schemas: { name: string }[] } }>(url, '{ xothers { answer } olmbundles { name } summary { schemas { name } } }');
    expect(after).toEqual({
      xothers: [{ answer: 42 }],
      olmbundles: [{ name: 'small.v1.0.0' }, { name: 'small.v1.1.0' }, { name: 'small.v1.2.0' }],
      summary: { schemas: [{ name: 'olm.bundle' }, { name: 'olm.channel' }, { name: 'olm.package' }, { name: 'x.other' }] },
    });
    expect(JSON.parse((await post(url, JSON.stringify({ query: '{ helmcharts { name } }' }))).text).errors[0].message).toMatch(/^Cannot query field "helmcharts" on type "Query"/);

    await deleteCatalogs([small]);
    created.delete(small);
    expect(await getCatalog(small)).toBeUndefined();
    expect(await post(url, JSON.stringify({ query: '{ summary { totalSchemas } }' }))).toMatchObject({ status: 404, text: '404 Not Found\n' });
  });
});
