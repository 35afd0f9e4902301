// operator-controller's catalog content client (internal/operator-controller/contentclient)
// populating from a catalogd-like server: node:http on 127.0.0.1 streaming a JSONL file from disk
// at /catalogs/<name>/api/v1/all. Two catalogs: certified-operators-v4.21 (testdata/catalogs,
// rendered with internal/shared/fbc `encodeJsonl`) and a synthetic 5,000-package catalog.
// Figures per catalog:
//  - populate time; baseline in the same run: downloading the same body with undici, keeping nothing;
//  - retained heap (heapUsed + external after a GC) as a ratio of the JSONL size, target < 2×,
//    right after populate and after every package was read once (the LRU of decoded packages full);
//    baseline in the same run: the same lines kept as decoded objects (JSON.parse of every line);
//  - getPackage p50/p99: first read of each package (decode), and warm (one package, repeated);
//    baseline in the same run: a bare Map lookup.
// Needs `node --expose-gc` (npm run bench does). BENCH_CONTENT_PACKAGES changes the synthetic size.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import type { ClusterCatalog } from '../api/v1/index.ts';
import { HttpContentClient } from '../internal/operator-controller/contentclient/index.ts';
import { encodeJsonl, loadCatalog } from '../internal/shared/fbc/index.ts';
import type { Figure } from './control-plane.ts';
import { held, settledGc } from './memory.ts';
import { realCatalogDir } from '../test/support/testdata.ts';

const CERTIFIED = realCatalogDir('certified-operators-v4.21');
const PACKAGES = Number(process.env.BENCH_CONTENT_PACKAGES ?? 5000);
const BUNDLES = 10;
const WARM_ITERATIONS = 20_000;

function percentiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}
const us = (ms: number): number => Math.round(ms * 10_000) / 10;
const mib = (b: number): string => `${(b / 1048576).toFixed(1)} MiB`;
const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;

/** A synthetic catalog like bench/resolve-v1's: per package a package blob, two channels, 10 bundles, a deprecation. */
function* syntheticLines(packages: number): Generator<string> {
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg-${p}`;
    const name = (i: number): string => `${pkg}.v1.${i}.0`;
    yield JSON.stringify({ schema: 'olm.package', name: pkg, defaultChannel: 'stable', description: `${pkg} operator` });
    yield JSON.stringify({
      schema: 'olm.channel',
      package: pkg,
      name: 'stable',
      entries: Array.from({ length: BUNDLES }, (_, i) => (i === 0 ? { name: name(0) } : { name: name(i), replaces: name(i - 1), ...(i % 3 === 0 && { skipRange: `>=1.${i - 3}.0 <1.${i}.0` }) })),
    });
    yield JSON.stringify({ schema: 'olm.channel', package: pkg, name: 'fast', entries: [{ name: name(BUNDLES - 1) }] });
    for (let i = 0; i < BUNDLES; i++) {
      yield JSON.stringify({
        schema: 'olm.bundle',
        name: name(i),
        package: pkg,
        image: `quay.io/bench/${pkg}-bundle@sha256:${String(i).padStart(64, '0')}`,
        properties: [
          { type: 'olm.package', value: { packageName: pkg, version: `1.${i}.0` } },
          { type: 'olm.gvk', value: { group: 'bench.example.com', kind: 'Thing', version: 'v1' } },
          { type: 'olm.package.required', value: { packageName: `pkg-${(p + 1) % packages}`, versionRange: '>=1.0.0' } },
        ],
        relatedImages: [{ name: 'operator', image: `quay.io/bench/${pkg}@sha256:${String(i).padStart(64, '1')}` }],
      });
    }
    yield JSON.stringify({ schema: 'olm.deprecations', package: pkg, entries: [{ reference: { schema: 'olm.bundle', name: name(2) }, message: 'old' }] });
  }
}

interface Source {
  readonly label: string;
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
}

async function renderSources(dir: string): Promise<Source[]> {
  const certFile = join(dir, 'certified.jsonl');
  {
    const encoded = encodeJsonl(await loadCatalog(CERTIFIED));
    await writeFile(certFile, encoded.chunks);
  }
  const synthFile = join(dir, 'synthetic.jsonl');
  await writeFile(synthFile, (function* () {
    for (const line of syntheticLines(PACKAGES)) yield `${line}\n`;
  })());
  return [
    { label: 'certified-operators-v4.21', name: 'certified', file: certFile, bytes: (await stat(certFile)).size },
    { label: `synthetic ${PACKAGES} packages × ${BUNDLES} bundles`, name: 'synthetic', file: synthFile, bytes: (await stat(synthFile)).size },
  ];
}

const catalogOf = (name: string, base: string, ref: string): ClusterCatalog => ({
  metadata: { name },
  spec: { source: { type: 'Image', image: { ref: 'bench/catalog:latest' } } },
  status: {
    conditions: [{ type: 'Serving', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    resolvedSource: { type: 'Image', image: { ref } },
    urls: { base },
  },
});

async function downloadMs(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await request(url);
  let n = 0;
  for await (const chunk of res.body) n += (chunk as Buffer).length;
  if (res.statusCode !== 200 || n === 0) throw new Error(`download ${url}: ${res.statusCode}`);
  return performance.now() - t0;
}

/** The baseline for memory: every line kept as a decoded object. */
async function decodedHeld(url: string): Promise<number> {
  await settledGc();
  const before = held();
  const res = await request(url);
  const objects: unknown[] = [];
  let rest = '';
  for await (const chunk of res.body) {
    const text = rest + (chunk as Buffer).toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) if (l !== '') objects.push(JSON.parse(l));
  }
  await settledGc();
  const after = held();
  if (objects.length === 0) throw new Error('nothing decoded');
  return after - before;
}

async function benchOne(src: Source, base: string): Promise<Figure[]> {
  const url = `${base}/api/v1/all`;
  const note = `${src.label}, JSONL ${mib(src.bytes)}`;
  for (let i = 0; i < 2; i++) await downloadMs(url); // warm connections and JIT
  const dl = Math.min(await downloadMs(url), await downloadMs(url), await downloadMs(url));

  // Populate three times (a new ref each time replaces the cache), keep the fastest.
  const client = new HttpContentClient();
  let populate = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await client.populateCache(catalogOf(src.name, base, `bench@sha256:${i}`));
    populate = Math.min(populate, performance.now() - t0);
  }
  client.remove(src.name);
  await settledGc();
  const before = held();
  const cat = catalogOf(src.name, base, 'bench@sha256:final');
  const index = await client.populateCache(cat);
  await settledGc();
  const afterPopulate = held() - before;

  // First read of every package (decode), then the retained size with the LRU full.
  const names = index.packageNames();
  const cold: number[] = [];
  for (const p of names) {
    const t0 = performance.now();
    await client.getPackage(cat, p);
    cold.push(performance.now() - t0);
  }
  await settledGc();
  const afterSweep = held() - before;

  // Warm: one package (the resolver's hot path), against a bare Map lookup.
  const pkg = names[Math.floor(names.length / 2)]!;
  const map = new Map(names.map((n) => [n, n]));
  const warm: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 2000; i++) {
    await client.getPackage(cat, pkg);
    map.get(pkg);
  }
  for (let i = 0; i < WARM_ITERATIONS; i++) {
    const t0 = performance.now();
    await client.getPackage(cat, pkg);
    warm.push(performance.now() - t0);
  }
  for (let i = 0; i < WARM_ITERATIONS; i++) {
    const t0 = performance.now();
    await Promise.resolve(map.get(pkg));
    bare.push(performance.now() - t0);
  }
  await client.close();
  const decoded = await decodedHeld(url);

  const c = percentiles(cold);
  const w = percentiles(warm);
  const b = percentiles(bare);
  return [
    { name: `${src.name}: populate (GET /api/v1/all → CatalogIndex)`, value: Math.round(populate), unit: 'ms', note: `${note}, ${index.blobs} blobs, ${names.length} packages` },
    { name: `${src.name}: baseline download only`, value: Math.round(dl), unit: 'ms', note: `populate / download ${ratio(populate, dl)}×` },
    { name: `${src.name}: retained after populate / JSONL`, value: ratio(afterPopulate, src.bytes), unit: '×', note: `${mib(afterPopulate)}; target < 2×` },
    { name: `${src.name}: retained after reading every package / JSONL`, value: ratio(afterSweep, src.bytes), unit: '×', note: `${mib(afterSweep)}, LRU of decoded packages full` },
    { name: `${src.name}: baseline every line decoded / JSONL`, value: ratio(decoded, src.bytes), unit: '×', note: mib(decoded) },
    { name: `${src.name}: getPackage first read (decode) p50`, value: us(c.p50), unit: 'µs', note: `${names.length} packages` },
    { name: `${src.name}: getPackage first read (decode) p99`, value: us(c.p99), unit: 'µs' },
    { name: `${src.name}: getPackage warm p50`, value: us(w.p50), unit: 'µs', note: `${pkg}, ${WARM_ITERATIONS} reads` },
    { name: `${src.name}: getPackage warm p99`, value: us(w.p99), unit: 'µs', note: `bare Map lookup p50 ${us(b.p50)} µs, p99 ${us(b.p99)} µs` },
  ];
}

export async function benchContentClient(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-content-client-'));
  let byName = new Map<string, Source>();
  const server = createServer((req, res) => {
    const m = /^\/catalogs\/([^/?]+)\/api\/v1\/all$/.exec(req.url ?? '');
    const src = req.method === 'GET' && m ? byName.get(m[1] ?? '') : undefined;
    if (!src) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jsonl', 'content-length': src.bytes });
    pipeline(createReadStream(src.file), res, () => undefined);
  });
  try {
    const sources = await renderSources(dir);
    byName = new Map(sources.map((s) => [s.name, s]));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0 }, resolve);
    });
    const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const figures: Figure[] = [];
    for (const src of sources) figures.push(...(await benchOne(src, `${address}/catalogs/${src.name}`)));
    return figures;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const f of await benchContentClient()) console.log(`${f.name.padEnd(64)} ${String(f.value).padStart(12)} ${f.unit}${f.note ? `  (${f.note})` : ''}`);
}
