// Typed fakes for the CSV steps' unit tests: in-memory caches with the informers' indexes, a client that records
// what it is asked to do, and ports assembled from them.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import { ApiError, Indexer, NAMESPACE_INDEX, byNamespace, cacheKey, type Informer, type KubeClient } from '../../shared/kube/index.ts';
import { noopLogger } from '../../shared/observability/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import type { RequirementSource } from './requirements.ts';
import type { CSVState, CSVStepPorts } from './steps.ts';

type Cached = Pick<Informer<KubeObject>, 'get' | 'list' | 'keys' | 'byIndex'>;

function cache(objects: readonly KubeObject[]): Cached {
  const store = new Indexer<KubeObject>();
  store.addIndex(NAMESPACE_INDEX, byNamespace);
  for (const o of objects) store.set(cacheKey(o), o);
  return store;
}

export interface FakeCluster {
  csvs?: ClusterServiceVersion[];
  operatorGroups?: KubeObject[];
  operatorConditions?: KubeObject[];
  deployments?: KubeObject[];
  crds?: KubeObject[];
  serviceAccounts?: KubeObject[];
  roles?: KubeObject[];
  roleBindings?: KubeObject[];
  clusterRoles?: KubeObject[];
  clusterRoleBindings?: KubeObject[];
}

/** The shared caches over fixed objects. */
export function fakeCaches(c: FakeCluster): OlmCaches {
  const caches = {
    csvs: cache(c.csvs ?? []),
    copiedCSVs: cache([]),
    operatorGroups: cache(c.operatorGroups ?? []),
    operatorConditions: cache(c.operatorConditions ?? []),
    deployments: cache(c.deployments ?? []),
    namespaces: cache([]),
    serviceAccounts: cache(c.serviceAccounts ?? []),
    roles: cache(c.roles ?? []),
    roleBindings: cache(c.roleBindings ?? []),
    clusterRoles: cache(c.clusterRoles ?? []),
    clusterRoleBindings: cache(c.clusterRoleBindings ?? []),
    crds: cache(c.crds ?? []),
    subscriptions: cache([]),
    olmConfigs: cache([]),
  };
  return { ...caches, informers: [] } as unknown as OlmCaches;
}

export interface RecordedCall {
  readonly verb: string;
  readonly kind: string;
  readonly name: string;
  readonly body?: unknown;
}

/** A client that records writes and answers reads from `live` (everything else resolves its input). */
export function fakeClient(live: readonly KubeObject[] = []): { client: KubeClient; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const notFound = (): Error => new ApiError(404, { reason: 'NotFound', message: 'not found' }, { method: 'GET', path: '/' });
  const client = {
    get: async (ref: { kind: string; name: string; namespace?: string }) => {
      calls.push({ verb: 'get', kind: ref.kind, name: ref.name });
      const found = live.find((o) => o.kind === ref.kind && o.metadata.name === ref.name && (o.metadata.namespace ?? '') === (ref.namespace ?? ''));
      if (!found) throw notFound();
      return found;
    },
    list: async (ref: { kind: string }) => {
      calls.push({ verb: 'list', kind: ref.kind, name: '' });
      return { items: [] };
    },
    create: async (o: KubeObject) => (calls.push({ verb: 'create', kind: o.kind ?? '', name: o.metadata.name ?? '', body: o }), o),
    update: async (o: KubeObject) => (calls.push({ verb: 'update', kind: o.kind ?? '', name: o.metadata.name ?? '', body: o }), o),
    updateStatus: async (o: KubeObject) => (calls.push({ verb: 'updateStatus', kind: o.kind ?? '', name: o.metadata.name ?? '', body: o }), o),
    patch: async (ref: { kind: string; name: string }, _t: string, body: unknown) => (calls.push({ verb: 'patch', kind: ref.kind, name: ref.name, body }), {}),
    delete: async (ref: { kind: string; name: string }) => (calls.push({ verb: 'delete', kind: ref.kind, name: ref.name }), undefined),
  };
  return { client: client as unknown as KubeClient, calls };
}

/** Requirements that are all met unless told otherwise. */
export const metRequirements = (over: Partial<RequirementSource> = {}): RequirementSource => ({
  serverVersion: async () => 'v1.36.3',
  crd: () => undefined,
  csv: () => undefined,
  gvkRegistered: async () => true,
  apiService: async () => undefined,
  serviceAccount: () => ({ metadata: {} }),
  rbac: { role: () => undefined, clusterRole: () => undefined, roles: () => [], clusterRoles: () => [], roleBindings: () => [], clusterRoleBindings: () => [] },
  ...over,
});

export interface FakePorts extends CSVStepPorts {
  readonly calls: RecordedCall[];
  readonly enqueued: string[];
  readonly events: CSVStepPorts['events'] & { readonly seen: string[] };
  readonly upgrades: { count: number };
}

export function fakePorts(cluster: FakeCluster, o: { now?: Date; live?: KubeObject[]; requirements?: RequirementSource } = {}): FakePorts {
  const { client, calls } = fakeClient(o.live ?? cluster.csvs ?? []);
  const enqueued: string[] = [];
  const seen: string[] = [];
  const upgrades = { count: 0 };
  return {
    client,
    caches: fakeCaches(cluster),
    requirements: o.requirements ?? metRequirements(),
    events: { phase: (_c, type, reason, message) => void seen.push(`${type} ${reason}: ${message}`), seen },
    metrics: { emit: () => undefined, forget: () => undefined, upgrade: () => void upgrades.count++ },
    now: () => o.now ?? new Date('2026-01-01T00:10:00Z'),
    installClient: () => client,
    getCSV: async (namespace, name) => (o.live ?? cluster.csvs ?? []).find((c) => c.metadata.namespace === namespace && c.metadata.name === name) as ClusterServiceVersion | undefined,
    enqueue: (k) => void enqueued.push(k),
    calls,
    enqueued,
    upgrades,
  };
}

export const stateOf = (csv: ClusterServiceVersion): CSVState => ({ cached: csv, out: structuredClone(csv), log: noopLogger });
