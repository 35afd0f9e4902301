// OLM classic installs with the real olm-classic binary against the real cluster and registry (issue 12, Performance):
//  1. RSS of the olm-classic process idle with one small catalog, then with both real catalogs (community, certified)
//     loaded as CatalogSources (spec.image, pushed to the local registry);
//  2. one namespace with 50 Subscriptions (BENCH_SUBS) over a catalog of 50 test operators: the time from the last
//     Subscription created until every InstallPlan is Complete, and until every CSV is Succeeded (Deployments rolled
//     out by the real controllers on KWOK nodes). The real catalogs' own bundle images live on public registries this
//     machine cannot reach, so the operators installed are the project's test bundles.
// Figures only. Run alone: `node --import tsx bench/classic-install.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as ops from '../api/operators/index.ts';
import { publishCatalog } from '../internal/publish/index.ts';
import { RegistryClient, parseReference } from '../internal/shared/image/index.ts';
import { sleep } from '../internal/shared/toolkit/index.ts';
import { catalogFiles, pushTestBundle } from '../test/support/bundles.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { pushCatalogImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { Registry } from '../test/support/registry.ts';
import { realCatalogDir } from '../test/support/testdata.ts';
import type { Figure } from './control-plane.ts';
import { rssMiB } from './memory.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SUBS = Number(process.env.BENCH_SUBS ?? 50);
const GLOBAL = 'olm';

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export async function benchClassicInstall(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const cp = new ControlPlane({ nodes: 2 });
  const reg = new Registry();
  let child: ChildProcess | undefined;
  try {
    const info = await cp.start();
    const r = await reg.start();
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(new URL('../config/crd/classic/', import.meta.url).pathname));
    for (const ns of [GLOBAL, 'olmv1-system', 'bench-subs']) await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));

    const files: Record<string, object> = {};
    for (let i = 0; i < SUBS; i++) {
      const b = await pushTestBundle(r, { packageName: `bench-op-${i}`, version: '1.0.0' });
      Object.assign(files, catalogFiles(b.packageName, [{ bundle: b }]));
    }
    const small = await pushCatalogImage(r, 'bench/operators:v1', { files });
    const csPath = TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, GLOBAL);
    const catalogSource = (name: string, image: string): Promise<unknown> =>
      kube.must(kube.request('POST', csPath, { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name, namespace: GLOBAL }, spec: { sourceType: 'grpc', image } }));
    await catalogSource('operators', small.digestRef);

    const cacheDir = await mkdtemp(join(tmpdir(), 'bench-olm-classic-'));
    child = spawn(
      process.execPath,
      ['--import', 'tsx', `${ROOT}cmd/olm-classic/main.ts`, '--health-probe-bind-address=0', '--metrics-bind-address=0', `--cache-dir=${cacheDir}`, `--namespace=${GLOBAL}`, `--insecure-registries=${r.host}`],
      { env: { ...process.env, KUBECONFIG: info.kubeconfigPath }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => createInterface({ input: child!.stdout! }).on('line', (l) => l.includes('starting controllers') && resolve()));
    const ready = async (names: readonly string[]): Promise<boolean> => {
      const list = await kube.must<{ items: ops.CatalogSource[] }>(kube.request('GET', csPath));
      return names.every((n) => list.items.find((c) => c.metadata.name === n)?.status?.connectionState?.lastObservedState === 'READY');
    };
    await until('the operators catalog READY', () => ready(['operators']), 120_000);
    await sleep(3000);
    figures.push({ name: 'olm-classic RSS, one small CatalogSource, idle', value: await rssMiB(child.pid), unit: 'MiB' });

    // 2. 50 Subscriptions in one namespace
    const ns = 'bench-subs';
    await kube.must(kube.request('POST', TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns), { apiVersion: ops.V1, kind: ops.OperatorGroupKind, metadata: { name: 'og' }, spec: { targetNamespaces: [ns] } }));
    for (let i = 0; i < SUBS; i++) {
      await kube.must(
        kube.request('POST', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, ns), {
          apiVersion: ops.V1alpha1,
          kind: ops.SubscriptionKind,
          metadata: { name: `sub-${i}` },
          spec: { source: 'operators', sourceNamespace: GLOBAL, name: `bench-op-${i}`, channel: 'stable' },
        }),
      );
    }
    const t0 = performance.now();
    const subs = async (): Promise<ops.Subscription[]> => (await kube.must<{ items: ops.Subscription[] }>(kube.request('GET', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, ns)))).items;
    const plans = async (): Promise<ops.InstallPlan[]> => (await kube.must<{ items: ops.InstallPlan[] }>(kube.request('GET', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, ns)))).items;
    await until(
      'every plan Complete',
      async () => {
        const s = await subs();
        const p = await plans();
        return s.every((x) => x.status?.installPlanRef) && p.length > 0 && p.every((x) => x.status?.phase === 'Complete') && s.every((x) => p.some((ip) => ip.metadata.name === x.status?.installPlanRef?.name));
      },
      15 * 60_000,
    );
    const completeMs = performance.now() - t0;
    const planCount = (await plans()).length;
    figures.push({ name: `${SUBS} Subscriptions in one namespace: last created → every InstallPlan Complete`, value: Math.round(completeMs), unit: 'ms', note: `${planCount} plan(s)` });
    await until(
      'every CSV Succeeded',
      async () => {
        const list = await kube.must<{ items: ops.ClusterServiceVersion[] }>(kube.request('GET', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns)));
        return list.items.length >= SUBS && list.items.every((c) => c.status?.phase === 'Succeeded');
      },
      15 * 60_000,
      250,
    );
    figures.push({ name: '  … → every CSV Succeeded (Deployments Available)', value: Math.round(performance.now() - t0), unit: 'ms' });
    figures.push({ name: `olm-classic RSS with ${SUBS} operators installed`, value: await rssMiB(child.pid), unit: 'MiB' });

    // 1. both real catalogs as CatalogSources
    const client = new RegistryClient({ insecureRegistries: [r.host] });
    try {
      for (const name of ['community-operators-v4.21', 'certified-operators-v4.21']) {
        const pushed = await publishCatalog(realCatalogDir(name), parseReference(`${r.host}/catalogs/${name}:latest`), { client });
        await catalogSource(name.replace(/-v4\.21$/, ''), pushed.digestRef);
      }
    } finally {
      await client.close();
    }
    const l0 = performance.now();
    await until('both real catalogs READY', () => ready(['community-operators', 'certified-operators']), 10 * 60_000, 250);
    const loadMs = performance.now() - l0;
    await sleep(5000);
    figures.push({ name: 'olm-classic RSS with both real catalogs loaded as CatalogSources', value: await rssMiB(child.pid), unit: 'MiB', note: `both READY ${Math.round(loadMs)} ms after they were created` });
  } catch (err) {
    figures.push({ name: 'classic install bench', value: 0, unit: 'failed', note: (err as Error).message.split('\n')[0] ?? '' });
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((res) => child!.once('exit', res));
    }
    await reg.stop().catch(() => undefined);
    await cp.stop().catch(() => undefined);
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const f of await benchClassicInstall()) console.log(`${f.name}: ${f.value} ${f.unit}${f.note ? ` (${f.note})` : ''}`);
}
