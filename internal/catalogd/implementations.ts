// The concrete store and HTTP server catalogd runs with: LocalDirStore (internal/catalogd/storage)
// and createCatalogServer (internal/catalogd/server), adapted to the CatalogdImplementations seam.
import type { CatalogdImplementations } from './options.ts';
import { createCatalogServer } from './server/index.ts';
import { LocalDirStore } from './storage/index.ts';

export const defaultImplementations: CatalogdImplementations = {
  async store(root, logger) {
    const store = new LocalDirStore({ root, logger });
    await store.load(); // serve what an earlier run stored before the first reconcile
    return store;
  },
  async server({ store, host, port, tls, logger, metrics }) {
    const server = createCatalogServer({ store, logger, registry: metrics.registry, ...(tls && { tls }) });
    const { url } = await server.listen(host, port);
    return { url, close: () => server.close() };
  },
};
