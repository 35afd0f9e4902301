// catalogd's GraphQL endpoint (GraphQLCatalogQueries) on the real catalogs, both roots stored as
// one catalog (~28 MB of catalog.jsonl) by LocalDirStore:
//  - schema build: one streaming pass over catalog.jsonl + the GraphQL schema (median of 5, each
//    with a fresh service), the heap a built schema keeps, and the peak RSS growth of a build
//    (in a child process that only loads the stored catalog and builds)
//  - one package's blobs at 50 keep-alive connections, closed loop (requests/s, p50/p99):
//    `/api/v1/metas?package=…` (its channels and bundles; answer cache on and off) against GraphQL
//    asking for the same blobs with every field, and GraphQL asking for the package with its
//    bundles' names and images only.
// The load runs in a child process (bench/catalog-server.ts's generator). Set
// BENCH_CATALOG_SERVER_SECONDS for the measuring time per load (default 5).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { createCatalogQueries } from '../internal/catalogd/graphql/index.ts';
import { createCatalogServer } from '../internal/catalogd/server/index.ts';
import { LocalDirStore, type StoredCatalog } from '../internal/catalogd/storage/index.ts';
import { runLoad } from './catalog-server.ts';
import type { Figure } from './control-plane.ts';
import { held, measureInChild, median, settledGc } from './memory.ts';
import { realCatalogDir } from '../test/support/testdata.ts';

const ROOTS = ['certified-operators-v4.21', 'community-operators-v4.21'];
const PACKAGE = 'apicurio-registry-3';
const SECONDS = Number(process.env.BENCH_CATALOG_SERVER_SECONDS ?? 5);
const CONNECTIONS = 50;
const DIGEST = `sha256:${'d'.repeat(64)}`;

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** Where the package's blobs of `schema` sit among all blobs of that schema: [offset, count], contiguous. */
function window(stored: StoredCatalog, schema: string, pkg: string): [number, number] {
  const all = stored.index.query({ schema });
  const first = all.findIndex((e) => e.package === pkg || (schema === 'olm.package' && e.name === pkg));
  const count = all.filter((e) => e.package === pkg || (schema === 'olm.package' && e.name === pkg)).length;
  if (first < 0 || all.slice(first, first + count).some((e) => e.package !== pkg && e.name !== pkg)) throw new Error(`${pkg}'s ${schema} blobs are not contiguous`);
  return [first, count];
}

/**
 * GraphQL for one package. `full`: its channels and bundles with every field — the blobs
 * `/api/v1/metas?package=` serves (the olm.package blob has no `package`, so it is not among them);
 * otherwise the package's name and default channel with its bundles' names and images.
 */
function packageQuery(stored: StoredCatalog, full: boolean): string {
  const [p] = window(stored, 'olm.package', PACKAGE);
  const [c, cn] = window(stored, 'olm.channel', PACKAGE);
  const [b, bn] = window(stored, 'olm.bundle', PACKAGE);
  if (bn > 100) throw new Error(`${PACKAGE} has more bundles than one page`);
  return full
    ? `{ olmchannels(limit: ${cn}, offset: ${c}) { schema name package entries { name replaces skips skipRange } }
         olmbundles(limit: ${bn}, offset: ${b}) { schema name package image properties { type value } relatedImages { name image } } }`
    : `{ olmpackages(limit: 1, offset: ${p}) { name defaultChannel } olmbundles(limit: ${bn}, offset: ${b}) { name image } }`;
}

/** Child: load the stored catalog, build its schema once; peak RSS before and after. */
async function measureBuild(root: string): Promise<{ baseRss: number; peakRss: number; ms: number }> {
  const store = new LocalDirStore({ root });
  await store.load();
  const stored = store.get('real');
  if (!stored) throw new Error('nothing stored');
  await settledGc();
  const baseRss = process.resourceUsage().maxRSS * 1024;
  const t0 = performance.now();
  await createCatalogQueries({ store }).prepare(stored);
  const ms = performance.now() - t0;
  return { baseRss, peakRss: process.resourceUsage().maxRSS * 1024, ms };
}

export async function benchCatalogGraphQL(): Promise<Figure[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-catalog-graphql-'));
  const figures: Figure[] = [];
  try {
    const fbc = join(tmp, 'fbc');
    for (const r of ROOTS) await cp(realCatalogDir(r), join(fbc, r), { recursive: true });
    const root = join(tmp, 'catalogs');
    const store = new LocalDirStore({ root });
    const stored = await store.store('real', DIGEST, fbc);
    const size = `${(stored.size / 1e6).toFixed(1)} MB catalog.jsonl, ${stored.index.entries.length} blobs`;

    // Schema build time and what a built schema keeps.
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await createCatalogQueries({ store }).prepare(stored);
      times.push(performance.now() - t0);
    }
    // What a built schema keeps: the heap with it, less the heap once it is dropped.
    const queries = createCatalogQueries({ store });
    const kept: number[] = [];
    for (let i = 0; i < 3; i++) {
      await queries.prepare(stored);
      await settledGc();
      const withSchema = held();
      queries.forget('real');
      await settledGc();
      kept.push(withSchema - held());
    }
    await queries.prepare(stored);
    const child = await measureInChild<{ baseRss: number; peakRss: number; ms: number }>(fileURLToPath(import.meta.url), [root]);
    figures.push(
      { name: 'schema build (stream catalog.jsonl + GraphQL schema), median of 5', value: round(median(times)), unit: 'ms', note: `${size}; min ${round(Math.min(...times))} ms` },
      { name: '  cold build in a fresh process', value: round(child.ms), unit: 'ms' },
      { name: '  heap kept by a built schema (median of 3)', value: round(median(kept) / 1e6, 2), unit: 'MB' },
      { name: '  peak RSS growth while building (fresh process)', value: round((child.peakRss - child.baseRss) / 1e6, 1), unit: 'MB' },
    );

    // One package with its channels and bundles at 50 connections.
    const server = createCatalogServer({ store, registry: new Registry(), graphql: queries });
    const { url } = await server.listen('127.0.0.1', 0);
    const uncached = createCatalogServer({ store, registry: new Registry(), metasCacheBytes: 0 });
    const { url: uncachedUrl } = await uncached.listen('127.0.0.1', 0);
    try {
      const metas = `/catalogs/real/api/v1/metas?package=${PACKAGE}`;
      const graphql = `${url}/catalogs/real/api/v1/graphql`;
      const post = (full: boolean): { body: string; contentType: string } => ({ body: JSON.stringify({ query: packageQuery(stored, full) }), contentType: 'application/json' });
      // The GraphQL answer has the same blobs as the metas answer: check once before measuring.
      const check = await fetch(graphql, { method: 'POST', body: post(true).body });
      const answer = (await check.json()) as { data: Record<string, unknown[]> };
      const blobsAnswered = Object.values(answer.data).reduce((n, l) => n + l.length, 0);
      const blobsServed = (await (await fetch(`${url}${metas}`)).text()).split('\n').filter((l) => l !== '').length;
      if (blobsAnswered !== blobsServed) throw new Error(`GraphQL answered ${blobsAnswered} blobs, metas ${blobsServed}`);
      const targets = [
        { label: 'metas ?package=', spec: { url: `${url}${metas}` } },
        { label: 'metas ?package=, answer cache off', spec: { url: `${uncachedUrl}${metas}` } },
        { label: 'GraphQL, same blobs, every field', spec: { url: graphql, post: post(true) } },
        { label: 'GraphQL, package + bundle names/images only', spec: { url: graphql, post: post(false) } },
      ];
      for (const t of targets) {
        const r = await runLoad({ mode: 'closed', connections: CONNECTIONS, seconds: SECONDS, ...t.spec });
        const bodyBytes = r.requests ? Math.round(r.bytes / r.requests) : 0;
        figures.push(
          { name: `${PACKAGE} (${blobsServed} blobs), ${CONNECTIONS} conns: ${t.label}`, value: Math.round(r.requests / r.seconds), unit: 'req/s', note: `${bodyBytes} B body, ${r.errors} errors` },
          { name: '  latency p50 / p99', value: round(r.p50 ?? 0, 2), unit: 'ms', note: `p99 ${round(r.p99 ?? 0, 2)} ms` },
        );
      }
    } finally {
      await server.close();
      await uncached.close();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return figures;
}

if (process.argv[2] === '--measure' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(JSON.stringify(await measureBuild(process.argv[3] ?? '')) + '\n');
}
