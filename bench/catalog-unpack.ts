// "Unpack, validate and index certified-operators-v4.21": the catalog as a catalog image layer
// (gzip tar, FBC under `configs/`, built once in a temp dir), taken through the project's real
// paths, each in a fresh child process (this file with `--measure`) so its peak RSS is its own:
//  - layer → store: sniff + gunzip + applyLayer (catalog-mode PathSelector on the configs label
//    path) + verifySymlinks + makeReadOnly (internal/shared/image), then LocalDirStore.store
//    (catalogd's streaming encode + byte-offset index, what the controller's commit runs)
//  - layer → fbc: the same unpack, then internal/shared/fbc loadCatalog (opm's load checks) +
//    validate (every opm rule) + encodeJsonl (catalogd's encoding and byte-offset index): one parse
//  - registry → commit: the controller's own CatalogContent.pull (real distribution registry,
//    manifest/config/blob download with digest checks, cache entry) + commit (LocalDirStore)
//  - baseline: `tar -xzf` of the same layer, then read + js-yaml/JSON.parse of the same files
// Peak RSS growth = getrusage maxrss minus the RSS after start-up and a GC (the tar process of
// the baseline is not counted: only the parse is).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadAll } from 'js-yaml';
import { createCatalogContent } from '../internal/catalogd/controller/index.ts';
import { LocalDirStore } from '../internal/catalogd/storage/index.ts';
import { encodeJsonl, listCatalogFiles, loadCatalog, validate } from '../internal/shared/fbc/index.ts';
import { loadLayerPipeline, makeReadOnly, RegistryClient, sha256 } from '../internal/shared/image/index.ts';
import { CATALOG_LABEL, pushImage, tarBytes, tarDirectory } from '../test/support/images.ts';
import { Registry } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { fullGc, measureInChild, median } from './memory.ts';
import { realCatalogDir } from '../test/support/testdata.ts';

const CERTIFIED = realCatalogDir('certified-operators-v4.21');
const CONFIGS = 'configs';
const RUNS = Number(process.env.BENCH_CATALOG_UNPACK_RUNS ?? 3);

type Kind = 'baseline' | 'layer' | 'layer+validate' | 'registry';

interface Job {
  kind: Kind;
  /** The gzip layer (baseline, layer kinds). */
  layer: string;
  /** An empty work directory owned by this measurement. */
  work: string;
  /** registry: the image reference and the registry host (plain HTTP). */
  ref?: string;
  insecure?: string;
}

interface Measurement {
  totalMs: number;
  /** Unpack (tar -xzf for the baseline, apply or pull otherwise). */
  unpackMs: number;
  /** Store (encode + index) for ours, read + parse for the baseline. */
  indexMs: number;
  validateMs: number;
  servedBytes: number;
  blobs: number;
  errors: number;
  peakGrowth: number;
}

// ---- child ----------------------------------------------------------------------------------


async function measure(job: Job): Promise<Measurement> {
  fullGc();
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  let unpackMs: number;
  let indexMs: number;
  let validateMs = 0;
  let servedBytes = 0;
  let blobs = 0;
  let errors = 0;
  if (job.kind === 'baseline') {
    const out = join(job.work, 'x');
    await mkdir(out);
    const tar = spawnSync('tar', ['-xzf', job.layer, '-C', out]);
    if (tar.status !== 0) throw new Error(`tar -xzf: ${tar.stderr.toString()}`);
    const t1 = performance.now();
    const dir = join(out, CONFIGS);
    for (const rel of await listCatalogFiles(dir)) {
      const text = (await readFile(join(dir, rel))).toString('utf8');
      const docs = text.trimStart().startsWith('{') ? text.split(/\n(?=\{)/).map((d) => JSON.parse(d) as unknown) : loadAll(text);
      blobs += docs.filter((d) => d != null).length;
    }
    [unpackMs, indexMs] = [t1 - t0, performance.now() - t1];
  } else {
    const store = new LocalDirStore({ root: join(job.work, 'catalogs') });
    if (job.kind === 'registry') {
      const registry = new RegistryClient({ insecureRegistries: [job.insecure ?? ''] });
      const content = createCatalogContent({ unpackDir: join(job.work, 'unpack'), store, registry });
      const pulled = await content.pull('certified', job.ref ?? '');
      const t1 = performance.now();
      const stored = await content.commit('certified', pulled);
      if (!stored) throw new Error('commit skipped');
      [unpackMs, indexMs] = [t1 - t0, performance.now() - t1];
      [servedBytes, blobs] = [stored.size, stored.index.size];
      await registry.close();
    } else {
      const root = join(job.work, 'fs');
      await mkdir(root);
      const digest = sha256(await readFile(job.layer));
      const { applyLayer, decompressedStream, newUnpackState, PathSelector, sniffFile, verifySymlinks } = await loadLayerPipeline();
      const state = newUnpackState();
      const keep = PathSelector.all().and([CONFIGS]);
      await applyLayer(decompressedStream(job.layer, await sniffFile(job.layer)), { root, layerDigest: digest, keep, state });
      await verifySymlinks(root, state);
      await makeReadOnly(root);
      const configsDir = join(root, CONFIGS);
      const t1 = performance.now();
      unpackMs = t1 - t0;
      if (job.kind === 'layer') {
        const stored = await store.store('certified', digest, configsDir);
        indexMs = performance.now() - t1;
        [servedBytes, blobs] = [stored.size, stored.index.size];
      } else {
        // One parse: load with opm's checks, validate the model, encode + index from the loaded catalog.
        const catalog = await loadCatalog(configsDir);
        const t2 = performance.now();
        errors = validate(catalog).errors.length;
        const t3 = performance.now();
        const encoded = encodeJsonl(catalog);
        [indexMs, validateMs] = [t2 - t1 + (performance.now() - t3), t3 - t2];
        [servedBytes, blobs] = [encoded.byteLength, encoded.index.size];
      }
    }
  }
  const totalMs = performance.now() - t0;
  const peak = process.resourceUsage().maxRSS * 1024;
  return { totalMs, unpackMs, indexMs, validateMs, servedBytes, blobs, errors, peakGrowth: peak - rss0 };
}

const inChild = (job: Job): Promise<Measurement> => measureInChild<Measurement>(fileURLToPath(import.meta.url), [JSON.stringify(job)]);

// ---- bench ----------------------------------------------------------------------------------

const mb = (n: number): number => Number((n / 1e6).toFixed(1));
const ms = (n: number): number => Math.round(n);

async function catalogBytes(dir: string): Promise<number> {
  let total = 0;
  for (const rel of await listCatalogFiles(dir)) total += (await stat(join(dir, rel))).size;
  return total;
}

export async function benchCatalogUnpack(): Promise<Figure[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-catalog-unpack-'));
  const registry = new Registry();
  try {
    const size = await catalogBytes(CERTIFIED);
    const gz = gzipSync(tarBytes(await tarDirectory(CERTIFIED, CONFIGS)));
    const layer = join(tmp, 'layer.tar.gz');
    await writeFile(layer, gz);
    const reg = await registry.start();
    const pushed = await pushImage(reg, 'bench/certified:v4.21', { labels: { [CATALOG_LABEL]: `/${CONFIGS}` }, layers: [{ blob: gz }] });

    const runs: Record<Kind, Measurement[]> = { baseline: [], layer: [], 'layer+validate': [], registry: [] };
    let n = 0;
    for (let i = 0; i < RUNS; i++) {
      for (const kind of Object.keys(runs) as Kind[]) {
        const work = join(tmp, `w${n++}`);
        await mkdir(work);
        runs[kind].push(await inChild({ kind, layer, work, ref: pushed.ref, insecure: reg.host }));
        await rm(work, { recursive: true, force: true });
      }
    }
    const best = (xs: Measurement[]): Measurement => xs.reduce((a, b) => (b.totalMs < a.totalMs ? b : a));
    const base = best(runs.baseline);
    const basePeak = median(runs.baseline.map((m) => m.peakGrowth));
    const figures: Figure[] = [
      { name: 'certified catalog: source files / gzip layer', value: mb(size), unit: 'MB', note: `layer ${mb(gz.length)} MB gzip` },
      { name: `baseline tar -xzf + read + js-yaml/JSON.parse, best of ${RUNS}`, value: ms(base.totalMs), unit: 'ms', note: `tar ${ms(base.unpackMs)}, parse ${ms(base.indexMs)}; ${base.blobs} documents` },
      { name: '  baseline peak RSS growth (parse only, median)', value: mb(basePeak), unit: 'MB', note: `${(basePeak / size).toFixed(2)}× the catalog` },
    ];
    const label: Record<Exclude<Kind, 'baseline'>, string> = {
      layer: 'layer → apply → LocalDirStore.store (encode+index)',
      'layer+validate': 'layer → apply → fbc load + validate + encode/index',
      registry: 'registry → CatalogContent.pull → commit (controller path)',
    };
    for (const kind of ['layer', 'layer+validate', 'registry'] as const) {
      const m = best(runs[kind]);
      const peak = median(runs[kind].map((r) => r.peakGrowth));
      const parts = [`${kind === 'registry' ? 'pull' : 'apply'} ${ms(m.unpackMs)}, ${kind === 'layer+validate' ? 'load+encode' : 'store'} ${ms(m.indexMs)}`];
      if (kind === 'layer+validate') parts.push(`validate ${ms(m.validateMs)}, ${m.errors} errors`);
      figures.push(
        { name: `${label[kind]}, best of ${RUNS}`, value: ms(m.totalMs), unit: 'ms', note: `${parts.join(', ')}; ${m.blobs} blobs, ${mb(m.servedBytes)} MB jsonl` },
        { name: '  ratio to baseline', value: Number((m.totalMs / base.totalMs).toFixed(2)), unit: '×' },
        { name: '  peak RSS growth (median)', value: mb(peak), unit: 'MB', note: `${(peak / size).toFixed(2)}× the catalog; target < 4×` },
      );
    }
    return figures;
  } finally {
    await registry.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--measure' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measure(JSON.parse(process.argv[3] ?? '{}') as Job);
  process.stdout.write(JSON.stringify(result) + '\n');
}
