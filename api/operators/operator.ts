// Operator (operators.coreos.com/v1, cluster-scoped): a view over an operator's components.
// Fields as ./schema/operator.ts.
import type { KubeObject, LabelSelector, List, ObjectMeta } from '../meta/v1.ts';
import type { ObjectReference } from './common.ts';

export interface RichReference extends ObjectReference {
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string; lastUpdateTime?: string }[];
}

export interface Components {
  labelSelector: LabelSelector;
  refs?: RichReference[];
}

/** The spec has no fields. */
export type OperatorSpec = Record<never, never>;

export interface OperatorStatus {
  components?: Components;
}

export interface Operator extends KubeObject {
  metadata: ObjectMeta;
  spec?: OperatorSpec;
  status?: OperatorStatus;
}

export type OperatorList = List<Operator>;
