// Upstream's CatalogSource metrics (OLM pkg/metrics): names, help texts and labels as upstream's.
import { Counter, countGauge, Gauge, type Registry } from '../../shared/observability/index.ts';

export interface CatalogSourceMetrics {
  /** 1 when READY, else 0 (upstream's RegisterCatalogSourceState). */
  setState(namespace: string, name: string, state: string): void;
  /** One snapshot of content loaded from the source. */
  snapshot(namespace: string, name: string): void;
  /** The CatalogSource is gone: drop its series. */
  forget(namespace: string, name: string): void;
}

export function catalogSourceMetrics(registry: Registry, count: () => number): CatalogSourceMetrics {
  const registers = [registry];
  countGauge(registry, 'catalog_source_count', 'Number of catalog sources', count);
  const ready = new Gauge({
    name: 'catalogsource_ready',
    help: 'State of a CatalogSource. 1 indicates that the CatalogSource is in a READY state. 0 indicates CatalogSource is in a Non READY state.',
    labelNames: ['namespace', 'name'],
    registers,
  });
  const snapshots = new Counter({
    name: 'catalog_source_snapshots_total',
    help: 'The number of times the catalog operator has requested a snapshot of data from a catalog source',
    labelNames: ['namespace', 'name'],
    registers,
  });
  return {
    setState: (namespace, name, state) => ready.set({ namespace, name }, state === 'READY' ? 1 : 0),
    snapshot: (namespace, name) => snapshots.inc({ namespace, name }),
    forget: (namespace, name) => {
      ready.remove({ namespace, name });
      snapshots.remove({ namespace, name });
    },
  };
}
