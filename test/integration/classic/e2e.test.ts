// OLM classic end to end with the real olm-classic binary (every controller of the process: CatalogSources,
// Subscriptions, InstallPlans, CSVs, OperatorGroups, OperatorConditions) against the real cluster and registry:
// a Subscription installs its operator — the InstallPlan reaches Complete, the CSV Succeeded once its Deployment is
// Available through the real deployment controller and KWOK nodes — then upgrades along the replaces chain; a Manual
// Subscription waits for approval.
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installClassicCRDs, installOpenShiftCRDs } from '../../support/crds.ts';
import { adminKube, registry, testNamespaces } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createImageCatalogSource, createOperatorGroup, createSubscription } from '../../support/classic-olm.ts';
import { TestKube } from '../../support/kube.ts';
import { waitForValue } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';
import { waitForCondition } from '../openshift/demo.ts';

const kube = (): TestKube => adminKube();
let olmClassic: OlmClassicProcess | undefined;
let globalNs: string;
const namespaces = testNamespaces();
let v1: TestBundle;
let v2: TestBundle;
let capped: TestBundle;
/** The ClusterOperator this process keeps (`--writeStatusName`), at RELEASE_VERSION 4.22.0. */
const CO = 'olm-classic-e2e';

beforeAll(async () => {
  await installClassicCRDs(kube());
  await installOpenShiftCRDs(kube());
  globalNs = await namespaces.create('e2e-olm');
  v1 = await pushTestBundle(registry(), { packageName: 'e2e-op', version: '1.0.0' });
  v2 = await pushTestBundle(registry(), { packageName: 'e2e-op', version: '1.1.0' });
  capped = await pushTestBundle(registry(), { packageName: 'e2e-capped', version: '1.0.0' });
  const image = await pushCatalogImage(registry(), 'classic-e2e/catalog:v1', {
    files: {
      ...catalogFiles('e2e-op', [{ bundle: v1 }, { bundle: v2, replaces: v1.name }]),
      ...catalogFiles('e2e-capped', [{ bundle: capped, properties: [{ type: 'olm.maxOpenShiftVersion', value: '4.22' }] }]),
    },
  });
  await createImageCatalogSource(globalNs, 'e2e', image.digestRef);
  olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs, args: [`--writeStatusName=${CO}`], env: { RELEASE_VERSION: '4.22.0' } });
}, 180_000);

afterAll(async () => {
  await olmClassic?.stop();
  await kube().request('DELETE', `/apis/config.openshift.io/v1/clusteroperators/${CO}`);
});

async function operatorNamespace(prefix: string): Promise<string> {
  const ns = await namespaces.create(prefix);
  await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
  return ns;
}
async function subscribe(ns: string, spec: Partial<ops.SubscriptionSpec>, pkg = 'e2e-op'): Promise<void> {
  await createSubscription(ns, 'op', { source: 'e2e', sourceNamespace: globalNs, name: pkg, channel: 'stable', ...spec });
}
const get = <T>(apiVersion: string, resource: string, ns: string, name: string): Promise<T> => kube().must<T>(kube().request('GET', TestKube.path(apiVersion, resource, name, ns)));
const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 120_000): Promise<T> =>
  waitForValue(what, read, ok, { timeoutMs, lastChars: 2000, context: () => `olm-classic said: ${olmClassic?.logs.slice(-20).join('\n') ?? ''}` });
const csvOf = (ns: string, name: string) => () => get<ops.ClusterServiceVersion>(ops.V1alpha1, ops.ClusterServiceVersionResource, ns, name).catch(() => undefined);
const subOf = (ns: string) => () => get<ops.Subscription>(ops.V1alpha1, ops.SubscriptionResource, ns, 'op');

describe('olm-classic end to end', () => {
  it('Automatic: installs through a Complete InstallPlan, the CSV Succeeds, then upgrades along the replaces chain', async () => {
    const ns = await operatorNamespace('e2e-auto');
    await subscribe(ns, { startingCSV: v1.name });
    const first = await until('the first plan', subOf(ns), (s) => s.status?.installPlanRef !== undefined);
    const plan = await until(
      'the first plan Complete',
      () => get<ops.InstallPlan>(ops.V1alpha1, ops.InstallPlanResource, ns, first.status!.installPlanRef!.name!),
      (ip) => ip.status?.phase === 'Complete',
    );
    expect(plan.status?.conditions?.find((c) => c.type === 'Installed')).toMatchObject({ status: 'True' });
    expect(plan.status?.plan?.every((s) => s.status === 'Created' || s.status === 'Present')).toBe(true);
    // the upgrade to 1.1.0 follows at once; the end state is the successor Succeeded and the first CSV gone
    const upgraded = await until('the successor Succeeded', csvOf(ns, v2.name), (c) => c?.status?.phase === 'Succeeded', 180_000);
    expect(upgraded?.spec.replaces).toBe(v1.name);
    // upstream writes CSVStatus with Go's encoding/json: `cleanup` (a struct) is never omitted
    expect(upgraded?.status?.cleanup).toEqual({});
    await until('the replaced CSV deleted', csvOf(ns, v1.name), (c) => c === undefined, 120_000);
    const sub = await until('AtLatestKnown at 1.1.0', subOf(ns), (s) => s.status?.state === ops.SubscriptionStateAtLatest && s.status.installedCSV === v2.name);
    expect(sub.status?.currentCSV).toBe(v2.name);
    const deployment = await kube().must<{ status?: { availableReplicas?: number } }>(kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${v2.deploymentName}`));
    expect(deployment.status?.availableReplicas).toBeGreaterThanOrEqual(1);
  });

  it('Manual: the plan waits in RequiresApproval; approving it installs', async () => {
    const ns = await operatorNamespace('e2e-manual');
    await subscribe(ns, { startingCSV: v1.name, installPlanApproval: 'Manual' });
    const sub = await until('a plan', subOf(ns), (s) => s.status?.installPlanRef !== undefined);
    const name = sub.status!.installPlanRef!.name!;
    const waiting = await until('RequiresApproval', () => get<ops.InstallPlan>(ops.V1alpha1, ops.InstallPlanResource, ns, name), (ip) => ip.status?.phase === 'RequiresApproval');
    expect(waiting.spec.approved).toBe(false);
    expect(await csvOf(ns, v1.name)()).toBeUndefined();
    await kube().must(kube().request('PATCH', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, name, ns), { spec: { approved: true } }, 'application/merge-patch+json'));
    await until('the plan Complete', () => get<ops.InstallPlan>(ops.V1alpha1, ops.InstallPlanResource, ns, name), (ip) => ip.status?.phase === 'Complete');
    const installed = (await until('the CSV Succeeded', csvOf(ns, v1.name), (c) => c?.status?.phase === 'Succeeded', 180_000))!;
    // upstream olm/requirements.go permissionStatus with filtered informers: the namespaced permission's Role and
    // RoleBinding OLM generated are found by permissionsPreviouslyCreated, which `continue`s before storing, so only the
    // cluster rule (whose binding it never finds: the hash is computed with roleRef kind Role) is listed. (A first
    // install: during an upgrade the predecessor's RBAC grants the same rules before the successor's own exists, and
    // then the rule checker lists them, upstream as here.)
    expect(installed.status?.requirementStatus?.filter((r) => r.kind === 'ServiceAccount')).toEqual([
      {
        group: '',
        version: 'v1',
        kind: 'ServiceAccount',
        name: v1.serviceAccountName,
        status: 'Present',
        message: '',
        dependents: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: 'Satisfied', message: `cluster rule:{"verbs":["get","list","watch"],"apiGroups":["${v1.group}"],"resources":["widgets"]}` }],
      },
    ]);
  });

  it('a Subscription to a bundle with olm.maxOpenShiftVersion: the ClusterOperator goes Upgradeable=False with upstream’s message', async () => {
    const ns = await operatorNamespace('e2e-capped');
    await subscribe(ns, {}, 'e2e-capped');
    const csv = await until('the capped CSV Succeeded', csvOf(ns, capped.name), (c) => c?.status?.phase === 'Succeeded', 180_000);
    // the plan carried the catalog's properties onto the CSV, where the gating controller reads them
    expect(JSON.parse(csv!.metadata.annotations!['operatorframework.io/properties']!).properties).toContainEqual({ type: 'olm.maxOpenShiftVersion', value: '4.22' });
    const c = await waitForCondition(CO, 'Upgradeable', (x) => x.status === 'False' && (x.message ?? '').includes(`${ns}/${capped.name}`), 60_000);
    expect(c.reason).toBe('IncompatibleOperatorsInstalled');
    expect(c.message).toContain('ClusterServiceVersions blocking minor version upgrades to 4.23 or major version upgrades to 5.0:');
    expect(c.message).toContain(`- maximum supported OCP version for ${ns}/${capped.name} is 4.22`);
  });

  it('the installs above log no error-level line: routine retries (requirements not met yet, no OperatorGroup yet, conflicts) are at info or debug', async () => {
    const errors = olmClassic!.errorLines(namespaces.list());
    if (process.env.OLM_CLASSIC_ERRORS_LOG) await writeFile(process.env.OLM_CLASSIC_ERRORS_LOG, `${olmClassic!.logs.length} lines\n${errors.join('\n')}\n`);
    expect(errors, `error-level lines: ${errors.join(' | ')}`).toEqual([]);
  });
});
