// The `csv-copy` controller: a CSV's copies into its group's target namespaces (copy.ts `syncCopy`).
import { Controller } from '../../shared/controller/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import type { ControllerBase } from './controller-base.ts';
import { syncCopy, type CopyPorts } from './copy.ts';
import { key } from './watch-keys.ts';

export interface CopyControllerOptions extends ControllerBase {
  readonly caches: OlmCaches;
  readonly copy: CopyPorts;
  /** Bound late: the olmconfig controller, to look at the OLMConfig `cluster` again after `ms`. */
  readonly olmConfigAfter: (key: string, ms: number) => void;
}

/** CSVs copied at once. */
const COPY_WORKERS = 2;

export function copyController(o: CopyControllerOptions): Controller {
  const copy = new Controller({
    name: 'csv-copy',
    reconciler: {
      reconcile: async (k, signal) => {
        await syncCopy(o.copy, k, signal);
        // upstream looks at the OLMConfig again 5 s after each copy.
        o.olmConfigAfter('cluster', 5_000);
      },
    },
    logger: o.logger,
    metrics: o.metrics,
    // upstream's csv-copy queue runs with the queue informer operator's default 2 workers (queueinformer/config.go)
    concurrency: COPY_WORKERS,
    ...(o.rateLimiter && { rateLimiter: o.rateLimiter() }),
  });
  // A new namespace needs the copies of CSVs whose group targets every namespace.
  copy.watch(o.caches.namespaces, (_ns, type) => (type === 'add' ? o.caches.csvs.list().filter((c) => c.metadata.annotations?.['olm.targetNamespaces'] === '').map(key) : undefined));
  return copy;
}
