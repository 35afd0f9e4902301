// The `clusterserviceversion` controller: csvSteps on the ObjectReconciler (reconciler.ts), re-enqueued by the CSV, the
// CSVs replacing it, OperatorGroups, owned Deployments, OperatorConditions, CRDs, Subscriptions and RBAC.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { Controller } from '../../shared/controller/index.ts';
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
  const inNamespaceWaiting = (o: KubeObject): string[] => {
    const keys = caches.csvs.byIndex(NAMESPACE_INDEX, o.metadata.namespace ?? '').filter(notSucceeded).map(key);
    const owner = ownerCSVKey(o);
    return owner ? [...keys, owner] : keys;
  };
  const anyWaiting = (o: KubeObject): string[] => {
    const keys = caches.csvs.list().filter(notSucceeded).map(key);
    const owner = ownerCSVKey(o);
    return owner ? [...keys, owner] : keys;
  };
  main.watch(caches.serviceAccounts, inNamespaceWaiting);
  main.watch(caches.roles, inNamespaceWaiting);
  main.watch(caches.roleBindings, inNamespaceWaiting);
  main.watch(caches.clusterRoles, anyWaiting);
  main.watch(caches.clusterRoleBindings, anyWaiting);
  return main;
}
