// ClusterExtension resolution from a warm cache: a synthetic catalog of 5,000 packages × 10
// bundles (two channels, replaces chains and skipRanges, a deprecation blob per package) as
// catalogd's JSONL, indexed by the content client's CatalogIndex (what operator-controller keeps
// per catalog digest); then one package resolved many times. The baseline, measured in the same
// run, is the bare (warm) package lookup the resolver starts with.
// Target (issue 4): p99 < 2 ms per resolution. Figures only, never pass/fail.
// Run alone with `node --import tsx bench/resolve-v1.ts` (PACKAGES=…, ITERATIONS=… to change).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import type { ClusterCatalog, ClusterExtension } from '../api/v1/index.ts';
import { indexFromJsonl } from '../internal/operator-controller/contentclient/index.ts';
import { CatalogResolver, StaticContentClient, createResolutionMetrics } from '../internal/operator-controller/resolve/index.ts';
import type { Figure } from './control-plane.ts';

const BUNDLES = 10;

function syntheticBlobs(packages: number): unknown[] {
  const blobs: unknown[] = [];
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg-${p}`;
    const name = (i: number) => `${pkg}.v1.${i}.0`;
    blobs.push({ schema: 'olm.package', name: pkg, defaultChannel: 'stable' });
    blobs.push({
      schema: 'olm.channel',
      package: pkg,
      name: 'stable',
      entries: Array.from({ length: BUNDLES }, (_, i) =>
        i === 0 ? { name: name(0) } : { name: name(i), replaces: name(i - 1), ...(i % 3 === 0 && { skipRange: `>=1.${i - 3}.0 <1.${i}.0` }) },
      ),
    });
    blobs.push({
      schema: 'olm.channel',
      package: pkg,
      name: 'fast',
      entries: Array.from({ length: BUNDLES / 2 }, (_, k) => {
        const i = 2 * k + 1;
        return k === 0 ? { name: name(i) } : { name: name(i), replaces: name(i - 2), skips: [name(i - 1)] };
      }),
    });
    for (let i = 0; i < BUNDLES; i++) {
      blobs.push({
        schema: 'olm.bundle',
        name: name(i),
        package: pkg,
        image: `quay.io/bench/${pkg}@sha256:${String(i).padStart(64, '0')}`,
        properties: [
          { type: 'olm.package', value: { packageName: pkg, version: `1.${i}.0` } },
          { type: 'olm.gvk', value: { group: 'bench.example.com', kind: 'Thing', version: 'v1' } },
        ],
      });
    }
    blobs.push({ schema: 'olm.deprecations', package: pkg, entries: [{ reference: { schema: 'olm.bundle', name: name(2) }, message: 'old' }] });
  }
  return blobs;
}

function percentiles(samplesMs: number[]): { p50: number; p99: number; max: number; mean: number } {
  const s = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1] as number, mean: s.reduce((a, b) => a + b, 0) / s.length };
}

async function sample(iterations: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out = new Array<number>(iterations);
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn();
    out[i] = performance.now() - t0;
  }
  return out;
}

const us = (ms: number): number => Math.round(ms * 1000 * 10) / 10;

export async function benchResolveV1(
  packages = Number(process.env['PACKAGES'] ?? 5000),
  iterations = Number(process.env['ITERATIONS'] ?? 20_000),
): Promise<Figure[]> {
  const t0 = performance.now();
  const blobs = syntheticBlobs(packages);
  const jsonl = Buffer.from(blobs.map((b) => JSON.stringify(b)).join('\n') + '\n');
  const index = await indexFromJsonl(jsonl);
  const buildMs = performance.now() - t0;
  const cat: ClusterCatalog = {
    metadata: { name: 'bench', labels: { 'olm.operatorframework.io/metadata.name': 'bench' } },
    spec: { source: { type: 'Image', image: { ref: 'quay.io/bench/catalog:latest' } }, priority: 0, availabilityMode: 'Available' },
  };
  const content = new StaticContentClient(new Map([['bench', index]]));
  const resolver = new CatalogResolver({ listCatalogs: () => [cat], content });
  const metered = new CatalogResolver({ listCatalogs: () => [cat], content, metrics: createResolutionMetrics(new Registry()) });
  const pkg = `pkg-${Math.floor(packages / 2)}`;
  const ext = (version: string, channels: string[] = []): ClusterExtension => ({
    metadata: { name: pkg },
    spec: { namespace: 'default', source: { sourceType: 'Catalog', catalog: { packageName: pkg, version, channels } } },
  });
  const installed = { name: `${pkg}.v1.4.0`, version: '1.4.0' };
  const note = `${packages} packages × ${BUNDLES} bundles, ${iterations} iterations`;

  const cases: [string, () => Promise<unknown>][] = [
    ['baseline: bare package lookup (getPackage)', () => content.getPackage(cat, pkg)],
    ['resolve, no version', () => resolver.resolveBundle(ext(''), undefined)],
    ['resolve, version range + channel', () => resolver.resolveBundle(ext('>=1.2.0 <1.8.0', ['stable']), undefined)],
    ['resolve, upgrade from installed (successors)', () => resolver.resolveBundle(ext(''), installed)],
    ['resolve, no version, with the duration histogram', () => metered.resolveBundle(ext(''), undefined)],
  ];
  const figures: Figure[] = [
    { name: 'synthetic catalog JSONL → CatalogIndex', value: Math.round(buildMs), unit: 'ms', note: `${blobs.length} blobs, ${(jsonl.length / 1048576).toFixed(1)} MiB` },
  ];
  // Warm every path first so no case pays for JIT compilation the others then reuse.
  for (const [, fn] of cases) for (let i = 0; i < 3000; i++) await fn();
  let baselineP50 = 0;
  for (const [name, fn] of cases) {
    (globalThis as { gc?: () => void }).gc?.(); // start each case from a collected heap (npm run bench passes --expose-gc)
    const { p50, p99, max, mean } = percentiles(await sample(iterations, fn));
    if (baselineP50 === 0) baselineP50 = p50;
    figures.push({ name: `${name} p50`, value: us(p50), unit: 'µs', note });
    figures.push({ name: `${name} p99`, value: us(p99), unit: 'µs', note: name.startsWith('baseline') ? note : 'target < 2000 µs' });
    if (!name.startsWith('baseline')) figures.push({ name: `${name} p50 / lookup p50`, value: Math.round((p50 / baselineP50) * 10) / 10, unit: '×', note: `mean ${us(mean)} µs, max ${us(max)} µs (GC and other processes on the machine included)` });
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const f of await benchResolveV1()) console.log(`${f.name.padEnd(64)} ${String(f.value).padStart(12)} ${f.unit}${f.note ? `  (${f.note})` : ''}`);
}
