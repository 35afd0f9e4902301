// Subscription → InstallPlan → installed, end to end in process against the real cluster and registry: the
// CatalogSource, Subscription and InstallPlan setups of olm-classic together, as cmd/olm-classic merges them. The
// plans are the Subscription side's own (upstream's steps from a real bundle image); the InstallPlan controller
// executes them. The OperatorGroup controller is not part of this process: the test writes the OperatorGroup's
// status (the namespaces it manages) as that controller would.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { catalogSourceSetup } from '../../../internal/classic/catalogsource/index.ts';
import { installPlanSetup, type InstallPlanParts } from '../../../internal/classic/installplan/index.ts';
import { subscriptionSetup } from '../../../internal/classic/subscription/index.ts';
import { formatTime } from '../../../internal/shared/controller/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { mergeParts } from '../../../internal/shared/manager/index.ts';
import { createMetrics } from '../../../internal/shared/observability/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry, testNamespaces } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createImageCatalogSource, createSubscription } from '../../support/classic-olm.ts';
import { capturedLogger, inProcessManagerOptions, runParts, waitForSettled, type LogLine } from '../../support/in-process.ts';
import { TestKube, type KubeObject } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';

const catalog = 'ip-e2e-catalog';
const kube = (): TestKube => adminKube();
let run: { stop(): Promise<void> };
let installPlans: InstallPlanParts;
let catalogNs: string;
const bundles: Record<string, TestBundle> = {};
const namespaces = testNamespaces();
const clusterPaths: string[] = [];
let logs: LogLine[] = [];

beforeAll(async () => {
  await installClassicCRDs(kube());
  // The catalog lives in the global catalog namespace, so every namespace resolves from it.
  catalogNs = await namespaces.create('ip-e2e-cat');
  bundles.v1 = await pushTestBundle(registry(), { packageName: 'ip-e2e', version: '1.0.0' });
  const image = await pushCatalogImage(registry(), 'classic-ip-e2e/catalog:v1', {
    files: catalogFiles('ip-e2e', [{ bundle: bundles.v1 }]),
  });
  await createImageCatalogSource(catalogNs, catalog, image.digestRef);
  clusterPaths.push(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${bundles.v1.crdName}`);

  const captured = capturedLogger('olm-classic', 'CLASSIC_TEST_LOG');
  const { logger } = captured;
  logs = captured.logs;
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const sandbox = await mkdtemp(join(tmpdir(), 'olm-classic-ip-e2e-'));
  const ctx = { options: inProcessManagerOptions('olm-classic-ip-e2e'), client, logger, metrics: createMetrics({ defaultMetrics: false }) };
  const cat = await catalogSourceSetup({ globalCatalogNamespace: catalogNs, cacheDir: sandbox, insecureRegistries: [registry().host] })(ctx);
  const subs = await subscriptionSetup({ globalCatalogNamespace: catalogNs, cacheDir: sandbox, catalogSources: cat.catalogSources, contents: cat.contents, registry: cat.registry })(ctx);
  const ips = await installPlanSetup({ operatorNamespace: catalogNs, retryTimeoutMs: 60_000 })(ctx);
  installPlans = ips;
  run = await runParts(mergeParts(cat, subs, ips), { client, sandbox });
  await waitFor('the catalog loaded', async () => cat.contents.get(catalogNs, catalog) !== undefined, { timeoutMs: 60_000 });
}, 240_000);

afterAll(async () => {
  await run?.stop();
  for (const path of clusterPaths) await kube().request('DELETE', path);
});

/** A namespace with one OperatorGroup targeting it, its status written as the OperatorGroup controller would. */
async function namespaceWithGroup(prefix: string): Promise<string> {
  const ns = await namespaces.create(prefix);
  const og = await kube().must<KubeObject>(
    kube().request('POST', TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns), {
      apiVersion: ops.V1,
      kind: ops.OperatorGroupKind,
      metadata: { name: 'og', namespace: ns },
      spec: { targetNamespaces: [ns] },
    }),
  );
  await kube().must(
    kube().request('PUT', `${TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns)}/status`, {
      ...og,
      status: { lastUpdated: formatTime(new Date()), namespaces: [ns] },
    }),
  );
  return ns;
}

async function subscribe(ns: string, extra: Partial<ops.SubscriptionSpec> = {}): Promise<void> {
  await createSubscription(ns, 'sub', { source: catalog, sourceNamespace: catalogNs, name: 'ip-e2e', channel: 'stable', startingCSV: bundles.v1!.name, ...extra });
}

const get = async <T = KubeObject>(path: string): Promise<T | undefined> => {
  const r = await kube().request<T>('GET', path);
  return r.status === 200 ? r.body : undefined;
};

async function waitForSubscription(ns: string, what: string, ok: (s: ops.Subscription) => boolean): Promise<ops.Subscription> {
  let last: ops.Subscription | undefined;
  try {
    await waitFor(
      `Subscription ${ns}/sub: ${what}`,
      async () => {
        last = await get<ops.Subscription>(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, 'sub', ns));
        return !!last && ok(last);
      },
      { timeoutMs: 90_000 },
    );
  } catch (err) {
    const trail = logs.filter((l) => l['controller'] === 'subscription' || l['namespace'] === ns).slice(-15).map((l) => JSON.stringify(l).slice(0, 400));
    throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last?.status)}\n${trail.join('\n')}`, { cause: err });
  }
  return last!;
}

async function plan(ns: string, name: string): Promise<ops.InstallPlan> {
  return (await get<ops.InstallPlan>(TestKube.path(ops.V1alpha1, ops.InstallPlanResource, name, ns)))!;
}

describe('Subscription → InstallPlan → installed', () => {
  it('Automatic: the Subscription side’s plan is executed to Complete; its CSV makes the Subscription AtLatestKnown', async () => {
    const ns = await namespaceWithGroup('ip-e2e-auto');
    await subscribe(ns);
    const sub = await waitForSubscription(ns, 'AtLatestKnown', (s) => s.status?.state === ops.SubscriptionStateAtLatest);
    expect(sub.status?.installedCSV).toBe(bundles.v1!.name);
    // AtLatestKnown only says the CSV (the plan's first step) exists; the plan completes after its other steps.
    await waitFor('the plan Complete', async () => (await plan(ns, sub.status!.installPlanRef!.name!)).status?.phase === ops.InstallPlanPhaseComplete);
    const ip = await plan(ns, sub.status!.installPlanRef!.name!);
    expect(ip.status?.conditions?.find((c) => c.type === 'Installed')).toMatchObject({ status: 'True' });
    expect(new Set(ip.status?.plan?.map((s) => s.status))).toEqual(new Set(['Created']));

    // What the plan applied: the CSV, its CRD (Established), its service account and permissions.
    const csv = (await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundles.v1!.name, ns)))!;
    expect(csv.metadata['labels']).toMatchObject({ 'olm.managed': 'true' });
    const crd = (await get<{ status?: { conditions?: { type: string; status: string }[] } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${bundles.v1!.crdName}`))!;
    expect(crd.status?.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    expect(await get(`/api/v1/namespaces/${ns}/serviceaccounts/${bundles.v1!.serviceAccountName}`)).toBeDefined();
    for (const step of ip.status?.plan ?? []) {
      if (step.resource.kind !== 'Role' && step.resource.kind !== 'RoleBinding') continue;
      const plural = step.resource.kind === 'Role' ? 'roles' : 'rolebindings';
      const obj = (await get(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/${plural}/${step.resource.name}`))!;
      expect(obj.metadata['ownerReferences'], step.resource.name).toEqual([expect.objectContaining({ kind: 'ClusterServiceVersion', name: bundles.v1!.name, uid: csv.metadata['uid'] })]);
    }
  });

  it('Manual: the plan waits in RequiresApproval; approved, it installs', async () => {
    const ns = await namespaceWithGroup('ip-e2e-manual');
    await subscribe(ns, { installPlanApproval: 'Manual' });
    const pending = await waitForSubscription(ns, 'a plan', (s) => !!s.status?.installPlanRef);
    const name = pending.status!.installPlanRef!.name!;
    await waitFor('the plan RequiresApproval', async () => (await plan(ns, name)).status?.phase === ops.InstallPlanPhaseRequiresApproval);
    // The InstallPlan controller's cache holds the plan's latest write and no pass of it is queued or running: whatever
    // it would do unapproved, it has done.
    await waitForSettled(
      'the unapproved plan handled',
      installPlans.controller.queue,
      `${ns}/${name}`,
      async () => installPlans.installPlans.get(`${ns}/${name}`)?.metadata.resourceVersion === (await plan(ns, name)).metadata.resourceVersion,
    );
    expect((await plan(ns, name)).status?.phase).toBe(ops.InstallPlanPhaseRequiresApproval);
    expect(await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundles.v1!.name, ns))).toBeUndefined();

    await kube().must(kube().request('PATCH', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, name, ns), { spec: { approved: true } }, 'application/merge-patch+json'));
    const sub = await waitForSubscription(ns, 'AtLatestKnown', (s) => s.status?.state === ops.SubscriptionStateAtLatest);
    expect(sub.status?.installedCSV).toBe(bundles.v1!.name);
    // AtLatestKnown only says the CSV (the plan's first step) exists; the plan completes after its other steps.
    await waitFor('the plan Complete', async () => (await plan(ns, name)).status?.phase === ops.InstallPlanPhaseComplete);
  });
});
