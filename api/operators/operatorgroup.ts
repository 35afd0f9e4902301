// OperatorGroup (operators.coreos.com/v1). Fields as ./schema/operatorgroup.ts (v1, the storage
// version); annotations, condition types and reasons with upstream's spelling (operatorgroup_types.go).
import type { Condition, KubeObject, LabelSelector, List, ObjectMeta } from '../meta/v1.ts';
import type { ObjectReference } from './common.ts';

export const OperatorGroupAnnotationKey = 'olm.operatorGroup';
export const OperatorGroupTargetsAnnotationKey = 'olm.targetNamespaces';
export const OperatorGroupProvidedAPIsAnnotationKey = 'olm.providedAPIs';
export const OperatorGroupLabelPrefix = 'olm.operatorgroup.uid/';
/** Excludes the global catalog namespace from resolution in the OperatorGroup's namespace. */
export const ExcludeGlobalNamespaceResolutionAnnotation = 'olm.operatorframework.io/exclude-global-namespace-resolution';

export const OperatorGroupServiceAccountCondition = 'OperatorGroupServiceAccount';
/** Upstream spells the constant MutlipleOperatorGroupCondition; the value is this. */
export const MultipleOperatorGroupCondition = 'MultipleOperatorGroup';
export const MultipleOperatorGroupsReason = 'MultipleOperatorGroupsFound';
export const OperatorGroupServiceAccountReason = 'ServiceAccountNotFound';

export const UpgradeStrategyDefault = 'Default';
export const UpgradeStrategyUnsafeFailForward = 'TechPreviewUnsafeFailForward';

export interface OperatorGroupSpec {
  selector?: LabelSelector;
  serviceAccountName?: string;
  staticProvidedAPIs?: boolean;
  targetNamespaces?: string[];
  /** Defaulted to `Default` by the API server. */
  upgradeStrategy?: typeof UpgradeStrategyDefault | typeof UpgradeStrategyUnsafeFailForward;
}

export interface OperatorGroupStatus {
  conditions?: Condition[];
  lastUpdated: string;
  namespaces?: string[];
  serviceAccountRef?: ObjectReference;
}

export interface OperatorGroup extends KubeObject {
  metadata: ObjectMeta;
  spec?: OperatorGroupSpec;
  status?: OperatorGroupStatus;
}

export type OperatorGroupList = List<OperatorGroup>;
