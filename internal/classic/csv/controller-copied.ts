// The `csv-copied` controller: each copied CSV checked against its parent (copy.ts `syncCopied`); a copy that is
// deleted, or whose parent needs it again, goes back to the csv-copy controller.
import { CopiedFromLabel } from '../../../api/operators/index.ts';
import { Controller } from '../../shared/controller/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import type { ControllerBase } from './controller-base.ts';
import { syncCopied, type CopyPorts } from './copy.ts';
import { COPY_PARENT_INDEX, key } from './watch-keys.ts';

export interface CopiedControllerOptions extends ControllerBase {
  readonly caches: OlmCaches;
  readonly copy: CopyPorts;
  /** The csv-copy controller. */
  readonly copier: Controller;
}

export function copiedController(o: CopiedControllerOptions): Controller {
  const { caches, copier: copy } = o;
  const copied = new Controller({
    name: 'csv-copied',
    reconciler: {
      reconcile: async (k, signal) => {
        const parent = await syncCopied(o.copy, k, signal);
        if (parent) copy.enqueue(parent);
      },
    },
    logger: o.logger,
    metrics: o.metrics,
    ...(o.rateLimiter && { rateLimiter: o.rateLimiter() }),
  });
  copied.watch(caches.copiedCSVs, (c, type) => {
    // A deleted copy: its parent makes it again if it still belongs.
    if (type === 'delete') {
      const from = c.metadata.labels?.[CopiedFromLabel];
      if (from) copy.enqueue(`${from}/${c.metadata.name ?? ''}`);
      return undefined;
    }
    return key(c);
  });
  copied.watch(caches.csvs, (csv) => caches.copiedCSVs.byIndex(COPY_PARENT_INDEX, key(csv)).map(key));
  return copied;
}
