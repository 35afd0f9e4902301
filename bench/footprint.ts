// The footprint of the controller binaries (issue 17), run as in production: built by tsc as the
// Dockerfile builds them (or BENCH_FOOTPRINT_DIST, a dist/ already built under this checkout) and
// started through cmd/entrypoint.sh (so the image's node flags apply), against the local cluster
// and registry of test/support.
//  1. Start-up cost of each binary's modules: `<binary> --help` loads every module the binary
//     imports statically and exits before connecting; wall time from spawn to exit, RSS and V8
//     heap at exit against `node -e 0`; the packages it loads (files per package, from a loader
//     hook); and each runtime dependency of package.json imported alone in a fresh node: import
//     time, heap retained and RSS added after a full GC.
//  2. Each binary against the cluster: spawn → /readyz 200 (median of 5 starts, BENCH_FOOTPRINT_STARTS), RSS and heap
//     (prom-client's nodejs_heap_size_used_bytes from its /metrics) at ready and idle after sync
//     (lowest of the last 5 one-second samples of 10); under load — catalogd serving the real
//     certified-operators catalog (testdata/catalogs) after one download of /api/v1/all (peak =
//     VmHWM), operator-controller with 1 and then BENCH_FOOTPRINT_EXTENSIONS (default 10) installed
//     extensions (RSS per extension); olm-classic idle only (classic-install loads it).
// Upstream catalogd for comparison (same machine, issue 17): idle RSS 57 MiB, start to ready 40–80 ms.
import { spawn, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installAdmissionPolicies } from '../test/support/admission.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../test/support/bundles.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { pushCatalogImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { metricsReaderToken, scrapeMetrics, selfSignedPair } from '../test/support/metrics.ts';
import { freePort, sleep, waitFor } from '../test/support/net.ts';
import { imageEnv, startBundled, stopProcess, type Managed } from '../test/support/process.ts';
import { Registry, type RegistryInfo } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { idleRss, median, medianBy, procCpuMs, procMemory } from './memory.ts';
import { productionDist } from './production.ts';
import { realCatalogDir } from '../test/support/testdata.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CERTIFIED = realCatalogDir('certified-operators-v4.21');
const BINARIES = ['catalogd', 'operator-controller', 'olm-classic'] as const;
const EXTENSIONS = Number(process.env.BENCH_FOOTPRINT_EXTENSIONS ?? 10);
/** Starts per binary, whose median is reported (one start on this shared machine varies by ±100 ms; the first is often the slowest). */
const STARTS = Math.max(1, Number(process.env.BENCH_FOOTPRINT_STARTS ?? 5));
const SYSTEM_NS = 'olmv1-system';
const mib = (bytes: number): number => Number((bytes / 1048576).toFixed(1));

/** The module cmd/entrypoint.sh runs for a controller: its bundle when the build made one (before issue 17 none). */
const mainOf = (dist: string, name: string): string => (existsSync(join(dist, 'bin', name, 'main.mjs')) ? join(dist, 'bin', name, 'main.mjs') : join(dist, 'cmd', name, 'main.js'));


// ---- 1. modules --------------------------------------------------------------------------------

const HOOK = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) { appendFileSync(out, url + '\\n'); return next(url, context); }
`;
const PRELOAD = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const out = process.env.FOOTPRINT_OUT;
if (process.env.FOOTPRINT_HOOK) register(new URL('./hook.mjs', import.meta.url), { data: { out } });
process.on('exit', () => {
  const cjs = Object.keys(createRequire(import.meta.url).cache);
  appendFileSync(out + '.json', JSON.stringify({ cjs, mem: process.memoryUsage(), ms: performance.now() }));
});
`;

interface ExitReport {
  readonly cjs: readonly string[];
  readonly mem: NodeJS.MemoryUsage;
  /** performance.now() at exit: since the process started. */
  readonly ms: number;
}

/** Runs node with the preload (and the loader hook if `hook`); the report and, with the hook, every module URL loaded. */
async function probe(dir: string, args: readonly string[], hook: boolean): Promise<{ report: ExitReport; wallMs: number; urls: string[] }> {
  const out = join(dir, `probe-${Math.random().toString(36).slice(2)}`);
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', join(dir, 'preload.mjs'), ...args], {
    cwd: ROOT,
    stdio: 'ignore',
    env: { ...imageEnv(), FOOTPRINT_OUT: out, ...(hook ? { FOOTPRINT_HOOK: '1' } : {}) },
  });
  await new Promise((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - t0;
  const report = JSON.parse(await readFile(`${out}.json`, 'utf8')) as ExitReport;
  const urls = hook ? (await readFile(out, 'utf8').catch(() => '')).split('\n').filter(Boolean) : [];
  return { report, wallMs, urls: [...urls, ...report.cjs.map((p) => `file://${p}`)] };
}

/** `node_modules/<pkg>/…` → pkg; our own files → `(own code)`; node builtins are left out. */
function packageOf(url: string): string | undefined {
  if (url.startsWith('node:')) return undefined;
  const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return m ? m[1] : '(own code)';
}

async function moduleFigures(dist: string): Promise<Figure[]> {
  const figures: Figure[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'bench-footprint-'));
  try {
    await writeFile(join(dir, 'hook.mjs'), HOOK);
    await writeFile(join(dir, 'preload.mjs'), PRELOAD);
    const runs = async (args: readonly string[]): Promise<{ wallMs: number; report: ExitReport }> => {
      const all: { wallMs: number; report: ExitReport }[] = [];
      for (let i = 0; i < 5; i++) all.push(await probe(dir, args, false));
      return medianBy(all, (r) => r.wallMs)!;
    };
    const bare = await runs(['-e', '0']);
    figures.push({ name: 'node -e 0: spawn → exit', value: Math.round(bare.wallMs), unit: 'ms', note: `RSS ${mib(bare.report.mem.rss)} MiB, heap ${mib(bare.report.mem.heapUsed)} MiB` });
    const loadedBy = new Map<string, string[]>();
    for (const name of BINARIES) {
      const main = mainOf(dist, name);
      const r = await runs([main, '--help']);
      figures.push({
        name: `${name} --help (every static import): spawn → exit`,
        value: Math.round(r.wallMs),
        unit: 'ms',
        note: `RSS ${mib(r.report.mem.rss)} MiB (+${mib(r.report.mem.rss - bare.report.mem.rss)}), heap ${mib(r.report.mem.heapUsed)} MiB (+${mib(r.report.mem.heapUsed - bare.report.mem.heapUsed)})`,
      });
      const { urls } = await probe(dir, [main, '--help'], true);
      const files = new Map<string, number>();
      for (const u of new Set(urls)) {
        const p = packageOf(u);
        if (p) files.set(p, (files.get(p) ?? 0) + 1);
      }
      for (const p of files.keys()) loadedBy.set(p, [...(loadedBy.get(p) ?? []), name]);
      const list = [...files].sort((a, b) => b[1] - a[1]);
      figures.push({
        name: `  modules loaded at start`,
        value: list.reduce((n, [, c]) => n + c, 0),
        unit: 'files',
        note: list.map(([p, c]) => `${p} ${c}`).join(', '),
      });
      // A bundle: what its start-up outputs hold, per package (cmd/bundle.ts writes it from esbuild's metafile).
      const startup = await readFile(join(dirname(main), 'startup.json'), 'utf8').then((t) => JSON.parse(t) as Record<string, number>, () => undefined);
      if (startup) {
        for (const p of Object.keys(startup)) if (!p.startsWith('internal/') && !['api', 'cmd'].includes(p)) loadedBy.set(p, [...(loadedBy.get(p) ?? []), name]);
        const top = Object.entries(startup).slice(0, 12);
        figures.push({
          name: '  bundle loaded at start',
          value: Math.round(Object.values(startup).reduce((a, b) => a + b, 0) / 1024),
          unit: 'KiB',
          note: top.map(([p, b]) => `${p} ${Math.round(b / 1024)}K`).join(', '),
        });
      }
    }
    // Each runtime dependency alone, as the code imports it.
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies)) {
      const script = `globalThis.gc(); globalThis.gc(); const m0 = process.memoryUsage(); const t0 = performance.now();
await import(${JSON.stringify(dep)}); const ms = performance.now() - t0; globalThis.gc(); globalThis.gc(); const m1 = process.memoryUsage();
console.log(JSON.stringify({ ms, heap: m1.heapUsed - m0.heapUsed, rss: m1.rss - m0.rss }));`;
      const samples: { ms: number; heap: number; rss: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: ROOT });
        samples.push(JSON.parse(stdout) as { ms: number; heap: number; rss: number });
      }
      const at = (loadedBy.get(dep) ?? []).join(', ') || 'none';
      figures.push({
        name: `  import ${dep} alone (median of 3)`,
        value: Math.round(median(samples.map((s) => s.ms))),
        unit: 'ms',
        note: `heap +${mib(median(samples.map((s) => s.heap)))} MiB, RSS +${mib(median(samples.map((s) => s.rss)))} MiB; loaded at start by: ${at}`,
      });
    }
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---- 2. against the cluster --------------------------------------------------------------------

interface Running {
  readonly proc: Managed;
  readonly readyMs: number;
  /** The process's own CPU (user+system) until ready: less at the mercy of a busy machine than readyMs. */
  readonly readyCpuMs: number;
  readonly metricsUrl: string;
}

/** The bearer token /metrics of catalogd and operator-controller wants (a ServiceAccount allowed GET /metrics). */
let metricsToken = '';

/** Starts a binary through the entrypoint and waits for /readyz 200, polling every 5 ms. */
async function start(dist: string, name: string, args: readonly string[], logDir: string): Promise<Running> {
  const [health, metricsPort] = [await freePort(), await freePort()];

  const t0 = performance.now();
  // catalogd and operator-controller serve metrics only over HTTPS with a certificate, as upstream's.
  const secure = name !== 'olm-classic';
  // catalogd's pair (its catalog server's too) in a directory of its own, which operator-controller trusts.
  const caDir = join(logDir, 'catalogd-ca');
  await mkdir(caDir, { recursive: true });
  const pair = secure ? selfSignedPair(name === 'catalogd' ? caDir : logDir, `${name}-metrics`) : undefined;
  const certs = [...(pair ? [`--tls-cert=${pair.certFile}`, `--tls-key=${pair.keyFile}`] : []), ...(name === 'operator-controller' ? [`--catalogd-cas-dir=${caDir}`] : [])];
  const proc = startBundled(
    dist,
    name,
    [...args, ...certs, `--health-probe-bind-address=127.0.0.1:${health}`, `--metrics-bind-address=127.0.0.1:${metricsPort}`],
    join(logDir, `${name}.log`),
  );
  let readyMs = 0;
  await waitFor(
    `${name} ready`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited with ${proc.child.exitCode}; see ${proc.logFile}`);
      const res = await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined);
      await res?.body?.cancel();
      readyMs = performance.now() - t0;
      return res?.status === 200;
    },
    { timeoutMs: 60_000, intervalMs: 5 },
  );
  return { proc, readyMs, readyCpuMs: await procCpuMs(proc.pid), metricsUrl: `${secure ? 'https' : 'http'}://127.0.0.1:${metricsPort}/metrics` };
}

/** RSS (VmRSS) now and V8 heap used, from the process's own /metrics (prom-client's default metrics). */
async function memoryOf(r: Running): Promise<{ rss: number; heap: number }> {
  const text = r.metricsUrl.startsWith('https:') ? (await scrapeMetrics(r.metricsUrl, metricsToken)).body : await (await fetch(r.metricsUrl)).text();
  const heap = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN);
  return { rss: (await procMemory(r.proc.pid)).rss, heap };
}

/** STARTS starts: the median start to ready and memory at ready; the last one is left running. */
async function startFigures(dist: string, name: string, args: readonly string[], logDir: string, figures: Figure[]): Promise<Running> {
  const starts: { readyMs: number; readyCpuMs: number; rss: number; heap: number }[] = [];
  let last: Running | undefined;
  for (let i = 0; i < STARTS; i++) {
    if (last) await stopProcess(last.proc);
    last = await start(dist, name, args, logDir);
    starts.push({ readyMs: last.readyMs, readyCpuMs: last.readyCpuMs, ...(await memoryOf(last)) });
  }
  const m = medianBy(starts, (s) => s.readyMs)!;
  figures.push({ name: `${name}: process start → /readyz 200 (median of ${STARTS})`, value: Math.round(m.readyMs), unit: 'ms', note: `runs ${starts.map((s) => Math.round(s.readyMs)).join(', ')} ms; target ≤ 250 (upstream catalogd 40–80)` });
  figures.push({ name: `${name}: its CPU (user+system) until ready, same start`, value: Math.round(m.readyCpuMs), unit: 'ms', note: 'wall time above waits on a shared machine and the API server; this does not' });
  figures.push({ name: `${name}: RSS at ready`, value: mib(m.rss), unit: 'MiB', note: `V8 heap used ${mib(m.heap)} MiB` });
  return last!;
}

async function idleFigure(r: Running, name: string, label: string, figures: Figure[], note = ''): Promise<{ rss: number; heap: number }> {
  const rss = (await idleRss(r.proc.pid, 10)).last;
  const { heap } = await memoryOf(r);
  figures.push({ name: `${name}: RSS ${label}`, value: mib(rss), unit: 'MiB', note: `V8 heap used ${mib(heap)} MiB${note ? `; ${note}` : ''}` });
  return { rss, heap };
}

async function clusterFigures(dist: string): Promise<Figure[]> {
  const figures: Figure[] = [];
  const tmp = await mkdtemp(join(tmpdir(), 'bench-footprint-run-'));
  const cp = new ControlPlane({ nodes: 1 });
  const reg = new Registry();
  const running: Running[] = [];
  try {
    const [info, regInfo]: [Awaited<ReturnType<ControlPlane['start']>>, RegistryInfo] = await Promise.all([cp.start(), reg.start()]);
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(join(ROOT, 'config/crd/bases')));
    await installCrds(kube, await yamlFiles(join(ROOT, 'config/crd/classic')));
    await installAdmissionPolicies(kube, join(ROOT, 'config/admission'));
    for (const ns of [SYSTEM_NS, 'olm']) await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    metricsToken = await metricsReaderToken(kube, 'olm', 'metrics-reader');
    const common = [`--kubeconfig=${info.kubeconfigPath}`, '--log-level=error'];
    const serving = async (name: string): Promise<boolean> => {
      const c = await kube.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `/apis/olm.operatorframework.io/v1/clustercatalogs/${name}`);
      return c.body.status?.conditions?.some((x) => x.type === 'Serving' && x.status === 'True') ?? false;
    };
    const createCatalog = (name: string, ref: string): Promise<unknown> =>
      kube.must(
        kube.request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterCatalog',
          metadata: { name },
          spec: { source: { type: 'Image', image: { ref } } },
        }),
      );

    // catalogd
    const port = await freePort();
    const catalogdArgs = [...common, `--catalogs-server-addr=127.0.0.1:${port}`, `--external-address=127.0.0.1:${port}`, `--cache-dir=${join(tmp, 'catalogd')}`, `--insecure-registries=${regInfo.host}`];
    const cd = await startFigures(dist, 'catalogd', catalogdArgs, tmp, figures);
    running.push(cd);
    await idleFigure(cd, 'catalogd', 'idle after sync (no catalogs)', figures, 'upstream catalogd 57 MiB');
    const certified = await pushCatalogImage(regInfo, 'catalogs/certified:v1', { dir: CERTIFIED });
    const t0 = performance.now();
    await createCatalog('certified', certified.ref);
    await waitFor('certified Serving', () => serving('certified'), { timeoutMs: 300_000, intervalMs: 100 });
    const servingMs = performance.now() - t0;
    const all = await fetch(`http://127.0.0.1:${port}/catalogs/certified/api/v1/all`);
    const bytes = (await all.arrayBuffer()).byteLength;
    const { hwm } = await procMemory(cd.proc.pid);
    figures.push({ name: 'catalogd: peak RSS (VmHWM) serving certified-operators, after one /api/v1/all', value: mib(hwm), unit: 'MiB', note: `${mib(bytes)} MiB answer; Serving ${Math.round(servingMs)} ms after create` });
    await idleFigure(cd, 'catalogd', 'idle serving certified-operators', figures);

    // operator-controller (catalogd keeps serving)
    const bundles: TestBundle[] = [];
    for (let i = 0; i <= EXTENSIONS; i++) bundles.push(await pushTestBundle(regInfo, { packageName: `fp${i}`, version: '1.0.0' }));
    const small = await pushCatalogImage(regInfo, 'catalogs/footprint:v1', { files: Object.assign({}, ...bundles.map((b) => catalogFiles(b.packageName, [{ bundle: b }]))) as Record<string, object> });
    await createCatalog('footprint', small.ref);
    await waitFor('footprint Serving', () => serving('footprint'), { timeoutMs: 120_000, intervalMs: 100 });
    const ocArgs = [...common, `--cache-path=${join(tmp, 'oc')}`, `--system-namespace=${SYSTEM_NS}`, `--insecure-registries=${regInfo.host}`];
    const oc = await startFigures(dist, 'operator-controller', ocArgs, tmp, figures);
    running.push(oc);
    await idleFigure(oc, 'operator-controller', 'idle after sync (2 catalogs, no extensions)', figures);
    const ns = await kube.namespace('footprint');
    const install = async (b: TestBundle): Promise<void> => {
      await kube.must(
        kube.request('POST', '/apis/olm.operatorframework.io/v1/clusterextensions', {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterExtension',
          metadata: { name: b.packageName },
          spec: { namespace: ns, source: { sourceType: 'Catalog', catalog: { packageName: b.packageName, selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'footprint' } } } } },
        }),
      );
    };
    const installed = async (name: string): Promise<boolean> => {
      const e = await kube.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `/apis/olm.operatorframework.io/v1/clusterextensions/${name}`);
      return e.body.status?.conditions?.some((c) => c.type === 'Installed' && c.status === 'True') ?? false;
    };
    await install(bundles[0]!);
    await waitFor('first extension Installed', () => installed(bundles[0]!.packageName), { timeoutMs: 120_000, intervalMs: 100 });
    const one = await idleFigure(oc, 'operator-controller', 'idle, 1 extension installed', figures);
    for (const b of bundles.slice(1)) await install(b);
    for (const b of bundles.slice(1)) await waitFor(`${b.packageName} Installed`, () => installed(b.packageName), { timeoutMs: 300_000, intervalMs: 100 });
    const many = await idleFigure(oc, 'operator-controller', `idle, ${EXTENSIONS + 1} extensions installed`, figures);
    figures.push({
      name: 'operator-controller: RSS per further installed extension',
      value: mib((many.rss - one.rss) / EXTENSIONS),
      unit: 'MiB',
      note: `V8 heap used ${mib((many.heap - one.heap) / EXTENSIONS)} MiB per extension (V8 returns memory to the OS in steps: RSS moves by more than one extension's worth)`,
    });
    for (const r of running.splice(0)) await stopProcess(r.proc);

    // olm-classic
    const classic = await startFigures(dist, 'olm-classic', [...common, `--cache-dir=${join(tmp, 'classic')}`, '--namespace=olm', `--insecure-registries=${regInfo.host}`], tmp, figures);
    running.push(classic);
    await idleFigure(classic, 'olm-classic', 'idle after sync (no CatalogSources)', figures);
    return figures;
  } finally {
    for (const r of running) await stopProcess(r.proc).catch(() => undefined);
    await Promise.allSettled([cp.stop(), reg.stop()]);
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

export async function benchFootprint(): Promise<Figure[]> {
  const dist = await productionDist();
  const figures = await moduleFigures(dist);
  if (process.env.BENCH_FOOTPRINT_MODULES_ONLY) return figures;
  await sleep(0);
  return [...figures, ...(await clusterFigures(dist))];
}
