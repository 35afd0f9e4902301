// Wiring of the ClusterObjectSet runtime inside operator-controller: the ClusterObjectSet informer (indexed by
// owner), the watches on managed objects, the revision engine, the ClusterObjectSet controller (deadline-aware
// backoff) and the ClusterExtension side (ExtensionObjectSets).
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ClusterObjectSetKind, GroupVersion, LifecycleStateArchived, OwnerNameKey, RevisionNameKey, type ClusterObjectSet } from '../../../api/v1/index.ts';
import { Controller, defaultControllerRateLimiter, realClock, type Clock, type RateLimiter } from '../../shared/controller/index.ts';
import type { Informer} from '../../shared/kube/index.ts';
import { ignoreNotFound, informers, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger, Metrics } from '../../shared/observability/index.ts';
import { DeadlineAwareRateLimiter } from './deadline.ts';
import { RevisionEngine } from './engine.ts';
import { ExtensionObjectSets } from './extension.ts';
import { ClusterObjectSetReconciler } from './reconciler.ts';
import { ManagedObjectWatcher } from './watch.ts';

const OWNER_INDEX = 'owner';

export interface ObjectSetRuntimeOptions {
  readonly client: KubeClient;
  readonly systemNamespace: string;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  /** Backoff of the ClusterObjectSet controller (capped at each revision's deadline); default client-go's. */
  readonly rateLimiter?: () => RateLimiter<string>;
  /** Wall time of the revisions' progress deadlines; default the toolkit's realClock. */
  readonly clock?: Clock;
}

export interface ObjectSetRuntime {
  readonly objectSets: Informer<ClusterObjectSet>;
  /** The revisions' object Secrets of the system namespace (metadata only). */
  readonly secrets: Informer;
  readonly managed: ManagedObjectWatcher;
  readonly controller: Controller;
  readonly reconciler: ClusterObjectSetReconciler;
  /** What the ClusterExtension controller uses to write and read revisions. */
  readonly extensions: ExtensionObjectSets;
  /**
   * The ClusterExtension to re-enqueue for a ClusterObjectSet event (its owner-name label): any add or delete, and
   * updates that change what the extension mirrors (lifecycle state, conditions of a revision not archived before and
   * after, deletion); undefined otherwise.
   */
  ownerToNotify(type: 'add' | 'update' | 'delete', cos: ClusterObjectSet, old?: ClusterObjectSet): string | undefined;
  stop(): Promise<void>;
}

export function objectSetRuntime(o: ObjectSetRuntimeOptions): ObjectSetRuntime {
  const log = o.logger.child({ controller: 'clusterobjectset' });
  const clock = o.clock ?? realClock;
  const now = (): number => clock.date().getTime();
  const informer = informers(o.client, o.logger);
  const objectSets = informer<ClusterObjectSet>(GroupVersion, ClusterObjectSetKind);
  objectSets.addIndex(OWNER_INDEX, (c) => (c.metadata.labels?.[OwnerNameKey] === undefined ? [] : [c.metadata.labels[OwnerNameKey]]));
  // The Secrets holding revisions' objects, by metadata (uid and immutability); their data is read only when a
  // revision's phases are resolved (the reconciler keeps what it resolved while the Secrets' uids stay the same).
  const secrets = informer<KubeObject>('v1', 'Secret', {
    name: 'objectset-secrets',
    namespace: o.systemNamespace,
    labelSelector: RevisionNameKey,
    transform: (s: KubeObject): KubeObject => ({
      apiVersion: s.apiVersion,
      kind: s.kind,
      metadata: { name: s.metadata.name, namespace: s.metadata.namespace, uid: s.metadata.uid },
      immutable: s['immutable'],
    }),
  });
  const readSecret = (namespace: string, name: string): Promise<KubeObject | undefined> => ignoreNotFound(o.client.get({ apiVersion: 'v1', kind: 'Secret', namespace, name }));
  const secretMeta = async (namespace: string, name: string): Promise<KubeObject | undefined> => {
    const cached = namespace === o.systemNamespace && secrets.hasSynced() ? secrets.get(`${namespace}/${name}`) : undefined;
    return cached ?? readSecret(namespace, name);
  };
  const managed: ManagedObjectWatcher = new ManagedObjectWatcher({
    client: o.client,
    enqueue: (name) => controller.enqueue(name),
    deleted: (uid) => engine.forget(uid),
    ownWrite: (uid, rv) => engine.ownWrite(uid, rv),
    logger: log,
  });
  const engine: RevisionEngine = new RevisionEngine({
    client: o.client,
    cache: (apiVersion, kind, ns, name) => managed.get(apiVersion, kind, ns, name),
    synced: (apiVersion, kind) => managed.synced(apiVersion, kind),
  });
  const reconciler = new ClusterObjectSetReconciler({
    client: o.client,
    get: (key) => objectSets.get(key),
    byOwner: (owner) => objectSets.byIndex(OWNER_INDEX, owner),
    engine,
    watch: (objects) => managed.watch(objects as never),
    readSecret,
    secretMeta,
    systemNamespace: o.systemNamespace,
    logger: log,
    now,
  });
  const controller = new Controller({
    name: 'clusterobjectset',
    reconciler,
    concurrency: 4,
    logger: o.logger,
    ...(o.metrics && { metrics: o.metrics }),
    rateLimiter: new DeadlineAwareRateLimiter(o.rateLimiter?.() ?? defaultControllerRateLimiter(), (key) => objectSets.get(key), now),
  });
  // Every change re-enqueues the revision, except the ones its own passes made (status, finalizer).
  objectSets.onEvent((type, cos) => {
    const name = cos.metadata.name;
    if (!name || (type === 'update' && reconciler.ownWrite(name, cos.metadata.resourceVersion))) return;
    controller.enqueue(name);
  });
  return {
    objectSets,
    secrets,
    managed,
    controller,
    reconciler,
    extensions: new ExtensionObjectSets({
      client: o.client,
      systemNamespace: o.systemNamespace,
      cached: (extension) => objectSets.byIndex(OWNER_INDEX, extension),
      logger: o.logger.child({ component: 'objectsets' }),
    }),
    ownerToNotify: (type, cos, old) => {
      const owner = cos.metadata.labels?.[OwnerNameKey];
      if (owner === undefined || type !== 'update' || !old) return owner;
      // An archived revision is no part of the extension's status (its retention is counted on the next pass anyway).
      if (old.spec?.lifecycleState === LifecycleStateArchived && cos.spec?.lifecycleState === LifecycleStateArchived && !cos.metadata.deletionTimestamp) return undefined;
      const seen = (c: ClusterObjectSet): string =>
        JSON.stringify([c.spec?.lifecycleState, (c.status?.conditions ?? []).map((x) => [x.type, x.status, x.reason, x.message, x.lastTransitionTime])]);
      return seen(cos) === seen(old) ? undefined : owner;
    },
    stop: () => managed.stop(),
  };
}
