// Upstream's CSV metrics (OLM pkg/metrics): names, help texts and labels as upstream's. `csv_succeeded` and
// `csv_abnormal` follow each status write (the series of the old phase/reason removed first); `csv_count` is the
// number of CSVs that are not copies; `csv_upgrade_count` counts transitions to Replacing.
import { Counter, countGauge, Gauge, type Registry } from '../../shared/observability/index.ts';
import { CSVPhaseSucceeded, CSVReasons, type ClusterServiceVersion } from '../../../api/operators/index.ts';

export interface CSVMetrics {
  /** After a status write: `old` as it was cached, `next` as written. */
  emit(old: ClusterServiceVersion, next: ClusterServiceVersion): void;
  /** The CSV is gone. */
  forget(csv: ClusterServiceVersion): void;
  upgrade(): void;
}

const labels = (csv: ClusterServiceVersion): { namespace: string; name: string; version: string } => ({
  namespace: csv.metadata.namespace ?? '',
  name: csv.metadata.name ?? '',
  version: csv.spec.version ?? '',
});

export function csvMetrics(registry: Registry, count: () => number): CSVMetrics {
  const registers = [registry];
  countGauge(registry, 'csv_count', 'Number of CSVs successfully registered', count);
  const upgrades = new Counter({ name: 'csv_upgrade_count', help: 'Monotonic count of CSV upgrades', registers });
  const succeeded = new Gauge({ name: 'csv_succeeded', help: 'Successful CSV install', labelNames: ['namespace', 'name', 'version'], registers });
  const abnormal = new Gauge({ name: 'csv_abnormal', help: 'CSV is not installed', labelNames: ['namespace', 'name', 'version', 'phase', 'reason'], registers });
  return {
    emit(old, next) {
      if (next.status?.reason === CSVReasons.Copied) return;
      abnormal.remove({ ...labels(old), phase: old.status?.phase ?? '', reason: old.status?.reason ?? '' });
      const phase = next.status?.phase ?? '';
      if (phase === CSVPhaseSucceeded) succeeded.set(labels(next), 1);
      else {
        succeeded.set(labels(next), 0);
        abnormal.set({ ...labels(next), phase, reason: next.status?.reason ?? '' }, 1);
      }
    },
    forget(csv) {
      abnormal.remove({ ...labels(csv), phase: csv.status?.phase ?? '', reason: csv.status?.reason ?? '' });
      succeeded.remove(labels(csv));
    },
    upgrade: () => upgrades.inc(),
  };
}
