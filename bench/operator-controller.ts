// operator-controller end to end (issues 5 and 10, Performance): the real cluster (kube-apiserver,
// controller-manager, scheduler, KWOK nodes: Deployments roll out for real) and registry, catalogd
// and operator-controller in this process (as the integration harnesses run them).
//  1. a 40-object bundle: ClusterExtension created → Installed=True, with the render time and
//     one RevisionApplier.apply call (a second copy of the bundle, applied directly) as breakdown;
//  2. N installed extensions (BENCH_OC_COUNT, default 200; one small package each in one
//     catalog): time to install all, heap/RSS growth per extension, CPU of one idle resync pass
//     (every key enqueued, until the queue drains) against the same process idle for as long, and
//     the time from a new catalog image (same tag, a successor for every package) until all N
//     report the new bundle installed (Installed=True needs the Deployments Available), and the
//     whole cluster's CPU while idle with all of them installed.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClusterExtension } from '../api/v1/index.ts';
import { defaultImplementations as catalogdImpl } from '../internal/catalogd/index.ts';
import { catalogdSetup } from '../internal/catalogd/index.ts';
import { RevisionApplier } from '../internal/operator-controller/applier/index.ts';
import { defaultImplementations as ocImpl } from '../internal/operator-controller/index.ts';
import { operatorControllerSetup, type OperatorControllerParts } from '../internal/operator-controller/index.ts';
import { renderBundle } from '../internal/operator-controller/render/index.ts';
import { ItemExponentialFailureRateLimiter } from '../internal/shared/controller/index.ts';
import { forceRemove } from '../internal/shared/image/index.ts';
import { KubeClient } from '../internal/shared/kube/index.ts';
import { partRunnables, type ManagerParts } from '../internal/shared/manager/index.ts';
import { createLogger, createMetrics } from '../internal/shared/observability/index.ts';
import { sleep } from '../internal/shared/toolkit/index.ts';
import { bundleFiles, catalogFiles, pushTestBundle, type TestBundle, type TestBundleSpec } from '../test/support/bundles.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installAdmissionPolicies } from '../test/support/admission.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { pushCatalogImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort } from '../test/support/net.ts';
import { Registry, type RegistryInfo } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { fullGc, procCpuMs } from './memory.ts';

const COUNT = Number(process.env.BENCH_OC_COUNT ?? 200);
const MINUTE_MS = 2_000;
const SYSTEM_NS = 'olmv1-system';
const ms = (n: number): number => Math.round(n);

const managerOptions = (id: string) => ({
  leaderElect: false,
  leaderElectionNamespace: SYSTEM_NS,
  leaderElectionId: id,
  healthProbeBindAddress: '0',
  metricsBindAddress: '0',
  logLevel: 'error' as const,
});

/** Starts a manager's parts the way the harnesses do; returns a stop function. */
async function run(parts: ManagerParts, client: KubeClient): Promise<() => Promise<void>> {
  const stop = new AbortController();
  for (const i of parts.informers) i.start();
  const runnables = partRunnables(parts).map((r) => r(stop.signal));
  await Promise.all(parts.informers.map((i) => i.waitForSync(stop.signal)));
  const controllers = Promise.all(parts.controllers.map((c) => c.start(stop.signal)));
  return async () => {
    stop.abort();
    await controllers;
    await Promise.allSettled(runnables);
    await Promise.all(parts.informers.map((i) => i.stop()));
    await client.close();
  };
}

function extension(name: string, namespace: string, packageName: string, catalog: string): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    spec: {
      namespace,
      source: { sourceType: 'Catalog', catalog: { packageName, selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } } } },
    },
  };
}

const installedAs = (parts: OperatorControllerParts, name: string, bundle: string): boolean => {
  const e = parts.extensions.get(name);
  return e?.status?.install?.bundle.name === bundle && (e.status.conditions ?? []).some((c) => c.type === 'Installed' && c.status === 'True');
};

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** The big bundle's spec: several CRDs owned by the CSV, ConfigMaps and Services; `extra` ConfigMaps tune the count. */
function bigSpec(pkg: string, extra: number): TestBundleSpec {
  const group = `${pkg}.example.com`;
  const kinds = ['Widget', 'Gadget', 'Gizmo', 'Sprocket', 'Cog', 'Lever'];
  const crds = kinds.slice(1).map((k) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.toLowerCase()}s.${group}` },
    spec: {
      group,
      names: { kind: k, listKind: `${k}List`, plural: `${k.toLowerCase()}s`, singular: k.toLowerCase() },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } } } } }],
    },
  }));
  const extraManifests: Record<string, object> = {};
  crds.forEach((c, i) => (extraManifests[`crd-${i}.yaml`] = c));
  for (let i = 0; i < 10 + extra; i++) extraManifests[`cm-${i}.yaml`] = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkg}-config-${i}` }, data: { key: `value-${i}` } };
  for (let i = 0; i < 10; i++) {
    extraManifests[`svc-${i}.yaml`] = { apiVersion: 'v1', kind: 'Service', metadata: { name: `${pkg}-svc-${i}` }, spec: { selector: { app: `${pkg}-controller` }, ports: [{ port: 8080 + i, targetPort: 8080 }] } };
  }
  const sa = `${pkg}-controller`;
  return {
    packageName: pkg,
    version: '1.0.0',
    extraManifests,
    csvSpec: {
      customresourcedefinitions: { owned: kinds.map((k) => ({ name: `${k.toLowerCase()}s.${group}`, version: 'v1', kind: k })) },
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [{ serviceAccountName: sa, rules: [{ apiGroups: [group], resources: kinds.map((k) => `${k.toLowerCase()}s`), verbs: ['get', 'list', 'watch'] }] }],
          permissions: [
            { serviceAccountName: sa, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create'] }] },
            { serviceAccountName: `${pkg}-helper`, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
          ],
          deployments: [
            {
              name: sa,
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: sa } },
                template: { metadata: { labels: { app: sa } }, spec: { serviceAccountName: sa, containers: [{ name: 'manager', image: `registry.test/${pkg}:v1.0.0` }] } },
              },
            },
          ],
        },
      },
    },
  };
}

async function renderCount(tmp: string, spec: TestBundleSpec, ns: string): Promise<{ count: number; renderMs: number }> {
  const dir = await mkdtemp(join(tmp, 'bundle-'));
  for (const [file, text] of Object.entries(bundleFiles(spec))) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  await renderBundle(dir, { installNamespace: ns }); // warm-up
  const t0 = performance.now();
  const objects = await renderBundle(dir, { installNamespace: ns });
  return { count: objects.length, renderMs: performance.now() - t0 };
}

export async function benchOperatorController(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const tmp = await mkdtemp(join(tmpdir(), 'bench-oc-'));
  // Room for every extension's Pod (and the 40-object bundles') at 110 Pods a node.
  const cp = new ControlPlane({ nodes: Math.max(2, Math.ceil((COUNT + 40) / 100)) });
  const reg = new Registry();
  const stops: (() => Promise<void>)[] = [];
  try {
    const [info, regInfo]: [Awaited<ReturnType<ControlPlane['start']>>, RegistryInfo] = await Promise.all([cp.start(), reg.start()]);
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(fileURLToPath(new URL('../config/crd/bases', import.meta.url))));
    await installAdmissionPolicies(kube, fileURLToPath(new URL('../config/admission', import.meta.url)));
    await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NS } }));
    const logger = createLogger({ level: 'error', write: (l) => process.stderr.write(`${l}\n`) });

    // catalogd (polling minute shortened) and operator-controller, in process.
    const port = await freePort();
    const cdClient = await KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath });
    const cdParts = await catalogdSetup(
      {
        catalogsServerAddr: `127.0.0.1:${port}`,
        externalAddress: `127.0.0.1:${port}`,
        cacheDir: join(tmp, 'catalogd'),
        gcIntervalMs: 12 * 3600_000,
        insecureRegistries: [regInfo.host],
        minuteMs: MINUTE_MS,
        registry: { retries: 1, retryDelayMs: 50 },
        rateLimiter: () => new ItemExponentialFailureRateLimiter(100, 2000),
      },
      catalogdImpl,
    )({ options: managerOptions('catalogd-operator-lock'), client: cdClient, logger, metrics: createMetrics({ defaultMetrics: false }) });
    stops.push(await run(cdParts, cdClient));
    const ocClient = await KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath });
    const oc = await operatorControllerSetup(
      {
        cachePath: join(tmp, 'oc'),
        systemNamespace: SYSTEM_NS,
        insecureRegistries: [regInfo.host],
        registry: { retries: 1, retryDelayMs: 50 },
        rateLimiter: () => new ItemExponentialFailureRateLimiter(100, 2000),
        resyncMs: 3600_000,
      },
      ocImpl,
    )({ options: managerOptions('9c4404e7.operatorframework.io'), client: ocClient, logger, metrics: createMetrics({ defaultMetrics: false }) });
    stops.push(await run(oc, ocClient));

    const createCatalog = async (name: string, ref: string): Promise<void> => {
      await kube.must(
        kube.request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterCatalog',
          metadata: { name },
          spec: { source: { type: 'Image', image: { ref, pollIntervalMinutes: 1 } } },
        }),
      );
    };
    const servedRef = (name: string): string | undefined => {
      const c = oc.catalogs.get(name);
      return (c?.status?.conditions ?? []).some((x) => x.type === 'Serving' && x.status === 'True') ? c?.status?.resolvedSource?.image?.ref : undefined;
    };
    const createExt = async (name: string, ns: string, pkg: string, catalog: string): Promise<void> => {
      await kube.must(kube.request('POST', '/apis/olm.operatorframework.io/v1/clusterextensions', extension(name, ns, pkg, catalog)));
    };

    // ---- 1. the 40-object bundle --------------------------------------------------------------
    const ns1 = await kube.namespace('big');
    let extra = 0;
    let sized = await renderCount(tmp, bigSpec('big', 0), ns1);
    extra = 40 - sized.count;
    sized = await renderCount(tmp, bigSpec('big', extra), ns1);
    // Three copies (own package, CRD group and namespace each) installed one after another; median.
    const bigs: TestBundle[] = [];
    for (const p of ['big0', 'big1', 'big2']) bigs.push(await pushTestBundle(regInfo, bigSpec(p, extra)));
    const bigFiles = Object.assign({}, ...bigs.map((b) => catalogFiles(b.packageName, [{ bundle: b }]))) as Record<string, object>;
    const bigCat = await pushCatalogImage(regInfo, 'catalogs/big:latest', { files: bigFiles });
    await createCatalog('big', bigCat.ref);
    await until('catalog big serving', () => servedRef('big') !== undefined, 60_000);
    const e2e: number[] = [];
    for (const b of bigs) {
      const ns = await kube.namespace(b.packageName);
      const t0 = performance.now();
      await createExt(b.packageName, ns, b.packageName, 'big');
      await until(`${b.packageName} installed`, () => installedAs(oc, b.packageName, b.name), 60_000, 5);
      e2e.push(performance.now() - t0);
    }
    const sortedE2e = [...e2e].sort((a, b) => a - b);
    figures.push({
      name: `${sized.count}-object bundle: ClusterExtension created → Installed=True (median of 3)`,
      value: ms(sortedE2e[1]!),
      unit: 'ms',
      note: `target < 2000 ms; runs ${e2e.map(ms).join(', ')} ms`,
    });
    figures.push({ name: '  render (renderBundle, unpacked dir, warm)', value: Number(sized.renderMs.toFixed(1)), unit: 'ms' });

    // The applier alone: a copy of the bundle under another package (no collisions), first apply call.
    const ns2 = await kube.namespace('direct');
    const directDir = await mkdtemp(join(tmp, 'direct-'));
    for (const [file, text] of Object.entries(bundleFiles(bigSpec('direct', extra)))) {
      await mkdir(dirname(join(directDir, file)), { recursive: true });
      await writeFile(join(directDir, file), text);
    }
    const objects = await renderBundle(directDir, { installNamespace: ns2 });
    const applierClient = await KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath });
    const applier = new RevisionApplier({ client: applierClient, systemNamespace: SYSTEM_NS });
    const ext = { ...extension('direct', ns2, 'direct', 'none'), metadata: { name: 'direct', uid: randomUUID() } };
    const ref = { package: 'direct', name: 'direct.v1.0.0', version: '1.0.0', image: 'registry.test/direct@sha256:0' };
    const signal = new AbortController().signal;
    setMaxListeners(64, signal); // as the controller does for each reconcile: a phase has several requests in flight
    const a0 = performance.now();
    const first = await applier.apply(ext, ref, objects, signal);
    const applyMs = performance.now() - a0;
    figures.push({ name: `  RevisionApplier.apply, first call (${objects.length} objects, record + SSA + CRD wait)`, value: ms(applyMs), unit: 'ms', note: `installed=${first.installed}` });
    await until('direct deployment available', async () => (await applier.apply(ext, ref, objects, signal)).installed, 30_000, 50);
    const r0 = performance.now();
    await applier.apply(ext, ref, objects, signal);
    figures.push({ name: '  RevisionApplier.apply, unchanged re-apply (healthy)', value: ms(performance.now() - r0), unit: 'ms' });
    await applier.uninstall(ext, signal);
    await applierClient.close();

    // ---- 2. N small extensions ------------------------------------------------------------------
    const nsN = await kube.namespace('many');
    const pkgs = Array.from({ length: COUNT }, (_, i) => `p${String(i).padStart(3, '0')}`);
    const v1: TestBundle[] = [];
    for (const p of pkgs) v1.push(await pushTestBundle(regInfo, { packageName: p, version: '1.0.0' }));
    const files1 = Object.assign({}, ...v1.map((b) => catalogFiles(b.packageName, [{ bundle: b }]))) as Record<string, object>;
    const cat1 = await pushCatalogImage(regInfo, 'catalogs/many:latest', { files: files1 });
    await createCatalog('many', cat1.ref);
    await until('catalog many serving', () => servedRef('many') === cat1.digestRef, 120_000);
    await sleep(1000);
    fullGc();
    const mem0 = process.memoryUsage();
    const i0 = performance.now();
    for (let i = 0; i < COUNT; i += 16) await Promise.all(pkgs.slice(i, i + 16).map((p) => createExt(p, nsN, p, 'many')));
    await until(`${COUNT} installed`, () => pkgs.every((p, i) => installedAs(oc, p, v1[i]!.name)), 30 * 60_000, 100);
    const installMs = performance.now() - i0;
    figures.push({ name: `${COUNT} extensions: create all → all Installed=True (Deployments Available)`, value: ms(installMs / 1000 * 10) / 10, unit: 's', note: `${(installMs / COUNT).toFixed(0)} ms per extension` });
    await sleep(2000);
    fullGc();
    const mem1 = process.memoryUsage();
    figures.push({ name: '  heap growth per installed extension (after GC)', value: ms((mem1.heapUsed - mem0.heapUsed) / COUNT), unit: 'bytes' });
    figures.push({ name: '  RSS growth per installed extension (after GC)', value: ms((mem1.rss - mem0.rss) / COUNT), unit: 'bytes', note: `RSS ${(mem1.rss / 1e6).toFixed(0)} MB total, heap ${(mem1.heapUsed / 1e6).toFixed(0)} MB` });

    // The whole cluster idle with all of them installed (apiserver+etcd, controller-manager, scheduler, KWOK).
    const idleWindowMs = 10_000;
    const cluster0 = await Promise.all(cp.pids.map(procCpuMs));
    await sleep(idleWindowMs);
    const cluster1 = await Promise.all(cp.pids.map(procCpuMs));
    const clusterIdleMs = cluster1.reduce((sum, v, i) => sum + v - cluster0[i]!, 0);
    figures.push({
      name: `  cluster idle with ${COUNT} installed (${cp.pids.length} processes, ${info.nodes.length} nodes)`,
      value: Number(((clusterIdleMs / idleWindowMs) * 100).toFixed(1)),
      unit: '% of a core',
      note: `${ms(clusterIdleMs)} ms CPU over ${idleWindowMs / 1000} s`,
    });

    // Idle resync: every key enqueued once, CPU until the queue is drained; baseline = idle as long.
    await sleep(500);
    const q = oc.controller.queue;
    const keys = oc.extensions.list().map((e) => e.metadata.name!);
    const s0 = await procCpuMs(cp.pid);
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    for (const k of keys) oc.controller.enqueue(k);
    await until('resync drained', () => q.len() === 0 && q.processingCount() === 0, 30 * 60_000, 2);
    const passMs = performance.now() - w0;
    const cpu = process.cpuUsage(c0);
    const serverMs = (await procCpuMs(cp.pid)) - s0;
    const sb0 = await procCpuMs(cp.pid);
    const b0 = process.cpuUsage();
    await sleep(passMs);
    const base = process.cpuUsage(b0);
    const serverBaseMs = (await procCpuMs(cp.pid)) - sb0;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const baseMs = (base.user + base.system) / 1000;
    figures.push({ name: `  idle resync of ${keys.length} (every key enqueued): CPU of this process`, value: ms(cpuMs), unit: 'ms', note: `${(cpuMs / keys.length).toFixed(1)} ms/extension over ${ms(passMs)} ms wall` });
    figures.push({ name: '  baseline: same process idle for as long', value: ms(baseMs), unit: 'ms CPU', note: `resync ${(cpuMs / Math.max(baseMs, 0.001)).toFixed(0)}× idle` });
    figures.push({ name: '  same resync pass: kube-apiserver+etcd CPU', value: ms(serverMs), unit: 'ms', note: `idle for as long: ${ms(serverBaseMs)} ms` });

    // Upgrade: a successor for every package, pushed to the same tag.
    const v2: TestBundle[] = [];
    for (const p of pkgs) v2.push(await pushTestBundle(regInfo, { packageName: p, version: '1.1.0' }));
    const files2 = Object.assign({}, ...pkgs.map((p, i) => catalogFiles(p, [{ bundle: v1[i]! }, { bundle: v2[i]!, replaces: v1[i]!.name }]))) as Record<string, object>;
    const u0 = performance.now();
    const cat2 = await pushCatalogImage(regInfo, 'catalogs/many:latest', { files: files2 });
    await until('catalog many on the new image', () => servedRef('many') === cat2.digestRef, 120_000);
    const pollMs = performance.now() - u0;
    await until(`${COUNT} upgraded`, () => pkgs.every((p, i) => installedAs(oc, p, v2[i]!.name)), 30 * 60_000, 100);
    const upgradeMs = performance.now() - u0;
    figures.push({ name: `  new catalog image pushed → all ${COUNT} report 1.1.0 installed`, value: ms(upgradeMs / 100) / 10, unit: 's', note: `of which catalogd poll+unpack ${ms(pollMs)} ms (poll every ${MINUTE_MS} ms)` });
    figures.push({ name: '  baseline: the initial install of all (same run)', value: ms(installMs / 100) / 10, unit: 's', note: `upgrade ${(upgradeMs / installMs).toFixed(2)}× install` });
    return figures;
  } finally {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    await Promise.allSettled([cp.stop(), reg.stop()]);
    await forceRemove(tmp).catch(() => undefined);
  }
}
