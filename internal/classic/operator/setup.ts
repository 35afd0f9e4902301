// operatorSetup: the Operator API's controllers (operator, subscription and CSV adoption) over the shared classic
// caches, the InstallPlan informer and the few informers only they need.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { OperatorKind, V1, V1alpha1, V2, type InstallPlan, type Operator } from '../../../api/operators/index.ts';
import { Controller, objectKey } from '../../shared/controller/index.ts';
import { informers, NAMESPACE_INDEX, type Informer } from '../../shared/kube/index.ts';
import type { ManagerContext, ManagerParts } from '../../shared/manager/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import {
  COMPONENT_INDEX,
  CSV_OWNER_INDEX,
  componentIndex,
  newCSVAdoptionReconciler,
  csvOwnerIndex,
  newOperatorReconciler,
  owningCSVKeys,
  newSubscriptionAdoptionReconciler,
  type ComponentSource,
} from './reconcilers.ts';

export interface OperatorSetupOptions {
  /** The InstallPlan informer (the installplan capability's). */
  readonly installPlans: Informer<InstallPlan>;
}

/** Metadata only: what a component of a kind without conditions needs (and no Secret's data in memory). */
function metadataOnly<T extends KubeObject>(obj: T): T {
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata } as T;
}

const MANAGED = 'olm.managed=true';

export function operatorSetup(caches: OlmCaches, options: OperatorSetupOptions): (ctx: ManagerContext) => ManagerParts {
  return ({ client, logger, metrics }) => {
    const log = logger.child({ controller: 'operator' });
    const informer = informers(client, logger);
    // As upstream's manager caches them: the kinds OLM makes for an operator, labelled olm.managed=true.
    const services = informer<KubeObject>('v1', 'Service', { labelSelector: MANAGED });
    const configMaps = informer<KubeObject>('v1', 'ConfigMap', { labelSelector: MANAGED, transform: metadataOnly, name: 'configmaps-operator' });
    const secrets = informer<KubeObject>('v1', 'Secret', { labelSelector: MANAGED, transform: metadataOnly, name: 'secrets-operator' });
    const apiServices = informer<KubeObject>('apiregistration.k8s.io/v1', 'APIService', { labelSelector: MANAGED });
    const operators = informer<Operator>(V1, OperatorKind);

    const rbac = 'rbac.authorization.k8s.io/v1';
    // Upstream's componentLists, in its order.
    const sources: ComponentSource[] = [
      { apiVersion: 'apps/v1', kind: 'Deployment', cache: caches.deployments },
      { apiVersion: 'v1', kind: 'Service', cache: services },
      { apiVersion: 'v1', kind: 'Namespace', cache: caches.namespaces },
      { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', cache: apiServices },
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', cache: caches.crds },
      { apiVersion: V1alpha1, kind: 'Subscription', cache: caches.subscriptions },
      { apiVersion: V1alpha1, kind: 'InstallPlan', cache: options.installPlans },
      { apiVersion: V1alpha1, kind: 'ClusterServiceVersion', cache: caches.csvs },
      { apiVersion: V2, kind: 'OperatorCondition', cache: caches.operatorConditions },
      { apiVersion: 'v1', kind: 'Secret', cache: secrets },
      { apiVersion: 'v1', kind: 'ConfigMap', cache: configMaps },
      { apiVersion: 'v1', kind: 'ServiceAccount', cache: caches.serviceAccounts },
      { apiVersion: rbac, kind: 'Role', cache: caches.roles },
      { apiVersion: rbac, kind: 'RoleBinding', cache: caches.roleBindings },
      { apiVersion: rbac, kind: 'ClusterRole', cache: caches.clusterRoles },
      { apiVersion: rbac, kind: 'ClusterRoleBinding', cache: caches.clusterRoleBindings },
    ];
    const watched = sources.map((s) => s.cache) as Informer<KubeObject>[];
    for (const i of watched) {
      i.addIndex(COMPONENT_INDEX, componentIndex);
      i.addIndex(CSV_OWNER_INDEX, csvOwnerIndex);
    }

    const operator = new Controller({ name: 'operator', reconciler: newOperatorReconciler({ client, operators, sources, logger: log }), logger, metrics });
    operator.watch(operators);
    for (const i of watched) operator.watch(i, componentIndex);

    const adoptionOptions = {
      client,
      subscriptions: caches.subscriptions,
      csvs: caches.csvs,
      installPlans: options.installPlans,
      crds: caches.crds,
      sources,
      logger: log,
    };
    const subscriptionsInNamespace = (obj: KubeObject): string[] =>
      caches.subscriptions.byIndex(NAMESPACE_INDEX, obj.metadata.namespace ?? '').map((s) => objectKey(s)!);
    const subscriptionAdoption = new Controller({ name: 'adoption-subscription', reconciler: newSubscriptionAdoptionReconciler(adoptionOptions), logger, metrics });
    subscriptionAdoption.watch(caches.subscriptions);
    subscriptionAdoption.watch(caches.csvs, subscriptionsInNamespace);
    subscriptionAdoption.watch(options.installPlans, subscriptionsInNamespace);

    const csvAdoption = new Controller({ name: 'adoption-csv', reconciler: newCSVAdoptionReconciler(adoptionOptions), logger, metrics });
    csvAdoption.watch(caches.csvs);
    for (const i of watched) if (i !== (caches.csvs as unknown) && i !== (caches.crds as unknown)) csvAdoption.watch(i, owningCSVKeys);
    // A CRD: every CSV that owns it by name.
    csvAdoption.watch(caches.crds, (crd) =>
      caches.csvs
        .list()
        .filter((csv) => (csv.spec.customresourcedefinitions?.owned ?? []).some((d) => d.name === crd.metadata.name))
        .map((csv) => objectKey(csv)!),
    );
    return { informers: [services, configMaps, secrets, apiServices, operators], controllers: [operator, subscriptionAdoption, csvAdoption] };
  };
}
