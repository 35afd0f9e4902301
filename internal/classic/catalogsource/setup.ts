// catalogSourceSetup: the CatalogSource informer, the content sources (image, address) and the CatalogSource controller.
import { join } from 'node:path';
import { CatalogSourceKind, V1alpha1, type CatalogSource } from '../../../api/operators/index.ts';
import { Controller, splitKey, type RateLimiter } from '../../shared/controller/index.ts';
import type { Informer} from '../../shared/kube/index.ts';
import { informers } from '../../shared/kube/index.ts';
import type { Cache, ManagerContext, ManagerParts } from '../../shared/manager/index.ts';
import { clockOf, registryAccess, type RegistryFlagOptions } from '../../shared/manager/index.ts';
import type { RegistryClientOptions } from '../registryclient/index.ts';
import type { RegistryClient as ImageRegistry } from '../../shared/image/index.ts';
import { catalogSourceMetrics } from './metrics.ts';
import { newContentFollower, type ContentFollower } from './follower.ts';
import { newCatalogSourceReconciler, type ContentRegistry } from './reconciler.ts';
import { addressSources, imageSources } from './sources.ts';


export interface CatalogSourceOptions extends RegistryFlagOptions {
  /** The global catalog namespace (upstream's `--namespace`, default `olm`): its CatalogSources serve every namespace. */
  readonly globalCatalogNamespace: string;
  /** Root of the per-CatalogSource image caches. */
  readonly cacheDir: string;
  readonly platform?: string;
  /** gRPC client options for spec.address channels (e.g. a shorter reconnect backoff in tests). */
  readonly registryClient?: RegistryClientOptions;
  readonly notReadyRecheckMs?: number;
  readonly rateLimiter?: () => RateLimiter<string>;
}

export interface CatalogSourceParts extends ManagerParts {
  readonly catalogSources: Informer<CatalogSource>;
  readonly controller: Controller;
  /** The every-replica content loader (stands aside while `controller` runs): a non-leader serves the same content. */
  readonly follower: ContentFollower;
  /** Each CatalogSource's loaded content, by namespace and name. */
  readonly contents: ContentRegistry;
  /** The process's image registry client (pull secrets and CAs from the flags), for other image readers. */
  readonly registry: ImageRegistry;
}

export function catalogSourceSetup(options: CatalogSourceOptions): (ctx: ManagerContext) => Promise<CatalogSourceParts> {
  return async (ctx) => {
    const { client, logger, metrics } = ctx;
    const clock = clockOf(ctx);
    const log = logger.child({ controller: 'catalogsource' });
    const catalogSources = informers(client, logger)<CatalogSource>(V1alpha1, CatalogSourceKind);
    const { registry, informer: secretInformer } = await registryAccess({ client, logger, ...options });
    const watched: Cache[] = secretInformer ? [catalogSources, secretInformer] : [catalogSources];
    const late: { controller?: Controller; follower?: ContentFollower } = {}; // they exist once the sources do
    const listeners = new Set<(namespace: string, name: string) => void>();
    const onContent = (key: string): void => {
      const { namespace = '', name } = splitKey(key);
      for (const l of [...listeners]) {
        try {
          l(namespace, name);
        } catch (err) {
          log.error('a content change listener failed', { catalogSource: key, err: (err as Error).message });
        }
      }
    };
    const addresses = addressSources({
      onChange: (key) => {
        late.controller?.enqueue(key);
        late.follower?.controller.enqueue(key);
      },
      onContent,
      ...(options.registryClient && { client: options.registryClient }),
      clock,
    });
    const images = imageSources({
      cacheDir: join(options.cacheDir, 'catalogsources'),
      registry,
      ...(options.platform && { platform: options.platform }),
      logger: logger.child({ component: 'image' }),
      onContent,
      clock,
    });
    const reconciler = newCatalogSourceReconciler({
      get: (key) => catalogSources.get(key),
      client,
      images,
      addresses,
      metrics: catalogSourceMetrics(metrics.registry, () => catalogSources.keys().length),
      ...(options.notReadyRecheckMs && { notReadyRecheckMs: options.notReadyRecheckMs }),
      logger: log,
      clock,
    });
    const controller = new Controller({
      name: 'catalogsource',
      reconciler,
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    late.controller = controller;
    controller.watch(catalogSources);
    // Every replica loads the content (its package server serves it); the leader's controller, once started, does it instead.
    const follower = newContentFollower({
      catalogSources,
      images,
      addresses,
      leading: () => controller.started,
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
      ...(options.notReadyRecheckMs && { notReadyRecheckMs: options.notReadyRecheckMs }),
    });
    late.follower = follower;
    log.info('global catalog namespace', { namespace: options.globalCatalogNamespace });

    const contents: ContentRegistry = {
      get: (namespace, name) => reconciler.get(namespace, name),
      onChange: (listener) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    };
    const close = async (): Promise<void> => {
      addresses.close();
      await registry.close();
    };
    return {
      informers: watched,
      controllers: [controller],
      runnables: [(signal) => follower.run(signal)],
      closers: [close],
      catalogSources,
      controller,
      follower,
      contents,
      registry,
    };
  };
}

