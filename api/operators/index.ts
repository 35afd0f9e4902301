// operators.coreos.com (OLM classic): CatalogSource, Subscription, InstallPlan, ClusterServiceVersion
// (v1alpha1), OperatorGroup and Operator (v1), OperatorCondition (v2) — types and upstream's words.
// The CRD schemas are in ./schema (their own entry point).
export * from './groupversion.ts';
export type { Icon, KubeValue, ObjectReference } from './common.ts';
export * from './catalogsource.ts';
export * from './subscription.ts';
export * from './installplan.ts';
export * from './clusterserviceversion.ts';
export * from './operatorgroup.ts';
export * from './operatorcondition.ts';
export * from './operator.ts';
