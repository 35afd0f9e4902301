// subscriptionSetup: the Subscription informer, the bundle unpacker and the per-namespace resolution controller.
import { join } from 'node:path';
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  ClusterServiceVersionKind,
  InstallPlanKind,
  OperatorGroupKind,
  SubscriptionKind,
  V1,
  V1alpha1,
  type CatalogSource,
  type ClusterServiceVersion,
  type InstallPlan,
  type OperatorGroup,
  type Subscription,
  type SubscriptionStatus,
} from '../../../api/operators/index.ts';
import { Controller, type RateLimiter } from '../../shared/controller/index.ts';
import { CachingImagePuller, type RegistryClient as ImageRegistry } from '../../shared/image/index.ts';
import type { Informer, KubeClient } from '../../shared/kube/index.ts';
import { eventRecorder, ignoreNotFound, NAMESPACE_INDEX, informers, retryOnConflict, updateStatus } from '../../shared/kube/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../../shared/manager/index.ts';
import { BUNDLE_PATHS, loadRegistryV1 } from '../../shared/registryv1/index.ts';
import type { ContentRegistry } from '../catalogsource/index.ts';
import { createClassicResolutionMetrics } from '../resolver/index.ts';
import { subscriptionMetrics } from './metrics.ts';
import { newNamespaceReconciler } from './sync.ts';

export interface SubscriptionOptions {
  readonly globalCatalogNamespace: string;
  /** Root of the bundle image cache (`<cacheDir>/bundles`). */
  readonly cacheDir: string;
  readonly platform?: string;
  /** What the CatalogSource side gives: its informer, each source's content, the image registry client. */
  readonly catalogSources: Informer<CatalogSource>;
  readonly contents: ContentRegistry;
  readonly registry: ImageRegistry;
  /**
   * Informers other capabilities of the process already run (olm-classic's shared olm caches: non-copied CSVs,
   * Subscriptions, OperatorGroups; the InstallPlan controller's plans), so each kind is watched once; without them
   * this setup runs its own.
   */
  readonly shared?: {
    readonly subscriptions: Informer<Subscription>;
    readonly installPlans: Informer<InstallPlan>;
    readonly csvs: Informer<ClusterServiceVersion>;
    readonly operatorGroups: Informer<OperatorGroup>;
  };
  readonly rateLimiter?: () => RateLimiter<string>;
}

/**
 * upstream's updateSubscriptionStatuses for one Subscription: the status the pass computed written onto the latest
 * version of the object, a 409 Conflict retried from a fresh read (client-go's retry.DefaultRetry: 5 tries). The
 * first try uses the version the pass read (no GET). Only the namespace sync writes a Subscription's status; what
 * changes it meanwhile is metadata (the Operator API's component labels), which the write keeps. A Subscription
 * that is gone is skipped.
 */
export async function writeSubscriptionStatus(client: KubeClient, sub: Subscription, status: SubscriptionStatus, signal: AbortSignal): Promise<void> {
  const ref = { apiVersion: V1alpha1, kind: SubscriptionKind, name: sub.metadata.name ?? '', namespace: sub.metadata.namespace ?? '' };
  await ignoreNotFound(
    retryOnConflict(
      (attempt) =>
        updateStatus<Subscription>(client, ref, (obj) => void (obj.status = structuredClone(status)), {
          ...(attempt === 0 && { current: { ...sub, apiVersion: V1alpha1, kind: SubscriptionKind } }),
          signal,
        }),
      { signal },
    ),
  );
}

export function subscriptionSetup(options: SubscriptionOptions): (ctx: ManagerContext) => Promise<ManagerParts> {
  return async (ctx) => {
    const { client, logger, metrics } = ctx;
    const clock = clockOf(ctx);
    const log = logger.child({ controller: 'subscription' });
    const informer = informers(client, logger);
    const subscriptions = options.shared?.subscriptions ?? informer<Subscription>(V1alpha1, SubscriptionKind);
    const installPlans = options.shared?.installPlans ?? informer<InstallPlan>(V1alpha1, InstallPlanKind);
    const csvs = options.shared?.csvs ?? informer<ClusterServiceVersion>(V1alpha1, ClusterServiceVersionKind);
    const operatorGroups = options.shared?.operatorGroups ?? informer<OperatorGroup>(V1, OperatorGroupKind);
    const inNamespace = <T extends KubeObject>(inf: Informer<T>, ns: string): T[] => inf.byIndex(NAMESPACE_INDEX, ns);

    const puller = new CachingImagePuller({
      cacheDir: join(options.cacheDir, 'bundles'),
      registry: options.registry,
      ...(options.platform && { platform: options.platform }),
      logger: log.child({ component: 'image' }),
    });
    const resolutionMetrics = createClassicResolutionMetrics(metrics.registry);
    const subMetrics = subscriptionMetrics(metrics.registry, () => subscriptions.keys().length);
    const reconciler = newNamespaceReconciler({
      listSubscriptions: async (ns, signal) => (await client.list<Subscription>({ apiVersion: V1alpha1, kind: SubscriptionKind, namespace: ns }, { signal })).items,
      listInstallPlans: async (ns, signal) => (await client.list<InstallPlan>({ apiVersion: V1alpha1, kind: InstallPlanKind, namespace: ns }, { signal })).items,
      csvs: (ns) => inNamespace(csvs, ns),
      operatorGroups: (ns) => inNamespace(operatorGroups, ns),
      catalogSources: (ns) => inNamespace(options.catalogSources, ns),
      content: (ns, name) => options.contents.get(ns, name),
      bundle: async (image, signal) => loadRegistryV1((await puller.pull(image, { filter: BUNDLE_PATHS, signal })).dir),
      createInstallPlan: async (plan, status, signal) => {
        const ip = await client.create<InstallPlan>(plan, { signal });
        return client.updateStatus<InstallPlan>({ ...ip, status }, { signal });
      },
      synced: (sub) => subMetrics.synced(sub),
      writeStatus: (sub, status, signal) => writeSubscriptionStatus(client, sub, status, signal),
      events: eventRecorder(client, 'olm-classic', log),
      metrics: resolutionMetrics,
      logger: log,
      globalNamespace: options.globalCatalogNamespace,
      now: () => clock.date(),
    });
    const controller = new Controller({
      name: 'subscription',
      reconciler,
      keyField: 'namespace', // one pass per namespace
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    const ns = (obj: { metadata: { namespace?: string } }): string | undefined => obj.metadata.namespace;
    controller.watch(subscriptions, (sub, type) => {
      if (type === 'delete') subMetrics.deleted(sub);
      return ns(sub);
    });
    controller.watch(installPlans, ns);
    controller.watch(csvs, ns);
    controller.watch(operatorGroups, ns);
    // a CatalogSource in the global namespace can change the resolution of every namespace with Subscriptions
    controller.watch(options.catalogSources, (cs) =>
      cs.metadata.namespace === options.globalCatalogNamespace ? new Set(subscriptions.list().map((s) => s.metadata.namespace ?? '')) : ns(cs),
    );
    return {
      informers: options.shared ? [] : [subscriptions, installPlans, csvs, operatorGroups],
      controllers: [controller],
      closers: [() => puller.close()],
    };
  };
}
