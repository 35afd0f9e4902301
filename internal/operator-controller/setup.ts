// operator-controller's wiring: from OperatorControllerOptions (flags) and the manager's context to
// the informers (ClusterExtensions, ClusterCatalogs), the catalog content cache, and the leader's
// ClusterExtension controller, a pipeline over small ports (controller/README.md):
//
//   ClusterCatalog ─▶ content client ─▶ resolver ─▶ unpacker ─▶ renderer ─▶ preflights ─▶ applier ─▶ status
//
// spec.serviceAccount is ignored, as upstream v1.11: every extension installs as operator-controller. Only with our
// ServiceAccountInstalls gate is it honoured: ServiceAccount and RBAC informers (installer/) tell whether an
// extension's service account exists and re-enqueue the extensions a grant could unblock, the permission preflight
// runs, and the applier impersonates the account.
//
// The stage implementations come from `OperatorControllerImplementations` (implementations.ts
// for the process; tests may swap one), so this file only strings them together.
import { join } from 'node:path';
import {
  ClusterCatalogKind,
  ClusterExtensionKind,
  GroupVersion,
  type ClusterCatalog,
  type ClusterExtension,
} from '../../api/v1/index.ts';
import { Controller, type Clock } from '../shared/controller/index.ts';
import { createImagePuller, watchCaPool, type CaPool } from '../shared/image/index.ts';
import type { KubeObject } from '../../api/meta/v1.ts';
import type { Informer} from '../shared/kube/index.ts';
import { eventRecorder, informers, type KubeClient } from '../shared/kube/index.ts';
import { OwnedObjectWatcher } from './applier/index.ts';
import { clockOf, registryAccess, type Cache, type ManagerContext, type ManagerParts } from '../shared/manager/index.ts';
import type { Logger, Metrics } from '../shared/observability/index.ts';
import type { TLSProfile } from '../shared/tlsprofile/index.ts';
import type { CatalogContentClient } from './contentclient/index.ts';
import {
  ClusterExtensionReconciler,
  clusterExtensionObjectSetSteps,
  clusterExtensionSteps,
  kubeFinalizers,
  type BundleApplier,
  type BundleRenderer,
  type BundleResolver,
  type InstallPreflight,
} from './controller/index.ts';
import { objectSetRuntime, type ObjectSetRuntime } from './objectset/index.ts';
import type { CertProviderName, OperatorControllerOptions } from './options.ts';
import { installerWatches } from './installer/index.ts';
import { imageBundleUnpacker } from './unpack/index.ts';

/** A catalog content cache the controller keeps in step with ClusterCatalog events. */
export interface CatalogContentCache extends CatalogContentClient {
  /** A ClusterCatalog was added or changed: fetch its content when its resolved digest is new. */
  catalogChanged(catalog: ClusterCatalog): void;
  /** A ClusterCatalog was deleted. */
  catalogDeleted(name: string): void;
}

/** The stages, built per process (internal/operator-controller/implementations.ts). */
export interface OperatorControllerImplementations {
  /** `cacheDir`: where catalogs' content is kept (`<--cache-path>/catalogs`). */
  readonly content: (o: { readonly caCerts?: CaPool; readonly logger: Logger; readonly cacheDir: string; readonly tlsProfile?: TLSProfile }) => CatalogContentCache;
  /** `bundleReleaseSupport`: the BundleReleaseSupport gate (OperatorControllerOptions). */
  readonly resolver: (o: {
    readonly listCatalogs: () => readonly ClusterCatalog[];
    readonly content: CatalogContentClient;
    readonly metrics: Metrics;
    readonly bundleReleaseSupport: boolean;
  }) => BundleResolver;
  /**
   * `certProvider`: for bundles with webhooks (`null`: none, such bundles are refused); the other two are the
   * SingleOwnNamespaceInstallSupport and DeploymentConfig gates (OperatorControllerOptions).
   */
  readonly renderer: (o: {
    readonly certProvider: CertProviderName | null;
    readonly singleOwnNamespaceInstallSupport: boolean;
    readonly deploymentConfig: boolean;
  }) => BundleRenderer;
  /** `serviceAccountInstalls`: the gate (OperatorControllerOptions); on, the service account's permissions are checked. */
  readonly preflights: (o: {
    readonly client: KubeClient;
    readonly logger: Logger;
    readonly certProvider: CertProviderName | null;
    readonly serviceAccountInstalls: boolean;
  }) => readonly InstallPreflight[];
  readonly applier: (o: {
    readonly client: KubeClient;
    readonly systemNamespace: string;
    readonly logger: Logger;
    /** To be told of every object a rollout applied (the owned-object watches follow them). */
    readonly applied: (objects: readonly KubeObject[]) => void;
    /** The gate (OperatorControllerOptions); on, requests about an extension's objects impersonate its service account. */
    readonly serviceAccountInstalls: boolean;
    /** The ManagerContext's clock. */
    readonly clock: Clock;
  }) => BundleApplier;
}

export interface OperatorControllerParts extends ManagerParts {
  readonly extensions: Informer<ClusterExtension>;
  readonly catalogs: Informer<ClusterCatalog>;
  readonly content: CatalogContentCache;
  readonly reconciler: ClusterExtensionReconciler;
  readonly controller: Controller;
  /** Watches the kinds of installed objects, so drift is repaired at once rather than at the next resync. */
  readonly owned: OwnedObjectWatcher;
  /** BoxcutterRuntime: the ClusterObjectSet informer, controller and the extensions' view of them. */
  readonly objectSets?: ObjectSetRuntime;
}

const resolvedRef = (c: ClusterCatalog | undefined): string | undefined => c?.status?.resolvedSource?.image?.ref;

export function operatorControllerSetup(
  options: OperatorControllerOptions,
  impl: OperatorControllerImplementations,
): (ctx: ManagerContext) => Promise<OperatorControllerParts> {
  return async (ctx) => {
    const { client, logger, metrics } = ctx;
    const clock = clockOf(ctx);
    const informer = informers(client, logger);
    const extensions = informer<ClusterExtension>(GroupVersion, ClusterExtensionKind);
    const catalogs = informer<ClusterCatalog>(GroupVersion, ClusterCatalogKind);
    const { registry, informer: secretInformer, caPool: pullCaPool } = await registryAccess({ client, logger, ...options, watchPullCas: true });
    // ServiceAccountInstalls (ours, off by default): the service accounts extensions install as, and RBAC changes
    // that could grant what one was missing. Off, as upstream, spec.serviceAccount is ignored and nothing is watched.
    const serviceAccountInstalls = options.serviceAccountInstalls === true;
    const installer = serviceAccountInstalls
      ? installerWatches({ client, logger, extensions: () => extensions.list(), enqueue: (name) => controller.enqueue(name) })
      : undefined;
    const watched: Cache[] = [extensions, catalogs, ...(secretInformer ? [secretInformer] : []), ...(installer?.informers ?? [])];
    const puller = createImagePuller({ cacheDir: join(options.cachePath, 'unpack'), registry, logger: logger.child({ component: 'image' }), clock });
    // upstream's catalogd-ca-pool CertPoolWatcher: the directory reloaded on change, an exit on a changed system store.
    const caCerts = await watchCaPool({ ...(options.catalogdCasDir && { dir: options.catalogdCasDir }), logger: logger.child({ component: 'catalogd-ca-pool' }) });
    const content = impl.content({
      caCerts,
      logger: logger.child({ component: 'catalog-content' }),
      cacheDir: join(options.cachePath, 'catalogs'),
      ...(options.tlsProfile && { tlsProfile: options.tlsProfile }),
    });

    const log = logger.child({ controller: 'clusterextension' });
    if (serviceAccountInstalls) log.info('feature gate ServiceAccountInstalls is on: extensions naming spec.serviceAccount install as that account');
    const certProvider = options.certProvider === undefined ? 'cert-manager' : options.certProvider;
    // Bound late: events only arrive once the controller below exists.
    const owned = new OwnedObjectWatcher({ client, enqueue: (name) => controller.enqueue(name), logger: logger.child({ component: 'owned-objects' }) });
    // The pipeline is assembled here, where its implementations are chosen: the ports both runtimes share, then theirs.
    const ports = {
      finalizers: kubeFinalizers(client),
      resolver: impl.resolver({ listCatalogs: () => catalogs.list(), content, metrics, bundleReleaseSupport: options.bundleReleaseSupport === true }),
      unpacker: imageBundleUnpacker(puller),
      renderer: impl.renderer({
        certProvider,
        singleOwnNamespaceInstallSupport: options.singleOwnNamespaceInstallSupport === true,
        deploymentConfig: options.deploymentConfig === true,
      }),
      events: eventRecorder(client, 'operator-controller', log),
    };
    // Under BoxcutterRuntime every extension installs as operator-controller, as upstream; ServiceAccountInstalls is
    // a standard-runtime feature.
    const runtime = options.boxcutterRuntime
      ? objectSetRuntime({ client, systemNamespace: options.systemNamespace, logger, metrics, clock, ...(options.rateLimiter && { rateLimiter: options.rateLimiter }) })
      : undefined;
    const steps = runtime
      ? clusterExtensionObjectSetSteps({
          ...ports,
          preflights: impl.preflights({ client, logger: log, certProvider, serviceAccountInstalls: false }),
          objectSets: runtime.extensions,
        })
      : clusterExtensionSteps({
          ...ports,
          preflights: impl.preflights({ client, logger: log, certProvider, serviceAccountInstalls }),
          applier: impl.applier({ client, systemNamespace: options.systemNamespace, logger: log, applied: (objects) => owned.watch(objects), serviceAccountInstalls, clock }),
          ...(installer && { identity: installer.identity }),
        });
    const reconciler = new ClusterExtensionReconciler({
      client,
      get: (key) => extensions.get(key),
      steps,
      logger: log,
      ...(options.resyncMs !== undefined && { resyncMs: options.resyncMs }),
    });
    const controller = new Controller({
      name: 'clusterextension',
      reconciler,
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    // Every change re-enqueues the extension, except the status writes of its own passes (they decided with that state).
    extensions.onEvent((type, ext) => {
      const name = ext.metadata.name;
      if (!name || (type === 'update' && reconciler.ownWrite(name, ext.metadata.resourceVersion))) return;
      controller.enqueue(name);
    });
    if (runtime) {
      watched.push(runtime.objectSets, runtime.secrets);
      // A revision's progress is the extension's status: any change of one re-enqueues its extension.
      runtime.objectSets.onEvent((type, cos, old) => {
        const owner = runtime.ownerToNotify(type, cos, old);
        if (owner) controller.enqueue(owner);
      });
    }

    // Catalog content follows the informer on every replica; extensions are re-resolved when a
    // catalog appears, goes, or serves a new digest (upstream's predicate), not on other updates.
    catalogs.onEvent((type, catalog, old) => {
      if (type === 'delete') content.catalogDeleted(catalog.metadata.name!);
      else content.catalogChanged(catalog);
      if (type !== 'update' || resolvedRef(catalog) !== resolvedRef(old)) {
        for (const ext of extensions.list()) controller.enqueue(ext.metadata.name!);
      }
    });

    const closeAll = async (): Promise<void> => {
      caCerts.stop();
      pullCaPool?.stop();
      await puller.close(); // in-flight bundle unpacks stop and clean up before the process goes
      await Promise.all([registry.close(), owned.stop(), runtime?.stop()]);
    };

    return {
      informers: watched,
      controllers: runtime ? [controller, runtime.controller] : [controller],
      closers: [closeAll],
      extensions,
      catalogs,
      content,
      reconciler,
      controller,
      owned,
      ...(runtime && { objectSets: runtime }),
    };
  };
}
