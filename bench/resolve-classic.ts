// Classic (SAT) resolution: a synthetic catalog of N packages × 10 versions (one channel, replaces
// chains, one olm.gvk each); packages form dependency chains of depth 5 (pkg-k requires, via
// olm.package.required, any version of pkg-k+1, 5 links per chain, alternating with
// olm.gvk.required). 200 subscriptions to chain heads, nothing installed.
// Target (issue 4): 1,000 packages resolve in < 1 s. Also 2,000 and 3,000 packages, and a growing
// size until logic-solver's fixed 64 MiB heap gives out (caught, size reported).
// Figures only, never pass/fail. Run alone: `node --import tsx bench/resolve-classic.ts`.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { isClassicResolutionError, makeEntry, resolve, type Catalog, type Entry, type SolveStats, type Subscription } from '../internal/classic/resolver/index.ts';
import type { Figure } from './control-plane.ts';

const VERSIONS = 10;
const DEPTH = 5;
const NS = 'olm';

function syntheticCatalog(packages: number): Catalog {
  const key = { name: 'synthetic', namespace: NS };
  const entries: Entry[] = [];
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg-${p}`;
    const hasDep = p % (DEPTH + 1) !== DEPTH && p + 1 < packages;
    for (let v = 0; v < VERSIONS; v++) {
      const dep = !hasDep
        ? []
        : p % 2 === 0
          ? [{ type: 'olm.package.required', value: { packageName: `pkg-${p + 1}`, versionRange: '>=1.0.0' } }]
          : [{ type: 'olm.gvk.required', value: { group: 'bench.io', version: 'v1', kind: `Kind${p + 1}` } }];
      entries.push(
        makeEntry(key, {
          name: `${pkg}.v1.${v}.0`,
          package: pkg,
          channel: 'stable',
          defaultChannel: true,
          version: `1.${v}.0`,
          ...(v > 0 ? { replaces: `${pkg}.v1.${v - 1}.0` } : {}),
          properties: [{ type: 'olm.gvk', value: { group: 'bench.io', version: 'v1', kind: `Kind${p}` } }, ...dep],
        }),
      );
    }
  }
  return { key, entries };
}

function subscriptions(packages: number, count: number): Subscription[] {
  const heads: Subscription[] = [];
  for (let p = 0; p < packages && heads.length < count; p += DEPTH + 1) {
    heads.push({ name: `sub-${p}`, namespace: NS, spec: { source: 'synthetic', sourceNamespace: NS, name: `pkg-${p}`, channel: 'stable' } });
  }
  return heads;
}

interface Run {
  readonly ms: number;
  readonly installed: number;
  readonly stats: SolveStats;
  readonly error?: string;
}

function runOnce(packages: number, subs: number): Run {
  const catalog = syntheticCatalog(packages);
  const s = subscriptions(packages, subs);
  const stats: SolveStats = { variables: 0, constraints: 0, guesses: 0, satCalls: 0 };
  const t0 = performance.now();
  try {
    const out = resolve({ namespaces: [NS], catalogs: [catalog], subscriptions: s }, { stats });
    return { ms: performance.now() - t0, installed: out.length, stats };
  } catch (err) {
    if (!isClassicResolutionError(err)) throw err;
    return { ms: performance.now() - t0, installed: 0, stats, error: `${err.code}: ${err.message.slice(0, 160)}` };
  }
}

export async function benchResolveClassic(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const subs = Number(process.env.SUBSCRIPTIONS ?? 200);
  for (const packages of (process.env.BENCH_SIZES ?? "1000,2000,3000").split(",").map(Number)) {
    runOnce(Math.min(packages, 200), 20); // warm-up (JIT)
    // median of RUNS (the shared machine is noisy); min and max in the note
    const runs = Array.from({ length: Math.max(1, Number(process.env.RUNS ?? 3)) }, () => runOnce(packages, subs)).sort((a, b) => a.ms - b.ms);
    const r = runs[Math.floor(runs.length / 2)] as Run;
    const spread = runs.length > 1 ? ` (median of ${runs.length}: ${runs.map((x) => Math.round(x.ms)).join(' / ')} ms)` : '';
    figures.push({
      name: `${subs} subscriptions, ${packages} packages × ${VERSIONS} versions, depth ${DEPTH}`,
      value: Math.round(r.ms),
      unit: 'ms',
      note: r.error ?? `${r.installed} bundles; ${r.stats.variables} variables, ${r.stats.constraints} constraints, ${r.stats.clauses ?? '?'} clauses, ${r.stats.guesses} guesses, ${r.stats.satCalls} SAT calls, solver ${Math.round(r.stats.solveMs ?? 0)} ms${spread}${packages === 1000 ? '; target < 1000 ms' : ''}`,
    });
  }
  // Grow the number of subscriptions (and the catalog) until the solver's heap gives out.
  if (process.env.BENCH_HEAP !== '0') {
    for (const packages of [6000, 12000, 24000, 48000]) {
      const count = Math.floor(packages / (DEPTH + 1));
      const r = runOnce(packages, count);
      figures.push({
        name: `heap probe: ${count} subscriptions, ${packages} packages`,
        value: Math.round(r.ms),
        unit: 'ms',
        note: r.error ?? `${r.installed} bundles; ${r.stats.variables} variables, ${r.stats.constraints} constraints, ${r.stats.clauses ?? '?'} clauses`,
      });
      if (r.error) break;
    }
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const f of await benchResolveClassic()) console.log(`${f.name.padEnd(64)} ${String(f.value).padStart(10)} ${f.unit}  ${f.note ?? ''}`);
}
