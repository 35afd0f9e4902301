// kubectl-olm start-up and search (issue 15, Performance).
//  1. Start-up, side by side in the same run (interleaved, BENCH_CLI_RUNS rounds, default 25):
//     `node -e 0` (the floor: Node itself), `kubectl-olm --help` and `kubectl-olm catalog validate
//     <tiny catalog>` — from the checkout's bin/ (which also checks the bundle is fresh) and as
//     `npm install -g` lays the package out (launcher + bundle only) — and, for reference, the
//     sources through tsx (how the CLI ran before the bundle). Figures: median and p90 wall and
//     CPU time per command, and each command's medians minus node's (the target: within 60 ms).
//  2. `kubectl olm search` over both real catalogs (testdata/catalogs: certified and community)
//     served by catalogd in this process from a local cluster + registry: wall time of the whole
//     command (a child process, bundle), against the bare download of both /api/v1/all answers.
//     BENCH_CLI_SEARCH=0 leaves it out.
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import type { ClusterCatalog } from '../api/v1/index.ts';
import { bundleCli } from '../cmd/kubectl-olm/bundle.ts';
import { catalogdSetup, defaultImplementations } from '../internal/catalogd/index.ts';
import { ItemExponentialFailureRateLimiter } from '../internal/shared/controller/index.ts';
import { forceRemove } from '../internal/shared/image/index.ts';
import { KubeClient } from '../internal/shared/kube/index.ts';
import { partRunnables } from '../internal/shared/manager/index.ts';
import { createLogger, createMetrics } from '../internal/shared/observability/index.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { pushCatalogImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort } from '../test/support/net.ts';
import { Registry } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { realCatalogDir } from '../test/support/testdata.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 25);
const SEARCH_RUNS = Number(process.env.BENCH_CLI_SEARCH_RUNS ?? 5);
const BIN = join(root, 'bin', 'kubectl-olm');

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const round = (n: number): number => Math.round(n * 10) / 10;

// Each child reports its own CPU time (user + system, every thread) at exit on fd 3: on a loaded
// machine wall time mostly measures the wait for a core, CPU time what the command itself costs.
// (NODE_OPTIONS splits on spaces, so the probe has none.)
const CPU_PROBE = "data:text/javascript,import{writeSync}from'node:fs';process.on('exit',()=>{try{const{user,system}=process.cpuUsage();writeSync(3,String((user+system)/1000))}catch{}})";

interface Timing {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function timeOnce(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Timing {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, {
    cwd: root,
    env: { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${CPU_PROBE}`.trim() },
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`);
  return { wallMs, cpuMs: Number((r.output[3] ?? '').toString()) };
}

/** Wall time of a command run without blocking this process (catalogd serves from it meanwhile). */
function timeAsync(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString()}`))));
  });
}

async function tinyCatalog(dir: string): Promise<string> {
  const pkg = join(dir, 'tiny', 'tiny-operator');
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, 'package.yaml'), 'schema: olm.package\nname: tiny-operator\ndefaultChannel: stable\n');
  await writeFile(join(pkg, 'channel.yaml'), 'schema: olm.channel\npackage: tiny-operator\nname: stable\nentries:\n- name: tiny-operator.v1.0.0\n');
  await writeFile(
    join(pkg, 'bundle.yaml'),
    'schema: olm.bundle\npackage: tiny-operator\nname: tiny-operator.v1.0.0\nimage: example.com/tiny-bundle:v1.0.0\nproperties:\n- type: olm.package\n  value: {packageName: tiny-operator, version: 1.0.0}\n',
  );
  return join(dir, 'tiny');
}

export async function benchCliStartup(): Promise<Figure[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-cli-'));
  try {
    await bundleCli();
    const tiny = await tinyCatalog(tmp);
    const nodeBin = process.execPath;
    // What `npm install -g` of the packed package holds: the launcher and the bundle, no sources.
    const pkg = join(tmp, 'package');
    await cp(join(root, 'bin'), join(pkg, 'bin'), { recursive: true });
    await cp(join(root, 'dist', 'kubectl-olm'), join(pkg, 'dist', 'kubectl-olm'), { recursive: true });
    const installed = join(pkg, 'bin', 'kubectl-olm');
    const cases: Record<string, [string, string[]]> = {
      'node -e 0': [nodeBin, ['-e', '0']],
      'bin/kubectl-olm --help': [BIN, ['--help']],
      'bin/kubectl-olm catalog validate <tiny>': [BIN, ['catalog', 'validate', tiny]],
      'installed kubectl-olm --help': [installed, ['--help']],
      'installed kubectl-olm catalog validate <tiny>': [installed, ['catalog', 'validate', tiny]],
      'sources via tsx: --help': [nodeBin, ['--import', 'tsx', join(root, 'cmd', 'kubectl-olm', 'main.ts'), '--help']],
      'sources via tsx: catalog validate <tiny>': [nodeBin, ['--import', 'tsx', join(root, 'cmd', 'kubectl-olm', 'main.ts'), 'catalog', 'validate', tiny]],
    };
    const times = new Map<string, Timing[]>(Object.keys(cases).map((k) => [k, []]));
    for (const [cmd, args] of Object.values(cases)) timeOnce(cmd, args); // warm the page cache
    for (let i = 0; i < RUNS; i++) {
      for (const [name, [cmd, args]] of Object.entries(cases)) times.get(name)!.push(timeOnce(cmd, args));
    }
    const node = times.get('node -e 0')!;
    const baseWall = quantile(node.map((t) => t.wallMs), 0.5);
    const baseCpu = quantile(node.map((t) => t.cpuMs), 0.5);
    const figures: Figure[] = [];
    for (const [name, ts] of times) {
      const wall = ts.map((t) => t.wallMs);
      const cpu = ts.map((t) => t.cpuMs);
      figures.push({ name: `start-up ${name}: wall median`, value: round(quantile(wall, 0.5)), unit: 'ms', note: `p90 ${round(quantile(wall, 0.9))} ms, ${ts.length} runs` });
      figures.push({ name: `start-up ${name}: CPU median`, value: round(quantile(cpu, 0.5)), unit: 'ms', note: `p90 ${round(quantile(cpu, 0.9))} ms` });
      if (name !== 'node -e 0') {
        figures.push({
          name: `start-up ${name}: − node -e 0`,
          value: round(quantile(wall, 0.5) - baseWall),
          unit: 'ms wall',
          note: `${round(quantile(cpu, 0.5) - baseCpu)} ms CPU; target ≤ 60 ms except for tsx`,
        });
      }
    }
    if (process.env.BENCH_CLI_SEARCH !== '0') figures.push(...(await benchSearch(tmp)));
    return figures;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Both real catalogs served by catalogd; `kubectl olm search` across them. */
async function benchSearch(tmp: string): Promise<Figure[]> {
  const catalogs = ['certified-operators-v4.21', 'community-operators-v4.21'];
  const cp = new ControlPlane({ nodes: 0 });
  const reg = new Registry();
  const [info, regInfo] = await Promise.all([cp.start(), reg.start()]);
  let stopCatalogd: (() => Promise<void>) | undefined;
  const sandbox = join(tmp, 'catalogd');
  try {
    await installCrds(new TestKube(info), await yamlFiles(join(root, 'config', 'crd', 'bases')));
    const port = await freePort();
    const client = await KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath });
    const parts = await catalogdSetup(
      {
        catalogsServerAddr: `127.0.0.1:${port}`,
        externalAddress: `127.0.0.1:${port}`,
        cacheDir: sandbox,
        gcIntervalMs: 12 * 3600_000,
        insecureRegistries: [regInfo.host],
        rateLimiter: () => new ItemExponentialFailureRateLimiter(100, 2000),
      },
      defaultImplementations,
    )({
      options: { leaderElect: false, leaderElectionNamespace: 'olmv1-system', leaderElectionId: 'bench', healthProbeBindAddress: '0', metricsBindAddress: '0', logLevel: 'error' },
      client,
      logger: createLogger({ level: 'error', write: () => {} }),
      metrics: createMetrics({ defaultMetrics: false }),
    });
    const stop = new AbortController();
    for (const i of parts.informers) i.start();
    const runnables = partRunnables(parts).map((r) => r(stop.signal));
    await Promise.all(parts.informers.map((i) => i.waitForSync(stop.signal)));
    const controllers = Promise.all(parts.controllers.map((c) => c.start(stop.signal)));
    stopCatalogd = async () => {
      stop.abort();
      await controllers;
      await Promise.allSettled(runnables);
      await Promise.all(parts.informers.map((i) => i.stop()));
      await client.close();
      await forceRemove(sandbox);
    };
    for (const name of catalogs) {
      const pushed = await pushCatalogImage(regInfo, `bench/${name}:latest`, { dir: realCatalogDir(name) });
      await client.create({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name }, spec: { source: { type: 'Image', image: { ref: pushed.ref } } } });
    }
    const deadline = Date.now() + 600_000;
    let bases: string[] = [];
    while (Date.now() < deadline) {
      const list = await client.list<ClusterCatalog>({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' });
      const served = list.items.filter((c) => c.status?.conditions?.some((x) => x.type === 'Serving' && x.status === 'True'));
      if (served.length === catalogs.length) {
        bases = served.map((c) => c.status!.urls!.base);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    if (bases.length !== catalogs.length) throw new Error('the real catalogs never became Serving');

    const env = { ...process.env, KUBECONFIG: info.kubeconfigPath };
    const download: number[] = [];
    const search: number[] = [];
    const searchJson: number[] = [];
    await timeAsync(BIN, ['search', 'operator'], env);
    for (let i = 0; i < SEARCH_RUNS; i++) {
      const t0 = performance.now();
      await Promise.all(bases.map(async (b) => (await request(`${b}/api/v1/all`)).body.dump({ limit: Number.POSITIVE_INFINITY })));
      download.push(performance.now() - t0);
      search.push(await timeAsync(BIN, ['search', 'operator'], env));
      searchJson.push(await timeAsync(BIN, ['search', '-o', 'json'], env));
    }
    const d = quantile(download, 0.5);
    return [
      { name: 'search: download both /api/v1/all in process (baseline): median', value: Math.round(d), unit: 'ms' },
      { name: 'search: `kubectl olm search operator` (both real catalogs): median', value: Math.round(quantile(search, 0.5)), unit: 'ms', note: `${(quantile(search, 0.5) / d).toFixed(1)}× the download; p90 ${Math.round(quantile(search, 0.9))} ms` },
      { name: 'search: `kubectl olm search -o json` (every package): median', value: Math.round(quantile(searchJson, 0.5)), unit: 'ms', note: `${SEARCH_RUNS} runs` },
    ];
  } finally {
    await stopCatalogd?.();
    await Promise.all([cp.stop(), reg.stop()]);
  }
}
