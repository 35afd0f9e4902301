// catalogd side by side with upstream's (issue 17): our catalogd (its production build, bench/production.ts) and upstream's
// (operator-controller v1.2.0 cmd/catalogd, built from the Go module proxy by test/envtest/build.sh
// catalogd-upstream) run one after the other as real processes against the same local cluster, the
// same registry, the same catalog image (pushed once: BENCH_PEER_CATALOG below) and the same TLS setup
// (one self-signed cert/key pair for the catalog server; the registry is plain HTTP, which ours is told
// with --insecure-registries and upstream's containers/image (v5.33, which reads no CONTAINERS_REGISTRIES_CONF)
// with a per-user $HOME/.config/containers/registries.conf saying `insecure = true`).
// Per process:
//  - start → ready: spawn to the first 200 from /readyz (polled every 10 ms), the median of BENCH_PEER_STARTS (default
//    5) starts, all but the last stopped again (a single start on this shared machine varies by ±100 ms; the first
//    is often the slowest). Upstream's /readyz is a ping (healthz.Ping): 200 once its manager serves probes; ours is
//    200 once its caches have synced and every Serving catalog's content is stored (internal/catalogd/controller/
//    follower.ts), so /healthz, a ping in both, is also timed: the same moment in both processes' start
//  - RSS idle: the lowest of 5 one-second samples after BENCH_PEER_IDLE_S (default 10) idle seconds
//  - start → Serving: ClusterCatalog created to its Serving condition True (polled every 50 ms)
//  - RSS serving: peak (VmHWM: pull, unpack, store and the loads) and steady (as idle, after the loads)
//  - `/api/v1/all` over TLS, back-to-back downloads on 1 and 4 keep-alive connections, best of 2, GB/s; and the
//    server's CPU (user+system, /proc) per GB served over both runs
//  - `/api/v1/metas?schema=olm.package` over TLS, 50 keep-alive clients closed loop for
//    BENCH_CATALOG_SERVER_SECONDS (default 5): req/s, p50, p99; and `schema=olm.channel`, an answer of one section per
//    package (1.8 MB in 1,040 pieces of the synthetic catalog: streamed from the file, never cached)
// and the ratios ours / upstream. Both `/api/v1/all` bodies are hashed: the note says whether they match.
// BENCH_PEER_BASE=<checkout> adds that checkout's catalogd (e.g. a second worktree on main) as a third column, run first:
// a before/after of our own changes in the same run. Upstream's column is skipped, with a note, when its
// build fails (no Go toolchain, module proxy unreachable).
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { writeSyntheticCatalog } from '../internal/catalogd/storage/testing.ts';
import { pushCatalogImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort, waitFor } from '../test/support/net.ts';
import { startProcess, startBundled, stopProcess, type Managed } from '../test/support/process.ts';
import { Registry, type RegistryInfo } from '../test/support/registry.ts';
import { runLoad, type LoadResult } from './catalog-server.ts';
import type { Figure } from './control-plane.ts';
import { idleRss, median, procCpuMs, procMemory, rssSampler } from './memory.ts';
import { productionDist } from './production.ts';
import { realCatalogDir, UPSTREAM_CRDS } from '../test/support/testdata.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const CERTIFIED = realCatalogDir('certified-operators-v4.21');
export const UPSTREAM_CATALOG_CRD = join(UPSTREAM_CRDS.operatorController, 'standard', 'olm.operatorframework.io_clustercatalogs.yaml');
const IDLE_S = Math.max(5, Number(process.env.BENCH_PEER_IDLE_S ?? 10));
const STARTS = Math.max(1, Number(process.env.BENCH_PEER_STARTS ?? 5));
const SECONDS = Number(process.env.BENCH_CATALOG_SERVER_SECONDS ?? 5);
const METAS_CLIENTS = 50;
/** Metas answers loaded: one the server caches (olm.package, 256 KB) and one streamed from the file (olm.channel). */
const METAS_SCHEMAS = ['olm.package', 'olm.channel'] as const;
/**
 * BENCH_PEER_CATALOG: `certified` (the real certified-operators catalog, 15 MB served) or `synthetic` (default: a
 * 57 MB-class catalog, the size the figures were taken on — 1,040 packages × 20 bundles of
 * internal/catalogd/storage/testing.ts with 1,000-byte descriptions).
 */
const CATALOG_KIND = process.env.BENCH_PEER_CATALOG ?? 'synthetic';
const CATALOG = CATALOG_KIND === 'certified' ? 'certified' : 'synthetic';

interface PeerFigures {
  /** Every start's spawn → /readyz 200 and spawn → /healthz 200, in order (the figures are their medians). */
  readyRuns: number[];
  healthRuns: number[];
  servingMs: number;
  rssIdle: number;
  rssServed: number;
  rssPeak: number;
  rssSteady: number;
  all1: number;
  all4: number;
  /** Server CPU ms per GB of /api/v1/all served, on 1 and on 4 connections. */
  allCpu1: number;
  allCpu4: number;
  allSha: string;
  allBytes: number;
  metas: Record<(typeof METAS_SCHEMAS)[number], LoadResult>;
}

interface Peer {
  readonly label: string;
  readonly crds: readonly string[];
  start(ctx: Context, ports: { server: number; health: number; webhook: number }, dir: string): Managed;
}

interface Context {
  readonly kubeconfig: string;
  readonly registry: RegistryInfo;
  readonly cert: string;
  readonly key: string;
}

/** Our catalogd from a checkout (this one, or BENCH_PEER_BASE's): its production build, started as the image starts it. */
async function ours(label: string, checkout: string): Promise<Peer> {
  const dist = await productionDist(checkout);
  return {
    label,
    crds: [join(checkout, 'config/crd/bases')],
    start: (ctx, ports, dir) =>
      startBundled(
        dist,
        'catalogd',
        [
          `--kubeconfig=${ctx.kubeconfig}`,
          `--catalogs-server-addr=127.0.0.1:${ports.server}`,
          `--external-address=127.0.0.1:${ports.server}`,
          `--cache-dir=${join(dir, 'cache')}`,
          `--tls-cert=${ctx.cert}`,
          `--tls-key=${ctx.key}`,
          `--insecure-registries=${ctx.registry.host}`,
          `--health-probe-bind-address=127.0.0.1:${ports.health}`,
        ],
        join(dir, 'catalogd.log'),
        { ...process.env, NODE_ENV: 'production' },
      ),
  };
}

function upstream(binary: string): Peer {
  return {
    label: 'upstream',
    crds: [UPSTREAM_CATALOG_CRD],
    start: (ctx, ports, dir) =>
      startProcess(
        binary,
        [
          `--catalogs-server-addr=127.0.0.1:${ports.server}`,
          `--external-address=127.0.0.1:${ports.server}`,
          `--cache-dir=${join(dir, 'cache')}`,
          `--tls-cert=${ctx.cert}`,
          `--tls-key=${ctx.key}`,
          `--health-probe-bind-address=127.0.0.1:${ports.health}`,
          `--webhook-server-port=${ports.webhook}`,
          '--feature-gates=APIV1MetasHandler=true',
        ],
        join(dir, 'catalogd.log'),
        {
          ...process.env,
          KUBECONFIG: ctx.kubeconfig,
          TMPDIR: dir,
          HOME: dir,
        },
      ),
  };
}

/** Upstream's binary, built (cached by content hash) by test/envtest/build.sh; a reason when it cannot be. */
export async function upstreamBinary(): Promise<{ path: string } | { skipped: string }> {
  try {
    const { stdout } = await promisify(execFile)('bash', [join(root, 'test/envtest/build.sh'), 'catalogd-upstream'], { maxBuffer: 1 << 20 });
    const path = /^catalogd-upstream=(.+)$/m.exec(stdout)?.[1];
    if (!path) return { skipped: 'test/envtest/build.sh catalogd-upstream printed no path' };
    await stat(path);
    return { path };
  } catch (err) {
    const e = err as { stderr?: string; message?: string };
    const last = (e.stderr ?? e.message ?? String(err)).trim().split('\n').slice(-2).join(' / ');
    return { skipped: `upstream catalogd could not be built (test/envtest/build.sh catalogd-upstream): ${last}` };
  }
}

const mib = (n: number): number => Number((n / 1048576).toFixed(1));
const gbps = (r: LoadResult): number => r.bytes / 1e9 / r.seconds;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

async function runPeer(peer: Peer, ctx: Context, kube: TestKube, imageRef: string): Promise<PeerFigures> {
  const dir = await mkdtemp(join(tmpdir(), `bench-catalogd-peer-${peer.label.replace(/\W/g, '')}-`));
  await mkdir(join(dir, '.config', 'containers'), { recursive: true });
  await writeFile(join(dir, '.config', 'containers', 'registries.conf'), `[[registry]]\nlocation = "${ctx.registry.host}"\ninsecure = true\n`);
  await mkdir(join(dir, 'cache'));
  await installCrds(kube, (await Promise.all(peer.crds.map((d) => (d.endsWith('.yaml') ? [d] : yamlFiles(d))))).flat());
  const ports = { server: await freePort(), health: await freePort(), webhook: await freePort() };
  const base = `https://127.0.0.1:${ports.server}/catalogs/${CATALOG}/api/v1`;
  /** Spawn to the first 200 from /healthz (a ping in both: the process serves its probes) and from /readyz. */
  const startReady = async (): Promise<{ proc: Managed; ms: number; healthMs: number }> => {
    const t0 = performance.now();
    const started = peer.start(ctx, ports, dir);
    const ok = async (path: string): Promise<boolean> => {
      const res = await request(`http://127.0.0.1:${ports.health}${path}`).catch(() => undefined);
      await res?.body.dump();
      return res?.statusCode === 200;
    };
    let healthMs: number | undefined;
    try {
      await waitFor(
        `${peer.label} ready`,
        async () => {
          if (healthMs === undefined && (await ok('/healthz'))) healthMs = performance.now() - t0;
          return healthMs !== undefined && (await ok('/readyz'));
        },
        { timeoutMs: 120_000, intervalMs: 10 },
      );
    } catch (err) {
      await stopProcess(started);
      throw new Error(`${peer.label} (log: ${started.logFile}): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return { proc: started, ms: performance.now() - t0, healthMs: healthMs ?? 0 };
  };
  const starts: { ms: number; healthMs: number }[] = [];
  for (let i = 1; i < STARTS; i++) {
    const first = await startReady();
    starts.push(first);
    await stopProcess(first.proc);
  }
  const last = await startReady();
  const proc = last.proc;
  starts.push(last);
  try {
    const rssIdle = (await idleRss(proc.pid, IDLE_S)).at(IDLE_S);

    const sampler = rssSampler(proc.pid);
    const t1 = performance.now();
    await kube.must(
      kube.request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: CATALOG },
        spec: { source: { type: 'Image', image: { ref: imageRef } } },
      }),
    );
    await waitFor(
      `${peer.label}: ${CATALOG} Serving`,
      async () => {
        const c = await kube.request<{ status?: { conditions?: { type: string; status: string; message?: string }[] } }>(
          'GET',
          `/apis/olm.operatorframework.io/v1/clustercatalogs/${CATALOG}`,
        );
        const progressing = c.body.status?.conditions?.find((x) => x.type === 'Progressing');
        if (progressing?.status === 'False') throw new Error(`${peer.label}: ${progressing.message ?? ''}`);
        return c.body.status?.conditions?.some((x) => x.type === 'Serving' && x.status === 'True') ?? false;
      },
      { timeoutMs: 600_000, intervalMs: 50 },
    );
    const servingMs = performance.now() - t1;
    const rssServed = (await procMemory(proc.pid)).rss;

    // One download to check the content (and warm the page cache alike for both).
    const agent = new Agent({ connect: { rejectUnauthorized: false } });
    const res = await request(`${base}/all`, { dispatcher: agent });
    const hash = createHash('sha256');
    let allBytes = 0;
    for await (const chunk of res.body) {
      hash.update(chunk as Buffer);
      allBytes += (chunk as Buffer).length;
    }
    await agent.close();
    if (res.statusCode !== 200) throw new Error(`${peer.label}: /api/v1/all answered ${res.statusCode}`);

    const downloads = (connections: number): number => Math.max(4 * connections, Math.round((SECONDS * 1e9) / allBytes / 2));
    /** The best GB/s of 2 load runs, and the server's CPU (user+system) per GB served over both: less at the mercy of the load client and other work on the machine than GB/s. */
    const best = async (connections: number): Promise<{ gbps: number; cpuMsPerGB: number }> => {
      const runs: number[] = [];
      let bytes = 0;
      const cpu0 = await procCpuMs(proc.pid);
      for (let i = 0; i < 2; i++) {
        const r = await runLoad({ mode: 'download', url: `${base}/all`, connections, downloads: downloads(connections) });
        runs.push(gbps(r));
        bytes += r.bytes;
      }
      return { gbps: Math.max(...runs), cpuMsPerGB: ((await procCpuMs(proc.pid)) - cpu0) / (bytes / 1e9) };
    };
    const { gbps: all1, cpuMsPerGB: allCpu1 } = await best(1);
    const { gbps: all4, cpuMsPerGB: allCpu4 } = await best(4);
    const metas = {} as PeerFigures['metas'];
    for (const schema of METAS_SCHEMAS) metas[schema] = await runLoad({ mode: 'closed', url: `${base}/metas?schema=${schema}`, connections: METAS_CLIENTS, seconds: SECONDS });
    const sampledPeak = sampler.stop();
    const rssPeak = Math.max(sampledPeak, (await procMemory(proc.pid)).hwm);
    const rssSteady = (await idleRss(proc.pid, IDLE_S)).at(IDLE_S);

    // Gone while the process still runs, so its finalizer is taken off.
    await kube.request('DELETE', `/apis/olm.operatorframework.io/v1/clustercatalogs/${CATALOG}`);
    await waitFor(`${peer.label}: ${CATALOG} deleted`, async () => (await kube.request('GET', `/apis/olm.operatorframework.io/v1/clustercatalogs/${CATALOG}`)).status === 404, {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    return { readyRuns: starts.map((r) => r.ms), healthRuns: starts.map((r) => r.healthMs), servingMs, rssIdle, rssServed, rssPeak, rssSteady, all1, all4, allCpu1, allCpu4, allSha: hash.digest('hex'), allBytes, metas };
  } catch (err) {
    throw new Error(`${peer.label} (log: ${proc.logFile}): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    await stopProcess(proc);
    if (process.env.BENCH_PEER_KEEP !== '1') await rm(dir, { recursive: true, force: true });
  }
}

export async function benchCatalogdPeer(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-catalogd-peer-'));
  const cp = new ControlPlane();
  const reg = new Registry();
  try {
    const built = await upstreamBinary();
    const [info, regInfo] = await Promise.all([cp.start(), reg.start()]);
    const kube = new TestKube(info);
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert],
      { stdio: 'ignore' },
    );
    let source = CERTIFIED;
    if (CATALOG !== 'certified') {
      source = join(dir, 'synthetic');
      await writeSyntheticCatalog(source, { packages: 1040, bundlesPerPackage: 20, descriptionBytes: 1000 });
    }
    const image = await pushCatalogImage(regInfo, `bench/${CATALOG}:v1`, { dir: source });
    const ctx: Context = { kubeconfig: info.kubeconfigPath, registry: regInfo, cert, key };

    const peers: Peer[] = [];
    if (process.env.BENCH_PEER_BASE) peers.push(await ours('base', process.env.BENCH_PEER_BASE));
    peers.push(await ours('ours', root));
    if ('path' in built) peers.push(upstream(built.path));
    const results = new Map<string, PeerFigures>();
    let failed = '';
    for (const p of peers) {
      try {
        results.set(p.label, await runPeer(p, ctx, kube, image.digestRef));
      } catch (err) {
        if (p.label !== 'upstream') throw err;
        failed = err instanceof Error ? err.message : String(err); // its column is left out, with the reason
      }
    }

    const figures: Figure[] = [];
    const up = results.get('upstream');
    const cols = [...results.keys()];
    const row = (name: string, unit: string, get: (f: PeerFigures) => number, digits: number, better: 'lower' | 'higher', note?: (f: PeerFigures) => string): void => {
      for (const label of cols) {
        const f = results.get(label) as PeerFigures;
        figures.push({ name: `${name}: ${label}`, value: round(get(f), digits), unit, ...(note && { note: note(f) }) });
      }
      const o = results.get('ours') as PeerFigures;
      if (up && results.has('ours')) figures.push({ name: `  ratio ours / upstream`, value: round(get(o) / get(up), 2), unit: '×', note: `${better} is better` });
      const b = results.get('base');
      if (b) figures.push({ name: `  ratio ours / base`, value: round(get(o) / get(b), 2), unit: '×', note: `${better} is better` });
    };
    row(`process start → ready (/readyz 200), median of ${STARTS}`, 'ms', (f) => median(f.readyRuns), 0, 'lower', (f) => `runs ${f.readyRuns.map((r) => Math.round(r)).join(', ')} ms`);
    row(`process start → probes served (/healthz 200), median of ${STARTS}`, 'ms', (f) => median(f.healthRuns), 0, 'lower', (f) => `runs ${f.healthRuns.map((r) => Math.round(r)).join(', ')} ms`);
    row(`RSS idle (after ${IDLE_S} s)`, 'MiB', (f) => mib(f.rssIdle), 1, 'lower');
    row('ClusterCatalog created → Serving', 'ms', (f) => f.servingMs, 0, 'lower');
    row('RSS at Serving, before any load', 'MiB', (f) => mib(f.rssServed), 1, 'lower');
    row('RSS serving, peak (VmHWM)', 'MiB', (f) => mib(f.rssPeak), 1, 'lower');
    row(`RSS serving, steady (idle ${IDLE_S} s after the loads)`, 'MiB', (f) => mib(f.rssSteady), 1, 'lower');
    row('/api/v1/all over TLS, 1 connection, best of 2', 'GB/s', (f) => f.all1, 2, 'higher', (f) => `${(f.allBytes / 1e6).toFixed(1)} MB`);
    row('/api/v1/all over TLS, 4 connections, best of 2', 'GB/s', (f) => f.all4, 2, 'higher');
    row('  server CPU per GB of /api/v1/all, 1 connection', 'ms', (f) => f.allCpu1, 0, 'lower');
    row('  server CPU per GB of /api/v1/all, 4 connections', 'ms', (f) => f.allCpu4, 0, 'lower');
    for (const schema of METAS_SCHEMAS) {
      const get = (f: PeerFigures): LoadResult => f.metas[schema];
      row(`metas?schema=${schema}, ${METAS_CLIENTS} clients`, 'req/s', (f) => get(f).requests / get(f).seconds, 0, 'higher', (f) => {
        const body = get(f).requests ? Math.round(get(f).bytes / get(f).requests) : 0;
        return `${body} B body, ${get(f).errors} errors`;
      });
      row(`  metas p99`, 'ms', (f) => get(f).p99 ?? 0, 1, 'lower', (f) => `p50 ${round(get(f).p50 ?? 0, 1)} ms`);
    }
    const shas = new Set([...results.values()].map((f) => f.allSha));
    figures.push({ name: '/api/v1/all bodies identical across columns (1 = yes)', value: shas.size === 1 ? 1 : 0, unit: '', note: `sha256 ${[...shas].map((s) => s.slice(0, 12)).join(', ')}` });
    if (failed) figures.push({ name: 'upstream column skipped: its run failed', value: 0, unit: '', note: failed.slice(0, 300) });
    if ('skipped' in built) figures.push({ name: 'upstream column skipped', value: 0, unit: '', note: built.skipped });
    return figures;
  } finally {
    await reg.stop();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
