// The concrete store, HTTP server and GraphQL queries catalogd runs with: LocalDirStore
// (internal/catalogd/storage), createCatalogServer (internal/catalogd/server) and
// createCatalogQueries (internal/catalogd/graphql), adapted to the CatalogdImplementations seam.
import type { CatalogdImplementations } from './options.ts';
import { createCatalogServer } from './server/index.ts';
import { LocalDirStore } from './storage/index.ts';

export const defaultImplementations: CatalogdImplementations = {
  async store(root, logger) {
    const store = new LocalDirStore({ root, logger });
    await store.load(); // serve what an earlier run stored before the first reconcile
    return store;
  },
  async server({ store, host, port, address, tls, metasEnabled, graphql, logger, metrics }) {
    const server = createCatalogServer({ store, logger, registry: metrics.registry, tls, metasEnabled, graphql });
    const { url } = await server.listen(host, port, address);
    return { url, run: server.runnable, close: () => server.close() };
  },
  // Imported only when the GraphQLCatalogQueries gate is on: the graphql library costs ~40 ms of start-up.
  async graphql(store, logger) {
    const { createCatalogQueries, withGraphQLSchemas } = await import('./graphql/index.ts');
    const queries = createCatalogQueries({ store, logger });
    return { store: withGraphQLSchemas(store, queries), queries };
  },
};
