// The CSV lifecycle (internal/classic/csv) in process against the real cluster: Deployments roll out through the
// real deployment controller on KWOK nodes; the test creates what an InstallPlan would (CSV, CRD, ServiceAccount,
// RBAC) and asserts upstream's phases, reasons and messages.
import { describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import {
  createCRD,
  createCSV,
  createOperatorGroup,
  createServiceAccount,
  csvFor,
  csvPath,
  getCSV,
  grantNamespaced,
  metricValue,
  phaseIs,
  startOlmForFile,
  waitForCSV,
} from '../../support/classic-olm.ts';
import { createDenyPolicy, denyPolicyPaths } from '../../support/admission.ts';
import { adminKube, testNamespaces } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { setDeploymentPodsReady } from '../../support/workloads.ts';

const olm = startOlmForFile({ resyncMs: 60_000 });
const namespaces = testNamespaces();
const kube = (): TestKube => adminKube();

const namespace = (prefix: string): Promise<string> => namespaces.create(prefix);

const POD_RULES = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }];

describe('CSV install', () => {
  it('Pending → InstallReady → Installing → Succeeded as its Deployment becomes Available; csv_succeeded is 1', async () => {
    const ns = await namespace('csv-happy');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createServiceAccount(ns, 'operator');
    await grantNamespaced(ns, 'operator', 'operator-pods', POD_RULES);
    const crd = await createCRD(`happy-${ns}.example.com`, 'Widget');
    await createCSV(ns, csvFor({ name: 'happy.v1.0.0', permissions: POD_RULES, ownedCRDs: [{ name: crd, version: 'v1', kind: 'Widget' }] }));

    const csv = await waitForCSV(ns, 'happy.v1.0.0', 'Succeeded', phaseIs('Succeeded', 'InstallSucceeded'));
    expect(csv.status?.message).toBe('install strategy completed with no errors');
    expect(csv.status?.conditions?.map((c) => [c.phase, c.reason, c.message])).toEqual([
      ['Pending', 'RequirementsUnknown', 'requirements not yet checked'],
      ['InstallReady', 'AllRequirementsMet', 'all requirements found, attempting install'],
      ['Installing', 'InstallSucceeded', 'waiting for install components to report healthy'],
      ...(csv.status?.conditions?.length === 5 ? [['Installing', 'InstallWaiting', expect.stringContaining('installing: waiting for deployment happy-controller to become ready')]] : []),
      ['Succeeded', 'InstallSucceeded', 'install strategy completed with no errors'],
    ]);
    expect(csv.metadata.finalizers).toContain('operators.coreos.com/csv-cleanup');
    // Go's encoding/json writes CSVStatus.Cleanup (a struct, `omitempty` never omits it) on every upstream status write
    expect(csv.status?.cleanup).toEqual({});
    expect(csv.metadata.annotations).toMatchObject({ 'olm.operatorGroup': 'og', 'olm.operatorNamespace': ns, 'olm.targetNamespaces': ns });
    expect(csv.status?.requirementStatus).toEqual([
      { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name: crd, status: 'Present', message: 'CRD is present and Established condition is true', uuid: expect.any(String) },
      {
        group: '',
        version: 'v1',
        kind: 'ServiceAccount',
        name: 'operator',
        status: 'Present',
        message: '',
        dependents: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: 'Satisfied', message: 'namespaced rule:{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["pods"]}' }],
      },
    ]);

    const dep = await kube().must<{ metadata: { labels: Record<string, string>; ownerReferences: { kind: string; name: string }[] }; spec: { revisionHistoryLimit: number; template: { metadata: { annotations: Record<string, string> }; spec: { containers: { env?: { name: string; value: string }[] }[] } } } }>(
      kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/happy-controller`),
    );
    expect(dep.metadata.labels).toMatchObject({ 'olm.owner': 'happy.v1.0.0', 'olm.owner.namespace': ns, 'olm.owner.kind': 'ClusterServiceVersion', 'olm.managed': 'true' });
    expect(dep.metadata.labels['olm.deployment-spec-hash']).toMatch(/^[0-9a-zA-Z]+$/);
    expect(dep.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ClusterServiceVersion', name: 'happy.v1.0.0', controller: false, blockOwnerDeletion: false })]);
    expect(dep.spec.revisionHistoryLimit).toBe(1);
    expect(dep.spec.template.metadata.annotations).toMatchObject({ 'olm.operatorGroup': 'og', 'olm.targetNamespaces': ns, 'alm-examples': '[]' });
    expect(dep.spec.template.spec.containers[0]!.env).toEqual([{ name: 'OPERATOR_CONDITION_NAME', value: 'happy.v1.0.0' }]);

    expect(await metricValue(olm().metrics, `csv_succeeded{namespace="${ns}",name="happy.v1.0.0",version="1.0.0"}`)).toBe(1);

    // The OperatorCondition generated for the CSV.
    await waitFor('OperatorCondition', async () => (await kube().request('GET', TestKube.path(ops.V2, ops.OperatorConditionResource, 'happy.v1.0.0', ns))).status === 200);
    const oc = await kube().must<ops.OperatorCondition>(kube().request('GET', TestKube.path(ops.V2, ops.OperatorConditionResource, 'happy.v1.0.0', ns)));
    expect(oc.spec).toEqual({ deployments: ['happy-controller'], serviceAccounts: ['operator'] });
    // Its Role and RoleBinding let the operator's account read and update it.
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await waitFor('OperatorCondition RBAC', async () => (await kube().request('GET', `${rbac}/namespaces/${ns}/rolebindings/happy.v1.0.0`)).status === 200);
    const role = await kube().must<{ rules: object[]; metadata: { ownerReferences: { kind: string; controller: boolean }[] } }>(kube().request('GET', `${rbac}/namespaces/${ns}/roles/happy.v1.0.0`));
    expect(role.rules).toEqual([{ verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions'], resourceNames: ['happy.v1.0.0'] }]);
    expect(role.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'OperatorCondition', controller: true })]);
    const binding = await kube().must<{ subjects: object[] }>(kube().request('GET', `${rbac}/namespaces/${ns}/rolebindings/happy.v1.0.0`));
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'operator' }]);

    // The admin/edit/view ClusterRoles of the owned CRD.
    for (const suffix of ['admin', 'edit', 'view', 'crdview']) {
      await waitFor(`ClusterRole ${crd}-v1-${suffix}`, async () => (await kube().request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${crd}-v1-${suffix}`)).status === 200);
    }
  });

  it('a Pod made not ready after success: Failed with ComponentUnhealthy, then Succeeded again', async () => {
    const ns = await namespace('csv-unhealthy');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createServiceAccount(ns, 'operator');
    await createCSV(ns, csvFor({ name: 'flaky.v1.0.0' }));
    await waitForCSV(ns, 'flaky.v1.0.0', 'Succeeded', phaseIs('Succeeded'));

    await setDeploymentPodsReady(ns, 'flaky-controller', false);
    // Failed/ComponentUnhealthy, then (still unhealthy) Pending/NeedsReinstall and a reinstall that waits: the history says so.
    const failed = await waitForCSV(ns, 'flaky.v1.0.0', 'Failed/ComponentUnhealthy in its history', (c) =>
      (c.status?.conditions ?? []).some((x) => x.phase === 'Failed' && x.reason === 'ComponentUnhealthy'),
    );
    const cond = failed.status!.conditions!.find((x) => x.phase === 'Failed' && x.reason === 'ComponentUnhealthy')!;
    expect(cond.message).toBe('installing: waiting for deployment flaky-controller to become ready: deployment "flaky-controller" not available: Deployment does not have minimum availability.');
    expect(await metricValue(olm().metrics, `csv_succeeded{namespace="${ns}",name="flaky.v1.0.0",version="1.0.0"}`)).toBe(0);
    await waitForCSV(ns, 'flaky.v1.0.0', 'reinstalled and waiting', phaseIs('Installing', 'InstallWaiting'));
    await waitFor('csv_abnormal of the waiting phase', async () =>
      (await metricValue(olm().metrics, `csv_abnormal{namespace="${ns}",name="flaky.v1.0.0",version="1.0.0",phase="Installing",reason="InstallWaiting"}`)) === 1,
    );
    expect(await metricValue(olm().metrics, `csv_abnormal{namespace="${ns}",name="flaky.v1.0.0",version="1.0.0",phase="Failed",reason="ComponentUnhealthy"}`)).toBeUndefined();

    await setDeploymentPodsReady(ns, 'flaky-controller', true);
    await waitForCSV(ns, 'flaky.v1.0.0', 'Succeeded again', phaseIs('Succeeded'));
    expect(await metricValue(olm().metrics, `csv_succeeded{namespace="${ns}",name="flaky.v1.0.0",version="1.0.0"}`)).toBe(1);
    // The series of the old phase/reason is gone.
    const text = await olm().metrics.registry.metrics();
    expect(text).not.toContain(`csv_abnormal{namespace="${ns}",name="flaky.v1.0.0"`);
  });

  it('a Deployment the API server refuses: Failed/InstallComponentFailed with its message, retried with backoff, not in a loop', async () => {
    const ns = await namespace('csv-refused');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createServiceAccount(ns, 'operator');
    const bad = csvFor({ name: 'refused.v1.0.0' });
    (bad.spec.install.spec!.deployments[0]!.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { app: 'something-else' };
    await createCSV(ns, bad);
    const failed = await waitForCSV(ns, 'refused.v1.0.0', 'Failed/InstallComponentFailed', phaseIs('Failed', 'InstallComponentFailed'));
    expect(failed.status?.message).toMatch(
      /^install strategy failed: Deployment\.apps "refused-controller" is invalid: spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/,
    );
    // Four failed installs in the condition history: upstream goes on at once (several a second); here each waits
    // twice as long as the one before (1 s, 2 s, 4 s), the CSV Failed with the API server's message meanwhile.
    const failures = (c: ops.ClusterServiceVersion): string[] =>
      (c.status?.conditions ?? []).filter((x) => x.phase === 'Failed' && x.reason === 'InstallComponentFailed').map((x) => x.lastTransitionTime ?? '');
    const four = await waitForCSV(ns, 'refused.v1.0.0', 'four failed installs', (c) => failures(c).length >= 4, 60_000);
    const times = failures(four).slice(0, 4).map((t) => Date.parse(t) / 1000);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(1);
    expect(gaps[1]).toBeGreaterThanOrEqual(2);
    expect(gaps[2]).toBeGreaterThanOrEqual(4);
    expect(four.status?.conditions?.filter((x) => x.phase === 'Failed').every((x) => x.message === failed.status?.message)).toBe(true);
  });

  it('refused by a quota (Forbidden: upstream’s InsufficientPermissions, not retried) or an admission policy: Failed with the API server’s message', async () => {
    // quota: no Deployment may be created in the namespace
    const quotaNs = await namespace('csv-quota');
    await createOperatorGroup(quotaNs, 'og', { targetNamespaces: [quotaNs] });
    await createServiceAccount(quotaNs, 'operator');
    await kube().must(kube().request('POST', `/api/v1/namespaces/${quotaNs}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'no-deployments' }, spec: { hard: { 'count/deployments.apps': '0' } } }));
    await waitFor('the quota counted', async () => {
      const q = await kube().must<{ status?: { hard?: Record<string, string> } }>(kube().request('GET', `/api/v1/namespaces/${quotaNs}/resourcequotas/no-deployments`));
      return q.status?.hard?.['count/deployments.apps'] === '0';
    });
    await createCSV(quotaNs, csvFor({ name: 'quota.v1.0.0' }));
    const quota = await waitForCSV(quotaNs, 'quota.v1.0.0', 'Failed/InstallComponentFailedNoRetry', phaseIs('Failed', 'InstallComponentFailedNoRetry'));
    // upstream wraps a Forbidden install error twice (its StrategyError, then SetPhase's prefix)
    expect(quota.status?.message).toBe(
      'install strategy failed: install strategy failed: deployments.apps "quota-controller" is forbidden: exceeded quota: no-deployments, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0',
    );

    // admission: a ValidatingAdmissionPolicy denies Deployments in the namespace
    const vapNs = await namespace('csv-vap');
    await createOperatorGroup(vapNs, 'og', { targetNamespaces: [vapNs] });
    await createServiceAccount(vapNs, 'operator');
    const policy = `deny-deployments-${vapNs}`;
    await createDenyPolicy(kube(), policy, vapNs, {
      resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }],
      validations: [{ expression: 'false', message: 'no operator Deployments here' }],
    });
    try {
      // the API server enforces a new policy once it has loaded it: wait until a dry-run create is denied
      const probe = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'probe' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'c' }] } } } };
      await waitFor('the policy enforced', async () => (await kube().request('POST', `/apis/apps/v1/namespaces/${vapNs}/deployments?dryRun=All`, probe)).status >= 400);
      await createCSV(vapNs, csvFor({ name: 'vap.v1.0.0' }));
      const denied = await waitForCSV(vapNs, 'vap.v1.0.0', 'Failed', phaseIs('Failed'), 90_000);
      expect(denied.status?.message).toBe(
        `install strategy failed: deployments.apps "vap-controller" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: no operator Deployments here`,
      );
    } finally {
      for (const path of denyPolicyPaths(policy)) await kube().request('DELETE', path);
    }
  });

  it('a Deployment the OperatorGroup’s service account may not create: Failed/InstallComponentFailedNoRetry with the API server’s Forbidden message, Succeeded once the account is granted it', async () => {
    const ns = await namespace('csv-attenuated');
    await createServiceAccount(ns, 'installer');
    await createServiceAccount(ns, 'operator');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns], serviceAccountName: 'installer' });
    await createCSV(ns, csvFor({ name: 'attenuated.v1.0.0' }));
    const failed = await waitForCSV(ns, 'attenuated.v1.0.0', 'Failed/InstallComponentFailedNoRetry', phaseIs('Failed', 'InstallComponentFailedNoRetry'));
    // upstream: a Forbidden install error is StrategyErrInsufficientPermissions, wrapped twice; its create-or-update
    // reads the Deployment first, so an account without Deployment rights is refused the get
    expect(failed.status?.message).toBe(
      `install strategy failed: install strategy failed: deployments.apps "attenuated-controller" is forbidden: User "system:serviceaccount:${ns}:installer" cannot get resource "deployments" in API group "apps" in the namespace "${ns}"`,
    );
    expect((await kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/attenuated-controller`)).status).toBe(404);

    // RBAC of the namespace changed (upstream's rbac-change controller): the CSV is retried with the new rights
    await grantNamespaced(ns, 'installer', 'installer-deployments', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }]);
    const csv = await waitForCSV(ns, 'attenuated.v1.0.0', 'Succeeded', phaseIs('Succeeded', 'InstallSucceeded'));
    expect(csv.status?.message).toBe('install strategy completed with no errors');
    expect(csv.status?.conditions?.some((c) => c.phase === 'Pending' && c.reason === 'DetectedClusterChange' && c.message === 'Cluster resources changed state')).toBe(true);
    expect((await kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/attenuated-controller`)).status).toBe(200);
  });

  it('missing permissions show in requirementStatus with every unsatisfied rule', async () => {
    const ns = await namespace('csv-perms');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createServiceAccount(ns, 'operator');
    await grantNamespaced(ns, 'operator', 'some', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    const rules = [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete'] },
    ];
    const clusterRules = [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }];
    await createCSV(ns, csvFor({ name: 'perms.v1.0.0', permissions: rules, clusterPermissions: clusterRules }));
    const csv = await waitForCSV(ns, 'perms.v1.0.0', 'RequirementsNotMet', phaseIs('Pending', 'RequirementsNotMet'));
    expect(csv.status?.message).toBe("one or more requirements couldn't be found");
    expect(csv.status?.requirementStatus).toEqual([
      {
        group: '',
        version: 'v1',
        kind: 'ServiceAccount',
        name: 'operator',
        status: 'PresentNotSatisfied',
        message: 'Policy rule not satisfied for service account',
        dependents: [
          { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: 'Satisfied', message: 'namespaced rule:{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"]}' },
          { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: 'NotSatisfied', message: 'namespaced rule:{"verbs":["create","delete"],"apiGroups":["apps"],"resources":["deployments"]}' },
          { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: 'NotSatisfied', message: 'cluster rule:{"verbs":["list"],"apiGroups":[""],"resources":["nodes"]}' },
        ],
      },
    ]);
    // Granting the rest lets it install.
    await grantNamespaced(ns, 'operator', 'deployments', [rules[1]!]);
    const { grantCluster } = await import('../../support/classic-olm.ts');
    await grantCluster(ns, 'operator', `perms-${ns}`, clusterRules);
    await waitForCSV(ns, 'perms.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    await kube().request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/perms-${ns}`);
    await kube().request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/perms-${ns}`);
  });

  it('kubectl get csv shows upstream’s columns: Display, Version, Release, Replaces, Phase', async () => {
    const ns = await namespace('csv-table');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createServiceAccount(ns, 'operator');
    await createCSV(ns, csvFor({ name: 'table.v2.0.0', version: '2.0.0', replaces: 'table.v1.0.0' }));
    await waitForCSV(ns, 'table.v2.0.0', 'Succeeded', phaseIs('Succeeded'));
    const table = await kube().must<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>(kube().table(csvPath(ns)));
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Display', 'Version', 'Release', 'Replaces', 'Phase']);
    expect(table.rows[0]!.cells).toEqual(['table.v2.0.0', 'Test operator table.v2.0.0', '2.0.0', null, 'table.v1.0.0', 'Succeeded']);
  });

  it('deleting a CSV removes its finalizer-guarded cluster objects and the CSV goes', async () => {
    const ns = await namespace('csv-delete');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createServiceAccount(ns, 'operator');
    await createCSV(ns, csvFor({ name: 'gone.v1.0.0' }));
    await waitForCSV(ns, 'gone.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    await kube().must(kube().request('DELETE', csvPath(ns, 'gone.v1.0.0')));
    await waitFor('CSV gone', async () => (await getCSV(ns, 'gone.v1.0.0')) === undefined);
  });
});

describe('owned webhooks', () => {
  it('installs the Service, certificate Secret, RBAC and ValidatingWebhookConfiguration as upstream, then cleans up on deletion', async () => {
    const ns = await namespace('csv-webhook');
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createServiceAccount(ns, 'operator');
    const base = csvFor({ name: 'hooked.v1.0.0', deployment: 'hooked-controller' });
    const hook = {
      type: 'ValidatingAdmissionWebhook' as const,
      generateName: 'vwidget.example.com',
      deploymentName: 'hooked-controller',
      containerPort: 9443,
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Ignore',
      webhookPath: '/validate',
      rules: [{ apiGroups: [`hooked-${ns}.example.com`], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }],
    };
    await createCSV(ns, { ...base, spec: { ...base.spec, webhookdefinitions: [hook] } });
    const csv = await waitForCSV(ns, 'hooked.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    expect(csv.status?.certsRotateAt).toMatch(/^\d{4}-/);
    expect(csv.status?.certsLastUpdated).toMatch(/^\d{4}-/);

    const svc = await kube().must<{ spec: { ports: { name: string; port: number; targetPort: number }[]; selector: Record<string, string> } }>(kube().request('GET', `/api/v1/namespaces/${ns}/services/hooked-controller-service`));
    expect(svc.spec.ports).toEqual([expect.objectContaining({ name: '9443', port: 9443, targetPort: 9443 })]);
    expect(svc.spec.selector).toEqual({ app: 'hooked-controller' });
    const secret = await kube().must<{ type: string; data: Record<string, string>; metadata: { annotations: Record<string, string> } }>(
      kube().request('GET', `/api/v1/namespaces/${ns}/secrets/hooked-controller-service-cert`),
    );
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(Object.keys(secret.data).sort()).toEqual(['olmCAKey', 'tls.crt', 'tls.key']);
    const caPEM = Buffer.from(secret.data['olmCAKey']!, 'base64').toString();
    const { X509Certificate, createHash } = await import('node:crypto');
    const cert = new X509Certificate(Buffer.from(secret.data['tls.crt']!, 'base64'));
    expect(cert.checkIssued(new X509Certificate(caPEM))).toBe(true);
    expect(cert.checkHost(`hooked-controller-service.${ns}.svc`)).toBe(`hooked-controller-service.${ns}.svc`);
    const caHash = createHash('sha256').update(caPEM).digest('hex');
    expect(secret.metadata.annotations['olmcahash']).toBe(caHash);

    const cfgs = await kube().must<{ items: { metadata: { name: string; labels: Record<string, string> }; webhooks: { name: string; clientConfig: { caBundle: string; service: object }; namespaceSelector: object; rules: object[] }[] }[] }>(
      kube().request('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?labelSelector=${encodeURIComponent(`olm.owner=hooked.v1.0.0,olm.owner.namespace=${ns}`)}`),
    );
    expect(cfgs.items).toHaveLength(1);
    const cfg = cfgs.items[0]!;
    expect(cfg.metadata.name).toMatch(/^vwidget\.example\.com-[a-z0-9]+$/);
    expect(cfg.metadata.labels).toMatchObject({ 'olm.webhook-description-generate-name': 'vwidget.example.com', 'olm.owner.kind': 'ClusterServiceVersion', 'olm.managed': 'true' });
    expect(cfg.webhooks[0]!.name).toBe('vwidget.example.com');
    expect(Buffer.from(cfg.webhooks[0]!.clientConfig.caBundle, 'base64').toString()).toBe(caPEM);
    expect(cfg.webhooks[0]!.clientConfig.service).toEqual({ name: 'hooked-controller-service', namespace: ns, path: '/validate', port: 9443 });
    const og = await kube().must<ops.OperatorGroup>(kube().request('GET', TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns)));
    expect(cfg.webhooks[0]!.namespaceSelector).toEqual({ matchLabels: { [`olm.operatorgroup.uid/${og.metadata.uid}`]: '' } });

    const dep = await kube().must<{ spec: { template: { metadata: { annotations: Record<string, string> }; spec: { volumes: { name: string }[]; containers: { volumeMounts: { name: string; mountPath: string }[] }[] } } } }>(
      kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/hooked-controller`),
    );
    expect(dep.spec.template.metadata.annotations['olmcahash']).toBe(caHash);
    expect(dep.spec.template.spec.volumes.map((v) => v.name)).toEqual(['apiservice-cert', 'webhook-cert']);
    expect(dep.spec.template.spec.containers[0]!.volumeMounts).toEqual([
      { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' },
      { name: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' },
    ]);
    for (const path of [
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/hooked-controller-service-cert`,
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/hooked-controller-service-cert`,
      `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/hooked-controller-service-system:auth-delegator`,
      `/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/hooked-controller-service-auth-reader`,
    ]) {
      expect((await kube().request('GET', path)).status, path).toBe(200);
    }

    await kube().must(kube().request('DELETE', csvPath(ns, 'hooked.v1.0.0')));
    await waitFor('CSV gone', async () => (await getCSV(ns, 'hooked.v1.0.0')) === undefined);
    expect((await kube().request('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${cfg.metadata.name}`)).status).toBe(404);
    expect((await kube().request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/hooked-controller-service-system:auth-delegator')).status).toBe(404);
    await kube().request('DELETE', '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/hooked-controller-service-auth-reader');
  });

  it('a conversion webhook is set on the owned CRD (AllNamespaces-only operators) and taken off when the CSV goes', async () => {
    const ns = await namespace('csv-conversion');
    await createOperatorGroup(ns, 'global');
    await createServiceAccount(ns, 'operator');
    const crd = await createCRD(`conv-${ns}.example.com`, 'Thing');
    const base = csvFor({
      name: 'conv.v1.0.0',
      deployment: 'conv-controller',
      installModes: { OwnNamespace: false, SingleNamespace: false, MultiNamespace: false, AllNamespaces: true },
      ownedCRDs: [{ name: crd, version: 'v1', kind: 'Thing' }],
    });
    const hook = { type: 'ConversionWebhook' as const, generateName: 'cthing.example.com', deploymentName: 'conv-controller', containerPort: 443, admissionReviewVersions: ['v1'], sideEffects: 'None', conversionCRDs: [crd], webhookPath: '/convert' };
    await createCSV(ns, { ...base, spec: { ...base.spec, webhookdefinitions: [hook] } });
    await waitForCSV(ns, 'conv.v1.0.0', 'Succeeded', phaseIs('Succeeded'));
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`;
    const got = await kube().must<{ spec: { conversion: { strategy: string; webhook?: { clientConfig: { service: object; caBundle: string }; conversionReviewVersions: string[] } } } }>(kube().request('GET', path));
    expect(got.spec.conversion.strategy).toBe('Webhook');
    expect(got.spec.conversion.webhook?.clientConfig.service).toEqual({ namespace: ns, name: 'conv-controller-service', path: '/convert', port: 443 });
    expect(Buffer.from(got.spec.conversion.webhook!.clientConfig.caBundle, 'base64').toString()).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(got.spec.conversion.webhook?.conversionReviewVersions).toEqual(['v1']);

    await kube().must(kube().request('DELETE', csvPath(ns, 'conv.v1.0.0')));
    await waitFor('CSV gone', async () => (await getCSV(ns, 'conv.v1.0.0')) === undefined);
    const after = await kube().must<{ spec: { conversion: { strategy: string; webhook?: unknown } } }>(kube().request('GET', path));
    expect(after.spec.conversion).toEqual({ strategy: 'None' });
    await kube().request('DELETE', `/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/conv-controller-service-auth-reader`);
  });
});
