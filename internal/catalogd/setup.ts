// catalogd's wiring: from CatalogdOptions (flags) and the manager's context to informers, the
// leader's ClusterCatalog controller, and what every replica runs — the content follower, the
// catalog HTTP server and garbage collection. Feature gates: APIV1MetasHandler routes
// /api/v1/metas, GraphQLCatalogQueries wraps the store with GraphQL schemas and routes
// /api/v1/graphql. See controller/README.md for the design.
import { join } from 'node:path';
import { ClusterCatalogKind, GroupVersion, type ClusterCatalog } from '../../api/v1/index.ts';
import { Controller } from '../shared/controller/index.ts';
import { informers, type Informer } from '../shared/kube/index.ts';
import { clockOf, parseBindAddress, registryAccess, type Cache, type ManagerContext, type ManagerParts } from '../shared/manager/index.ts';
import {
  createCatalogContent,
  garbageCollector,
  kubeCatalogApi,
  newClusterCatalogReconciler,
  newContentFollower,
  type CatalogContent,
  type ClusterCatalogReconciler,
  type ContentFollower,
} from './controller/index.ts';
import { catalogBaseUrl, DEFAULT_MAX_CATALOG_FILES, type CatalogdImplementations, type CatalogdOptions } from './options.ts';
import type { GraphQLQueries } from './server/index.ts';
import type { CatalogStore } from './storage/index.ts';

/** What catalogdSetup builds; the manager uses the ManagerParts part, tests the rest. */
export interface CatalogdParts extends ManagerParts {
  readonly catalogs: Informer<ClusterCatalog>;
  readonly content: CatalogContent;
  /** The store the controller and the server use (wrapped for GraphQL when that is on). */
  readonly store: CatalogStore;
  /** GraphQL queries, when `graphqlQueries` is on. */
  readonly graphql?: GraphQLQueries;
  readonly reconciler: ClusterCatalogReconciler;
  /** The leader-only ClusterCatalog controller. */
  readonly controller: Controller;
  /** The every-replica content follower. */
  readonly follower: ContentFollower;
  /** Where the catalog server listens, e.g. `http://0.0.0.0:8443`. */
  readonly serverUrl: string;
}

export function catalogdSetup(options: CatalogdOptions, impl: CatalogdImplementations): (ctx: ManagerContext) => Promise<CatalogdParts> {
  return async (ctx) => {
    const { client, logger, metrics } = ctx;
    const clock = clockOf(ctx);
    const catalogs = informers(client, logger)<ClusterCatalog>(GroupVersion, ClusterCatalogKind);
    const { registry, informer: secretInformer, caPool } = await registryAccess({ client, logger, ...options, watchPullCas: true });
    const watched: Cache[] = secretInformer ? [catalogs, secretInformer] : [catalogs];
    const features = { APIV1MetasHandler: options.metasHandler ?? true, GraphQLCatalogQueries: options.graphqlQueries ?? false };
    logger.info('catalogd feature gate status', features);
    let store = await impl.store(join(options.cacheDir, 'catalogs'), logger.child({ component: 'storage' }));
    let graphql: GraphQLQueries | undefined;
    if (features.GraphQLCatalogQueries) {
      if (!impl.graphql) throw new Error('the GraphQLCatalogQueries feature gate is on but no GraphQL implementation is wired');
      ({ store, queries: graphql } = await impl.graphql(store, logger.child({ component: 'graphql' })));
    }
    const content = createCatalogContent({
      unpackDir: join(options.cacheDir, 'unpack'),
      store,
      registry,
      limits: {
        maxFiles: options.maxCatalogFiles ?? DEFAULT_MAX_CATALOG_FILES,
        hints: { files: "catalogd's limit per catalog, set with its --max-catalog-files flag" },
        ...options.unpackLimits,
      },
      ...(options.platform && { platform: options.platform }),
      logger: logger.child({ component: 'image' }),
    });

    const log = logger.child({ controller: 'clustercatalog' });
    const reconciler = newClusterCatalogReconciler({
      catalogs,
      api: kubeCatalogApi(client),
      content,
      baseUrl: (name) => catalogBaseUrl(options, name),
      ...(options.minuteMs && { minuteMs: options.minuteMs }),
      now: () => clock.date().getTime(),
      logger: log,
    });
    const controller = new Controller({ name: 'clustercatalog', reconciler, logger, metrics, rateLimiter: options.rateLimiter?.() });
    controller.watch(catalogs);
    const rateLimiter = options.rateLimiter?.();
    const follower = newContentFollower({ catalogs, content, leading: () => controller.started, logger, metrics, rateLimiter });

    const bind = parseBindAddress(options.catalogsServerAddr);
    if (!bind) throw new Error('the catalog server needs an address');
    const server = await impl.server({
      store,
      host: bind.host,
      port: bind.port,
      address: options.catalogsServerAddr,
      ...(options.tls && { tls: options.tls }),
      metasEnabled: features.APIV1MetasHandler,
      ...(graphql && { graphql }),
      logger: logger.child({ component: 'catalog-server' }),
      metrics,
    });
    logger.info('serving catalogs', { address: server.url, externalAddress: options.externalAddress });

    const closeAll = async (): Promise<void> => {
      caPool?.stop();
      await server.close();
      await content.close();
      await registry.close();
    };

    return {
      informers: [...watched, follower.ready],
      controllers: [controller],
      runnables: [
        (signal) => follower.run(signal),
        (signal) => server.run(signal),
        garbageCollector({ catalogs, content, intervalMs: options.gcIntervalMs, logger: logger.child({ component: 'gc' }) }),
      ],
      closers: [closeAll],
      catalogs,
      content,
      store,
      ...(graphql && { graphql }),
      reconciler,
      controller,
      follower,
      serverUrl: server.url,
    };
  };
}
