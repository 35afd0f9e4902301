// The two revision runtimes side by side (issue 28, Performance): operator-controller's production build started as
// the image starts it, once with the standard runtime (revision Secrets) and once with
// `--feature-gates=BoxcutterRuntime=true` (ClusterObjectSets), each on a fresh cluster (kube-apiserver, controllers,
// KWOK nodes) with catalogd's production build and the same registry:
//   BENCH_RT_COUNT extensions (default 100, one small package each in one catalog) created → all Installed=True;
//   the ClusterCatalog moved to a new image holding a successor of every package → all report the successor;
//   operator-controller's CPU (user+system, from /proc) in each phase, and its RSS idle after each.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forceRemove } from '../internal/shared/image/index.ts';
import { installAdmissionPolicies } from '../test/support/admission.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../test/support/bundles.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { pushCatalogImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort, waitFor } from '../test/support/net.ts';
import { startBundled, stopProcess, type Managed } from '../test/support/process.ts';
import { Registry, type RegistryInfo } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { idleRss, procCpuMs } from './memory.ts';
import { ROOT, productionDist } from './production.ts';

const COUNT = Number(process.env.BENCH_RT_COUNT ?? 100);
const SYSTEM_NS = 'olmv1-system';
const mib = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;
const seconds = (ms: number): number => Math.round(ms / 100) / 10;

interface RuntimeFigures {
  readonly installMs: number;
  readonly installCpuMs: number;
  readonly installedRss: number;
  readonly upgradeMs: number;
  readonly upgradeCpuMs: number;
  readonly upgradedRss: number;
}

async function started(proc: Managed, health: number, name: string): Promise<void> {
  await waitFor(
    `${name} ready`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited with ${proc.child.exitCode}; see ${proc.logFile}`);
      const res = await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined);
      await res?.body?.cancel();
      return res?.status === 200;
    },
    { timeoutMs: 60_000, intervalMs: 20 },
  );
}

async function runtime(dist: string, reg: RegistryInfo, name: 'standard' | 'boxcutter', gates: string): Promise<RuntimeFigures> {
  const tmp = await mkdtemp(join(tmpdir(), `bench-rt-${name}-`));
  const cp = new ControlPlane({ nodes: Math.max(2, Math.ceil((COUNT + 20) / 100)) });
  const procs: Managed[] = [];
  try {
    const info = await cp.start();
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(join(ROOT, 'config/crd/experimental')));
    await installAdmissionPolicies(kube, join(ROOT, 'config/admission'));
    await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NS } }));
    const common = [`--kubeconfig=${info.kubeconfigPath}`, '--log-level=error', `--insecure-registries=${reg.host}`];

    const port = await freePort();
    const cdHealth = await freePort();
    const cd = startBundled(dist, 'catalogd', [
      ...common,
      `--catalogs-server-addr=127.0.0.1:${port}`,
      `--external-address=127.0.0.1:${port}`,
      `--cache-dir=${join(tmp, 'catalogd')}`,
      `--health-probe-bind-address=127.0.0.1:${cdHealth}`,
    ], join(tmp, 'catalogd.log'));
    procs.push(cd);
    await started(cd, cdHealth, 'catalogd');

    // Packages of this runtime's own names, so the two runs never share a CRD or a bundle.
    const pkgs = Array.from({ length: COUNT }, (_, i) => `${name.slice(0, 3)}${String(i).padStart(3, '0')}`);
    const v1: TestBundle[] = [];
    for (const p of pkgs) v1.push(await pushTestBundle(reg, { packageName: p, version: '1.0.0' }));
    const cat1 = await pushCatalogImage(reg, `catalogs/rt-${name}:v1`, { files: Object.assign({}, ...v1.map((b) => catalogFiles(b.packageName, [{ bundle: b }]))) as Record<string, object> });
    await kube.must(
      kube.request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: 'rt' },
        spec: { source: { type: 'Image', image: { ref: cat1.ref } } },
      }),
    );
    const servedDigest = async (): Promise<string | undefined> => {
      const c = await kube.request<{ status?: { conditions?: { type: string; status: string }[]; resolvedSource?: { image?: { ref?: string } } } }>(
        'GET',
        '/apis/olm.operatorframework.io/v1/clustercatalogs/rt',
      );
      return c.body.status?.conditions?.some((x) => x.type === 'Serving' && x.status === 'True') ? c.body.status.resolvedSource?.image?.ref : undefined;
    };
    await waitFor('catalog rt Serving', async () => (await servedDigest()) === cat1.digestRef, { timeoutMs: 120_000, intervalMs: 100 });

    const ocHealth = await freePort();
    const oc = startBundled(dist, 'operator-controller', [
      ...common,
      `--cache-path=${join(tmp, 'oc')}`,
      `--system-namespace=${SYSTEM_NS}`,
      `--health-probe-bind-address=127.0.0.1:${ocHealth}`,
      ...(gates ? [`--feature-gates=${gates}`] : []),
    ], join(tmp, 'operator-controller.log'));
    procs.push(oc);
    await started(oc, ocHealth, 'operator-controller');

    const ns = await kube.namespace(`rt-${name}`);
    const installedAll = async (bundles: readonly TestBundle[]): Promise<boolean> => {
      const list = await kube.request<{ items: { metadata: { name: string }; status?: { install?: { bundle: { name: string } }; conditions?: { type: string; status: string }[] } }[] }>(
        'GET',
        '/apis/olm.operatorframework.io/v1/clusterextensions',
      );
      const by = new Map(list.body.items.map((e) => [e.metadata.name, e]));
      return bundles.every((b) => {
        const e = by.get(b.packageName);
        return e?.status?.install?.bundle.name === b.name && (e.status.conditions ?? []).some((c) => c.type === 'Installed' && c.status === 'True');
      });
    };

    const c0 = await procCpuMs(oc.pid);
    const t0 = performance.now();
    for (let i = 0; i < COUNT; i += 16) {
      await Promise.all(
        pkgs.slice(i, i + 16).map((p) =>
          kube.must(
            kube.request('POST', '/apis/olm.operatorframework.io/v1/clusterextensions', {
              apiVersion: 'olm.operatorframework.io/v1',
              kind: 'ClusterExtension',
              metadata: { name: p },
              spec: { namespace: ns, source: { sourceType: 'Catalog', catalog: { packageName: p, selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'rt' } } } } },
            }),
          ),
        ),
      );
    }
    await waitFor(`${COUNT} installed (${name})`, () => installedAll(v1), { timeoutMs: 30 * 60_000, intervalMs: 250 });
    const installMs = performance.now() - t0;
    const installCpuMs = (await procCpuMs(oc.pid)) - c0;
    const installedRss = (await idleRss(oc.pid, 5)).last;

    const v2: TestBundle[] = [];
    for (const p of pkgs) v2.push(await pushTestBundle(reg, { packageName: p, version: '1.1.0' }));
    const cat2 = await pushCatalogImage(reg, `catalogs/rt-${name}:v2`, {
      files: Object.assign({}, ...pkgs.map((p, i) => catalogFiles(p, [{ bundle: v1[i]! }, { bundle: v2[i]!, replaces: v1[i]!.name }]))) as Record<string, object>,
    });
    const c1 = await procCpuMs(oc.pid);
    const u0 = performance.now();
    await kube.must(kube.request('PATCH', '/apis/olm.operatorframework.io/v1/clustercatalogs/rt', { spec: { source: { image: { ref: cat2.ref } } } }, 'application/merge-patch+json'));
    await waitFor(`${COUNT} upgraded (${name})`, () => installedAll(v2), { timeoutMs: 30 * 60_000, intervalMs: 250 });
    const upgradeMs = performance.now() - u0;
    const upgradeCpuMs = (await procCpuMs(oc.pid)) - c1;
    const upgradedRss = (await idleRss(oc.pid, 5)).last;
    return { installMs, installCpuMs, installedRss, upgradeMs, upgradeCpuMs, upgradedRss };
  } finally {
    for (const p of procs.reverse()) await stopProcess(p).catch(() => undefined);
    await cp.stop().catch(() => undefined);
    await forceRemove(tmp).catch(() => undefined);
  }
}

export async function benchObjectSetRuntime(): Promise<Figure[]> {
  const dist = await productionDist();
  const reg = new Registry();
  try {
    const regInfo = await reg.start();
    const std = await runtime(dist, regInfo, 'standard', '');
    const box = await runtime(dist, regInfo, 'boxcutter', 'BoxcutterRuntime=true');
    const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}× standard`;
    return [
      { name: `standard runtime: ${COUNT} extensions created → all Installed=True`, value: seconds(std.installMs), unit: 's', note: `operator-controller CPU ${Math.round(std.installCpuMs)} ms` },
      { name: `BoxcutterRuntime: ${COUNT} extensions created → all Installed=True`, value: seconds(box.installMs), unit: 's', note: `${ratio(box.installMs, std.installMs)}; CPU ${Math.round(box.installCpuMs)} ms (${ratio(box.installCpuMs, std.installCpuMs)})` },
      { name: 'standard runtime: catalog moved to the successors → all upgraded', value: seconds(std.upgradeMs), unit: 's', note: `operator-controller CPU ${Math.round(std.upgradeCpuMs)} ms` },
      { name: 'BoxcutterRuntime: catalog moved to the successors → all upgraded', value: seconds(box.upgradeMs), unit: 's', note: `${ratio(box.upgradeMs, std.upgradeMs)}; CPU ${Math.round(box.upgradeCpuMs)} ms (${ratio(box.upgradeCpuMs, std.upgradeCpuMs)})` },
      { name: `standard runtime: operator-controller RSS idle, ${COUNT} installed / upgraded`, value: mib(std.upgradedRss), unit: 'MiB', note: `after install ${mib(std.installedRss)} MiB` },
      { name: `BoxcutterRuntime: operator-controller RSS idle, ${COUNT} installed / upgraded`, value: mib(box.upgradedRss), unit: 'MiB', note: `${ratio(box.upgradedRss, std.upgradedRss)}; after install ${mib(box.installedRss)} MiB (${ratio(box.installedRss, std.installedRss)})` },
    ];
  } finally {
    await reg.stop();
  }
}
