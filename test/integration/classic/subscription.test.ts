// Subscriptions resolved per namespace (internal/classic/subscription) in process against the real cluster and
// registry: CatalogSources from catalog images, bundles pulled in process, InstallPlans with upstream's steps,
// Subscription states and conditions with upstream's texts.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { catalogSourceSetup } from '../../../internal/classic/catalogsource/index.ts';
import { runCaptured } from '../../../internal/cli/index.ts';
import { subscriptionSetup, writeSubscriptionStatus } from '../../../internal/classic/subscription/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { mergeParts } from '../../../internal/shared/manager/index.ts';
import { createMetrics, type Metrics } from '../../../internal/shared/observability/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry, testNamespaces } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { capturedLogger, inProcessManagerOptions, runParts } from '../../support/in-process.ts';
import { createImageCatalogSource } from '../../support/classic-olm.ts';
import { TestKube } from '../../support/kube.ts';
import { freePort, waitFor } from '../../support/net.ts';
import { OpmServe } from '../../support/opm.ts';

const kube = (): TestKube => adminKube();
let run: { stop(): Promise<void> };
let metrics: Metrics;
let catalogNs: string;
const catalog = 'cls-catalog';
const bundles: Record<string, TestBundle> = {};
let catalogFilesPushed: Record<string, object> = {};
const namespaces = testNamespaces();

const gvk = (group: string): { group: string; version: string; kind: string } => ({ group, version: 'v1', kind: 'Widget' });

beforeAll(async () => {
  await installClassicCRDs(kube());
  // the catalog lives in the global catalog namespace, so every test namespace resolves from it
  catalogNs = await namespaces.create('cls-cat');
  // cls-a 1.0.0 → 1.1.0; cls-b requires the Widget API of cls-dep; cls-c requires a package that does not exist
  bundles.a1 = await pushTestBundle(registry(), { packageName: 'cls-a', version: '1.0.0' });
  bundles.a2 = await pushTestBundle(registry(), { packageName: 'cls-a', version: '1.1.0' });
  bundles.dep = await pushTestBundle(registry(), { packageName: 'cls-dep', version: '0.1.0' });
  bundles.b = await pushTestBundle(registry(), { packageName: 'cls-b', version: '2.0.0' });
  bundles.c = await pushTestBundle(registry(), { packageName: 'cls-c', version: '1.0.0' });
  // cls-e needs cls-k below 2.0.0 (an olm.constraint CEL rule); cls-k's channel head is 2.0.0
  bundles.k1 = await pushTestBundle(registry(), { packageName: 'cls-k', version: '1.0.0' });
  bundles.k2 = await pushTestBundle(registry(), { packageName: 'cls-k', version: '2.0.0' });
  bundles.e = await pushTestBundle(registry(), { packageName: 'cls-e', version: '1.0.0' });
  const files = {
    ...catalogFiles('cls-a', [{ bundle: bundles.a1 }, { bundle: bundles.a2, replaces: bundles.a1.name }]),
    ...catalogFiles('cls-dep', [{ bundle: bundles.dep, properties: [{ type: 'olm.gvk', value: gvk('cls-dep.example.com') }] }]),
    ...catalogFiles('cls-b', [{ bundle: bundles.b, properties: [{ type: 'olm.gvk.required', value: gvk('cls-dep.example.com') }] }]),
    ...catalogFiles('cls-k', [{ bundle: bundles.k1 }, { bundle: bundles.k2, replaces: bundles.k1.name }]),
    ...catalogFiles('cls-e', [
      {
        bundle: bundles.e,
        properties: [
          {
            type: 'olm.constraint',
            value: {
              failureMessage: 'cls-e needs cls-k 1.x',
              cel: { rule: "properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'cls-k' && semver_compare(p.value.version, '2.0.0') < 0)" },
            },
          },
        ],
      },
    ]),
    ...catalogFiles('cls-c', [{ bundle: bundles.c, properties: [{ type: 'olm.package.required', value: { packageName: 'nowhere', versionRange: '>=1.0.0' } }] }]),
  };
  catalogFilesPushed = files;
  const image = await pushCatalogImage(registry(), 'classic-sub/catalog:v1', { files });
  await createImageCatalogSource(catalogNs, catalog, image.digestRef, { priority: 0 });

  const { logger } = capturedLogger('olm-classic', 'CLASSIC_TEST_LOG');
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const sandbox = await mkdtemp(join(tmpdir(), 'olm-classic-sub-'));
  metrics = createMetrics({ defaultMetrics: false });
  const ctx = { options: inProcessManagerOptions('olm-classic-sub-test'), client, logger, metrics };
  const cat = await catalogSourceSetup({
    globalCatalogNamespace: catalogNs,
    cacheDir: sandbox,
    insecureRegistries: [registry().host],
    registryClient: { channelOptions: { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 1000 } },
    notReadyRecheckMs: 1000,
  })(ctx);
  const subs = await subscriptionSetup({
    globalCatalogNamespace: catalogNs,
    cacheDir: sandbox,
    catalogSources: cat.catalogSources,
    contents: cat.contents,
    registry: cat.registry,
  })(ctx);
  run = await runParts(mergeParts(cat, subs), { client, sandbox });
  await waitFor('the catalog loaded', async () => cat.contents.get(catalogNs, catalog) !== undefined, { timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await run?.stop();
});

async function create(apiVersion: string, resource: string, ns: string, obj: object): Promise<void> {
  await kube().must(kube().request('POST', TestKube.path(apiVersion, resource, undefined, ns), obj));
}
async function namespaceWithGroups(prefix: string, groups = 1): Promise<string> {
  const ns = await namespaces.create(prefix);
  for (let i = 0; i < groups; i++) {
    // OwnNamespace groups: an all-namespaces group would have the CSV controllers of other test files copy its CSVs
    // into every namespace of the shared cluster
    await create(ops.V1, 'operatorgroups', ns, { apiVersion: ops.V1, kind: ops.OperatorGroupKind, metadata: { name: `og-${i}`, namespace: ns }, spec: { targetNamespaces: [ns] } });
  }
  return ns;
}
async function subscribe(ns: string, name: string, pkg: string, extra: Partial<ops.SubscriptionSpec> = {}): Promise<void> {
  await create(ops.V1alpha1, 'subscriptions', ns, {
    apiVersion: ops.V1alpha1,
    kind: ops.SubscriptionKind,
    metadata: { name, namespace: ns },
    spec: { source: catalog, sourceNamespace: catalogNs, name: pkg, channel: 'stable', ...extra },
  });
}
async function subscription(ns: string, name: string): Promise<ops.Subscription> {
  return kube().must<ops.Subscription>(kube().request('GET', TestKube.path(ops.V1alpha1, 'subscriptions', name, ns)));
}
async function waitForSub(ns: string, name: string, what: string, ok: (s: ops.Subscription) => boolean): Promise<ops.Subscription> {
  let last: ops.Subscription | undefined;
  try {
    await waitFor(
      `Subscription ${ns}/${name}: ${what}`,
      async () => {
        last = await subscription(ns, name);
        return ok(last);
      },
      { timeoutMs: 60_000 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last?.status)}`, { cause: err });
  }
  return last!;
}
async function installPlan(ns: string, name: string): Promise<ops.InstallPlan> {
  return kube().must<ops.InstallPlan>(kube().request('GET', TestKube.path(ops.V1alpha1, 'installplans', name, ns)));
}
async function installPlans(ns: string): Promise<ops.InstallPlan[]> {
  return (await kube().must<{ items: ops.InstallPlan[] }>(kube().request('GET', TestKube.path(ops.V1alpha1, 'installplans', undefined, ns)))).items;
}
const cond = (s: ops.Subscription, type: string): ops.SubscriptionCondition | undefined => s.status?.conditions?.find((c) => c.type === type);
const stepKinds = (ip: ops.InstallPlan): string[] => (ip.status?.plan ?? []).map((s) => `${s.resource.kind}/${s.resource.name}`);

describe('Subscription → InstallPlan', () => {
  it('Automatic: an InstallPlan with upstream’s steps; the CSV it creates is the Subscription’s installedCSV', async () => {
    const ns = await namespaceWithGroups('cls-auto');
    await subscribe(ns, 'a', 'cls-a', { startingCSV: bundles.a1!.name });
    const sub = await waitForSub(ns, 'a', 'UpgradePending with a plan', (s) => s.status?.state === ops.SubscriptionStateUpgradePending && !!s.status.installPlanRef);
    expect(sub.status?.currentCSV).toBe(bundles.a1!.name);
    expect(sub.status?.installPlanGeneration).toBe(1);
    expect(sub.status?.installplan).toEqual({ apiVersion: ops.V1alpha1, kind: 'InstallPlan', name: sub.status?.installPlanRef?.name, uuid: sub.status?.installPlanRef?.uid });
    expect(cond(sub, ops.SubscriptionCatalogSourcesUnhealthy)).toMatchObject({ status: 'False', message: 'all available catalogsources are healthy' });
    expect(sub.status?.catalogHealth?.map((h) => [h.catalogSourceRef.name, h.healthy])).toEqual([[catalog, true]]);

    const ip = await installPlan(ns, sub.status!.installPlanRef!.name!);
    expect(ip.metadata.name).toMatch(/^install-/);
    expect(ip.spec).toEqual({ clusterServiceVersionNames: [bundles.a1!.name], approval: 'Automatic', approved: true, generation: 1 });
    expect(ip.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Subscription', name: 'a', blockOwnerDeletion: false, controller: false })]);
    expect(ip.status?.catalogSources).toEqual([catalog]);
    const kinds = stepKinds(ip);
    expect(kinds[0]).toBe(`ClusterServiceVersion/${bundles.a1!.name}`);
    expect(kinds[1]).toBe(`CustomResourceDefinition/${bundles.a1!.crdName}`);
    expect(kinds).toContain(`ServiceAccount/${bundles.a1!.serviceAccountName}`);
    // <csv>-<sa>-<hash>, the base cut to fit 63 characters
    const role = kinds.find((k) => k.startsWith('Role/'))!.slice('Role/'.length);
    expect(role).toHaveLength(63);
    expect(`${bundles.a1!.name}-${bundles.a1!.serviceAccountName}`.startsWith(role.slice(0, role.lastIndexOf('-')))).toBe(true);
    expect(kinds.some((k) => k.startsWith('ClusterRoleBinding/'))).toBe(true);
    for (const step of ip.status?.plan ?? []) {
      expect(step).toMatchObject({ resolving: bundles.a1!.name, status: 'Unknown', resource: { sourceName: catalog, sourceNamespace: catalogNs } });
    }
    const csv = JSON.parse(ip.status!.plan![0]!.resource.manifest!) as ops.ClusterServiceVersion;
    expect(csv.metadata.namespace).toBe(ns);
    expect(JSON.parse(csv.metadata.annotations!['operatorframework.io/properties']!)).toEqual({
      properties: [{ type: 'olm.package', value: { packageName: 'cls-a', version: '1.0.0' } }],
    });

    // What the InstallPlan's CSV step does: the CSV appears in the namespace.
    await create(ops.V1alpha1, 'clusterserviceversions', ns, csv);
    // AtLatestKnown with installedCSV set; the next sync already plans the upgrade to 1.1.0 (UpgradePending), so
    // installedCSV is what stays
    const done = await waitForSub(ns, 'a', 'installedCSV', (s) => s.status?.installedCSV === bundles.a1!.name);
    expect([ops.SubscriptionStateAtLatest, ops.SubscriptionStateUpgradePending]).toContain(done.status?.state);
    // CatalogSourcesAdded on first sight, then the health reason (upstream's count rule)
    await waitForSub(ns, 'a', 'AllCatalogSourcesHealthy', (s) => cond(s, ops.SubscriptionCatalogSourcesUnhealthy)?.reason === ops.AllCatalogSourcesHealthy);
    // counted by the sync after the one that recorded installedCSV
    await expect
      .poll(() => metrics.registry.metrics(), { timeout: 30_000 })
      .toMatch(new RegExp(`subscription_sync_total\\{name="a",installed="${bundles.a1!.name.replace(/\./g, '\\.')}",channel="stable",package="cls-a",approval=""\\} \\d+`));
  });

  it('an installed CSV is upgraded along the replaces chain in a second plan', async () => {
    const ns = await namespaceWithGroups('cls-upg');
    await subscribe(ns, 'a', 'cls-a', { startingCSV: bundles.a1!.name });
    const first = await waitForSub(ns, 'a', 'a plan', (s) => !!s.status?.installPlanRef);
    const ip1 = await installPlan(ns, first.status!.installPlanRef!.name!);
    await create(ops.V1alpha1, 'clusterserviceversions', ns, JSON.parse(ip1.status!.plan![0]!.resource.manifest!));
    const second = await waitForSub(ns, 'a', 'the upgrade planned', (s) => s.status?.currentCSV === bundles.a2!.name && s.status.installPlanGeneration === 2);
    expect(second.status?.state).toBe(ops.SubscriptionStateUpgradePending);
    expect(second.status?.installedCSV).toBe(bundles.a1!.name);
    const ip2 = await installPlan(ns, second.status!.installPlanRef!.name!);
    const csv = JSON.parse(ip2.status!.plan![0]!.resource.manifest!) as ops.ClusterServiceVersion;
    expect(csv.metadata.name).toBe(bundles.a2!.name);
    expect(csv.spec.replaces).toBe(bundles.a1!.name);
  });

  it('Manual: the plan waits for approval and blocks further resolution', async () => {
    const ns = await namespaceWithGroups('cls-manual');
    await subscribe(ns, 'a', 'cls-a', { installPlanApproval: 'Manual' });
    const sub = await waitForSub(ns, 'a', 'a plan', (s) => !!s.status?.installPlanRef);
    const ip = await installPlan(ns, sub.status!.installPlanRef!.name!);
    expect(ip.spec).toMatchObject({ approval: 'Manual', approved: false });
    expect(ip.status?.phase).toBe('RequiresApproval');
    // channel head without startingCSV
    expect(ip.spec.clusterServiceVersionNames).toEqual([bundles.a2!.name]);
    const pending = await waitForSub(ns, 'a', 'InstallPlanPending', (s) => cond(s, ops.SubscriptionInstallPlanPending) !== undefined);
    expect(cond(pending, ops.SubscriptionInstallPlanPending)).toMatchObject({ status: 'True', reason: 'RequiresApproval' });
    expect(await installPlans(ns)).toHaveLength(1);
  });

  it('a dependency on another package’s API: both CSVs in one plan and a generated Subscription step', async () => {
    const ns = await namespaceWithGroups('cls-dep');
    await subscribe(ns, 'b', 'cls-b');
    const sub = await waitForSub(ns, 'b', 'a plan', (s) => !!s.status?.installPlanRef);
    const ip = await installPlan(ns, sub.status!.installPlanRef!.name!);
    expect([...ip.spec.clusterServiceVersionNames].sort()).toEqual([bundles.b!.name, bundles.dep!.name].sort());
    const subStep = ip.status!.plan!.find((s) => s.resource.kind === 'Subscription')!;
    expect(subStep.resource.name).toBe(`cls-dep-stable-${catalog}-${catalogNs}`);
    expect(subStep.resolving).toBe(bundles.dep!.name);
    expect(JSON.parse(subStep.resource.manifest!).spec).toEqual({
      source: catalog,
      sourceNamespace: catalogNs,
      name: 'cls-dep',
      channel: 'stable',
      startingCSV: bundles.dep!.name,
      installPlanApproval: 'Automatic',
    });
  });

  it('an olm.constraint CEL rule picks the dependency below the channel head', async () => {
    const ns = await namespaceWithGroups('cls-cel');
    await subscribe(ns, 'e', 'cls-e');
    const sub = await waitForSub(ns, 'e', 'a plan', (s) => !!s.status?.installPlanRef);
    const ip = await installPlan(ns, sub.status!.installPlanRef!.name!);
    expect([...ip.spec.clusterServiceVersionNames].sort()).toEqual([bundles.e!.name, bundles.k1!.name].sort());
    const dep = ip.status!.plan!.find((s) => s.resource.kind === 'Subscription')!;
    expect(JSON.parse(dep.resource.manifest!).spec).toMatchObject({ name: 'cls-k', startingCSV: bundles.k1!.name });
  });

  it('an unsatisfiable dependency: ConstraintsNotSatisfiable with the solver’s message, no plan', async () => {
    const ns = await namespaceWithGroups('cls-unsat');
    await subscribe(ns, 'c', 'cls-c');
    const sub = await waitForSub(ns, 'c', 'ResolutionFailed', (s) => cond(s, ops.SubscriptionResolutionFailed) !== undefined);
    expect(cond(sub, ops.SubscriptionResolutionFailed)).toMatchObject({
      status: 'True',
      reason: 'ConstraintsNotSatisfiable',
      message: `constraints not satisfiable: bundle ${bundles.c!.name} requires an operator with package: nowhere and with version in range: >=1.0.0, subscription c exists, subscription c requires ${catalog}/${catalogNs}/stable/${bundles.c!.name}`,
    });
    expect(await installPlans(ns)).toHaveLength(0);
  });

  it('kubectl olm resolve --namespace: the bundles a plan would install, or the minimal conflict in words', async () => {
    const cli = (ns: string) =>
      runCaptured(['resolve', '-n', ns, '--global-namespace', catalogNs], { env: { KUBECONFIG: controlPlane().kubeconfigPath, OLM_INSECURE_REGISTRIES: registry().host } });
    const ok = await namespaceWithGroups('cls-cli-ok');
    await subscribe(ok, 'b', 'cls-b');
    const good = await cli(ok);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain(`${bundles.b!.name}: package cls-b, channel stable, CatalogSource ${catalogNs}/${catalog} — Subscription b`);
    expect(good.stdout).toContain(`${bundles.dep!.name}: package cls-dep, channel stable, CatalogSource ${catalogNs}/${catalog} — dependency (Subscription cls-dep-stable-${catalog}-${catalogNs} would be created)`);

    const bad = await namespaceWithGroups('cls-cli-bad');
    await subscribe(bad, 'c', 'cls-c');
    const conflict = await cli(bad);
    expect(conflict.code).toBe(1);
    expect(conflict.stdout.split('\n')).toEqual([
      `constraints not satisfiable: bundle ${bundles.c!.name} requires an operator with package: nowhere and with version in range: >=1.0.0, subscription c exists, subscription c requires ${catalog}/${catalogNs}/stable/${bundles.c!.name}`,
      '',
      'The conflicting constraints (a minimal set: drop any one and the rest can be met):',
      `  bundle ${bundles.c!.name} (channel stable of CatalogSource ${catalogNs}/${catalog}): bundle ${bundles.c!.name} requires an operator with package: nowhere and with version in range: >=1.0.0`,
      '  Subscription c: subscription c exists',
      `  Subscription c: subscription c requires ${catalog}/${catalogNs}/stable/${bundles.c!.name}`,
      '',
    ]);
    const usage = await cli('');
    expect(usage.code).toBe(2);
  });

  it('no OperatorGroup, or two: upstream’s message, nothing created', async () => {
    for (const groups of [0, 2]) {
      const ns = await namespaceWithGroups(`cls-og${groups}`, groups);
      await subscribe(ns, 'a', 'cls-a');
      const sub = await waitForSub(ns, 'a', 'ResolutionFailed', (s) => cond(s, ops.SubscriptionResolutionFailed) !== undefined);
      expect(cond(sub, ops.SubscriptionResolutionFailed)).toMatchObject({
        status: 'True',
        reason: 'ErrorPreventedResolution',
        message: `expected 1 OperatorGroup in the namespace, found ${groups}`,
      });
      expect(await installPlans(ns)).toHaveLength(0);
    }
  });

  it('a Subscription to a CatalogSource that does not exist: CatalogSourcesUnhealthy names it', async () => {
    const ns = await namespaceWithGroups('cls-missing');
    await create(ops.V1alpha1, 'subscriptions', ns, {
      apiVersion: ops.V1alpha1,
      kind: ops.SubscriptionKind,
      metadata: { name: 'x', namespace: ns },
      spec: { source: 'nope', sourceNamespace: ns, name: 'cls-a', channel: 'stable' },
    });
    // the first sight says CatalogSourcesAdded (upstream's count rule), the next sync the health reason
    const sub = await waitForSub(ns, 'x', 'CatalogSourcesUnhealthy', (s) => cond(s, ops.SubscriptionCatalogSourcesUnhealthy)?.reason === ops.UnhealthyCatalogSourceFound);
    expect(cond(sub, ops.SubscriptionCatalogSourcesUnhealthy)).toMatchObject({ reason: ops.UnhealthyCatalogSourceFound, message: `targeted catalogsource ${ns}/nope missing` });
    const failed = await waitForSub(ns, 'x', 'ResolutionFailed', (s) => cond(s, ops.SubscriptionResolutionFailed) !== undefined);
    expect(cond(failed, ops.SubscriptionResolutionFailed)).toMatchObject({
      reason: 'ConstraintsNotSatisfiable',
      message: `constraints not satisfiable: no operators found from catalog nope in namespace ${ns} referenced by subscription x, subscription x exists`,
    });
  });
});

// These add CatalogSources to the global namespace, so they run after the tests above.
/** The pushed catalog's files as a directory, for opm serve. */
describe('Subscription status writes', () => {
  it('a status computed from a version read before a label was added is written onto the latest version (upstream’s updateSubscriptionStatuses), the label kept', async () => {
    const ns = await namespaceWithGroups('cls-write');
    await subscribe(ns, 'a', 'cls-a', { startingCSV: bundles.a1!.name, installPlanApproval: 'Manual' });
    // settled: the Manual plan waits for approval, so the sync writes nothing more
    const stale = await waitForSub(ns, 'a', 'UpgradePending with a plan', (s) => s.status?.state === ops.SubscriptionStateUpgradePending && !!s.status.installPlanRef);
    // what the Operator API's adoption does meanwhile: a label, a new resourceVersion
    const label = `operators.coreos.com/cls-a.${ns}`;
    await kube().must(kube().request('PATCH', TestKube.path(ops.V1alpha1, 'subscriptions', 'a', ns), { metadata: { labels: { [label]: '' } } }, 'application/merge-patch+json'));
    const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
    const status = { ...stale.status!, lastUpdated: '2030-01-01T00:00:00Z' };
    await writeSubscriptionStatus(client, stale, status, new AbortController().signal);
    const after = await subscription(ns, 'a');
    expect(after.status?.lastUpdated).toBe('2030-01-01T00:00:00Z');
    expect(after.status?.installPlanRef).toEqual(stale.status?.installPlanRef);
    expect(after.metadata.labels?.[label]).toBe('');
  });
});

describe('a Subscription whose status was lost after its InstallPlan ran', () => {
  it('status overwritten with only lastUpdated: upstream does not adopt the installed CSV — ResolutionFailed ConstraintsNotSatisfiable, no second plan', async () => {
    const ns = await namespaceWithGroups('cls-lost');
    await subscribe(ns, 'd', 'cls-dep');
    const planned = await waitForSub(ns, 'd', 'UpgradePending with a plan', (s) => s.status?.state === ops.SubscriptionStateUpgradePending && !!s.status.installPlanRef);
    const ip = await installPlan(ns, planned.status!.installPlanRef!.name!);
    // what the InstallPlan's CSV step does: the CSV (with the plan's properties annotation) appears in the namespace
    await create(ops.V1alpha1, 'clusterserviceversions', ns, JSON.parse(ip.status!.plan!.find((st) => st.resource.kind === 'ClusterServiceVersion')!.resource.manifest!) as object);
    await waitForSub(ns, 'd', 'AtLatestKnown', (s) => s.status?.state === ops.SubscriptionStateAtLatest && s.status.installedCSV === bundles.dep!.name);
    // the lost write: the stored status has none of the plan's references ({} itself is refused: the CRD requires
    // status.lastUpdated)
    const cur = await subscription(ns, 'd');
    await kube().must(kube().request('PUT', `${TestKube.path(ops.V1alpha1, 'subscriptions', 'd', ns)}/status`, { ...cur, status: { lastUpdated: '2026-01-01T00:00:00Z' } }));
    const failed = await waitForSub(ns, 'd', 'ResolutionFailed', (s) => cond(s, ops.SubscriptionResolutionFailed) !== undefined);
    const message = cond(failed, ops.SubscriptionResolutionFailed)?.message ?? '';
    expect(cond(failed, ops.SubscriptionResolutionFailed)).toMatchObject({ status: 'True', reason: 'ConstraintsNotSatisfiable' });
    expect(message.startsWith('constraints not satisfiable: ')).toBe(true);
    const name = bundles.dep!.name;
    for (const part of [
      `clusterserviceversion ${name} exists and is not referenced by a subscription`,
      `@existing/${ns}//${name} and ${catalog}/${catalogNs}/stable/${name} originate from package cls-dep`,
      `subscription d requires ${catalog}/${catalogNs}/stable/${name}`,
      'subscription d exists',
    ]) {
      expect(message).toContain(part);
    }
    expect(failed.status?.installPlanRef).toBeUndefined();
    expect(failed.status?.state).toBeUndefined();
    expect((await installPlans(ns)).map((p) => p.metadata.name)).toEqual([ip.metadata.name]);
  });
});

async function catalogDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'classic-sub-opm-'));
  for (const [file, obj] of Object.entries(catalogFilesPushed)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), JSON.stringify(obj));
  }
  return dir;
}

describe('the same resolution from other sources', () => {
  const addCatalogSource = (name: string, spec: ops.CatalogSourceSpec): Promise<void> =>
    create(ops.V1alpha1, ops.CatalogSourceResource, catalogNs, { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name, namespace: catalogNs }, spec });
  const planOf = async (ns: string, sub: string): Promise<ops.InstallPlan> => {
    const s = await waitForSub(ns, sub, 'a plan', (x) => !!x.status?.installPlanRef);
    return installPlan(ns, s.status!.installPlanRef!.name!);
  };
  // the plans live in two namespaces and come from two CatalogSources: those names, and the hashes that include
  // the namespace, set aside
  const comparable = (ip: ops.InstallPlan): unknown[] =>
    JSON.parse(
      JSON.stringify((ip.status?.plan ?? []).map((st) => ({ kind: st.resource.kind, name: st.resource.name, status: st.status, manifest: JSON.parse(st.resource.manifest!) })))
        .replaceAll(ip.metadata.namespace!, 'NS')
        .replaceAll(ip.status!.catalogSources[0]!, 'CATALOG')
        .replace(/([-"])[0-9A-Za-z]{30,}"/g, '$1HASH"')
        .replace(/-[0-9A-Za-z]{30,}/g, '-HASH'),
    ) as unknown[];

  it('spec.address (a real opm serve of the same catalog) gives the same plan as spec.image', async () => {
    const opm = new OpmServe(await catalogDir());
    try {
      const { address } = await opm.start();
      await addCatalogSource('cls-grpc', { sourceType: 'grpc', address });
      const viaImage = await namespaceWithGroups('cls-img');
      const viaAddress = await namespaceWithGroups('cls-addr');
      await subscribe(viaImage, 'b', 'cls-b');
      await subscribe(viaAddress, 'b', 'cls-b', { source: 'cls-grpc' });
      const a = await planOf(viaImage, 'b');
      const b = await planOf(viaAddress, 'b');
      expect(b.status?.catalogSources).toEqual(['cls-grpc']);
      expect(comparable(b)).toEqual(comparable(a));
    } finally {
      await opm.stop();
    }
  });

  it('a CatalogSource refusing connections: unhealthy, resolution waits with upstream’s error, then resumes when it serves', async () => {
    const ns = await namespaceWithGroups('cls-down');
    const port = await freePort();
    await create(ops.V1alpha1, ops.CatalogSourceResource, ns, {
      apiVersion: ops.V1alpha1,
      kind: ops.CatalogSourceKind,
      metadata: { name: 'down', namespace: ns },
      spec: { sourceType: 'grpc', address: `127.0.0.1:${port}` },
    });
    await subscribe(ns, 'a', 'cls-a', { source: 'down', sourceNamespace: ns });
    const waiting = await waitForSub(ns, 'a', 'ResolutionFailed', (s) => cond(s, ops.SubscriptionResolutionFailed) !== undefined && cond(s, ops.SubscriptionCatalogSourcesUnhealthy)?.reason === ops.UnhealthyCatalogSourceFound);
    expect(cond(waiting, ops.SubscriptionCatalogSourcesUnhealthy)?.message).toBe(`targeted catalogsource ${ns}/down unhealthy`);
    expect(cond(waiting, ops.SubscriptionResolutionFailed)).toMatchObject({
      reason: 'ErrorPreventedResolution',
      message: `error using catalogsource ${ns}/down: no registry client established for catalogsource ${ns}/down`,
    });
    expect(await installPlans(ns)).toHaveLength(0);
    const opm = new OpmServe(await catalogDir(), port);
    try {
      await opm.start();
      const planned = await waitForSub(ns, 'a', 'a plan once the source serves', (s) => !!s.status?.installPlanRef);
      expect(cond(planned, ops.SubscriptionResolutionFailed)).toBeUndefined();
      expect(planned.status?.currentCSV).toBe(bundles.a2!.name);
    } finally {
      await opm.stop();
    }
  });

  it('registryPoll: a successor pushed under the tag is planned as an upgrade after the poll', async () => {
    const p1 = await pushTestBundle(registry(), { packageName: 'cls-p', version: '1.0.0' });
    const p2 = await pushTestBundle(registry(), { packageName: 'cls-p', version: '1.1.0' });
    await pushCatalogImage(registry(), 'classic-sub/poll:latest', { files: catalogFiles('cls-p', [{ bundle: p1 }]) });
    await addCatalogSource('cls-poll', { sourceType: 'grpc', image: `${registry().host}/classic-sub/poll:latest`, updateStrategy: { registryPoll: { interval: '3s' } } });
    const ns = await namespaceWithGroups('cls-poll');
    await subscribe(ns, 'p', 'cls-p', { source: 'cls-poll' });
    const first = await planOf(ns, 'p');
    expect(first.spec.clusterServiceVersionNames).toEqual([p1.name]);
    await create(ops.V1alpha1, 'clusterserviceversions', ns, JSON.parse(first.status!.plan![0]!.resource.manifest!));
    await waitForSub(ns, 'p', 'AtLatestKnown', (s) => s.status?.state === ops.SubscriptionStateAtLatest);
    await pushCatalogImage(registry(), 'classic-sub/poll:latest', { files: catalogFiles('cls-p', [{ bundle: p1 }, { bundle: p2, replaces: p1.name }]) });
    const upgraded = await waitForSub(ns, 'p', 'the upgrade planned', (s) => s.status?.currentCSV === p2.name);
    expect(upgraded.status).toMatchObject({ state: ops.SubscriptionStateUpgradePending, installedCSV: p1.name, installPlanGeneration: 2 });
  });
});
