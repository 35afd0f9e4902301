// Catalog loading cost (internal/shared/fbc: load with opm's checks + validate + encode/index):
//  - catalog-scale: synthetic catalogs of 1,000 / 2,500 / 5,000 packages × 20 bundles (olm.package,
//    one channel with a replaces chain, olm.bundle with realistic properties), time and memory
//    per package, to show the growth is linear (BENCH_CATALOG_SCALE_SIZES=1000,2500 to change)
//  - catalog-certified: the real certified-operators catalog, against a baseline that only reads
//    the same files and parses them (js-yaml / JSON.parse) without keeping anything
// Each measurement runs in a fresh child process (this file with `--measure`), so its peak RSS
// (getrusage maxrss) is its own; growth is that peak minus the RSS after start-up and a GC.
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAll } from 'js-yaml';
import { writeSyntheticCatalog } from '../internal/catalogd/storage/testing.ts';
import { encodeJsonl, listCatalogFiles, loadCatalog, validate } from '../internal/shared/fbc/index.ts';
import type { Figure } from './control-plane.ts';
import { fullGc, held, measureInChild, median } from './memory.ts';
import { realCatalogDir } from '../test/support/testdata.ts';

const CERTIFIED = realCatalogDir('certified-operators-v4.21');
const SIZES = (process.env.BENCH_CATALOG_SCALE_SIZES ?? '1000,2500,5000').split(',').map(Number);
const BUNDLES = 20;

interface Measurement {
  /** load (opm checks) + validate + encode/index, or the baseline's read + parse. */
  totalMs: number;
  loadMs: number;
  validateMs: number;
  encodeMs: number;
  sourceBytes: number;
  blobs: number;
  errors: number;
  /** Peak RSS minus RSS after start-up. */
  peakGrowth: number;
  /** Heap + external still held after a GC, minus the same before (the loaded catalog). */
  retained: number;
}

// ---- child ----------------------------------------------------------------------------------


async function measure(kind: 'fbc' | 'baseline', dir: string): Promise<Measurement> {
  fullGc();
  const rss0 = process.memoryUsage().rss;
  const held0 = held();
  const t0 = performance.now();
  let loadMs: number;
  let validateMs = 0;
  let encodeMs = 0;
  let sourceBytes = 0;
  let blobs = 0;
  let errors = 0;
  let keep: unknown;
  if (kind === 'fbc') {
    const catalog = await loadCatalog(dir);
    const t1 = performance.now();
    errors = validate(catalog).errors.length;
    const t2 = performance.now();
    const encoded = encodeJsonl(catalog);
    const t3 = performance.now();
    [loadMs, validateMs, encodeMs] = [t1 - t0, t2 - t1, t3 - t2];
    sourceBytes = catalog.sourceBytes;
    blobs = encoded.index.size;
    keep = [catalog, encoded];
  } else {
    for (const rel of await listCatalogFiles(dir)) {
      const bytes = await readFile(join(dir, rel));
      sourceBytes += bytes.length;
      const text = bytes.toString('utf8');
      const docs = text.trimStart().startsWith('{') ? text.split(/\n(?=\{)/).map((d) => JSON.parse(d) as unknown) : loadAll(text);
      blobs += docs.filter((d) => d != null).length;
    }
    loadMs = performance.now() - t0;
  }
  const totalMs = performance.now() - t0;
  const peak = process.resourceUsage().maxRSS * 1024;
  fullGc();
  const retained = held() - held0;
  void keep;
  return { totalMs, loadMs, validateMs, encodeMs, sourceBytes, blobs, errors, peakGrowth: peak - rss0, retained };
}

const inChild = (kind: 'fbc' | 'baseline', dir: string): Promise<Measurement> => measureInChild<Measurement>(fileURLToPath(import.meta.url), [kind, dir]);

// ---- benches ----------------------------------------------------------------------------------

const mb = (n: number): number => Number((n / 1e6).toFixed(1));

export async function benchCatalogScale(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const packages of SIZES) {
    const dir = await mkdtemp(join(tmpdir(), 'bench-catalog-scale-'));
    try {
      await writeSyntheticCatalog(dir, { packages, bundlesPerPackage: BUNDLES });
      const m = await inChild('fbc', dir);
      const label = `${packages} packages × ${BUNDLES} bundles`;
      figures.push(
        { name: `${label}: load+validate+encode+index`, value: Math.round(m.totalMs), unit: 'ms', note: `load ${Math.round(m.loadMs)}, validate ${Math.round(m.validateMs)}, encode ${Math.round(m.encodeMs)}; ${mb(m.sourceBytes)} MB YAML, ${m.blobs} blobs, ${m.errors} errors` },
        { name: '  per package', value: Number(((m.totalMs * 1000) / packages).toFixed(0)), unit: 'µs' },
        { name: '  peak RSS growth', value: mb(m.peakGrowth), unit: 'MB', note: `${(m.peakGrowth / m.sourceBytes).toFixed(2)}× the YAML` },
        { name: '  peak RSS growth per package', value: Math.round(m.peakGrowth / packages / 1024), unit: 'KiB' },
        { name: '  heap+external retained (the loaded catalog)', value: mb(m.retained), unit: 'MB', note: `${Math.round(m.retained / packages / 1024)} KiB per package` },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return figures;
}

export async function benchCatalogCertified(): Promise<Figure[]> {
  const runs = { fbc: [] as Measurement[], baseline: [] as Measurement[] };
  for (let i = 0; i < 3; i++) {
    runs.baseline.push(await inChild('baseline', CERTIFIED));
    runs.fbc.push(await inChild('fbc', CERTIFIED));
  }
  const best = (ms: Measurement[]): Measurement => ms.reduce((a, b) => (b.totalMs < a.totalMs ? b : a));
  const fbc = best(runs.fbc);
  const base = best(runs.baseline);
  const fbcPeak = median(runs.fbc.map((m) => m.peakGrowth));
  const basePeak = median(runs.baseline.map((m) => m.peakGrowth));
  return [
    { name: 'certified: load+validate+encode+index, best of 3', value: Math.round(fbc.totalMs), unit: 'ms', note: `load ${Math.round(fbc.loadMs)}, validate ${Math.round(fbc.validateMs)}, encode ${Math.round(fbc.encodeMs)}; ${fbc.blobs} blobs, ${fbc.errors} errors` },
    { name: '  baseline: read + js-yaml/JSON.parse, best of 3', value: Math.round(base.totalMs), unit: 'ms', note: `${base.blobs} documents` },
    { name: '  ratio to baseline', value: Number((fbc.totalMs / base.totalMs).toFixed(2)), unit: '×' },
    { name: '  catalog size on disk', value: mb(fbc.sourceBytes), unit: 'MB' },
    { name: '  peak RSS growth (median of 3)', value: mb(fbcPeak), unit: 'MB', note: `${(fbcPeak / fbc.sourceBytes).toFixed(2)}× the catalog` },
    { name: '  baseline peak RSS growth (median of 3)', value: mb(basePeak), unit: 'MB', note: `${(basePeak / base.sourceBytes).toFixed(2)}× the catalog` },
    { name: '  retained after load (catalog + encoding)', value: mb(fbc.retained), unit: 'MB' },
  ];
}

if (process.argv[2] === '--measure' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measure(process.argv[3] === 'baseline' ? 'baseline' : 'fbc', process.argv[4] ?? '.');
  process.stdout.write(JSON.stringify(result) + '\n');
}
