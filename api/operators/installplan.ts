// InstallPlan (operators.coreos.com/v1alpha1). Fields as ./schema/installplan.ts; approval,
// phases, condition types, reasons and step statuses with upstream's spelling (installplan_types.go).
import type { KubeObject, List, ObjectMeta } from '../meta/v1.ts';
import type { ObjectReference } from './common.ts';

export const ApprovalAutomatic = 'Automatic';
export const ApprovalManual = 'Manual';
export type Approval = typeof ApprovalAutomatic | typeof ApprovalManual;

export const InstallPlanPhaseNone = '';
export const InstallPlanPhasePlanning = 'Planning';
export const InstallPlanPhaseRequiresApproval = 'RequiresApproval';
export const InstallPlanPhaseInstalling = 'Installing';
export const InstallPlanPhaseComplete = 'Complete';
export const InstallPlanPhaseFailed = 'Failed';
export type InstallPlanPhase =
  | typeof InstallPlanPhaseNone
  | typeof InstallPlanPhasePlanning
  | typeof InstallPlanPhaseRequiresApproval
  | typeof InstallPlanPhaseInstalling
  | typeof InstallPlanPhaseComplete
  | typeof InstallPlanPhaseFailed;

export const InstallPlanResolved = 'Resolved';
export const InstallPlanInstalled = 'Installed';

export const InstallPlanReasonPlanUnknown = 'PlanUnknown';
export const InstallPlanReasonInstallCheckFailed = 'InstallCheckFailed';
export const InstallPlanReasonDependencyConflict = 'DependenciesConflict';
export const InstallPlanReasonComponentFailed = 'InstallComponentFailed';

export const StepStatusUnknown = 'Unknown';
export const StepStatusNotPresent = 'NotPresent';
export const StepStatusPresent = 'Present';
export const StepStatusCreated = 'Created';
export const StepStatusNotCreated = 'NotCreated';
export const StepStatusWaitingForAPI = 'WaitingForApi';
export const StepStatusUnsupportedResource = 'UnsupportedResource';
export type StepStatus =
  | typeof StepStatusUnknown
  | typeof StepStatusNotPresent
  | typeof StepStatusPresent
  | typeof StepStatusCreated
  | typeof StepStatusNotCreated
  | typeof StepStatusWaitingForAPI
  | typeof StepStatusUnsupportedResource;

export const BundleLookupPending = 'BundleLookupPending';
export const BundleLookupFailed = 'BundleLookupFailed';
export const BundleLookupNotPersisted = 'BundleLookupNotPersisted';

export interface InstallPlanSpec {
  approval: Approval | string;
  approved: boolean;
  clusterServiceVersionNames: string[];
  generation?: number;
  source?: string;
  sourceNamespace?: string;
}

export interface StepResource {
  group: string;
  kind: string;
  /** The object as JSON text, or a reference JSON for image-unpacked bundles. */
  manifest?: string;
  name: string;
  sourceName: string;
  sourceNamespace: string;
  version: string;
}

export interface Step {
  optional?: boolean;
  /** The CSV this step belongs to. */
  resolving: string;
  resource: StepResource;
  status: StepStatus | string;
}

export interface BundleLookupCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

export interface BundleLookup {
  catalogSourceRef: ObjectReference;
  conditions?: BundleLookupCondition[];
  identifier: string;
  path: string;
  properties?: string;
  replaces: string;
}

export interface InstallPlanCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

export interface InstallPlanStatus {
  attenuatedServiceAccountRef?: ObjectReference;
  bundleLookups?: BundleLookup[];
  catalogSources: string[];
  conditions?: InstallPlanCondition[];
  message?: string;
  phase: InstallPlanPhase | string;
  plan?: Step[];
  startTime?: string;
}

export interface InstallPlan extends KubeObject {
  metadata: ObjectMeta;
  spec: InstallPlanSpec;
  status?: InstallPlanStatus;
}

export type InstallPlanList = List<InstallPlan>;
