// Garbage collection of orphaned content: at start (once the ClusterCatalog cache has synced) and
// then every `intervalMs`, removes stored catalogs and image caches whose ClusterCatalog no
// longer exists (upstream internal/catalogd/garbagecollection). Runs on every replica, each for
// its own cache directory.
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { sleep } from '../../shared/toolkit/index.ts';
import type { CatalogContent } from './content.ts';

export interface GarbageCollectorOptions {
  readonly catalogs: { list(): ClusterCatalog[]; waitForSync(signal?: AbortSignal): Promise<void> };
  readonly content: CatalogContent;
  readonly intervalMs: number;
  readonly logger?: Logger;
}

/** A runnable: collects until `signal` aborts. */
export function garbageCollector(options: GarbageCollectorOptions): (signal: AbortSignal) => Promise<void> {
  const { catalogs, content, intervalMs, logger } = options;
  return async (signal) => {
    const synced = await catalogs.waitForSync(signal).then(() => true, () => false);
    if (!synced) return; // stopped before the cache synced
    while (!signal.aborted) {
      try {
        const removed = await content.garbageCollect(() => new Set(catalogs.list().map((c) => c.metadata.name ?? '')));
        if (removed.length) logger?.info('garbage collected orphaned catalog content', { removed });
      } catch (err) {
        logger?.error('garbage collection failed', { err });
      }
      await sleep(intervalMs, signal);
    }
  };
}
