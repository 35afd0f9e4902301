// Classic Subscriptions over a real catalog (issue 12's performance figures, the parts that need no cluster):
// - reading the community catalog into the CatalogSource content model in process (FBC load) vs over gRPC from a
//   real `opm serve` of the same directory, and whether both give the same resolution;
// - one namespace with 50 Subscriptions (every community package's default channel, then certified ones, both
//   catalogs as CatalogSources of the namespace): a namespace sync's resolution
//   (entries of the catalog, installed CSVs, the SAT resolver) p50/p99 side by side with the resolver call alone;
// - heap held by the content of both real catalogs loaded as CatalogSources (measured in a fresh child).
// Figures only. Run alone: `node --expose-gc --import tsx bench/classic-subscriptions.ts`.
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CatalogSource } from '../api/operators/index.ts';
import { contentFromFbc, contentFromRegistry, type CatalogContent } from '../internal/classic/catalogsource/index.ts';
import { RegistryClient } from '../internal/classic/registryclient/index.ts';
import { resolve, type Subscription } from '../internal/classic/resolver/index.ts';
import { namespaceCatalogs } from '../internal/classic/subscription/index.ts';
import { loadCatalog } from '../internal/shared/fbc/index.ts';
import { OpmServe } from '../test/support/opm.ts';
import { realCatalogDir } from '../test/support/testdata.ts';
import type { Figure } from './control-plane.ts';
import { held, measureInChild, settledGc } from './memory.ts';

// The real catalogs the repository carries (testdata/catalogs), unpacked on first use.
const COMMUNITY = (): string => realCatalogDir('community-operators-v4.21');
const CERTIFIED = (): string => realCatalogDir('certified-operators-v4.21');
const NS = 'bench';
const SUBS = 50;
const RUNS = 20;

const source = (name: string): CatalogSource => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'CatalogSource',
  metadata: { name, namespace: NS, uid: name },
  spec: { sourceType: 'grpc' },
});

async function fromFbc(dir: string): Promise<CatalogContent> {
  return contentFromFbc(await loadCatalog(dir), dir, new Date());
}

/** Subscriptions to every package of the community catalog first, then of the certified one, up to n. */
function subscriptionsFor(contents: Readonly<Record<string, CatalogContent>>, n: number): Subscription[] {
  return Object.entries(contents)
    .flatMap(([catalog, content]) =>
      [...content.packages]
        .filter((p) => p.channels.some((c) => c.name === p.defaultChannel && c.entries.length > 0))
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((p) => ({ name: `sub-${p.name}`, namespace: NS, spec: { source: catalog, sourceNamespace: NS, name: p.name, channel: p.defaultChannel } })),
    )
    .slice(0, n);
}

/** One sync's resolution: the namespace's catalogs as entries (cached per content) and the resolver. */
function sync(contents: Readonly<Record<string, CatalogContent>>, subs: readonly Subscription[]): { readonly names: string[]; readonly resolveMs: number } {
  const catalogs = namespaceCatalogs(Object.keys(contents).map(source), (_ns, name) => contents[name]);
  const t0 = performance.now();
  let names: string[];
  try {
    names = resolve({ namespaces: [NS], catalogs: catalogs.catalogs, installed: [], subscriptions: subs }).map((r) => r.entry.name);
  } catch (err) {
    names = [`error: ${(err as Error).message.slice(0, 80)}`];
  }
  return { names, resolveMs: performance.now() - t0 };
}

const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

async function measureMemory(): Promise<{ readonly community: number; readonly both: number }> {
  await settledGc();
  const base = held();
  const community = await fromFbc(COMMUNITY());
  await settledGc();
  const one = held() - base;
  const certified = await fromFbc(CERTIFIED());
  await settledGc();
  const both = held() - base;
  if (community.packages.length + certified.packages.length === 0) throw new Error('empty catalogs');
  return { community: one, both };
}

export async function benchClassicSubscriptions(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const t0 = performance.now();
  const local = await fromFbc(COMMUNITY());
  const fbcMs = performance.now() - t0;
  figures.push({ name: 'community catalog read in process (FBC → content)', value: Math.round(fbcMs), unit: 'ms', note: `${local.packages.length} packages, ${local.bundles.length} bundles` });

  const opm = new OpmServe(COMMUNITY());
  let remote: CatalogContent | undefined;
  try {
    const { address } = await opm.start(180_000);
    const client = new RegistryClient(address, { timeoutMs: 120_000 });
    try {
      const t1 = performance.now();
      remote = await contentFromRegistry(client, address, new Date());
      const grpcMs = performance.now() - t1;
      figures.push({ name: 'community catalog read over gRPC (opm serve → content)', value: Math.round(grpcMs), unit: 'ms', note: `${(grpcMs / fbcMs).toFixed(2)}× the in-process read` });
    } finally {
      client.close();
    }
  } catch (err) {
    figures.push({ name: 'community catalog read over gRPC', value: 0, unit: 'skipped', note: `opm serve unavailable: ${(err as Error).message.split('\n')[0]}` });
  } finally {
    await opm.stop();
  }

  const certified = await fromFbc(CERTIFIED());
  const both = { community: local, certified };
  // packages whose channel head resolves on its own (some certified heads need operators from other catalogs)
  const subs = subscriptionsFor(both, Infinity)
    .filter((sub) => !sync(both, [sub]).names[0]?.startsWith('error'))
    .slice(0, SUBS);
  const cold = performance.now();
  const first = sync(both, subs);
  const coldMs = performance.now() - cold;
  const syncMs: number[] = [];
  const resolveMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    const r = sync(both, subs);
    syncMs.push(performance.now() - s);
    resolveMs.push(r.resolveMs);
  }
  const outcome = first.names[0]?.startsWith('error') ? first.names[0] : `${first.names.length} bundles resolved`;
  figures.push({ name: `namespace sync resolution, ${subs.length} Subscriptions over both catalogs, first (entries built)`, value: Math.round(coldMs), unit: 'ms', note: outcome });
  figures.push({ name: 'namespace sync resolution p50 / p99', value: Math.round(pct(syncMs, 50)), unit: 'ms', note: `p99 ${Math.round(pct(syncMs, 99))} ms over ${RUNS} syncs` });
  figures.push({ name: 'resolver alone p50 / p99', value: Math.round(pct(resolveMs, 50)), unit: 'ms', note: `p99 ${Math.round(pct(resolveMs, 99))} ms` });
  if (remote) {
    const same = JSON.stringify(sync({ community: remote, certified }, subs).names) === JSON.stringify(first.names);
    figures.push({ name: 'gRPC and in-process content resolve alike', value: same ? 1 : 0, unit: same ? 'yes' : 'NO' });
  }

  const mem = await measureInChild<{ community: number; both: number }>(fileURLToPath(import.meta.url), []);
  figures.push({ name: 'heap held by the community catalog’s content', value: Math.round(mem.community / 2 ** 20), unit: 'MiB' });
  figures.push({ name: 'heap held by both real catalogs’ content', value: Math.round(mem.both / 2 ** 20), unit: 'MiB' });
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--measure')) {
    console.log(JSON.stringify(await measureMemory()));
  } else {
    for (const f of await benchClassicSubscriptions()) console.log(`${f.name}: ${f.value} ${f.unit}${f.note ? ` (${f.note})` : ''}`);
  }
}
