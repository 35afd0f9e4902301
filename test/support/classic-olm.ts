// The olm-operator side of classic (CSV, OperatorGroup, OperatorCondition controllers over the shared caches) run
// in the test process against the real cluster, and builders for what an InstallPlan would create: CSVs,
// OperatorGroups, ServiceAccounts, RBAC, CRDs. Nothing here writes status a controller under test owns.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import * as ops from '../../api/operators/index.ts';
import { csvSetup, type CSVOptions } from '../../internal/classic/csv/index.ts';
import { olmCaches } from '../../internal/classic/olmcache/index.ts';
import { operatorConditionSetup } from '../../internal/classic/operatorcondition/index.ts';
import { operatorGroupSetup } from '../../internal/classic/operatorgroup/index.ts';
import { KubeClient } from '../../internal/shared/kube/index.ts';
import { mergeParts } from '../../internal/shared/manager/index.ts';
import { createMetrics, type Metrics } from '../../internal/shared/observability/index.ts';
import { installClassicCRDs } from './crds.ts';
import { adminKube, controlPlane } from './env.ts';
import { capturedLogger, inProcessManagerOptions, runParts, type LogLine } from './in-process.ts';
import { TestKube } from './kube.ts';
import { waitFor } from './net.ts';

export { csvFor, type CSVFixture } from './classic-fixtures.ts';

export interface RunningOlm {
  readonly metrics: Metrics;
  readonly logs: LogLine[];
  stop(): Promise<void>;
}

/** Starts the classic OLM controllers in process (the classic CRDs installed first). */
export async function startOlm(options: CSVOptions = {}): Promise<RunningOlm> {
  await installClassicCRDs(adminKube());
  const { logger, logs } = capturedLogger('olm-classic', 'CLASSIC_TEST_LOG');
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const sandbox = await mkdtemp(join(tmpdir(), 'olm-classic-csv-'));
  const metrics = createMetrics({ defaultMetrics: false });
  const ctx = { options: inProcessManagerOptions('olm-classic-csv-test'), client, logger, metrics };
  const caches = olmCaches(ctx);
  const parts = mergeParts({ informers: caches.informers, controllers: [] }, csvSetup(caches, options)(ctx), operatorGroupSetup(caches)(ctx), operatorConditionSetup(caches)(ctx));
  const run = await runParts(parts, { client, sandbox });
  return { metrics, logs, stop: () => run.stop() };
}

/** The classic OLM controllers in process for the whole test file: started before its tests, stopped after; the running one. */
export function startOlmForFile(options: CSVOptions = {}): () => RunningOlm {
  let olm: RunningOlm | undefined;
  beforeAll(async () => {
    olm = await startOlm(options);
  }, 120_000);
  afterAll(async () => {
    await olm?.stop();
  });
  return () => olm!;
}

const kube = (): TestKube => adminKube();

export const csvPath = (ns: string, name?: string): string => TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, name, ns);

export async function getCSV(ns: string, name: string): Promise<ops.ClusterServiceVersion | undefined> {
  const r = await kube().request<ops.ClusterServiceVersion>('GET', csvPath(ns, name));
  return r.status === 200 ? r.body : undefined;
}

/** Waits until the CSV's status satisfies `ok`; the last status seen is in the timeout error. */
export async function waitForCSV(ns: string, name: string, what: string, ok: (csv: ops.ClusterServiceVersion) => boolean, timeoutMs = 90_000): Promise<ops.ClusterServiceVersion> {
  let last: ops.ClusterServiceVersion | undefined;
  try {
    await waitFor(
      `CSV ${ns}/${name} ${what}`,
      async () => {
        last = await getCSV(ns, name);
        return !!last && ok(last);
      },
      { timeoutMs },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last?.status ? { phase: last.status.phase, reason: last.status.reason, message: last.status.message } : last)}`, { cause: err });
  }
  return last!;
}

export const phaseIs = (phase: string, reason?: string) => (csv: ops.ClusterServiceVersion) =>
  csv.status?.phase === phase && (reason === undefined || csv.status?.reason === reason);

export async function createOperatorGroup(ns: string, name: string, spec: ops.OperatorGroupSpec = {}): Promise<void> {
  await kube().must(kube().request('POST', TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns), { apiVersion: ops.V1, kind: ops.OperatorGroupKind, metadata: { name }, spec }));
}

/** A Subscription as a user writes one (`metadata.name` `name` in `ns`). */
export async function createSubscription(ns: string, name: string, spec: ops.SubscriptionSpec): Promise<void> {
  await kube().must(kube().request('POST', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, ns), { apiVersion: ops.V1alpha1, kind: ops.SubscriptionKind, metadata: { name }, spec }));
}

export async function createServiceAccount(ns: string, name: string): Promise<void> {
  const r = await kube().request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`create SA: ${JSON.stringify(r.body)}`);
}

/** A CatalogSource serving a catalog image (`spec.image`, sourceType grpc), as a cluster admin writes one. */
export async function createImageCatalogSource(ns: string, name: string, image: string, spec: Partial<ops.CatalogSourceSpec> = {}): Promise<void> {
  await kube().must(
    kube().request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, ns), {
      apiVersion: ops.V1alpha1,
      kind: ops.CatalogSourceKind,
      metadata: { name, namespace: ns },
      spec: { sourceType: 'grpc', image, ...spec },
    }),
  );
}

/** A Role and RoleBinding granting `rules` to the account in its namespace (what an InstallPlan's RBAC steps make). */
export async function grantNamespaced(ns: string, sa: string, name: string, rules: object[], labels: Record<string, string> = {}): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await kube().must(kube().request('POST', `${rbac}/namespaces/${ns}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, labels }, rules }));
  await kube().must(
    kube().request('POST', `${rbac}/namespaces/${ns}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
    }),
  );
}

/** A ClusterRole and ClusterRoleBinding granting `rules` to the account. */
export async function grantCluster(ns: string, sa: string, name: string, rules: object[]): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await kube().must(kube().request('POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules }));
  await kube().must(
    kube().request('POST', `${rbac}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
    }),
  );
}

/** A namespaced CRD `<plural>.<group>` serving v1, Established by the API server. */
export async function createCRD(group: string, kind: string, plural = `${kind.toLowerCase()}s`): Promise<string> {
  const name = `${plural}.${group}`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  const r = await kube().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  if (r.status !== 201 && r.status !== 409) throw new Error(`create CRD: ${JSON.stringify(r.body)}`);
  await waitFor(`CRD ${name} Established`, async () => {
    const got = await kube().request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    return !!got.body.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });
  return name;
}

export async function createCSV(ns: string, csv: ops.ClusterServiceVersion): Promise<void> {
  await kube().must(kube().request('POST', csvPath(ns), { ...csv, metadata: { ...csv.metadata, namespace: ns } }));
}

/** A metric's value as the registry prints it, or undefined when the series is absent. */
export async function metricValue(metrics: Metrics, series: string): Promise<number | undefined> {
  const text = await metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
