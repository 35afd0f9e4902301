// The InstallPlan controller (internal/classic/installplan) in process against the real cluster. Plans are
// created as upstream's catalog operator creates them (generateName install-, spec, then status through the
// status subresource with every step Unknown); what the controller does with them is read back from the API.
// The OperatorGroup controller is not part of this process: where a test needs an OperatorGroup's status
// (the namespaces it manages, its synced service account) the test writes it, as that controller would.
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { fnv64a } from '../../../internal/shared/toolkit/index.ts';
import { installPlanSetup, validateCustomResource, type InstallPlanParts, type JsonSchemaProps } from '../../../internal/classic/installplan/index.ts';
import { formatTime } from '../../../internal/shared/controller/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { createMetrics, type Metrics } from '../../../internal/shared/observability/index.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { createDenyPolicy, denyPolicyPaths } from '../../support/admission.ts';
import { adminKube, controlPlane, testNamespaces } from '../../support/env.ts';
import { capturedLogger, inProcessManagerOptions, runParts, waitForSettled, type LogLine } from '../../support/in-process.ts';
import { TestKube, type KubeObject } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';

const RETRY_TIMEOUT_MS = 3_000;
const kube = (): TestKube => adminKube();
let parts: InstallPlanParts;
let metrics: Metrics;
let run: { stop(): Promise<void> };
let logs: LogLine[] = [];
const namespaces = testNamespaces();
const clusterObjects: string[] = [];

beforeAll(async () => {
  await installClassicCRDs(kube());
  const captured = capturedLogger('olm-classic', 'CLASSIC_TEST_LOG');
  const { logger } = captured;
  logs = captured.logs;
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const sandbox = await mkdtemp(join(tmpdir(), 'olm-classic-ip-'));
  metrics = createMetrics({ defaultMetrics: false });
  parts = await installPlanSetup({ operatorNamespace: 'olm', retryTimeoutMs: RETRY_TIMEOUT_MS })({
    options: inProcessManagerOptions('olm-classic-ip-test'),
    client,
    logger,
    metrics,
  });
  run = await runParts(parts, { client, sandbox });
}, 120_000);
afterAll(async () => {
  await run?.stop();
  for (const path of clusterObjects) await kube().request('DELETE', path);
});

// ---- fixtures --------------------------------------------------------------------------------------------

const namespace = (prefix: string): Promise<string> => namespaces.create(prefix);

const suffix = (): string => randomUUID().slice(0, 6);

/** An OperatorGroup managing its own namespace, its status written as the OperatorGroup controller would. */
async function operatorGroup(ns: string, o: { serviceAccountName?: string; synced?: boolean; managing?: boolean } = {}): Promise<void> {
  const path = TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns);
  const og = await kube().must<KubeObject>(
    kube().request('POST', path, {
      apiVersion: ops.V1,
      kind: ops.OperatorGroupKind,
      metadata: { name: 'og', namespace: ns },
      spec: { targetNamespaces: [ns], ...(o.serviceAccountName && { serviceAccountName: o.serviceAccountName }) },
    }),
  );
  if (o.managing === false) return;
  await kube().must(
    kube().request('PUT', `${TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns)}/status`, {
      ...og,
      status: {
        lastUpdated: formatTime(new Date()),
        namespaces: [ns],
        ...(o.synced && o.serviceAccountName && { serviceAccountRef: { kind: 'ServiceAccount', namespace: ns, name: o.serviceAccountName, apiVersion: 'v1' } }),
      },
    }),
  );
}

type Manifest = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; [k: string]: unknown } };

function step(resolving: string, obj: Manifest, kind = obj.kind): ops.Step {
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
  return {
    resolving,
    resource: { sourceName: 'catalog', sourceNamespace: 'olm', group: group!, version: version!, kind, name: obj.metadata.name, manifest: JSON.stringify(obj) },
    status: ops.StepStatusUnknown,
  };
}

const csv = (name: string, ownedCrds: { name: string; version: string; kind: string }[] = []): Manifest => ({
  apiVersion: ops.V1alpha1,
  kind: ops.ClusterServiceVersionKind,
  metadata: { name },
  spec: {
    displayName: name,
    install: { strategy: 'deployment', spec: { deployments: [] } },
    customresourcedefinitions: { owned: ownedCrds },
  },
});

function crd(group: string, kind: string, versions: { name: string; storage?: boolean; served?: boolean; maxReplicas?: number }[]): Manifest {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? false,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', ...(v.maxReplicas !== undefined && { maximum: v.maxReplicas }) } } } },
          },
        },
      })),
    },
  };
}

interface PlanInput {
  readonly approval?: 'Automatic' | 'Manual';
  readonly csvNames: string[];
  readonly steps: ops.Step[];
  readonly generation?: number;
}

/** As the catalog operator does: create the plan, then write its status (phase, catalog sources, steps). */
async function createPlan(ns: string, input: PlanInput): Promise<string> {
  const approval = input.approval ?? 'Automatic';
  const path = TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, ns);
  const created = await kube().must<ops.InstallPlan & KubeObject>(
    kube().request('POST', path, {
      apiVersion: ops.V1alpha1,
      kind: ops.InstallPlanKind,
      metadata: { generateName: 'install-', namespace: ns },
      spec: { clusterServiceVersionNames: input.csvNames, approval, approved: approval === 'Automatic', generation: input.generation ?? 1 },
    }),
  );
  const name = created.metadata.name!;
  await kube().must(
    kube().request('PUT', `${TestKube.path(ops.V1alpha1, ops.InstallPlanResource, name, ns)}/status`, {
      ...created,
      status: {
        phase: approval === 'Automatic' ? ops.InstallPlanPhaseInstalling : ops.InstallPlanPhaseRequiresApproval,
        catalogSources: ['catalog'],
        plan: input.steps,
      },
    }),
  );
  return name;
}

async function getPlan(ns: string, name: string): Promise<ops.InstallPlan> {
  return kube().must<ops.InstallPlan>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, name, ns)));
}

async function waitForPlan(ns: string, name: string, what: string, ok: (p: ops.InstallPlan) => boolean, timeoutMs = 60_000): Promise<ops.InstallPlan> {
  let last: ops.InstallPlan | undefined;
  await waitFor(
    `InstallPlan ${ns}/${name}: ${what}`,
    async () => {
      last = await getPlan(ns, name);
      return ok(last);
    },
    { timeoutMs, intervalMs: 100 },
  );
  return last!;
}

const phase = (p: ops.InstallPlan): string | undefined => p.status?.phase;
const installed = (p: ops.InstallPlan): ops.InstallPlanCondition | undefined => p.status?.conditions?.find((c) => c.type === 'Installed');

async function get(path: string): Promise<KubeObject | undefined> {
  const r = await kube().request<KubeObject>('GET', path);
  return r.status === 200 ? r.body : undefined;
}

/** Every status the plan goes through while `during` runs (a watch from before its creation). */
async function watchPlans(ns: string): Promise<{ seen: ops.InstallPlan[]; stop(): void }> {
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const seen: ops.InstallPlan[] = [];
  const abort = new AbortController();
  void (async () => {
    try {
      for await (const ev of client.watch<ops.InstallPlan>({ apiVersion: ops.V1alpha1, kind: ops.InstallPlanKind, namespace: ns }, { signal: abort.signal, resourceVersion: '0' })) {
        if (ev.type !== 'BOOKMARK') seen.push(ev.object);
      }
    } catch {
      /* stopped */
    }
  })();
  return {
    seen,
    stop: () => {
      abort.abort();
      void client.close();
    },
  };
}

// ---- tests -----------------------------------------------------------------------------------------------

describe('InstallPlan execution', () => {
  it('Automatic: every kind of step is applied as upstream does and the plan Completes', async () => {
    const ns = await namespace('ip-auto');
    await operatorGroup(ns);
    const s = suffix();
    const csvName = `demo.v1.${s}`;
    const group = `auto${s}.olm.test`;
    const theCrd = crd(group, 'Widget', [{ name: 'v1', storage: true }]);
    const crName = `ip-auto-${s}`;
    const owner = [{ apiVersion: ops.V1alpha1, kind: ops.ClusterServiceVersionKind, name: csvName, uid: '' }];
    clusterObjects.push(
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${theCrd.metadata.name}`,
      `/apis/rbac.authorization.k8s.io/v1/clusterroles/${crName}`,
      `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${crName}`,
      `/apis/scheduling.k8s.io/v1/priorityclasses/${crName}`,
    );
    const steps = [
      step(csvName, csv(csvName, [{ name: theCrd.metadata.name, version: 'v1', kind: 'Widget' }])),
      step(csvName, theCrd),
      step(csvName, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'demo', ownerReferences: owner } }),
      step(csvName, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'demo', ownerReferences: owner }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }),
      step(csvName, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'demo', ownerReferences: owner },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'demo' },
        subjects: [{ kind: 'ServiceAccount', name: 'demo', namespace: ns }],
      }),
      step(csvName, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: crName }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }] }),
      step(csvName, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: crName },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: crName },
        subjects: [{ kind: 'ServiceAccount', name: 'demo', namespace: ns }],
      }),
      step(csvName, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'demo-secret' }, stringData: { token: 'x' } }, 'BundleSecret'),
      step(csvName, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo-config' }, data: { a: 'b' } }),
      step(csvName, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'demo-svc' }, spec: { ports: [{ port: 8080 }], selector: { app: 'demo' } } }),
      step(csvName, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: crName }, value: 1000 }),
      step(csvName, { apiVersion: ops.V1alpha1, kind: ops.SubscriptionKind, metadata: { name: 'dependency' }, spec: { name: 'dep', source: 'catalog', sourceNamespace: 'olm', channel: 'stable' } }),
    ];
    const name = await createPlan(ns, { csvNames: [csvName], steps });
    const done = await waitForPlan(ns, name, 'Complete', (p) => phase(p) === ops.InstallPlanPhaseComplete);

    expect(installed(done)).toMatchObject({ status: 'True' });
    expect(installed(done)?.reason).toBeUndefined();
    expect(done.status?.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(done.status?.message).toBeUndefined();
    expect(done.status?.plan?.map((p) => `${p.resource.kind}:${p.status}`)).toEqual([
      'ClusterServiceVersion:Created',
      'CustomResourceDefinition:Created',
      'ServiceAccount:Created',
      'Role:Created',
      'RoleBinding:Created',
      'ClusterRole:Created',
      'ClusterRoleBinding:Created',
      'BundleSecret:Created',
      'ConfigMap:Created',
      'Service:Created',
      'PriorityClass:Created',
      'Subscription:Created',
    ]);

    const theCsv = (await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, csvName, ns)))!;
    expect((theCsv.metadata['labels'] as Record<string, string>)['olm.managed']).toBe('true');
    const csvRef = { apiVersion: ops.V1alpha1, kind: ops.ClusterServiceVersionKind, name: csvName, uid: theCsv.metadata['uid'], blockOwnerDeletion: false, controller: false };
    const crdObj = (await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${theCrd.metadata.name}`))!;
    expect(crdObj.metadata['labels']).toMatchObject({ 'olm.managed': 'true' });
    expect(crdObj.metadata['annotations']).toEqual({ [`operatorframework.io/installed-alongside-${fnv64a(`${ns}/${csvName}`).toString(16)}`]: `${ns}/${csvName}` });
    for (const [path, ownerRef] of [
      [`/api/v1/namespaces/${ns}/serviceaccounts/demo`, { ...csvRef, blockOwnerDeletion: undefined, controller: undefined }],
      [`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/demo`, { ...csvRef, blockOwnerDeletion: undefined, controller: undefined }],
      [`/api/v1/namespaces/${ns}/secrets/demo-secret`, csvRef],
      [`/api/v1/namespaces/${ns}/configmaps/demo-config`, csvRef],
      [`/api/v1/namespaces/${ns}/services/demo-svc`, csvRef],
    ] as const) {
      const obj = (await get(path))!;
      expect(obj.metadata['labels'], path).toMatchObject({ 'olm.managed': 'true' });
      const refs = (obj.metadata['ownerReferences'] as Record<string, unknown>[]).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
      expect(refs, path).toEqual([Object.fromEntries(Object.entries(ownerRef).filter(([, v]) => v !== undefined))]);
    }
    const pc = (await get(`/apis/scheduling.k8s.io/v1/priorityclasses/${crName}`))!;
    expect(pc.metadata['labels']).toEqual({ 'olm.managed': 'true', 'olm.owner': csvName, 'olm.owner.namespace': ns, 'olm.owner.kind': 'ClusterServiceVersion' });
    const dep = (await get(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, 'dependency', ns)))!;
    expect(dep.metadata['annotations']).toEqual({ 'olm.generated-by': name });

    // The same steps again in a new plan: everything exists, so every step is Present; a ClusterRole that exists
    // is updated to the manifest and its olm.owner label points at the newest CSV.
    await kube().must(
      kube().request('PATCH', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${crName}`, { metadata: { labels: { extra: 'removed-by-update' } } }, 'application/merge-patch+json'),
    );
    const again = await createPlan(ns, { csvNames: [csvName], steps, generation: 2 });
    const second = await waitForPlan(ns, again, 'Complete', (p) => phase(p) === ops.InstallPlanPhaseComplete);
    expect(second.status?.plan?.map((p) => p.status)).toEqual(Array(12).fill('Present'));
    const cr = (await get(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${crName}`))!;
    expect(cr.metadata['labels']).toEqual({ 'olm.managed': 'true', 'olm.owner': csvName });
  });

  it('a Secret step copies the pull secret of that name from the operator namespace', async () => {
    const ns = await namespace('ip-pull');
    await operatorGroup(ns);
    const olm = await kube().request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olm' } });
    expect([201, 409]).toContain(olm.status);
    const secretName = `pull-${suffix()}`;
    await kube().must(
      kube().request('POST', '/api/v1/namespaces/olm/secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secretName, labels: { keep: 'not-copied' } },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': '{"auths":{}}' },
      }),
    );
    clusterObjects.push(`/api/v1/namespaces/olm/secrets/${secretName}`);
    const csvName = `pull.v1.${suffix()}`;
    const missing = `absent-${suffix()}`;
    const name = await createPlan(ns, {
      csvNames: [csvName],
      steps: [
        step(csvName, csv(csvName)),
        step(csvName, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName } }),
      ],
    });
    const done = await waitForPlan(ns, name, 'Complete', (p) => phase(p) === ops.InstallPlanPhaseComplete);
    expect(done.status?.plan?.map((p) => p.status)).toEqual(['Created', 'Created']);
    const copy = (await get(`/api/v1/namespaces/${ns}/secrets/${secretName}`))!;
    expect(copy.metadata['labels']).toEqual({ 'olm.managed': 'true' });
    expect(copy['type']).toBe('kubernetes.io/dockerconfigjson');
    expect(Buffer.from((copy['data'] as Record<string, string>)['.dockerconfigjson']!, 'base64').toString()).toBe('{"auths":{}}');

    const other = await createPlan(ns, { csvNames: [csvName], generation: 2, steps: [step(csvName, { apiVersion: 'v1', kind: 'Secret', metadata: { name: missing } })] });
    const retrying = await waitForPlan(ns, other, 'retrying', (p) => !!p.status?.message);
    expect(retrying.status?.message).toMatch(new RegExp(`^(retrying execution due to error: )?secret ${missing} does not exist - secrets "${missing}" not found$`));
  });

  it('Manual: waits in RequiresApproval creating nothing, continues once approved', async () => {
    const ns = await namespace('ip-manual');
    await operatorGroup(ns);
    const csvName = `manual.v1.${suffix()}`;
    const name = await createPlan(ns, {
      approval: 'Manual',
      csvNames: [csvName],
      steps: [step(csvName, csv(csvName)), step(csvName, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'manual' }, data: {} })],
    });
    // The controller has handled the plan (RequiresApproval), its cache holds the plan's latest write, and no pass
    // of the plan is queued or running: whatever it would do unapproved, it has done.
    await waitForPlan(ns, name, 'RequiresApproval', (p) => phase(p) === ops.InstallPlanPhaseRequiresApproval);
    await waitForSettled(
      'the unapproved plan handled',
      parts.controller.queue,
      `${ns}/${name}`,
      async () => parts.installPlans.get(`${ns}/${name}`)?.metadata.resourceVersion === (await getPlan(ns, name)).metadata.resourceVersion,
    );
    const waiting = await getPlan(ns, name);
    expect(phase(waiting)).toBe(ops.InstallPlanPhaseRequiresApproval);
    expect(waiting.status?.plan?.map((p) => p.status)).toEqual(['Unknown', 'Unknown']);
    expect(await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, csvName, ns))).toBeUndefined();

    await kube().must(kube().request('PATCH', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, name, ns), { spec: { approved: true } }, 'application/merge-patch+json'));
    const done = await waitForPlan(ns, name, 'Complete after approval', (p) => phase(p) === ops.InstallPlanPhaseComplete);
    expect(done.status?.plan?.map((p) => p.status)).toEqual(['Created', 'Created']);
    expect(await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, csvName, ns))).toBeDefined();
  });

  it('a CRD step waits for its API (WaitingForApi) before the plan Completes', async () => {
    const ns = await namespace('ip-crd');
    await operatorGroup(ns);
    const s = suffix();
    const csvName = `crd.v1.${s}`;
    const theCrd = crd(`wait${s}.olm.test`, 'Gadget', [{ name: 'v1', storage: true }]);
    clusterObjects.push(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${theCrd.metadata.name}`);
    const watch = await watchPlans(ns);
    try {
      const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName)), step(csvName, theCrd)] });
      await waitForPlan(ns, name, 'Complete', (p) => phase(p) === ops.InstallPlanPhaseComplete);
      const crdStatuses = watch.seen.filter((p) => p.metadata.name === name).map((p) => `${p.status?.phase}/${p.status?.plan?.[1]?.status}`);
      expect(crdStatuses).toContain('Installing/WaitingForApi');
      expect(crdStatuses.indexOf('Installing/WaitingForApi')).toBeLessThan(crdStatuses.indexOf('Complete/Created'));
      const established = (await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${theCrd.metadata.name}`))!;
      expect((established['status'] as { conditions: { type: string; status: string }[] }).conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    } finally {
      watch.stop();
    }
  });

  it('a step that cannot be applied: retried with upstream’s message, then Failed after the retry window', async () => {
    const ns = await namespace('ip-fail');
    await operatorGroup(ns);
    const csvName = `fail.v1.${suffix()}`;
    const name = await createPlan(ns, {
      csvNames: [csvName],
      steps: [step(csvName, csv(csvName)), step(csvName, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_A_Name' }, data: {} })],
    });
    const retrying = await waitForPlan(ns, name, 'retrying', (p) => !!p.status?.message, 20_000);
    // The API server's own refusal of that ConfigMap, verbatim.
    const direct = await kube().request<{ message: string }>('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_A_Name' } });
    expect(direct.status).toBe(422);
    const apiMessage = direct.body.message;
    if (phase(retrying) === ops.InstallPlanPhaseInstalling) {
      expect(retrying.status?.message).toBe(`retrying execution due to error: error updating configmap: Not_A_Name: ${apiMessage}`);
    }
    const failed = await waitForPlan(ns, name, 'Failed', (p) => phase(p) === ops.InstallPlanPhaseFailed, 30_000);
    expect(failed.status?.message).toBe(`error updating configmap: Not_A_Name: ${apiMessage}`);
    expect(installed(failed)).toMatchObject({ status: 'False', reason: 'InstallComponentFailed', message: `error updating configmap: Not_A_Name: ${apiMessage}` });
    expect(failed.status?.plan?.map((p) => p.status)).toEqual(['Created', 'Unknown']);
    expect(Date.parse(installed(failed)!.lastTransitionTime!) - Date.parse(failed.status!.startTime!)).toBeGreaterThanOrEqual(RETRY_TIMEOUT_MS);
  });

  it('a kind upstream does not support: UnsupportedResource, the plan is invalid and Fails', async () => {
    const ns = await namespace('ip-unsupported');
    await operatorGroup(ns);
    const csvName = `unsupported.v1.${suffix()}`;
    const name = await createPlan(ns, {
      csvNames: [csvName],
      steps: [step(csvName, csv(csvName)), step(csvName, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'no' }, spec: {} })],
    });
    const failed = await waitForPlan(ns, name, 'Failed', (p) => phase(p) === ops.InstallPlanPhaseFailed, 30_000);
    expect(failed.status?.message).toBe('the InstallPlan contains invalid data');
    expect(failed.status?.plan?.map((p) => p.status)).toEqual(['Created', 'UnsupportedResource']);
    expect(await get(`/apis/apps/v1/namespaces/${ns}/deployments/no`)).toBeUndefined();
  });

  it('a CRD update that drops a stored version is refused', async () => {
    const ns = await namespace('ip-stored');
    await operatorGroup(ns);
    const s = suffix();
    const old = crd(`stored${s}.olm.test`, 'Thing', [{ name: 'v1alpha1', storage: true }]);
    clusterObjects.push(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${old.metadata.name}`);
    await kube().must(kube().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', old));
    const csvName = `stored.v2.${s}`;
    const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName)), step(csvName, crd(`stored${s}.olm.test`, 'Thing', [{ name: 'v1', storage: true }]))] });
    const failed = await waitForPlan(ns, name, 'Failed', (p) => phase(p) === ops.InstallPlanPhaseFailed, 30_000);
    const why = `risk of data loss updating "${old.metadata.name}": new CRD removes version v1alpha1 that is listed as a stored version on the existing CRD`;
    expect(failed.status?.message).toBe(why);
    expect(installed(failed)).toMatchObject({ status: 'False', reason: 'InstallComponentFailed', message: why });
    const still = (await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${old.metadata.name}`))!;
    expect((still['spec'] as { versions: { name: string }[] }).versions.map((v) => v.name)).toEqual(['v1alpha1']);
  });

  it('a CRD update that existing CRs would fail is refused with the API server’s own field errors', async () => {
    const ns = await namespace('ip-crs');
    await operatorGroup(ns);
    const s = suffix();
    const group = `crs${s}.olm.test`;
    const v1 = crd(group, 'Pool', [{ name: 'v1', storage: true, maxReplicas: 10 }]);
    clusterObjects.push(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${v1.metadata.name}`);
    await kube().must(kube().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', v1));
    await waitFor('the Pool CRD served', async () => (await kube().request('GET', `/apis/${group}/v1/pools`)).status === 200);
    await kube().must(kube().request('POST', `/apis/${group}/v1/namespaces/${ns}/pools`, { apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name: 'big' }, spec: { replicas: 10 } }));

    const csvName = `crs.v2.${s}`;
    const stricter = crd(group, 'Pool', [{ name: 'v1', storage: true, maxReplicas: 9 }]);
    const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName)), step(csvName, stricter)] });
    const failed = await waitForPlan(ns, name, 'Failed', (p) => phase(p) === ops.InstallPlanPhaseFailed, 30_000);
    expect(failed.status?.message).toBe(
      `error validating existing CRs against new CRD's schema for "${v1.metadata.name}": error validating ${group}/v1, Kind=Pool "${ns}/big": updated validation is too restrictive: [].spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 9`,
    );

    // The field errors are the API server's: the same CR refused by the stricter CRD itself says the same thing.
    await kube().must(kube().request('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${v1.metadata.name}`, {
      ...stricter,
      metadata: { ...stricter.metadata, resourceVersion: (await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${v1.metadata.name}`))!.metadata['resourceVersion'] },
    }));
    await waitFor('the stricter schema in force', async () => {
      const r = await kube().request<{ message?: string }>('POST', `/apis/${group}/v1/namespaces/${ns}/pools?dryRun=All`, { apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name: 'probe' }, spec: { replicas: 10 } });
      return r.status === 422;
    });
    const refused = await kube().request<{ message: string }>('POST', `/apis/${group}/v1/namespaces/${ns}/pools?dryRun=All`, { apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name: 'big2' }, spec: { replicas: 10 } });
    expect(refused.body.message).toBe('Pool.' + group + ' "big2" is invalid: spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 9');
  });
});

describe('the attenuated service account', () => {
  it('no OperatorGroup / its service account not synced: Installed=False/InstallCheckFailed, nothing applied', async () => {
    const ns = await namespace('ip-noog');
    const csvName = `noog.v1.${suffix()}`;
    const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName))] });
    const checked = await waitForPlan(ns, name, 'InstallCheckFailed', (p) => installed(p)?.reason === 'InstallCheckFailed');
    expect(installed(checked)).toMatchObject({ status: 'False', message: 'no operator group found that is managing this namespace' });
    expect(phase(checked)).toBe(ops.InstallPlanPhaseInstalling);

    await operatorGroup(ns, { serviceAccountName: 'installer' });
    const unsynced = await waitForPlan(ns, name, 'the service-account message', (p) => installed(p)?.message?.startsWith('please make sure') ?? false);
    expect(installed(unsynced)).toMatchObject({ status: 'False', reason: 'InstallCheckFailed', message: 'please make sure the service account exists. sa=installer operatorgroup=' + ns + '/og' });
    expect(await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, csvName, ns))).toBeUndefined();
  });

  it('steps run with the OperatorGroup’s service account: Forbidden is retried past the window until the account may', async () => {
    const ns = await namespace('ip-sa');
    await kube().must(kube().request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer' } }));
    await operatorGroup(ns, { serviceAccountName: 'installer', synced: true });
    const csvName = `sa.v1.${suffix()}`;
    const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName)), step(csvName, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'scoped' }, data: {} })] });

    const forbidden = await waitForPlan(ns, name, 'Forbidden retried', (p) => p.status?.message?.includes('forbidden') ?? false);
    expect(forbidden.status?.attenuatedServiceAccountRef).toMatchObject({ kind: 'ServiceAccount', namespace: ns, name: 'installer' });
    expect(forbidden.status?.message).toBe(
      `retrying execution due to error: error creating csv ${csvName}: clusterserviceversions.operators.coreos.com is forbidden: User "system:serviceaccount:${ns}:installer" cannot create resource "clusterserviceversions" in API group "operators.coreos.com" in the namespace "${ns}"`,
    );
    // A retry that began after the window (RETRY_TIMEOUT_MS from the plan's startTime) ended: once it is over, the
    // plan is seen idle with its next retry scheduled, and a retry is logged after that.
    const key = `${ns}/${name}`;
    const windowEnd = Date.parse(forbidden.status!.startTime!) + RETRY_TIMEOUT_MS;
    let idleAt = Infinity;
    await waitFor('the plan idle after the retry window', async () => {
      if (Date.now() <= windowEnd || parts.controller.queue.has(key) || parts.controller.queue.dueIn(key) === undefined) return false;
      idleAt = Date.now();
      return true;
    }, { timeoutMs: 60_000, intervalMs: 20 });
    const retried = (l: LogLine): boolean => l.msg === 'Reconciler error' && l['controller'] === 'installplan' && l['key'] === key && Date.parse(String(l['ts'])) > idleAt;
    await waitFor('a retry after the retry window', async () => logs.some(retried), { timeoutMs: 60_000, intervalMs: 100 });
    expect(phase(await getPlan(ns, name))).toBe(ops.InstallPlanPhaseInstalling);

    await kube().must(
      kube().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'installer' },
        rules: [
          { apiGroups: ['operators.coreos.com'], resources: ['clusterserviceversions'], verbs: ['*'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['*'] },
        ],
      }),
    );
    await kube().must(
      kube().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'installer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'installer' },
        subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: ns }],
      }),
    );
    const done = await waitForPlan(ns, name, 'Complete', (p) => phase(p) === ops.InstallPlanPhaseComplete);
    expect(done.status?.plan?.map((p) => p.status)).toEqual(['Created', 'Created']);
    expect(await get(`/api/v1/namespaces/${ns}/configmaps/scoped`)).toBeDefined();
  });

  it('a Failed plan with an attenuated service account is retried when OLM-managed RBAC of its namespace changes', async () => {
    const ns = await namespace('ip-rbac');
    await kube().must(kube().request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer' } }));
    await operatorGroup(ns, { serviceAccountName: 'installer', synced: true });
    const csvName = `rbac.v1.${suffix()}`;
    const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'no' }, spec: {} })] });
    const failed = await waitForPlan(ns, name, 'Failed', (p) => phase(p) === ops.InstallPlanPhaseFailed, 30_000);
    expect(failed.status?.attenuatedServiceAccountRef?.name).toBe('installer');
    // the controller acts on what its cache holds: under load the cache can trail the API server by a moment
    await waitFor('the controller’s cache holds the Failed plan', async () => parts.installPlans.get(`${ns}/${name}`)?.status?.phase === ops.InstallPlanPhaseFailed, { timeoutMs: 30_000 });

    const watch = await watchPlans(ns);
    try {
      await kube().must(
        kube().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'granted', labels: { 'olm.managed': 'true' } },
          rules: [],
        }),
      );
      await waitFor('the plan back to Installing', async () => watch.seen.some((p) => p.metadata.name === name && p.status?.phase === ops.InstallPlanPhaseInstalling), { timeoutMs: 30_000 });
      await waitForPlan(ns, name, 'Failed again', (p) => phase(p) === ops.InstallPlanPhaseFailed, 30_000);
    } finally {
      watch.stop();
    }
  });
});

describe('API warnings and metrics', () => {
  it('a step whose write draws API warnings: an AppliedWithWarnings event on the plan and installplan_warnings_total', async () => {
    const ns = await namespace('ip-warn');
    await operatorGroup(ns);
    const s = suffix();
    const csvName = `warn.v1.${s}`;
    const pcName = `ip-warn-${s}`;
    clusterObjects.push(`/apis/scheduling.k8s.io/v1/priorityclasses/${pcName}`);
    const before = await counter('installplan_warnings_total');
    const name = await createPlan(ns, {
      csvNames: [csvName],
      steps: [step(csvName, csv(csvName)), step(csvName, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: pcName }, value: 10, unknownField: 'x' })],
    });
    await waitForPlan(ns, name, 'Complete', (p) => phase(p) === ops.InstallPlanPhaseComplete);
    let events: { reason: string; type: string; message: string; involvedObject: { name: string; fieldPath?: string } }[] = [];
    await waitFor('the AppliedWithWarnings event', async () => {
      const r = await kube().must<{ items: typeof events }>(kube().request('GET', `/api/v1/namespaces/${ns}/events`));
      events = r.items.filter((e) => e.reason === 'AppliedWithWarnings');
      return events.length > 0;
    });
    expect(events[0]).toMatchObject({
      type: 'Warning',
      message: `1 warning(s) generated during installation of operator "${csvName}" (PriorityClass "${pcName}"): unknown field "unknownField"`,
      involvedObject: { name, fieldPath: 'status.plan[1]' },
    });
    expect(await counter('installplan_warnings_total')).toBe(before + 1);
    expect(await metrics.registry.metrics()).toMatch(/^install_plan_count \d+$/m);
  });
});

async function counter(name: string): Promise<number> {
  const m = (await metrics.registry.getSingleMetric(name)?.get()) as { values: { value: number }[] } | undefined;
  return m?.values[0]?.value ?? 0;
}

describe('garbage collection', () => {
  it('keeps the 5 newest plans of a namespace: a new plan sweeps its namespace', async () => {
    const ns = await namespace('ip-gc');
    const list = async (): Promise<ops.InstallPlan[]> =>
      (await kube().must<{ items: ops.InstallPlan[] }>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, ns)))).items;
    for (let g = 1; g <= 7; g++) await createPlan(ns, { csvNames: [], steps: [], generation: g });
    await waitFor('5 plans left', async () => (await list()).length === 5);
    expect((await list()).map((p) => p.spec.generation).sort()).toEqual([3, 4, 5, 6, 7]);
    expect(await parts.gc(ns)).toEqual([]);
  });
});

describe('CR validation matches the API server', () => {
  it('the same CR refused by the API server and by validateCustomResource gives the same field errors', async () => {
    const s = suffix();
    const group = `schema${s}.olm.test`;
    const ns = await namespace('ip-schema');
    const schema: JsonSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
            replicas: { type: 'integer', minimum: 1, maximum: 3 },
            mode: { type: 'string', enum: ['a', 'b'] },
            list: { type: 'array', maxItems: 2, items: { type: 'integer', multipleOf: 2 } },
            ratio: { type: 'number', exclusiveMinimum: true, minimum: 0.5 },
            port: { 'x-kubernetes-int-or-string': true },
            labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
          },
        },
      },
    };
    const def = crd(group, 'Shape', [{ name: 'v1', storage: true }]);
    (def['spec'] as { versions: { schema: unknown }[] }).versions[0]!.schema = { openAPIV3Schema: schema };
    clusterObjects.push(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${def.metadata.name}`);
    await kube().must(kube().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', def));
    await waitFor('the Shape CRD served', async () => (await kube().request('GET', `/apis/${group}/v1/shapes`)).status === 200);
    const cases: Record<string, unknown>[] = [
      { name: 'x' },
      { name: 'toolong' },
      { name: 'AB' },
      { name: 'ok', replicas: 0 },
      { name: 'ok', replicas: 4 },
      { name: 'ok', replicas: 'two' },
      { name: 'ok', mode: 'c' },
      { name: 'ok', list: [2, 4, 6] },
      { name: 'ok', list: [3] },
      { name: 'ok', ratio: 0.5 },
      { name: 'ok', port: true },
      { name: 'ok', labels: { a: 'x', b: 'y' } },
      { replicas: 1 },
    ];
    for (const [i, spec] of cases.entries()) {
      const obj = { apiVersion: `${group}/v1`, kind: 'Shape', metadata: { name: `c${i}`, namespace: ns }, spec };
      const r = await kube().request<{ message?: string }>('POST', `/apis/${group}/v1/namespaces/${ns}/shapes?dryRun=All`, obj);
      expect(r.status, JSON.stringify(spec)).toBe(422);
      const ours = validateCustomResource(schema, obj);
      const prefix = `Shape.${group} "c${i}" is invalid: `;
      const theirs = r.body.message!.slice(prefix.length);
      expect(ours.length === 1 ? ours[0] : `[${ours.join(', ')}]`, JSON.stringify(spec)).toBe(theirs);
    }
  });
});

// ---- refusals by the API server ----------------------------------------------------------------------------
// Every object a plan creates that the API server refuses ends in the plan's status with upstream's texts and the
// API server's own message. Forbidden (RBAC, quota) is retried for ever, anything else Fails after the window; in
// neither case does a refusal that will not change by itself hot-loop: passes back off in the rate-limited queue
// (upstream's AddRateLimited plus its 5 s requeue) and the status is written only when it changes.

/** Failed passes of `key` so far: each is one line of the controller's error handling with the key's requeue count. */
const failedPasses = (key: string): number => logs.filter((l) => l['controller'] === 'installplan' && l['key'] === key && typeof l['requeues'] === 'number').length;

/** The API server's answer to a dry-run create of `obj` in `ns`, as `kind`'s collection path says. */
async function dryRunRefusal(path: string, obj: Manifest): Promise<{ status: number; reason: string; message: string }> {
  const r = await kube().request<{ reason: string; message: string }>('POST', `${path}?dryRun=All`, obj);
  return { status: r.status, reason: r.body.reason, message: r.body.message };
}

/**
 * A plan refused with Forbidden: once the retrying message is written, `passes` more failed passes run with a
 * growing rate-limiter count and not one status write (the plan's resourceVersion stays); the plan stays Installing.
 */
async function retriedWithoutWrites(ns: string, name: string, message: string, passes = 6): Promise<ops.InstallPlan> {
  const key = `${ns}/${name}`;
  const retrying = await waitForPlan(ns, name, 'the retrying message', (p) => p.status?.message === `retrying execution due to error: ${message}`, 30_000);
  expect(phase(retrying)).toBe(ops.InstallPlanPhaseInstalling);
  // the controller's cache has our write: passes from here on start from the status just read
  await waitFor('the controller’s cache holds the retrying status', async () => parts.installPlans.get(key)?.metadata.resourceVersion === retrying.metadata.resourceVersion, { timeoutMs: 30_000, intervalMs: 20 });
  const start = failedPasses(key);
  await waitFor(`${passes} more failed passes of ${key}`, async () => failedPasses(key) >= start + passes, { timeoutMs: 120_000, intervalMs: 50 });
  expect(parts.controller.queue.numRequeues(key)).toBeGreaterThanOrEqual(passes);
  const after = await getPlan(ns, name);
  expect(after.metadata.resourceVersion).toBe(retrying.metadata.resourceVersion);
  expect(phase(after)).toBe(ops.InstallPlanPhaseInstalling);
  return after;
}

/**
 * A plan refused with anything but Forbidden: retried with the message while the window lasts (written once),
 * then Failed/InstallComponentFailed with `message`, and never synced again.
 */
async function failedAfterWindow(ns: string, name: string, message: string, watch: { seen: ops.InstallPlan[] }, doneSteps: string[]): Promise<void> {
  const key = `${ns}/${name}`;
  const failed = await waitForPlan(ns, name, 'Failed', (p) => phase(p) === ops.InstallPlanPhaseFailed, 60_000);
  expect(failed.status?.message).toBe(message);
  expect(installed(failed)).toMatchObject({ status: 'False', reason: ops.InstallPlanReasonComponentFailed, message });
  expect(failed.status?.plan?.map((p) => p.status)).toEqual(doneSteps);
  await waitFor('the Failed plan in the watch', async () => watch.seen.some((p) => p.metadata.resourceVersion === failed.metadata.resourceVersion));
  // every status the controller wrote: the refusal once while retrying (whatever the number of passes), then
  // Failed; before it only transient errors of a cluster under load (storage re-initializing, throttling)
  const written = watch.seen.filter((p) => p.metadata.name === name && p.status?.startTime !== undefined).map((p) => `${phase(p)}: ${p.status?.message}`);
  const first = written.indexOf(`Installing: retrying execution due to error: ${message}`);
  expect(first, written.join('\n')).toBeGreaterThanOrEqual(0);
  expect(written.slice(first)).toEqual([`Installing: retrying execution due to error: ${message}`, `Failed: ${message}`]);
  expect(written.slice(0, first).every((w) => w.startsWith('Installing: retrying execution due to error: '))).toBe(true);
  expect(failedPasses(key)).toBeGreaterThanOrEqual(1);
  // Failed is final: the pass still scheduled by the last Installing one (upstream's 5 s requeue) runs and finds
  // nothing to do; afterwards nothing is queued and the plan is as it was
  const q = parts.controller.queue;
  await waitFor('no pass of the Failed plan queued or scheduled', async () => parts.installPlans.get(key)?.metadata.resourceVersion === failed.metadata.resourceVersion && !q.has(key) && q.dueIn(key) === undefined, { timeoutMs: 30_000, intervalMs: 50 });
  expect((await getPlan(ns, name)).metadata.resourceVersion).toBe(failed.metadata.resourceVersion);
}

describe('objects the API server refuses', () => {
  it('invalid spec (a Service with port 70000): upstream’s message around the API server’s, retried once-written, then Failed', async () => {
    const ns = await namespace('ip-bad-svc');
    await operatorGroup(ns);
    const csvName = `badsvc.v1.${suffix()}`;
    const svc: Manifest = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bad-svc' }, spec: { ports: [{ port: 70000, targetPort: 8080 }], selector: { app: 'x' } } };
    const direct = await dryRunRefusal(`/api/v1/namespaces/${ns}/services`, svc);
    expect(direct).toEqual({
      status: 422,
      reason: 'Invalid',
      message: 'Service "bad-svc" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    });
    const watch = await watchPlans(ns);
    try {
      const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName)), step(csvName, svc)] });
      await failedAfterWindow(ns, name, `error updating service: bad-svc: ${direct.message}`, watch, ['Created', 'Unknown']);
    } finally {
      watch.stop();
    }
    expect(await get(`/api/v1/namespaces/${ns}/services/bad-svc`)).toBeUndefined();
  });

  it('forbidden (the OperatorGroup’s service account may not create ClusterRoles): retried for ever without a status write per pass', async () => {
    const ns = await namespace('ip-bad-rbac');
    await kube().must(kube().request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer' } }));
    await kube().must(
      kube().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'installer' },
        rules: [{ apiGroups: ['operators.coreos.com'], resources: ['clusterserviceversions'], verbs: ['*'] }],
      }),
    );
    await kube().must(
      kube().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'installer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'installer' },
        subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: ns }],
      }),
    );
    await operatorGroup(ns, { serviceAccountName: 'installer', synced: true });
    const s = suffix();
    const csvName = `badrbac.v1.${s}`;
    const crName = `ip-bad-rbac-${s}`;
    clusterObjects.push(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${crName}`);
    const name = await createPlan(ns, {
      csvNames: [csvName],
      steps: [step(csvName, csv(csvName)), step(csvName, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: crName }, rules: [] })],
    });
    const message =
      `error creating clusterrole ${crName}: clusterroles.rbac.authorization.k8s.io is forbidden: ` +
      `User "system:serviceaccount:${ns}:installer" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`;
    const after = await retriedWithoutWrites(ns, name, message);
    expect(after.status?.plan?.map((p) => p.status)).toEqual(['Created', 'Unknown']);
    expect(installed(after)?.reason).not.toBe(ops.InstallPlanReasonComponentFailed);
    expect(await get(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${crName}`)).toBeUndefined();
  });

  it('quota exceeded (count/secrets: 0): Forbidden, retried for ever with the API server’s quota message, no status write per pass', async () => {
    const ns = await namespace('ip-bad-quota');
    await operatorGroup(ns);
    await kube().must(
      kube().request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'no-secrets' }, spec: { hard: { 'count/secrets': '0' } } }),
    );
    const secret: Manifest = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bundle-secret' }, stringData: { k: 'v' } };
    // the quota is enforced once the quota controller has computed its usage
    let direct = { status: 0, reason: '', message: '' };
    await waitFor('the quota enforced', async () => {
      direct = await dryRunRefusal(`/api/v1/namespaces/${ns}/secrets`, secret);
      return direct.message.includes('exceeded quota');
    });
    expect(direct).toEqual({
      status: 403,
      reason: 'Forbidden',
      message: 'secrets "bundle-secret" is forbidden: exceeded quota: no-secrets, requested: count/secrets=1, used: count/secrets=0, limited: count/secrets=0',
    });
    const csvName = `badquota.v1.${suffix()}`;
    const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName)), step(csvName, secret, 'BundleSecret')] });
    const after = await retriedWithoutWrites(ns, name, `error updating secret: bundle-secret: ${direct.message}`);
    expect(after.status?.plan?.map((p) => p.status)).toEqual(['Created', 'Unknown']);
  });

  it('webhook denial (a ValidatingAdmissionPolicy denying the plan’s ConfigMap): the policy’s message in status, then Failed', async () => {
    const ns = await namespace('ip-bad-vap');
    await operatorGroup(ns);
    const policy = `ip-deny-${suffix()}`;
    clusterObjects.push(...denyPolicyPaths(policy));
    await createDenyPolicy(kube(), policy, ns, {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
      validations: [{ expression: "!object.metadata.name.startsWith('denied')", message: 'ConfigMaps named denied* are not allowed here' }],
    });
    const cm: Manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'denied-config' }, data: { a: 'b' } };
    let direct = { status: 0, reason: '', message: '' };
    await waitFor('the policy enforced', async () => {
      direct = await dryRunRefusal(`/api/v1/namespaces/${ns}/configmaps`, cm);
      return direct.status !== 201;
    });
    expect(direct).toEqual({
      status: 422,
      reason: 'Invalid',
      message: `configmaps "denied-config" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: ConfigMaps named denied* are not allowed here`,
    });
    const csvName = `badvap.v1.${suffix()}`;
    const watch = await watchPlans(ns);
    try {
      const name = await createPlan(ns, { csvNames: [csvName], steps: [step(csvName, csv(csvName)), step(csvName, cm)] });
      await failedAfterWindow(ns, name, `error updating configmap: denied-config: ${direct.message}`, watch, ['Created', 'Unknown']);
    } finally {
      watch.stop();
    }
  });
});

describe('every step kind refused by the API server', () => {
  it('reaches status as upstream words it, around the API server’s message naming the kind, the name and the field', async () => {
    const s = suffix();
    const rbac = 'rbac.authorization.k8s.io/v1';
    const badRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Nope', name: 'x' };
    interface Case {
      readonly what: string;
      readonly obj: Manifest;
      readonly stepKind?: string;
      /** The collection the object is created in (`<ns>` replaced). */
      readonly path: string;
      /** Upstream's text before the API server's message. */
      readonly prefix: string;
      /** The field the API server names. */
      readonly field: string;
    }
    const cases: Case[] = [
      {
        what: 'ClusterServiceVersion',
        obj: { apiVersion: ops.V1alpha1, kind: ops.ClusterServiceVersionKind, metadata: { name: `badcsv.v1.${s}` }, spec: { displayName: 'x' } },
        path: TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, '<ns>'),
        prefix: `error creating csv badcsv.v1.${s}: `,
        field: 'spec.install',
      },
      {
        what: 'Subscription',
        obj: { apiVersion: ops.V1alpha1, kind: ops.SubscriptionKind, metadata: { name: 'badsub' }, spec: { channel: 'stable' } },
        path: TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, '<ns>'),
        prefix: 'error creating subscription badsub: ',
        field: 'spec.name',
      },
      {
        what: 'ServiceAccount',
        obj: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'Bad_SA' } },
        path: '/api/v1/namespaces/<ns>/serviceaccounts',
        prefix: 'error creating service account: Bad_SA: ',
        field: 'metadata.name',
      },
      {
        what: 'Role',
        obj: { apiVersion: rbac, kind: 'Role', metadata: { name: 'badrole' }, rules: [{ apiGroups: [''], resources: ['pods'] }] },
        path: '/apis/rbac.authorization.k8s.io/v1/namespaces/<ns>/roles',
        prefix: 'error creating role badrole: ',
        field: 'rules[0].verbs',
      },
      {
        what: 'RoleBinding',
        obj: { apiVersion: rbac, kind: 'RoleBinding', metadata: { name: 'badrb' }, roleRef: badRef, subjects: [] },
        path: '/apis/rbac.authorization.k8s.io/v1/namespaces/<ns>/rolebindings',
        prefix: 'error creating rolebinding badrb: ',
        field: 'roleRef.kind',
      },
      {
        what: 'ClusterRole',
        obj: { apiVersion: rbac, kind: 'ClusterRole', metadata: { name: `ip-badcr-${s}` }, rules: [{ apiGroups: [''], resources: ['pods'] }] },
        path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
        prefix: `error creating clusterrole ip-badcr-${s}: `,
        field: 'rules[0].verbs',
      },
      {
        what: 'ClusterRoleBinding',
        obj: { apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: { name: `ip-badcrb-${s}` }, roleRef: badRef, subjects: [] },
        path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
        prefix: `error creating clusterrolebinding ip-badcrb-${s}: `,
        field: 'roleRef.kind',
      },
      {
        what: 'BundleSecret',
        obj: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'badtls' }, type: 'kubernetes.io/tls', stringData: { x: 'y' } },
        stepKind: 'BundleSecret',
        path: '/api/v1/namespaces/<ns>/secrets',
        prefix: 'error updating secret: badtls: ',
        field: 'data[tls.crt]',
      },
      {
        what: 'CustomResourceDefinition',
        obj: (() => {
          const c = crd(`badcrd${s}.olm.test`, 'Bad', [{ name: 'v1', storage: true }]);
          c.metadata.name = `wrong.badcrd${s}.olm.test`;
          return c;
        })(),
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        prefix: '',
        field: 'metadata.name',
      },
      {
        what: 'PriorityClass (a generic supported kind)',
        obj: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: `ip-badpc-${s}` }, value: 2_000_000_000 },
        path: '/apis/scheduling.k8s.io/v1/priorityclasses',
        prefix: `error creating unstructured object ip-badpc-${s}: `,
        field: 'value',
      },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const ns = await namespace('ip-bad-kind');
        await operatorGroup(ns);
        const direct = await dryRunRefusal(c.path.replace('<ns>', ns), { ...c.obj, metadata: { ...c.obj.metadata, ...(c.path.includes('<ns>') && { namespace: ns }) } });
        expect(direct.status, `${c.what}: ${direct.message}`).toBe(422);
        expect(direct.message, c.what).toContain(`"${c.obj.metadata.name}" is invalid: `);
        expect(direct.message, c.what).toContain(`${c.field}: `);
        const isCsv = c.obj.kind === ops.ClusterServiceVersionKind;
        const csvName = isCsv ? c.obj.metadata.name : `good.v1.${suffix()}`;
        const steps = isCsv ? [step(csvName, c.obj)] : [step(csvName, csv(csvName)), step(csvName, c.obj, c.stepKind)];
        const watch = await watchPlans(ns);
        try {
          const name = await createPlan(ns, { csvNames: [csvName], steps });
          await failedAfterWindow(ns, name, `${c.prefix}${direct.message}`, watch, isCsv ? ['Unknown'] : ['Created', 'Unknown']);
        } finally {
          watch.stop();
        }
      }),
    );
  }, 240_000);
});
