// The `clusterserviceversion` controller: csvSteps on the ObjectReconciler (reconciler.ts), re-enqueued by the CSV, the
// CSVs replacing it, OperatorGroups, owned Deployments, OperatorConditions, CRDs, Subscriptions and RBAC (the owner at
// once, the other waiting CSVs coalesced a moment later).
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import { Controller, type EventSource } from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX } from '../../shared/kube/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import type { ControllerBase } from './controller-base.ts';
import { newCSVReconciler, type CSVReconcilerOptions } from './reconciler.ts';
import { csvSteps } from './steps.ts';
import { CRD_INDEX, REPLACES_INDEX, key, notSucceeded, ownerCSVKey } from './watch-keys.ts';

export interface CSVControllerOptions extends ControllerBase, Omit<CSVReconcilerOptions, 'steps'> {
  readonly caches: OlmCaches;
  readonly concurrency: number;
}

export function csvController(o: CSVControllerOptions): Controller {
  const { caches, ports } = o;
  const main = new Controller({
    name: 'clusterserviceversion',
    reconciler: newCSVReconciler({ ...o, steps: csvSteps(ports) }),
    concurrency: o.concurrency,
    logger: o.logger,
    metrics: o.metrics,
    ...(o.rateLimiter && { rateLimiter: o.rateLimiter() }),
  });
  main.watch(caches.csvs, (csv, type) => {
    if (type === 'delete') ports.metrics?.forget(csv);
    const ns = csv.metadata.namespace ?? '';
    const keys = [key(csv), ...caches.csvs.byIndex(REPLACES_INDEX, key(csv)).map(key)];
    if (csv.spec.replaces) keys.push(`${ns}/${csv.spec.replaces}`);
    return keys;
  });
  main.watch(caches.operatorGroups, (og) => {
    const keys = caches.csvs.byIndex(NAMESPACE_INDEX, og.metadata.namespace ?? '').map(key);
    for (const csv of caches.csvs.list()) if (csv.status?.phase === 'Failed' && csv.metadata.namespace !== og.metadata.namespace) keys.push(key(csv));
    return keys;
  });
  main.watch(caches.deployments, ownerCSVKey);
  main.watch(caches.operatorConditions, (oc) => caches.csvs.byIndex(REPLACES_INDEX, key(oc)).map(key));
  main.watch(caches.crds, (crd) => caches.csvs.byIndex(CRD_INDEX, crd.metadata.name ?? '').map(key));
  main.watch(caches.subscriptions, (sub) => (sub.status?.installedCSV ? `${sub.metadata.namespace ?? ''}/${sub.status.installedCSV}` : undefined));
  // RBAC and service accounts: the owner CSV at once (upstream's requeueOwnerCSVs); the CSVs not Succeeded that may
  // be waiting on the change (in its namespace; anywhere for cluster RBAC) a moment later, so a burst (an InstallPlan
  // creating its RBAC, the aggregation controller rewriting ClusterRoles, N operators installing at once) wakes each
  // waiting CSV once rather than once per event.
  const others = (o: KubeObject, csvs: readonly ClusterServiceVersion[]): string[] => {
    const owner = ownerCSVKey(o);
    return csvs.filter(notSucceeded).map(key).filter((k) => k !== owner);
  };
  const inNamespaceWaiting = (o: KubeObject): string[] => others(o, caches.csvs.byIndex(NAMESPACE_INDEX, o.metadata.namespace ?? ''));
  const anyWaiting = (o: KubeObject): string[] => others(o, caches.csvs.list());
  const later = { delayMs: WAITING_WAKEUP_DELAY_MS };
  const rbac: readonly [EventSource<KubeObject>, (o: KubeObject) => string[]][] = [
    [caches.serviceAccounts, inNamespaceWaiting],
    [caches.roles, inNamespaceWaiting],
    [caches.roleBindings, inNamespaceWaiting],
    [caches.clusterRoles, anyWaiting],
    [caches.clusterRoleBindings, anyWaiting],
  ];
  for (const [source, waiting] of rbac) {
    main.watch(source, ownerCSVKey);
    main.watch(source, waiting, later);
  }
  return main;
}

/** How long after an RBAC or service-account change the CSVs that may be waiting on it are looked at again. */
export const WAITING_WAKEUP_DELAY_MS = 1000;
