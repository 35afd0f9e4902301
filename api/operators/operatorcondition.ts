// OperatorCondition (operators.coreos.com/v2, the storage version). Fields as
// ./schema/operatorcondition.ts; the condition type upstream defines (operatorcondition_types.go).
import type { Condition, KubeObject, List, ObjectMeta } from '../meta/v1.ts';

export const OperatorConditionUpgradeable = 'Upgradeable';

/** An override may leave out lastTransitionTime. */
export type ConditionOverride = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

export interface OperatorConditionSpec {
  conditions?: Condition[];
  deployments?: string[];
  overrides?: ConditionOverride[];
  serviceAccounts?: string[];
}

export interface OperatorConditionStatus {
  conditions?: Condition[];
}

export interface OperatorCondition extends KubeObject {
  metadata: ObjectMeta;
  spec?: OperatorConditionSpec;
  status?: OperatorConditionStatus;
}

export type OperatorConditionList = List<OperatorCondition>;
