// operatorGroupSetup: the OperatorGroup and namespace-label controllers over the shared classic caches.
import { OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel } from '../../../api/operators/index.ts';
import { OperatorGroupKind, OperatorGroupLabelPrefix } from '../../../api/operators/index.ts';
import { Controller, objectKey } from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX } from '../../shared/kube/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../../shared/manager/index.ts';
import { type OlmCaches } from '../olmcache/index.ts';
import { newNamespaceLabelReconciler, newOperatorGroupReconciler } from './reconciler.ts';

export interface OperatorGroupOptions {
  /** Re-sync every group this often (upstream's informer resync); default 15 minutes. */
  readonly resyncMs?: number;
}

export function operatorGroupSetup(caches: OlmCaches, options: OperatorGroupOptions = {}): (ctx: ManagerContext) => ManagerParts {
  return (ctx) => {
    const { client, logger, metrics } = ctx;
    const log = logger.child({ controller: 'operatorgroup' });
    const groups = new Controller({
      name: 'operatorgroup',
      reconciler: newOperatorGroupReconciler({ client, caches, logger: log, clock: clockOf(ctx) }),
      logger,
      metrics,
      resync: { periodMs: options.resyncMs ?? 15 * 60_000, keys: () => caches.operatorGroups.keys() },
    });
    groups.watch(caches.operatorGroups);
    // A CSV coming, going or changing in a namespace brings its groups back (annotations, ClusterRoles, provided APIs).
    groups.watch(caches.csvs, (csv) => caches.operatorGroups.byIndex(NAMESPACE_INDEX, csv.metadata.namespace ?? '').map((g) => objectKey(g)!));
    // A namespace's labels can change which namespaces a selector picks: every group looks again.
    groups.watch(caches.namespaces, () => caches.operatorGroups.keys());
    groups.watch(caches.serviceAccounts, (sa) =>
      caches.operatorGroups
        .byIndex(NAMESPACE_INDEX, sa.metadata.namespace ?? '')
        .filter((g) => g.spec?.serviceAccountName === sa.metadata.name)
        .map((g) => objectKey(g)!),
    );
    // ClusterRoles a group owns: their group (also how a deleted group's roles are found after a restart).
    groups.watch(caches.clusterRoles, (cr) => {
      const l = cr.metadata.labels ?? {};
      return l[OwnerKindLabel] === OperatorGroupKind ? `${l[OwnerNamespaceLabel] ?? ''}/${l[OwnerLabel] ?? ''}` : undefined;
    });

    const namespaces = new Controller({
      name: 'operatorgroup-namespace',
      reconciler: newNamespaceLabelReconciler({ client, caches }),
      logger,
      metrics,
      keyField: 'namespace',
    });
    namespaces.watch(caches.namespaces);
    namespaces.watch(caches.operatorGroups, (og) => {
      const uidLabel = `${OperatorGroupLabelPrefix}${og.metadata.uid ?? ''}`;
      const labelled = caches.namespaces.list().filter((ns) => ns.metadata.labels?.[uidLabel] !== undefined).map((ns) => ns.metadata.name ?? '');
      return [...new Set([...labelled, ...(og.status?.namespaces ?? []).filter((n) => n !== '')])];
    });
    return { informers: [], controllers: [groups, namespaces] };
  };
}
