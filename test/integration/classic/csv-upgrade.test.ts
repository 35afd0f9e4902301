// Replacement between CSVs (internal/classic/csv) and the OperatorCondition that can hold it
// (internal/classic/operatorcondition), in process against the real cluster.
import { describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { createCSV, createOperatorGroup, createServiceAccount, csvFor, getCSV, metricValue, phaseIs, startOlmForFile, waitForCSV } from '../../support/classic-olm.ts';
import { adminKube, testNamespaces } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';

const olm = startOlmForFile({ resyncMs: 60_000 });
const namespaces = testNamespaces();
const kube = (): TestKube => adminKube();

async function namespace(prefix: string): Promise<string> {
  const ns = await namespaces.create(prefix);
  await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
  await createServiceAccount(ns, 'operator');
  return ns;
}

interface Dep {
  metadata: { uid: string; labels: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
  spec: { template: { spec: { containers: { image: string }[] } } };
}
const deployment = (ns: string, name: string): Promise<Dep> => kube().must<Dep>(kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`));
const ocPath = (ns: string, name: string): string => TestKube.path(ops.V2, ops.OperatorConditionResource, name, ns);

describe('CSV replacement', () => {
  it('A → B: A goes Replacing, B takes over A’s Deployment and succeeds, then A is deleted', async () => {
    const ns = await namespace('csv-upgrade');
    await createCSV(ns, csvFor({ name: 'upg.v1.0.0', deployment: 'upg-controller', image: 'quay.example/upg:v1' }));
    await waitForCSV(ns, 'upg.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    const before = await deployment(ns, 'upg-controller');
    const upgrades = (await metricValue(olm().metrics, 'csv_upgrade_count')) ?? 0;

    await createCSV(ns, csvFor({ name: 'upg.v2.0.0', version: '2.0.0', replaces: 'upg.v1.0.0', deployment: 'upg-controller', image: 'quay.example/upg:v2' }));
    const b = await waitForCSV(ns, 'upg.v2.0.0', 'Succeeded', phaseIs('Succeeded'));
    expect(b.status?.conditions?.map((c) => c.phase)).toEqual(expect.arrayContaining(['Pending', 'InstallReady', 'Installing', 'Succeeded']));
    await waitFor('A deleted', async () => (await getCSV(ns, 'upg.v1.0.0')) === undefined);

    const after = await deployment(ns, 'upg-controller');
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.metadata.labels['olm.owner']).toBe('upg.v2.0.0');
    expect(after.metadata.ownerReferences?.map((r) => r.name)).toEqual(['upg.v2.0.0']);
    expect(after.spec.template.spec.containers[0]!.image).toBe('quay.example/upg:v2');
    expect((await metricValue(olm().metrics, 'csv_upgrade_count'))!).toBeGreaterThanOrEqual(upgrades + 1);
    // A's Replacing and Deleting steps were reported as Events.
    const events = await kube().must<{ items: { reason: string; message: string; involvedObject: { name: string } }[] }>(kube().request('GET', `/api/v1/namespaces/${ns}/events`));
    const aEvents = events.items.filter((e) => e.involvedObject.name === 'upg.v1.0.0').map((e) => `${e.reason}: ${e.message}`);
    expect(aEvents).toContain('BeingReplaced: being replaced by csv: upg.v2.0.0');
    expect(aEvents).toContain('Replaced: has been replaced by a newer ClusterServiceVersion that has successfully installed.');
  });

  it('an OperatorCondition with Upgradeable=False holds B in Pending with upstream’s message; clearing it lets the upgrade proceed', async () => {
    const ns = await namespace('csv-oc');
    await createCSV(ns, csvFor({ name: 'held.v1.0.0', deployment: 'held-controller' }));
    await waitForCSV(ns, 'held.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    await waitFor('OperatorCondition of A', async () => (await kube().request('GET', ocPath(ns, 'held.v1.0.0'))).status === 200);
    const condition = (status: 'True' | 'False', message: string) => ({
      spec: { conditions: [{ type: 'Upgradeable', status, reason: 'Migrating', message, lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    await kube().must(kube().request('PATCH', ocPath(ns, 'held.v1.0.0'), condition('False', 'migration in progress'), 'application/merge-patch+json'));
    await waitFor('status mirrors spec', async () => {
      const oc = await kube().must<ops.OperatorCondition>(kube().request('GET', ocPath(ns, 'held.v1.0.0')));
      const c = oc.status?.conditions?.find((x) => x.type === 'Upgradeable');
      return c?.status === 'False' && c.observedGeneration === oc.metadata.generation;
    });

    await createCSV(ns, csvFor({ name: 'held.v2.0.0', version: '2.0.0', replaces: 'held.v1.0.0', deployment: 'held-controller' }));
    const b = await waitForCSV(ns, 'held.v2.0.0', 'held', phaseIs('Pending', 'OperatorConditionNotUpgradeable'));
    expect(b.status?.message).toBe('operator is not upgradeable: the operator is not upgradeable: migration in progress');
    expect((await getCSV(ns, 'held.v1.0.0'))?.status?.phase).toMatch(/^(Succeeded|Replacing)$/);

    await kube().must(kube().request('PATCH', ocPath(ns, 'held.v1.0.0'), condition('True', 'done'), 'application/merge-patch+json'));
    await waitForCSV(ns, 'held.v2.0.0', 'Succeeded', phaseIs('Succeeded'));
    await waitFor('A deleted', async () => (await getCSV(ns, 'held.v1.0.0')) === undefined);
  });

  it('an Upgradeable=False override wins over a True condition', async () => {
    const ns = await namespace('csv-override');
    await createCSV(ns, csvFor({ name: 'ovr.v1.0.0', deployment: 'ovr-controller' }));
    await waitForCSV(ns, 'ovr.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    await waitFor('OperatorCondition of A', async () => (await kube().request('GET', ocPath(ns, 'ovr.v1.0.0'))).status === 200);
    await kube().must(
      kube().request('PATCH', ocPath(ns, 'ovr.v1.0.0'), { spec: { overrides: [{ type: 'Upgradeable', status: 'False', reason: 'Admin', message: 'frozen by the admin' }] } }, 'application/merge-patch+json'),
    );
    await createCSV(ns, csvFor({ name: 'ovr.v2.0.0', version: '2.0.0', replaces: 'ovr.v1.0.0', deployment: 'ovr-controller' }));
    const b = await waitForCSV(ns, 'ovr.v2.0.0', 'held', phaseIs('Pending', 'OperatorConditionNotUpgradeable'));
    expect(b.status?.message).toBe('operator is not upgradeable: the operator is not upgradeable: frozen by the admin');
  });
});

describe('fail-forward', () => {
  it('a CSV whose install timed out is replaced when its group allows failing forward', async () => {
    const ns = await namespaces.create('csv-ff');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns], upgradeStrategy: 'TechPreviewUnsafeFailForward' });
    await createServiceAccount(ns, 'operator');
    // Pods that never become ready and a 1 s progress deadline: the deployment controller reports ProgressDeadlineExceeded.
    await createCSV(ns, csvFor({ name: 'ff.v1.0.0', deployment: 'ff-controller', podAnnotations: { 'olmv1.test/not-ready': 'true' }, progressDeadlineSeconds: 1 }));
    const failed = await waitForCSV(ns, 'ff.v1.0.0', 'InstallCheckFailed', phaseIs('Failed', 'InstallCheckFailed'), 120_000);
    expect(failed.status?.message).toBe('install failed: deployment ff-controller not ready before timeout: deployment "ff-controller" exceeded its progress deadline');

    await createCSV(ns, csvFor({ name: 'ff.v2.0.0', version: '2.0.0', replaces: 'ff.v1.0.0', deployment: 'ff-controller' }));
    // Replacing can be over (the failed CSV deleted) before a poll sees it: its message is checked when it is seen
    let replacing: ops.ClusterServiceVersion | undefined;
    await waitFor('ff.v1.0.0 Replacing, or already replaced', async () => {
      const c = await getCSV(ns, 'ff.v1.0.0');
      if (c === undefined) return true;
      if ((c.status?.conditions ?? []).some((x) => x.phase === 'Replacing')) replacing = c;
      return replacing !== undefined;
    }, { timeoutMs: 90_000 });
    if (replacing) expect(replacing.status?.conditions?.find((x) => x.phase === 'Replacing')?.message).toBe('Fail Forward is enabled, allowing Failed csv to be replaced by csv: ff.v2.0.0');
    await waitForCSV(ns, 'ff.v2.0.0', 'Succeeded', phaseIs('Succeeded'), 120_000);
    await waitFor('the failed CSV deleted', async () => (await getCSV(ns, 'ff.v1.0.0')) === undefined);
  });
});
