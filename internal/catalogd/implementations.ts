// The concrete store, HTTP server and GraphQL queries catalogd runs with: LocalDirStore
// (internal/catalogd/storage), createCatalogServer (internal/catalogd/server) and
// createCatalogQueries (internal/catalogd/graphql), adapted to the CatalogdImplementations seam.
import { createCatalogQueries, withGraphQLSchemas } from './graphql/index.ts';
import type { CatalogdImplementations } from './options.ts';
import { createCatalogServer } from './server/index.ts';
import { LocalDirStore } from './storage/index.ts';

export const defaultImplementations: CatalogdImplementations = {
  async store(root, logger) {
    const store = new LocalDirStore({ root, logger });
    await store.load(); // serve what an earlier run stored before the first reconcile
    return store;
  },
  async server({ store, host, port, tls, metasEnabled, graphql, logger, metrics }) {
    const server = createCatalogServer({
      store,
      logger,
      registry: metrics.registry,
      ...(tls && { tls }),
      ...(metasEnabled !== undefined && { metasEnabled }),
      ...(graphql && { graphql }),
    });
    const { url } = await server.listen(host, port);
    return { url, close: () => server.close() };
  },
  graphql(store, logger) {
    const queries = createCatalogQueries({ store, logger });
    return { store: withGraphQLSchemas(store, queries), queries };
  },
};
