import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion, InstallPlan, Operator, Subscription } from '../../../api/operators/index.ts';
import { cacheKey, Indexer, NAMESPACE_INDEX, byNamespace, type IndexFn, type KubeClient } from '../../shared/kube/index.ts';
import { noopLogger } from '../../shared/observability/index.ts';
import {
  COMPONENT_INDEX,
  CSV_OWNER_INDEX,
  componentIndex,
  newCSVAdoptionReconciler,
  csvOwnerIndex,
  newOperatorReconciler,
  owningCSVKeys,
  newSubscriptionAdoptionReconciler,
  subscriptionRests,
  type ComponentSource,
} from './reconcilers.ts';

function cache<T extends KubeObject>(...objs: T[]): Indexer<T> {
  const c = new Indexer<T>();
  c.addIndex(NAMESPACE_INDEX, byNamespace as IndexFn<T>);
  c.addIndex(COMPONENT_INDEX, componentIndex as IndexFn<T>);
  c.addIndex(CSV_OWNER_INDEX, csvOwnerIndex as IndexFn<T>);
  for (const o of objs) c.set(cacheKey(o), o);
  return c;
}

interface Call {
  readonly verb: string;
  readonly ref: { kind: string; name: string; namespace?: string };
  readonly body: unknown;
}
function fakeClient(): { client: KubeClient; calls: Call[] } {
  const calls: Call[] = [];
  const client = {
    patch: (ref: Call['ref'], _type: string, body: unknown) => {
      calls.push({ verb: 'patch', ref: { kind: ref.kind, name: ref.name, ...(ref.namespace && { namespace: ref.namespace }) }, body });
      return Promise.resolve({});
    },
    create: (obj: KubeObject) => {
      calls.push({ verb: 'create', ref: { kind: obj.kind ?? '', name: obj.metadata.name ?? '' }, body: obj });
      return Promise.resolve(obj);
    },
  } as unknown as KubeClient;
  return { client, calls };
}

const LABEL = 'operators.coreos.com/etcd.ns';
const signal = new AbortController().signal;
const sub: Subscription = {
  metadata: { name: 'etcd', namespace: 'ns' },
  spec: { name: 'etcd', source: 'c', sourceNamespace: 'olm' },
  status: { installedCSV: 'etcd.v1', installPlanRef: { name: 'ip-2', namespace: 'ns' } },
} as Subscription;
const csv = (labels: Record<string, string> = {}): ClusterServiceVersion =>
  ({ metadata: { name: 'etcd.v1', namespace: 'ns', uid: 'csv-uid', labels }, spec: { customresourcedefinitions: { owned: [{ name: 'etcds.example.com' }] } } }) as unknown as ClusterServiceVersion;
const ip = (name: string, labels: Record<string, string> = {}, phase = 'Complete'): InstallPlan => ({ metadata: { name, namespace: 'ns', labels }, status: { phase } }) as InstallPlan;

function options(o: { csvs: Indexer<ClusterServiceVersion>; installPlans: Indexer<InstallPlan>; crds?: Indexer<KubeObject>; sources?: ComponentSource[]; client: KubeClient }) {
  return {
    client: o.client,
    subscriptions: cache(sub),
    csvs: o.csvs,
    installPlans: o.installPlans,
    crds: o.crds ?? cache<KubeObject>(),
    sources: o.sources ?? [],
    logger: noopLogger,
  };
}

describe('subscription adoption', () => {
  it('labels the Subscription, its installed CSV and its latest InstallPlan; older InstallPlans lose the label', async () => {
    const { client, calls } = fakeClient();
    const r = newSubscriptionAdoptionReconciler(options({ client, csvs: cache(csv()), installPlans: cache(ip('ip-1', { [LABEL]: '' }), ip('ip-2'), ip('ip-0')) }));
    await r.reconcile('ns/etcd', signal);
    expect(calls.map((c) => [c.ref.kind, c.ref.name, c.body])).toEqual([
      ['Subscription', 'etcd', { metadata: { labels: { [LABEL]: '' } } }],
      ['ClusterServiceVersion', 'etcd.v1', { metadata: { labels: { [LABEL]: '' } } }],
      ['InstallPlan', 'ip-2', { metadata: { labels: { [LABEL]: '' } } }],
      ['InstallPlan', 'ip-1', { metadata: { labels: { [LABEL]: null } } }],
    ]);
  });
  it('waits until the Subscription rests: its latest InstallPlan RequiresApproval, Complete or Failed', async () => {
    for (const [phase, rests] of [['Installing', false], ['Planning', false], ['', false], ['RequiresApproval', true], ['Failed', true]] as const) {
      const { client, calls } = fakeClient();
      await newSubscriptionAdoptionReconciler(options({ client, csvs: cache(csv()), installPlans: cache(ip('ip-2', {}, phase)) })).reconcile('ns/etcd', signal);
      expect(calls.map((c) => c.ref.kind), phase).toEqual(rests ? ['Subscription', 'ClusterServiceVersion', 'InstallPlan'] : []);
    }
  });
  it('before its InstallPlan rests, labels the Subscription and its installed CSV once the CSV rests (Succeeded, Failed); the InstallPlan waits', async () => {
    for (const [phase, labelled] of [['Installing', false], ['Pending', false], ['Succeeded', true], ['Failed', true]] as const) {
      const { client, calls } = fakeClient();
      const settled = { ...csv(), status: { phase } } as ClusterServiceVersion;
      await newSubscriptionAdoptionReconciler(options({ client, csvs: cache(settled), installPlans: cache(ip('ip-2', {}, 'Installing')) })).reconcile('ns/etcd', signal);
      expect(calls.map((c) => c.ref.kind), phase).toEqual(labelled ? ['Subscription', 'ClusterServiceVersion'] : []);
    }
  });
  it('without an InstallPlan, a Subscription rests once a condition of it is True (resolution failed, catalogs unhealthy)', () => {
    const plans = cache<InstallPlan>();
    const without = (conditions: { type: string; status: string }[]): Subscription => ({ ...sub, status: { conditions } }) as Subscription;
    expect(subscriptionRests(without([]), plans)).toBe(false);
    expect(subscriptionRests(without([{ type: 'CatalogSourcesUnhealthy', status: 'False' }]), plans)).toBe(false);
    expect(subscriptionRests(without([{ type: 'ResolutionFailed', status: 'True' }]), plans)).toBe(true);
  });
  it('writes nothing when everything is labelled already', async () => {
    const { client, calls } = fakeClient();
    const labelled = { ...sub, metadata: { ...sub.metadata, labels: { [LABEL]: '' } } };
    const o = { ...options({ client, csvs: cache(csv({ [LABEL]: '' })), installPlans: cache(ip('ip-2', { [LABEL]: '' })) }), subscriptions: cache(labelled) };
    await newSubscriptionAdoptionReconciler(o).reconcile('ns/etcd', signal);
    expect(calls).toEqual([]);
  });
});

describe('CSV adoption', () => {
  it("labels what a labelled CSV owns (owner reference, OLM owner labels) and its owned CRDs with the CSV's keys", async () => {
    const { client, calls } = fakeClient();
    const deployments = cache<KubeObject>(
      { metadata: { name: 'd', namespace: 'ns', ownerReferences: [{ apiVersion: 'x', kind: 'ClusterServiceVersion', name: 'etcd.v1', uid: 'csv-uid' }] } },
      { metadata: { name: 'other', namespace: 'ns', ownerReferences: [{ apiVersion: 'x', kind: 'ClusterServiceVersion', name: 'x', uid: 'x-uid' }] } },
    );
    const clusterRoles = cache<KubeObject>(
      { metadata: { name: 'cr', labels: { 'olm.owner': 'etcd.v1', 'olm.owner.namespace': 'ns', 'olm.owner.kind': 'ClusterServiceVersion' } } },
      { metadata: { name: 'adopted', labels: { [LABEL]: '', 'olm.owner': 'etcd.v1', 'olm.owner.namespace': 'ns', 'olm.owner.kind': 'ClusterServiceVersion' } } },
    );
    const crds = cache<KubeObject>({ metadata: { name: 'etcds.example.com' } }, { metadata: { name: 'others.example.com' } });
    const sources = [
      { apiVersion: 'apps/v1', kind: 'Deployment', cache: deployments },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', cache: clusterRoles },
    ];
    await newCSVAdoptionReconciler(options({ client, csvs: cache(csv({ [LABEL]: '' })), installPlans: cache(), crds, sources })).reconcile('ns/etcd.v1', signal);
    expect(calls.map((c) => [c.ref.kind, c.ref.name])).toEqual([
      ['Deployment', 'd'],
      ['ClusterRole', 'cr'],
      ['CustomResourceDefinition', 'etcds.example.com'],
    ]);
  });
  it('does nothing for a CSV without component labels', async () => {
    const { client, calls } = fakeClient();
    const deployments = cache<KubeObject>({ metadata: { name: 'd', namespace: 'ns', ownerReferences: [{ apiVersion: 'x', kind: 'ClusterServiceVersion', name: 'etcd.v1', uid: 'csv-uid' }] } });
    await newCSVAdoptionReconciler(options({ client, csvs: cache(csv()), installPlans: cache(), sources: [{ apiVersion: 'apps/v1', kind: 'Deployment', cache: deployments }] })).reconcile('ns/etcd.v1', signal);
    expect(calls).toEqual([]);
  });
  it('maps an owned object to its CSV: by owner reference when namespaced, by owner labels when cluster-scoped', () => {
    expect(owningCSVKeys({ metadata: { name: 'd', namespace: 'ns', ownerReferences: [{ apiVersion: 'x', kind: 'ClusterServiceVersion', name: 'etcd.v1', uid: 'u' }] } })).toEqual(['ns/etcd.v1']);
    expect(owningCSVKeys({ metadata: { name: 'cr', labels: { 'olm.owner': 'etcd.v1', 'olm.owner.namespace': 'ns', 'olm.owner.kind': 'ClusterServiceVersion' } } })).toEqual(['ns/etcd.v1']);
    expect(owningCSVKeys({ metadata: { name: 'cr' } })).toEqual([]);
  });
});

describe('operator reconciler', () => {
  it('creates a missing Operator while some object carries its label, not otherwise', async () => {
    const { client, calls } = fakeClient();
    const subs = cache<KubeObject>({ metadata: { name: 'etcd', namespace: 'ns', labels: { [LABEL]: '' } } });
    const sources = [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', cache: subs }];
    const r = newOperatorReconciler({ client, operators: cache<Operator>(), sources, logger: noopLogger });
    await r.reconcile('etcd.ns', signal);
    await r.reconcile('gone.ns', signal);
    expect(calls).toEqual([{ verb: 'create', ref: { kind: 'Operator', name: 'etcd.ns' }, body: { apiVersion: 'operators.coreos.com/v1', kind: 'Operator', metadata: { name: 'etcd.ns' } } }]);
  });

  it('deletes an Operator whose listed components are all gone (by uid); one never given a component stays', async () => {
    const deleted: unknown[] = [];
    const client = {
      delete: (ref: { kind: string; name: string }, opts: { preconditions?: unknown }) => {
        deleted.push([ref.kind, ref.name, opts.preconditions]);
        return Promise.resolve(undefined);
      },
      updateStatus: (obj: Operator) => Promise.resolve(obj),
    } as unknown as KubeClient;
    const ref = { kind: 'Subscription', apiVersion: 'operators.coreos.com/v1alpha1', namespace: 'ns', name: 'etcd' };
    const operators = cache<Operator>(
      { apiVersion: 'operators.coreos.com/v1', kind: 'Operator', metadata: { name: 'etcd.ns', uid: 'u1' }, status: { components: { labelSelector: {}, refs: [ref] } } } as Operator,
      { apiVersion: 'operators.coreos.com/v1', kind: 'Operator', metadata: { name: 'handmade.ns', uid: 'u2' } } as Operator,
    );
    const sources = [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', cache: cache<KubeObject>() }];
    const r = newOperatorReconciler({ client, operators, sources, logger: noopLogger });
    await r.reconcile('etcd.ns', signal);
    await r.reconcile('handmade.ns', signal);
    expect(deleted).toEqual([['Operator', 'etcd.ns', { uid: 'u1' }]]);
  });
});

describe('operator status', () => {
  it("writes the Operator's components once, and not again when nothing changed", async () => {
    const written: Operator[] = [];
    const client = {
      updateStatus: (obj: Operator) => {
        written.push(structuredClone(obj));
        return Promise.resolve({ ...obj, metadata: { ...obj.metadata, resourceVersion: '2' } });
      },
    } as unknown as KubeClient;
    const subs = cache<KubeObject>({ metadata: { name: 'etcd', namespace: 'ns', labels: { [LABEL]: '' } }, status: { conditions: [{ type: 'CatalogSourcesUnhealthy', status: 'False' }] } });
    const sources = [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', cache: subs }];
    const operators = cache<Operator>({ apiVersion: 'operators.coreos.com/v1', kind: 'Operator', metadata: { name: 'etcd.ns', resourceVersion: '1' } });
    const r = newOperatorReconciler({ client, operators, sources, logger: noopLogger });
    await r.reconcile('etcd.ns', signal);
    expect(written.map((o) => o.status)).toEqual([
      {
        components: {
          labelSelector: { matchExpressions: [{ key: LABEL, operator: 'Exists' }] },
          refs: [{ kind: 'Subscription', apiVersion: 'operators.coreos.com/v1alpha1', namespace: 'ns', name: 'etcd', conditions: [{ type: 'CatalogSourcesUnhealthy', status: 'False' }] }],
        },
      },
    ]);
    operators.set('etcd.ns', { ...written[0]!, metadata: { name: 'etcd.ns', resourceVersion: '2' } });
    await r.reconcile('etcd.ns', signal);
    expect(written).toHaveLength(1);
  });
});
