// The package server (issue 31) in the real olm-classic binary (`--package-server-bind-address`), registered with the
// real API server's aggregation layer as the integration test does (test/support/package-server.ts), the demo catalog
// loaded as CatalogSources (one in the global catalog namespace, one in the namespace listed):
//  1. a list of all PackageManifests of the namespace through the API server (JSON, p50/p99 of BENCH_PKG_LISTS, default
//     300) beside the bound: the same list computed from the same content in memory with the package server's own
//     provider and serialized (no HTTP, no TLS, no aggregator hop);
//  2. olm-classic's RSS with the package server, idle and after the lists;
//  3. a CatalogSource's spec.image moved between two images (the second has a new version at the head of stable) →
//     a watcher through the API server sees the MODIFIED PackageManifest: median and max of BENCH_PKG_UPDATES
//     (default 6). This includes the pull and load of the image by olm-classic.
// BENCH_PKG_REAL=1 also loads community-operators-v4.21 (a real catalog) and measures its lists too.
// Figures only. Run alone: `node --import tsx bench/package-server.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import * as ops from '../api/operators/index.ts';
import { contentFromFbc, type CatalogContent } from '../internal/classic/catalogsource/index.ts';
import { packageProvider } from '../internal/classic/packageserver/index.ts';
import { loadCatalog } from '../internal/shared/fbc/index.ts';
import { sleep } from '../internal/shared/toolkit/index.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { DEMO_CATALOG as DEMO, demoWithStableV4, pushCatalogDir } from '../test/support/demo.ts';
import { realCatalogDir } from '../test/support/testdata.ts';
import { TestKube } from '../test/support/kube.ts';
import { registerPackageServer } from '../test/support/package-server.ts';
import { Registry } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { rssMiB } from './memory.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LISTS = Number(process.env.BENCH_PKG_LISTS ?? 300);
const UPDATES = Number(process.env.BENCH_PKG_UPDATES ?? 6);
const GLOBAL = 'olm';
const NS = 'bench-pkg';
const API = '/apis/packages.operators.coreos.com/v1';

const pct = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};
const ms = (x: number): number => Math.round(x * 100) / 100;

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

export async function benchPackageServer(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const cpl = new ControlPlane({ nodes: 1 });
  const reg = new Registry();
  let child: ChildProcess | undefined;
  try {
    const info = await cpl.start();
    const r = await reg.start();
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(new URL('../config/crd/classic/', import.meta.url).pathname));
    for (const ns of [GLOBAL, 'olmv1-system', NS]) await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));

    const images: Record<string, string> = {};
    const real = process.env.BENCH_PKG_REAL === '1';
    images.v1 = await pushCatalogDir(r.host, 'bench/demo:v1', DEMO);
    const v2 = await demoWithStableV4();
    try {
      images.v2 = await pushCatalogDir(r.host, 'bench/demo:v2', v2);
    } finally {
      await rm(v2, { recursive: true, force: true });
    }
    const REAL = real ? realCatalogDir('community-operators-v4.21') : '';
    if (real) images.real = await pushCatalogDir(r.host, 'bench/community:v1', REAL);
    const csPath = (ns: string, name?: string): string => TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, ns);
    const catalogSource = (ns: string, name: string, image: string): Promise<unknown> =>
      kube.must(kube.request('POST', csPath(ns), { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name, namespace: ns }, spec: { sourceType: 'grpc', image, displayName: name } }));
    const sources: [string, string, string][] = [
      [GLOBAL, 'demo-global', images.v1!],
      [NS, 'demo', images.v1!],
      [NS, 'watched', images.v1!],
      ...(real ? [[GLOBAL, 'community', images.real!] as [string, string, string]] : []),
    ];
    for (const [ns, name, image] of sources) await catalogSource(ns, name, image);

    const port = await freePort();
    const cacheDir = await mkdtemp(join(tmpdir(), 'bench-olm-classic-'));
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        `${ROOT}cmd/olm-classic/main.ts`,
        '--health-probe-bind-address=0',
        '--metrics-bind-address=0',
        `--cache-dir=${cacheDir}`,
        `--namespace=${GLOBAL}`,
        `--insecure-registries=${r.host}`,
        `--package-server-bind-address=127.0.0.1:${port}`,
      ],
      { env: { ...process.env, KUBECONFIG: info.kubeconfigPath }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => createInterface({ input: child!.stdout! }).on('line', (l) => l.includes('starting controllers') && resolve()));
    const t0 = performance.now();
    await until(
      'every CatalogSource READY',
      async () => {
        for (const [ns, name] of sources) {
          const cs = await kube.must<ops.CatalogSource>(kube.request('GET', csPath(ns, name)));
          if (cs.status?.connectionState?.lastObservedState !== 'READY') return false;
        }
        return true;
      },
      10 * 60_000,
      250,
    );
    const readyMs = performance.now() - t0;
    await registerPackageServer(kube, 'olmv1-system', port);
    await sleep(3000);
    figures.push({ name: 'olm-classic RSS with the package server, idle', value: await rssMiB(child.pid), unit: 'MiB', note: `CatalogSources READY ${Math.round(readyMs)} ms after start` });

    const auth = { authorization: `Bearer ${info.adminToken}` };
    const connect = new Agent({ connect: { ca: info.caPem }, connections: 4 });
    const get = async (path: string): Promise<{ status: number; text: string }> => {
      const res = await request(`${info.server}${path}`, { dispatcher: connect, headers: auth });
      return { status: res.statusCode, text: await res.body.text() };
    };
    // the in-memory bound: the same CatalogSources and content, the package server's provider, serialized
    const contents = new Map<string, CatalogContent>();
    const demoContent = contentFromFbc(await loadCatalog(DEMO), images.v1!, new Date());
    const realContent = real ? contentFromFbc(await loadCatalog(REAL), images.real!, new Date()) : undefined;
    for (const [ns, name] of sources) contents.set(`${ns}/${name}`, name === 'community' ? realContent! : demoContent);
    const liveSources = [...(await kube.must<{ items: ops.CatalogSource[] }>(kube.request('GET', csPath(GLOBAL)))).items, ...(await kube.must<{ items: ops.CatalogSource[] }>(kube.request('GET', csPath(NS)))).items];
    const provider = packageProvider({ catalogSources: { list: () => liveSources }, contents: { get: (ns, n) => contents.get(`${ns}/${n}`) }, globalCatalogNamespace: GLOBAL });

    const listPath = `${API}/namespaces/${NS}/packagemanifests`;
    const first = await get(listPath);
    if (first.status !== 200) throw new Error(`list: HTTP ${first.status}: ${first.text.slice(0, 200)}`);
    const count = (JSON.parse(first.text) as { items: unknown[] }).items.length;
    const bytes = first.text.length;
    const timed = async (fn: () => Promise<unknown> | unknown): Promise<number[]> => {
      for (let i = 0; i < 20; i++) await fn(); // warm
      const out: number[] = [];
      for (let i = 0; i < LISTS; i++) {
        const s = performance.now();
        await fn();
        out.push(performance.now() - s);
      }
      return out;
    };
    const viaApi = await timed(() => get(listPath));
    const inMemory = await timed(() => JSON.stringify({ kind: 'PackageManifestList', apiVersion: 'packages.operators.coreos.com/v1', metadata: {}, items: provider.list(NS) }));
    const note = `${count} PackageManifests, ${Math.round(bytes / 1024)} KiB, ${LISTS} sequential lists`;
    figures.push({ name: 'list all PackageManifests of a namespace via the API server, p50', value: ms(pct(viaApi, 0.5)), unit: 'ms', note });
    figures.push({ name: '  … p99', value: ms(pct(viaApi, 0.99)), unit: 'ms' });
    figures.push({ name: '  the bound: the same list computed in memory + JSON, p50', value: ms(pct(inMemory, 0.5)), unit: 'ms' });
    figures.push({ name: '  … p99', value: ms(pct(inMemory, 0.99)), unit: 'ms' });
    figures.push({ name: 'olm-classic RSS with the package server, after the lists', value: await rssMiB(child.pid), unit: 'MiB' });

    // 3. catalog update → watcher sees MODIFIED (through the API server)
    const latencies: number[] = [];
    for (let i = 0; i < UPDATES; i++) {
      const list = JSON.parse((await get(`${listPath}?labelSelector=catalog%3Dwatched`)).text) as { metadata: { resourceVersion: string } };
      const ac = new AbortController();
      const res = await request(`${info.server}${listPath}?watch=true&labelSelector=catalog%3Dwatched&resourceVersion=${list.metadata.resourceVersion}`, {
        dispatcher: connect,
        headers: auth,
        signal: ac.signal,
      });
      const seen = (async (): Promise<number> => {
        let buf = '';
        for await (const chunk of res.body) {
          buf += (chunk as Buffer).toString('utf8');
          if (buf.includes('"type":"MODIFIED"')) return performance.now();
        }
        throw new Error('the watch ended without a MODIFIED event');
      })();
      const image = i % 2 === 0 ? images.v2! : images.v1!;
      const s = performance.now();
      await kube.must(kube.request('PATCH', csPath(NS, 'watched'), { spec: { image } }, 'application/merge-patch+json'));
      const timer = setTimeout(() => ac.abort(), 120_000);
      try {
        latencies.push((await seen) - s);
      } finally {
        clearTimeout(timer);
        ac.abort();
      }
    }
    figures.push({ name: 'CatalogSource spec.image updated → watcher sees MODIFIED, median', value: Math.round(pct(latencies, 0.5)), unit: 'ms', note: `${UPDATES} updates; includes olm-classic pulling and loading the image` });
    figures.push({ name: '  … max', value: Math.round(Math.max(...latencies)), unit: 'ms' });
    await connect.close();
  } catch (err) {
    figures.push({ name: 'package server bench', value: 0, unit: 'failed', note: (err as Error).message.split('\n')[0] ?? '' });
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((res) => child!.once('exit', res));
    }
    await reg.stop().catch(() => undefined);
    await cpl.stop().catch(() => undefined);
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const f of await benchPackageServer()) console.log(`${f.name}: ${f.value} ${f.unit}${f.note ? ` (${f.note})` : ''}`);
}
