// Upstream's Subscription metrics (OLM pkg/metrics): `subscription_count` and `subscription_sync_total` with its
// labels; when a Subscription's labels change (installed CSV, channel, package, approval) the old series is deleted.
import { Counter, countGauge, type Registry } from '../../shared/observability/index.ts';
import type { Subscription } from '../../../api/operators/index.ts';

export interface SubscriptionMetrics {
  /** One sync of the Subscription (EmitSubMetric after UpdateSubsSyncCounterStorage). */
  synced(sub: Subscription): void;
  /** The Subscription is gone (DeleteSubsMetric). */
  deleted(sub: Subscription): void;
}

interface Labels {
  name: string;
  installed: string;
  channel: string;
  package: string;
  approval: string;
}
const labelsOf = (sub: Subscription): Labels => ({
  name: sub.metadata.name ?? '',
  installed: sub.status?.installedCSV ?? '',
  channel: sub.spec.channel ?? '',
  package: sub.spec.name,
  approval: sub.spec.installPlanApproval ?? '',
});

export function subscriptionMetrics(registry: Registry, count: () => number): SubscriptionMetrics {
  const registers = [registry];
  countGauge(registry, 'subscription_count', 'Number of subscriptions', count);
  const syncs = new Counter({
    name: 'subscription_sync_total',
    help: 'Monotonic count of subscription syncs',
    labelNames: ['name', 'installed', 'channel', 'package', 'approval'],
    registers,
  });
  const last = new Map<string, Labels>();
  return {
    synced(sub) {
      const labels = labelsOf(sub);
      const key = `${sub.metadata.namespace ?? ''}/${labels.name}`;
      const prev = last.get(key);
      if (prev && JSON.stringify(prev) !== JSON.stringify(labels)) syncs.remove({ ...prev });
      last.set(key, labels);
      syncs.inc({ ...labels });
    },
    deleted(sub) {
      const key = `${sub.metadata.namespace ?? ''}/${sub.metadata.name ?? ''}`;
      const prev = last.get(key);
      if (prev) syncs.remove({ ...prev });
      last.delete(key);
    },
  };
}
