// The namespace reconciler's status writes (upstream's updateSubscriptionStatuses): every changed status is written
// even when one write fails, and the failures come back joined.
import { describe, expect, it } from 'vitest';
import {
  CatalogSourceKind,
  ClusterServiceVersionKind,
  InstallPlanKind,
  PropertiesAnnotation,
  ReasonConstraintsNotSatisfiable,
  SubscriptionKind,
  SubscriptionResolutionFailed,
  SubscriptionStateAtLatest,
  V1,
  V1alpha1,
  type CatalogSource,
  type ClusterServiceVersion,
  type InstallPlan,
  type OperatorGroup,
  type Subscription,
  type SubscriptionStatus,
} from '../../../api/operators/index.ts';
import { ApiError, isConflict } from '../../shared/kube/index.ts';
import { createLogger } from '../../shared/observability/index.ts';
import type { CatalogContent } from '../catalogsource/index.ts';
import type { SyncPorts } from './sync-steps.ts';
import { newNamespaceReconciler } from './sync.ts';

const NS = 'ns';
const sub = (name: string): Subscription => ({
  apiVersion: V1alpha1,
  kind: SubscriptionKind,
  metadata: { name, namespace: NS, resourceVersion: '1' },
  spec: { name, source: 'cat', sourceNamespace: 'olm', channel: 'stable' },
  // the plan's references are recorded; the CSV now exists, so this pass records AtLatestKnown + installedCSV
  status: { lastUpdated: '2026-01-01T00:00:00Z', state: 'UpgradePending', currentCSV: `${name}.v1.0.0` },
});
const csv = (name: string): ClusterServiceVersion => ({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, metadata: { name, namespace: NS } }) as ClusterServiceVersion;
const og: OperatorGroup = { apiVersion: V1, kind: 'OperatorGroup', metadata: { name: 'og', namespace: NS }, spec: {} } as OperatorGroup;
const conflict = (name: string): ApiError =>
  new ApiError(409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: `Operation cannot be fulfilled on subscriptions.operators.coreos.com "${name}"` }, { method: 'PUT', path: '/' });

function ports(subs: Subscription[], write: SyncPorts['writeStatus']): SyncPorts {
  return {
    listSubscriptions: async () => subs,
    listInstallPlans: async () => [],
    csvs: () => subs.map((s) => csv(s.status?.currentCSV ?? '')),
    operatorGroups: () => [og],
    catalogSources: () => [],
    content: () => undefined,
    bundle: async () => {
      throw new Error('no bundle is pulled');
    },
    createInstallPlan: async () => {
      throw new Error('no plan is created');
    },
    writeStatus: write,
    events: { normal: () => undefined, warning: () => undefined },
    logger: createLogger({ level: 'error' }),
    globalNamespace: 'olm',
    now: () => new Date('2026-11-28T00:00:00Z'),
  };
}

describe('namespace reconciler: status writes', () => {
  it('writes every changed status although one write fails; the failure is what the pass returns', async () => {
    const subs = ['a', 'b', 'c', 'd'].map(sub);
    const written = new Map<string, SubscriptionStatus>();
    const r = newNamespaceReconciler(
      ports(subs, async (s, status) => {
        if (s.metadata.name === 'a') throw conflict('a');
        written.set(s.metadata.name ?? '', status);
      }),
    );
    const err = await r.reconcile(NS, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isConflict(err)).toBe(true);
    expect([...written.keys()].sort()).toEqual(['b', 'c', 'd']);
    for (const [name, status] of written) {
      expect(status.state).toBe(SubscriptionStateAtLatest);
      expect(status.installedCSV).toBe(`${name}.v1.0.0`);
    }
  });

  it('joins the failures of several writes', async () => {
    const subs = ['a', 'b', 'c'].map(sub);
    const written: string[] = [];
    const r = newNamespaceReconciler(
      ports(subs, async (s) => {
        if (s.metadata.name !== 'b') throw conflict(s.metadata.name ?? '');
        written.push(s.metadata.name ?? '');
      }),
    );
    const err = await r.reconcile(NS, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(written).toEqual(['b']);
    expect((err as Error).message.split('\n').sort()).toEqual([conflict('a').message, conflict('c').message].sort());
  });
});

// A Subscription whose status write was lost right after its InstallPlan was created: the plan exists and ran, its CSV
// is installed (with the properties annotation the plan's step put on it), but the status has none of the plan's
// references — empty, or only what a pass before the plan wrote. Upstream does not adopt such a CSV: the resolver makes
// a CSV that no Subscription's installedCSV names mandatory ("exists and is not referenced by a subscription",
// R/variable_types.go NewBundleVariableFromOperator) and the Subscription, with no installedCSV, requires a catalog
// bundle of the same package, so the namespace is unsatisfiable (syncResolvingNamespace: a Warning event,
// ResolutionFailed/ConstraintsNotSatisfiable on every Subscription, not retried). No plan is made, no bundle pulled.
describe('namespace reconciler: a Subscription whose plan references were never written', () => {
  const CSV = 'a.v1.0.0';
  const content: CatalogContent = {
    origin: 'test',
    loadedAt: '2026-11-28T00:00:00Z',
    packages: [{ name: 'a', defaultChannel: 'stable', channels: [{ name: 'stable', entries: [{ name: CSV, replaces: '', skips: [], skipRange: '' }] }] }],
    bundles: [{ name: CSV, package: 'a', image: 'registry/a:1', version: '1.0.0', properties: [{ type: 'olm.package', value: JSON.stringify({ packageName: 'a', version: '1.0.0' }) }] }],
  };
  const catalog = {
    apiVersion: V1alpha1,
    kind: CatalogSourceKind,
    metadata: { name: 'cat', namespace: 'olm', uid: 'cs-uid', resourceVersion: '3' },
    spec: { sourceType: 'grpc', image: 'registry/cat:1' },
    status: { connectionState: { lastObservedState: 'READY' } },
  } as CatalogSource;
  const installed = {
    apiVersion: V1alpha1,
    kind: ClusterServiceVersionKind,
    metadata: {
      name: CSV,
      namespace: NS,
      annotations: { [PropertiesAnnotation]: JSON.stringify({ properties: [{ type: 'olm.package', value: { packageName: 'a', version: '1.0.0' } }] }) },
    },
    spec: { version: '1.0.0' },
  } as unknown as ClusterServiceVersion;
  const plan = {
    apiVersion: V1alpha1,
    kind: InstallPlanKind,
    metadata: { name: 'install-abcde', namespace: NS, uid: 'ip-uid', resourceVersion: '7', ownerReferences: [{ apiVersion: V1alpha1, kind: SubscriptionKind, name: 'a', uid: 'sub-uid' }] },
    spec: { generation: 1, approval: 'Automatic', approved: true, clusterServiceVersionNames: [CSV] },
    status: { phase: 'Complete', catalogSources: ['cat'] },
  } as InstallPlan;
  const MESSAGE_PARTS = [
    `clusterserviceversion ${CSV} exists and is not referenced by a subscription`,
    `@existing/${NS}//${CSV} and cat/olm/stable/${CSV} originate from package a`,
    `subscription a requires cat/olm/stable/${CSV}`,
    'subscription a exists',
  ];

  it.each([
    ['empty', {}],
    [
      'only what was written before the plan',
      {
        lastUpdated: '2026-11-27T23:59:00Z',
        catalogHealth: [
          {
            catalogSourceRef: { apiVersion: V1alpha1, kind: CatalogSourceKind, namespace: 'olm', name: 'cat', uid: 'cs-uid', resourceVersion: '3' },
            healthy: true,
            lastUpdated: '2026-11-27T23:59:00Z',
          },
        ],
        conditions: [{ type: 'CatalogSourcesUnhealthy', status: 'False', reason: 'AllCatalogSourcesHealthy', message: 'all available catalogsources are healthy' }],
      },
    ],
  ] as [string, SubscriptionStatus][])('status %s: ResolutionFailed ConstraintsNotSatisfiable as upstream, no plan, not retried', async (_, status) => {
    const s: Subscription = {
      apiVersion: V1alpha1,
      kind: SubscriptionKind,
      metadata: { name: 'a', namespace: NS, uid: 'sub-uid', resourceVersion: '9' },
      spec: { name: 'a', source: 'cat', sourceNamespace: 'olm', channel: 'stable' },
      status,
    };
    const written: SubscriptionStatus[] = [];
    const warnings: string[] = [];
    const p: SyncPorts = {
      ...ports([s], async (_sub, st) => {
        written.push(st);
      }),
      listInstallPlans: async () => [plan],
      csvs: () => [installed],
      catalogSources: (ns) => (ns === 'olm' ? [catalog] : []),
      content: (ns, name) => (ns === 'olm' && name === 'cat' ? content : undefined),
      events: { normal: () => undefined, warning: (_o, reason, message) => void warnings.push(`${reason}: ${message}`) },
    };
    // ports() throws from bundle() and createInstallPlan(): neither may be called
    const result = await r(p).reconcile(NS, new AbortController().signal);
    expect(result).toBeUndefined();
    expect(written).toHaveLength(1);
    const st = written[0]!;
    expect(st.installPlanRef).toBeUndefined();
    expect(st.currentCSV).toBeUndefined();
    expect(st.installedCSV).toBeUndefined();
    expect(st.state).toBeUndefined();
    const cond = st.conditions?.find((c) => c.type === SubscriptionResolutionFailed);
    expect(cond).toMatchObject({ status: 'True', reason: ReasonConstraintsNotSatisfiable });
    expect(cond?.message?.startsWith('constraints not satisfiable: ')).toBe(true);
    for (const part of MESSAGE_PARTS) expect(cond?.message).toContain(part);
    expect(warnings).toEqual([`ResolutionFailed: ${cond?.message ?? ''}`]);

    // level-triggered: the passes over the written status settle (the catalog health's reason goes from
    // CatalogSourcesAdded to AllCatalogSourcesHealthy once) and keep ResolutionFailed; still no plan
    let stored = st;
    let writes = 0;
    for (let pass = 0; pass < 3; pass++) {
      const again: SubscriptionStatus[] = [];
      const current: Subscription = { ...s, status: stored };
      await r({ ...p, listSubscriptions: async () => [current], writeStatus: async (_sub, x) => void again.push(x) }).reconcile(NS, new AbortController().signal);
      writes = again.length;
      stored = again[0] ?? stored;
    }
    expect(writes).toBe(0);
    expect(stored.conditions?.find((c) => c.type === SubscriptionResolutionFailed)?.reason).toBe(ReasonConstraintsNotSatisfiable);
    expect(stored.state).toBeUndefined();
  });

  const r = (p: SyncPorts) => newNamespaceReconciler(p);
});
