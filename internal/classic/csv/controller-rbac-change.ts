// The `csv-rbac-change` controller, upstream's syncObject: a change of RBAC (or a service account) brings CSVs that
// failed without retry in its namespace (every namespace for cluster-scoped RBAC) back to Pending/DetectedClusterChange.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { CSVPhasePending, CSVReasons, ClusterServiceVersionKind, V1alpha1 } from '../../../api/operators/index.ts';
import { Controller, formatTime, realClock } from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX, ignoreNotFound, type KubeClient } from '../../shared/kube/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import type { ControllerBase } from './controller-base.ts';
import { setPhase, withStatusCleanup } from './phase.ts';
import { ALL } from './watch-keys.ts';

export interface RBACChangeControllerOptions extends Omit<ControllerBase, 'rateLimiter'> {
  readonly client: KubeClient;
  readonly caches: OlmCaches;
  /** Wall time of the DetectedClusterChange reset; default the toolkit's realClock. */
  readonly now?: () => Date;
}

export function rbacChangeController(o: RBACChangeControllerOptions): Controller {
  const { client, caches } = o;
  const rbacChange = new Controller({
    name: 'csv-rbac-change',
    reconciler: {
      reconcile: async (k, signal) => {
        const failed = (k === ALL ? caches.csvs.list() : caches.csvs.byIndex(NAMESPACE_INDEX, k)).filter((c) => c.status?.reason === CSVReasons.ComponentFailedNoRetry);
        for (const c of failed) {
          const out = structuredClone(c);
          setPhase(out, CSVPhasePending, CSVReasons.DetectedClusterChange, 'Cluster resources changed state', formatTime(o.now ? o.now() : realClock.date()));
          await ignoreNotFound(client.updateStatus(withStatusCleanup({ ...out, apiVersion: V1alpha1, kind: ClusterServiceVersionKind }), { signal }));
        }
      },
    },
    logger: o.logger,
    metrics: o.metrics,
  });
  const nsOf = (o: KubeObject): string => o.metadata.namespace ?? ALL;
  for (const inf of [caches.serviceAccounts, caches.roles, caches.roleBindings, caches.clusterRoles, caches.clusterRoleBindings] as const) rbacChange.watch(inf as never, nsOf);
  return rbacChange;
}
