// ClusterObjectSet (experimental feature set, BoxcutterRuntime): one immutable revision of a
// ClusterExtension's objects, grouped into phases that roll out in order. Field set and optionality
// follow the CRD in ./schema/clusterobjectset.ts; condition types and reasons are upstream's
// (operator-controller api/v1/clusterobjectset_types.go).
import type { Condition, KubeObject, LabelSelector, List } from '../meta/v1.ts';

export const ClusterObjectSetTypeAvailable = 'Available';
export const ClusterObjectSetTypeProgressing = 'Progressing';
/** Latched: set True once the revision has rolled out completely, and never taken back. */
export const ClusterObjectSetTypeSucceeded = 'Succeeded';

export const ClusterObjectSetReasonArchived = 'Archived';
export const ClusterObjectSetReasonBlocked = 'Blocked';
export const ClusterObjectSetReasonProbeFailure = 'ProbeFailure';
export const ClusterObjectSetReasonProbesSucceeded = 'ProbesSucceeded';
export const ClusterObjectSetReasonReconciling = 'Reconciling';
export const ClusterObjectSetReasonRetrying = 'Retrying';

export const LifecycleStateActive = 'Active';
export const LifecycleStateArchived = 'Archived';
export type ClusterObjectSetLifecycleState = typeof LifecycleStateActive | typeof LifecycleStateArchived;

/** Only objects this revision (or an earlier one of the same extension) created are touched. */
export const CollisionProtectionPrevent = 'Prevent';
/** Existing objects without a controller are adopted. */
export const CollisionProtectionIfNoController = 'IfNoController';
/** Any existing object is adopted, even one another controller owns. */
export const CollisionProtectionNone = 'None';
export type CollisionProtection = typeof CollisionProtectionPrevent | typeof CollisionProtectionIfNoController | typeof CollisionProtectionNone;

export type SelectorType = 'GroupKind' | 'Label';
export type ProbeType = 'ConditionEqual' | 'FieldsEqual' | 'FieldValue';

export interface ObjectSelector {
  type: SelectorType;
  groupKind?: { group: string; kind: string };
  label?: LabelSelector;
}

export interface Assertion {
  type: ProbeType;
  conditionEqual?: { type: string; status: 'True' | 'False' };
  fieldsEqual?: { fieldA: string; fieldB: string };
  fieldValue?: { fieldPath: string; value: string };
}

export interface ProgressionProbe {
  selector: ObjectSelector;
  assertions: Assertion[];
}

/** A Secret key holding one object as JSON (gzip'd when it starts with the gzip magic). */
export interface ObjectSourceRef {
  name: string;
  /** Absent: the system namespace. */
  namespace?: string;
  key: string;
}

/** Exactly one of `object` and `ref`. */
export interface ClusterObjectSetObject {
  object?: KubeObject;
  ref?: ObjectSourceRef;
  collisionProtection?: CollisionProtection;
}

export interface ClusterObjectSetPhase {
  name: string;
  objects: ClusterObjectSetObject[];
  collisionProtection?: CollisionProtection;
}

export interface ClusterObjectSetSpec {
  lifecycleState: ClusterObjectSetLifecycleState;
  revision: number;
  phases?: ClusterObjectSetPhase[];
  progressDeadlineMinutes?: number;
  progressionProbes?: ProgressionProbe[];
  collisionProtection: CollisionProtection;
}

export interface ObservedPhase {
  name: string;
  /** `<algorithm>:<hex>` of the phase's resolved objects. */
  digest: string;
}

export interface ClusterObjectSetStatus {
  conditions?: Condition[];
  /** Set once, at the first successful resolution; immutable after. */
  observedPhases?: ObservedPhase[];
}

export interface ClusterObjectSet extends KubeObject {
  spec?: ClusterObjectSetSpec;
  status?: ClusterObjectSetStatus;
}

export type ClusterObjectSetList = List<ClusterObjectSet>;
