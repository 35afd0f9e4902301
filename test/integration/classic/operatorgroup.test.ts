// OperatorGroups (internal/classic/operatorgroup) and the CSV's install-mode checks and copies
// (internal/classic/csv), in process against the real cluster.
import { describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { createCRD, createCSV, createOperatorGroup, createServiceAccount, csvFor, csvPath, getCSV, grantNamespaced, phaseIs, startOlmForFile, waitForCSV } from '../../support/classic-olm.ts';
import { adminKube, testNamespaces } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';

const olm = startOlmForFile({ resyncMs: 60_000 });
const namespaces = testNamespaces();
const kube = (): TestKube => adminKube();

const namespace = (prefix: string): Promise<string> => namespaces.create(prefix);
const ogPath = (ns: string, name: string): string => TestKube.path(ops.V1, ops.OperatorGroupResource, name, ns);
const getOG = (ns: string, name: string): Promise<ops.OperatorGroup> => kube().must<ops.OperatorGroup>(kube().request('GET', ogPath(ns, name)));

describe('OperatorGroup and install modes', () => {
  it('an OwnNamespace-only operator under an AllNamespaces group fails with UnsupportedOperatorGroup', async () => {
    const ns = await namespace('og-all');
    await createOperatorGroup(ns, 'global');
    await createServiceAccount(ns, 'operator');
    await createCSV(ns, csvFor({ name: 'own.v1.0.0', installModes: { AllNamespaces: false, MultiNamespace: false, SingleNamespace: false } }));
    const csv = await waitForCSV(ns, 'own.v1.0.0', 'UnsupportedOperatorGroup', phaseIs('Failed', 'UnsupportedOperatorGroup'));
    expect(csv.status?.message).toBe('AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces');
    expect(csv.metadata.annotations?.['olm.targetNamespaces']).toBe('');
    const og = await getOG(ns, 'global');
    expect(og.status?.namespaces).toEqual(['']);
    // The group's admin/edit/view ClusterRoles: made on the pass after the one that wrote status.namespaces.
    const roleNames = async (): Promise<string[]> =>
      (
        await kube().must<{ items: { metadata: { name: string } }[] }>(
          kube().request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles?labelSelector=${encodeURIComponent(`olm.owner=global,olm.owner.namespace=${ns},olm.owner.kind=OperatorGroup`)}`),
        )
      ).items
        .map((r) => r.metadata.name.replace(/-[0-9a-zA-Z]+$/, ''))
        .sort();
    await waitFor('the group ClusterRoles', async () => (await roleNames()).length >= 3);
    expect(await roleNames()).toEqual(['olm.og.global.admin', 'olm.og.global.edit', 'olm.og.global.view']);
  });

  it('no OperatorGroup: Failed/NoOperatorGroup; two: Failed/TooManyOperatorGroups and the MultipleOperatorGroup condition', async () => {
    const ns = await namespace('og-none');
    await createServiceAccount(ns, 'operator');
    await createCSV(ns, csvFor({ name: 'lonely.v1.0.0' }));
    const none = await waitForCSV(ns, 'lonely.v1.0.0', 'NoOperatorGroup', phaseIs('Failed', 'NoOperatorGroup'));
    expect(none.status?.message).toBe('csv in namespace with no operatorgroups');
    await createOperatorGroup(ns, 'one', { targetNamespaces: [ns] });
    await createOperatorGroup(ns, 'two', { targetNamespaces: [ns] });
    const many = await waitForCSV(ns, 'lonely.v1.0.0', 'TooManyOperatorGroups', phaseIs('Failed', 'TooManyOperatorGroups'));
    expect(many.status?.message).toBe("csv created in namespace with multiple operatorgroups, can't pick one automatically");
    await waitFor('MultipleOperatorGroup condition', async () => {
      const og = await getOG(ns, 'one');
      return (og.status?.conditions ?? []).some((c) => c.type === 'MultipleOperatorGroup' && c.status === 'True' && c.reason === 'MultipleOperatorGroupsFound' && c.message === 'Multiple OperatorGroup found in the same namespace');
    });
    await kube().must(kube().request('DELETE', ogPath(ns, 'two')));
    await waitForCSV(ns, 'lonely.v1.0.0', 'Succeeded once one group is left', phaseIs('Succeeded'));
    await waitFor('condition cleared', async () => !((await getOG(ns, 'one')).status?.conditions ?? []).some((c) => c.type === 'MultipleOperatorGroup'));
  });

  it('SingleNamespace and MultiNamespace groups copy the CSV into their targets', async () => {
    const ns = await namespace('og-multi');
    const t1 = await namespace('og-t1');
    const t2 = await namespace('og-t2');
    await createOperatorGroup(ns, 'multi', { targetNamespaces: [t2, t1] });
    await createServiceAccount(ns, 'operator');
    await createCSV(ns, csvFor({ name: 'multi.v1.0.0' }));
    const csv = await waitForCSV(ns, 'multi.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    expect(csv.metadata.annotations?.['olm.targetNamespaces']).toBe([t1, t2].sort().join(','));
    for (const t of [t1, t2]) {
      await waitFor(`copy in ${t}`, async () => {
        const c = await getCSV(t, 'multi.v1.0.0');
        return c?.status?.reason === 'Copied' && c.status.phase === 'Succeeded';
      });
      const copy = (await getCSV(t, 'multi.v1.0.0'))!;
      expect(copy.metadata.labels?.['olm.copiedFrom']).toBe(ns);
      expect(copy.metadata.annotations?.['olm.operatorNamespace']).toBe(ns);
      expect(copy.metadata.annotations?.['olm.targetNamespaces']).toBeUndefined();
      expect(copy.status?.phase).toBe('Succeeded');
      expect(copy.status?.message).toBe(`The operator is running in ${ns} but is managing this namespace`);
      // Namespaces the group targets carry its label.
      const nsObj = await kube().must<{ metadata: { labels?: Record<string, string> } }>(kube().request('GET', `/api/v1/namespaces/${t}`));
      const og = await getOG(ns, 'multi');
      expect(nsObj.metadata.labels?.[`olm.operatorgroup.uid/${og.metadata.uid}`]).toBe('');
    }
    // Narrowing the group to one target (SingleNamespace) removes the other copy.
    await kube().must(kube().request('PATCH', ogPath(ns, 'multi'), { spec: { targetNamespaces: [t1] } }, 'application/merge-patch+json'));
    await waitFor(`copy in ${t2} removed`, async () => (await getCSV(t2, 'multi.v1.0.0')) === undefined);
    expect((await getCSV(t1, 'multi.v1.0.0'))?.status?.reason).toBe('Copied');
    await waitForCSV(ns, 'multi.v1.0.0', 'annotation follows', (c) => c.metadata.annotations?.['olm.targetNamespaces'] === t1 && c.status?.phase === 'Succeeded');
    // Deleting the CSV removes its copies.
    await kube().must(kube().request('DELETE', csvPath(ns, 'multi.v1.0.0')));
    await waitFor(`copy in ${t1} removed`, async () => (await getCSV(t1, 'multi.v1.0.0')) === undefined);
  });

  it('provided APIs: the group annotation, and a second group over the same namespace providing the same API conflicts', async () => {
    const a = await namespace('og-api-a');
    const b = await namespace('og-api-b');
    const target = await namespace('og-api-t');
    const crd = await createCRD(`apis-${a}.example.com`, 'Gadget');
    await createOperatorGroup(a, 'og', { targetNamespaces: [target] });
    await createOperatorGroup(b, 'og', { targetNamespaces: [target] });
    await createServiceAccount(a, 'operator');
    await createServiceAccount(b, 'operator');
    const owned = [{ name: crd, version: 'v1', kind: 'Gadget' }];
    await createCSV(a, csvFor({ name: 'gadget.v1.0.0', ownedCRDs: owned }));
    await waitForCSV(a, 'gadget.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    expect((await getOG(a, 'og')).metadata.annotations?.['olm.providedAPIs']).toBe(`Gadget.v1.apis-${a}.example.com`);
    await createCSV(b, csvFor({ name: 'gadget2.v1.0.0', ownedCRDs: owned }));
    const conflict = await waitForCSV(b, 'gadget2.v1.0.0', 'conflict', phaseIs('Failed', 'InterOperatorGroupOwnerConflict'));
    expect(conflict.status?.message).toBe('intersecting operatorgroups provide the same apis');
  });

  it('a group’s service account installs the operator; without the rights it fails without retry until RBAC changes', async () => {
    const ns = await namespace('og-sa');
    await createServiceAccount(ns, 'installer');
    await createServiceAccount(ns, 'operator');
    await createOperatorGroup(ns, 'scoped', { targetNamespaces: [ns], serviceAccountName: 'installer' });
    await waitFor('serviceAccountRef', async () => (await getOG(ns, 'scoped')).status?.serviceAccountRef?.name === 'installer');
    await createCSV(ns, csvFor({ name: 'scoped.v1.0.0' }));
    const failed = await waitForCSV(ns, 'scoped.v1.0.0', 'InstallComponentFailedNoRetry', phaseIs('Failed', 'InstallComponentFailedNoRetry'));
    expect(failed.status?.message).toBe(
      `install strategy failed: install strategy failed: deployments.apps "scoped-controller" is forbidden: User "system:serviceaccount:${ns}:installer" cannot get resource "deployments" in API group "apps" in the namespace "${ns}"`,
    );
    // An RBAC change in the namespace brings it back (Pending/DetectedClusterChange) and it installs as the account.
    await grantNamespaced(ns, 'installer', 'installer', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'create', 'update', 'delete'] }]);
    const done = await waitForCSV(ns, 'scoped.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    expect(done.status?.conditions?.map((c) => c.reason)).toContain('DetectedClusterChange');
    expect(done.status?.conditions?.find((c) => c.reason === 'DetectedClusterChange')?.message).toBe('Cluster resources changed state');
  });

  it('a group that switches to a service account with the rights resets its CSV that failed without retry (Pending/DetectedClusterChange)', async () => {
    const ns = await namespace('og-sa-switch');
    await createServiceAccount(ns, 'installer');
    await createServiceAccount(ns, 'operator');
    // The second account has its rights before the CSV exists, so no RBAC change comes after the failure: only the
    // group's new service account can bring the CSV back.
    await createServiceAccount(ns, 'installer2');
    await grantNamespaced(ns, 'installer2', 'installer2', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'create', 'update', 'delete'] }]);
    await createOperatorGroup(ns, 'scoped', { targetNamespaces: [ns], serviceAccountName: 'installer' });
    await waitFor('serviceAccountRef', async () => (await getOG(ns, 'scoped')).status?.serviceAccountRef?.name === 'installer');
    await createCSV(ns, csvFor({ name: 'switch.v1.0.0' }));
    await waitForCSV(ns, 'switch.v1.0.0', 'InstallComponentFailedNoRetry', phaseIs('Failed', 'InstallComponentFailedNoRetry'));
    await kube().must(kube().request('PATCH', ogPath(ns, 'scoped'), { spec: { serviceAccountName: 'installer2' } }, 'application/merge-patch+json'));
    const done = await waitForCSV(ns, 'switch.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    const reset = done.status?.conditions?.find((c) => c.reason === 'DetectedClusterChange');
    expect(reset).toMatchObject({ phase: 'Pending', message: 'Cluster resources changed state' });
  });

  it('an all-namespaces operator whose Roles come after its CSV (as its InstallPlan makes them): lifted to ClusterRoles, Succeeded, hardly a "couldn\'t ensure RBAC" line above debug', async () => {
    const ns = await namespace('og-lift');
    await createOperatorGroup(ns, 'global');
    await createServiceAccount(ns, 'operator');
    const name = 'lifted.v1.0.0';
    const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }];
    await createCSV(ns, csvFor({ name, permissions: rules }));
    try {
      await waitForCSV(ns, name, 'Pending/RequirementsNotMet', phaseIs('Pending', 'RequirementsNotMet'));
      const role = `${name}-operator-lift`;
      await grantNamespaced(ns, 'operator', role, rules, { 'olm.owner': name, 'olm.owner.namespace': ns, 'olm.owner.kind': 'ClusterServiceVersion' });
      await waitForCSV(ns, name, 'Succeeded', phaseIs('Succeeded'));
      const rbac = '/apis/rbac.authorization.k8s.io/v1';
      const cr = await kube().must<{ rules: object[] }>(kube().request('GET', `${rbac}/clusterroles/${role}`));
      expect(cr.rules).toEqual([...rules, { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] }]);
      const crb = await kube().must<{ roleRef: object; subjects: object[] }>(kube().request('GET', `${rbac}/clusterrolebindings/${role}`));
      expect(crb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role });
      expect(crb.subjects).toEqual([{ kind: 'ServiceAccount', name: 'operator', namespace: ns }]);
      // the wait for the Roles is routine (debug), and a lifted object a pass made before the cache saw it is no error
      const lines = olm().logs.filter((l) => l.msg === "couldn't ensure RBAC in target namespaces" && l['namespace'] === ns && l.level !== 'debug');
      expect(lines.length, JSON.stringify(lines)).toBeLessThanOrEqual(2);
    } finally {
      await kube().request('DELETE', csvPath(ns, name));
      await waitFor('all-namespaces CSV gone', async () => (await getCSV(ns, name)) === undefined);
    }
  });

  it('OLMConfig disableCopiedCSVs: copies of an all-namespaces operator removed and back, with the DisabledCopiedCSVs condition', async () => {
    const ns = await namespace('og-copies');
    const t = await namespace('og-copies-t');
    await createOperatorGroup(ns, 'global');
    await createServiceAccount(ns, 'operator');
    await createCSV(ns, csvFor({ name: 'everywhere.v1.0.0' }));
    await waitForCSV(ns, 'everywhere.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    await waitFor(`copy in ${t}`, async () => (await getCSV(t, 'everywhere.v1.0.0'))?.status?.reason === 'Copied');

    const cfgPath = '/apis/operators.coreos.com/v1/olmconfigs/cluster';
    const condition = async (): Promise<{ status: string; reason: string; message: string } | undefined> => {
      const r = await kube().request<{ status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }>('GET', cfgPath);
      return r.body.status?.conditions?.find((c) => c.type === 'DisabledCopiedCSVs');
    };
    await kube().must(kube().apply({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', metadata: { name: 'cluster' }, spec: { features: { disableCopiedCSVs: true } } }, 'olmconfigs'));
    try {
      await waitFor(`copy in ${t} removed`, async () => (await getCSV(t, 'everywhere.v1.0.0')) === undefined);
      await waitFor('condition: disabled, nothing unexpected', async () => (await condition())?.status === 'True');
      expect(await condition()).toMatchObject({
        status: 'True',
        reason: 'CopiedCSVsDisabled',
        message: 'Copied CSVs are disabled and no unexpected copied CSVs were found for operators installed in AllNamespace mode',
      });
      const events = await kube().must<{ items: { reason: string; message: string; type: string; involvedObject: { name: string } }[] }>(kube().request('GET', `/api/v1/namespaces/${ns}/events`));
      expect(events.items.filter((e) => e.involvedObject.name === 'everywhere.v1.0.0').map((e) => `${e.type} ${e.reason}: ${e.message}`)).toContain(
        `Warning DisabledCopiedCSVs: CSV copying disabled for ${ns}/everywhere.v1.0.0`,
      );

      await kube().must(kube().apply({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', metadata: { name: 'cluster' }, spec: { features: { disableCopiedCSVs: false } } }, 'olmconfigs'));
      await waitFor(`copy in ${t} back`, async () => (await getCSV(t, 'everywhere.v1.0.0'))?.status?.reason === 'Copied');
      await waitFor('condition: enabled', async () => (await condition())?.reason === 'CopiedCSVsEnabled');
      expect((await condition())?.status).toBe('False');
      expect((await condition())?.message).toMatch(/^Copied CSVs are enabled and (present across the cluster|at least one copied CSVs is missing)$/);
    } finally {
      await kube().request('DELETE', cfgPath);
      await kube().request('DELETE', csvPath(ns, 'everywhere.v1.0.0'));
      await waitFor('all-namespaces CSV gone', async () => (await getCSV(ns, 'everywhere.v1.0.0')) === undefined);
    }
  });
});
