// Group, versions, kinds and resource names of the operators.coreos.com (OLM classic) API.

export const GroupName = 'operators.coreos.com';
export const V1alpha1 = `${GroupName}/v1alpha1` as const;
export const V1 = `${GroupName}/v1` as const;
export const V2 = `${GroupName}/v2` as const;

export const CatalogSourceKind = 'CatalogSource';
export const CatalogSourceResource = 'catalogsources';
export const SubscriptionKind = 'Subscription';
export const SubscriptionResource = 'subscriptions';
export const InstallPlanKind = 'InstallPlan';
export const InstallPlanResource = 'installplans';
export const ClusterServiceVersionKind = 'ClusterServiceVersion';
export const ClusterServiceVersionResource = 'clusterserviceversions';
export const OperatorGroupKind = 'OperatorGroup';
export const OperatorGroupResource = 'operatorgroups';
export const OperatorConditionKind = 'OperatorCondition';
export const OperatorConditionResource = 'operatorconditions';
export const OperatorKind = 'Operator';
export const OperatorResource = 'operators';
