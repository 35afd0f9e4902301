// The `olmconfig` controller: the OLMConfig `cluster` — copies enabled or disabled, its DisabledCopiedCSVs condition
// (upstream's syncOLMConfig).
import { Controller } from '../../shared/controller/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import type { ControllerBase } from './controller-base.ts';
import { syncOLMConfig, type CopyPorts } from './copy.ts';

export interface OLMConfigControllerOptions extends Omit<ControllerBase, 'rateLimiter'> {
  readonly caches: OlmCaches;
  readonly copy: CopyPorts;
  /** The csv-copy controller. */
  readonly copier: Controller;
}

export function olmConfigController(o: OLMConfigControllerOptions): Controller {
  const olmConfig = new Controller({
    name: 'olmconfig',
    reconciler: { reconcile: (k, signal) => syncOLMConfig(o.copy, k, (key) => o.copier.enqueue(key), signal) },
    logger: o.logger,
    metrics: o.metrics,
  });
  olmConfig.watch(o.caches.olmConfigs);
  return olmConfig;
}
