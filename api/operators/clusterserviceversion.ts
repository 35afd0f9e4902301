// ClusterServiceVersion (operators.coreos.com/v1alpha1): an operator's version, install strategy and
// APIs. Fields as ./schema/clusterserviceversion.ts; embedded Kubernetes types (DeploymentSpec,
// PolicyRule, webhook rules) are KubeValue. Phases, reasons and install modes with upstream's spelling
// (clusterserviceversion_types.go).
import type { KubeObject, LabelSelector, List, ObjectMeta } from '../meta/v1.ts';
import type { Icon, KubeValue } from './common.ts';

export const InstallStrategyNameDeployment = 'deployment';
export const SkipRangeAnnotationKey = 'olm.skipRange';
export const OperatorGroupNamespaceAnnotationKey = 'olm.operatorNamespace';
/** The label on a CSV copied into an OperatorGroup's target namespace: the namespace it was copied from. */
export const CopiedFromLabel = 'olm.copiedFrom';
/** Labels OLM puts on what it makes for a CSV (ownerutil.OwnerLabel). */
export const OwnerLabel = 'olm.owner';
export const OwnerNamespaceLabel = 'olm.owner.namespace';
export const OwnerKindLabel = 'olm.owner.kind';
/** A CSV's bundle properties, `{"properties":[{type,value}…]}` (R/projection PropertiesAnnotationKey). */
export const PropertiesAnnotation = 'operatorframework.io/properties';

export const InstallModeTypeOwnNamespace = 'OwnNamespace';
export const InstallModeTypeSingleNamespace = 'SingleNamespace';
export const InstallModeTypeMultiNamespace = 'MultiNamespace';
export const InstallModeTypeAllNamespaces = 'AllNamespaces';
export type InstallModeType =
  | typeof InstallModeTypeOwnNamespace
  | typeof InstallModeTypeSingleNamespace
  | typeof InstallModeTypeMultiNamespace
  | typeof InstallModeTypeAllNamespaces;

export const CSVPhaseNone = '';
export const CSVPhasePending = 'Pending';
export const CSVPhaseInstallReady = 'InstallReady';
export const CSVPhaseInstalling = 'Installing';
export const CSVPhaseSucceeded = 'Succeeded';
export const CSVPhaseFailed = 'Failed';
export const CSVPhaseUnknown = 'Unknown';
export const CSVPhaseReplacing = 'Replacing';
export const CSVPhaseDeleting = 'Deleting';
export type CSVPhase =
  | typeof CSVPhaseNone
  | typeof CSVPhasePending
  | typeof CSVPhaseInstallReady
  | typeof CSVPhaseInstalling
  | typeof CSVPhaseSucceeded
  | typeof CSVPhaseFailed
  | typeof CSVPhaseUnknown
  | typeof CSVPhaseReplacing
  | typeof CSVPhaseDeleting;

/** `status.reason` values of a CSV (upstream's CSVReason* constants, by their upstream name). */
export const CSVReasons = {
  RequirementsUnknown: 'RequirementsUnknown',
  RequirementsNotMet: 'RequirementsNotMet',
  RequirementsMet: 'AllRequirementsMet',
  OwnerConflict: 'OwnerConflict',
  ComponentFailed: 'InstallComponentFailed',
  ComponentFailedNoRetry: 'InstallComponentFailedNoRetry',
  InvalidStrategy: 'InvalidInstallStrategy',
  Waiting: 'InstallWaiting',
  InstallSuccessful: 'InstallSucceeded',
  InstallCheckFailed: 'InstallCheckFailed',
  ComponentUnhealthy: 'ComponentUnhealthy',
  BeingReplaced: 'BeingReplaced',
  Replaced: 'Replaced',
  NeedsReinstall: 'NeedsReinstall',
  NeedsCertRotation: 'NeedsCertRotation',
  APIServiceResourceIssue: 'APIServiceResourceIssue',
  APIServiceResourcesNeedReinstall: 'APIServiceResourcesNeedReinstall',
  APIServiceInstallFailed: 'APIServiceInstallFailed',
  Copied: 'Copied',
  InvalidInstallModes: 'InvalidInstallModes',
  NoTargetNamespaces: 'NoTargetNamespaces',
  UnsupportedOperatorGroup: 'UnsupportedOperatorGroup',
  NoOperatorGroup: 'NoOperatorGroup',
  TooManyOperatorGroups: 'TooManyOperatorGroups',
  InterOperatorGroupOwnerConflict: 'InterOperatorGroupOwnerConflict',
  CannotModifyStaticOperatorGroupProvidedAPIs: 'CannotModifyStaticOperatorGroupProvidedAPIs',
  DetectedClusterChange: 'DetectedClusterChange',
  InvalidWebhookDescription: 'InvalidWebhookDescription',
  OperatorConditionNotUpgradeable: 'OperatorConditionNotUpgradeable',
  WaitingForCleanupToComplete: 'WaitingOnCleanup',
} as const;
export type CSVReason = (typeof CSVReasons)[keyof typeof CSVReasons];

/** `status.requirementStatus[].status` and dependents' status values. */
export const RequirementStatusReasonPresent = 'Present';
export const RequirementStatusReasonNotPresent = 'NotPresent';
export const RequirementStatusReasonPresentNotSatisfied = 'PresentNotSatisfied';
export const RequirementStatusReasonNotAvailable = 'PresentNotAvailable';
export const DependentStatusReasonSatisfied = 'Satisfied';
export const DependentStatusReasonNotSatisfied = 'NotSatisfied';

export interface CRDDescription {
  name: string;
  version: string;
  kind: string;
  displayName?: string;
  description?: string;
  actionDescriptors?: KubeValue[];
  resources?: KubeValue[];
  specDescriptors?: KubeValue[];
  statusDescriptors?: KubeValue[];
}

export interface APIServiceDescription extends CRDDescription {
  group: string;
  containerPort?: number;
  deploymentName?: string;
}

export interface StrategyDeploymentSpec {
  name: string;
  label?: Record<string, string>;
  spec: KubeValue;
}

export interface StrategyDeploymentPermissions {
  serviceAccountName: string;
  rules: KubeValue[];
}

export interface NamedInstallStrategy {
  strategy: string;
  spec?: {
    deployments: StrategyDeploymentSpec[];
    permissions?: StrategyDeploymentPermissions[];
    clusterPermissions?: StrategyDeploymentPermissions[];
  };
}

export interface InstallMode {
  type: InstallModeType | string;
  supported: boolean;
}

export interface WebhookDescription {
  type: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ConversionWebhook';
  generateName: string;
  admissionReviewVersions: string[];
  sideEffects: string;
  containerPort?: number;
  conversionCRDs?: string[];
  deploymentName?: string;
  failurePolicy?: string;
  matchPolicy?: string;
  objectSelector?: LabelSelector;
  reinvocationPolicy?: string;
  rules?: KubeValue[];
  targetPort?: number | string;
  timeoutSeconds?: number;
  webhookPath?: string;
}

export interface ClusterServiceVersionSpec {
  annotations?: Record<string, string>;
  apiservicedefinitions?: { owned?: APIServiceDescription[]; required?: APIServiceDescription[] };
  cleanup?: { enabled: boolean };
  customresourcedefinitions?: { owned?: CRDDescription[]; required?: CRDDescription[] };
  description?: string;
  displayName: string;
  icon?: Icon[];
  install: NamedInstallStrategy;
  installModes?: InstallMode[];
  keywords?: string[];
  labels?: Record<string, string>;
  links?: { name?: string; url?: string }[];
  maintainers?: { name?: string; email?: string }[];
  maturity?: string;
  minKubeVersion?: string;
  nativeAPIs?: { group: string; version: string; kind: string }[];
  provider?: { name?: string; url?: string };
  relatedImages?: { name: string; image: string }[];
  release?: string;
  replaces?: string;
  selector?: LabelSelector;
  skips?: string[];
  version?: string;
  webhookdefinitions?: WebhookDescription[];
}

export interface CSVCondition {
  phase?: CSVPhase | string;
  reason?: CSVReason | string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

export interface DependentStatus {
  group: string;
  version: string;
  kind: string;
  status: string;
  message?: string;
  uuid?: string;
}

export interface RequirementStatus {
  group: string;
  version: string;
  kind: string;
  name: string;
  status: string;
  message: string;
  dependents?: DependentStatus[];
  uuid?: string;
}

export interface ClusterServiceVersionStatus {
  certsLastUpdated?: string;
  certsRotateAt?: string;
  cleanup?: { pendingDeletion?: { group: string; kind: string; instances: KubeValue[] }[] };
  conditions?: CSVCondition[];
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  message?: string;
  phase?: CSVPhase | string;
  reason?: CSVReason | string;
  requirementStatus?: RequirementStatus[];
}

export interface ClusterServiceVersion extends KubeObject {
  metadata: ObjectMeta;
  spec: ClusterServiceVersionSpec;
  status?: ClusterServiceVersionStatus;
}

export type ClusterServiceVersionList = List<ClusterServiceVersion>;

/** Upstream's IsCopied (api metav1 helper): another operator namespace, or the copiedFrom label. */
export function isCopiedObject(o: { metadata: { namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> } }): boolean {
  const ns = o.metadata.annotations?.[OperatorGroupNamespaceAnnotationKey];
  if (ns !== undefined && ns !== o.metadata.namespace) return true;
  return o.metadata.labels?.[CopiedFromLabel] !== undefined;
}

/** Upstream's ClusterServiceVersion.IsCopied: status reason Copied, or copied by its metadata. */
export const isCopiedCSV = (csv: ClusterServiceVersion): boolean => csv.status?.reason === 'Copied' || isCopiedObject(csv);

/** The newest conditions kept in `status.conditions`. */
export const CONDITIONS_LENGTH_LIMIT = 20;

/**
 * upstream's SetPhase: lastUpdateTime, message and reason always; lastTransitionTime only when the phase changes;
 * a condition appended only when phase or reason differ from the last one; the newest 20 kept.
 */
export function setPhase(csv: ClusterServiceVersion, phase: string, reason: string, message: string, now: string): void {
  const status = (csv.status ??= {});
  status.lastUpdateTime = now;
  if ((status.phase ?? CSVPhaseNone) !== phase) {
    status.phase = phase;
    status.lastTransitionTime = now;
  }
  // Go's omitempty: an empty message or reason is not written.
  if (message) status.message = message;
  else delete status.message;
  if (reason) status.reason = reason;
  else delete status.reason;
  const condition = (): CSVCondition => ({
    phase: status.phase ?? CSVPhaseNone,
    ...(status.lastTransitionTime !== undefined && { lastTransitionTime: status.lastTransitionTime }),
    lastUpdateTime: now,
    ...(message && { message }),
    ...(reason && { reason }),
  });
  const conditions = (status.conditions ??= []);
  const last = conditions[conditions.length - 1];
  if (!last || (last.phase ?? '') !== status.phase || (last.reason ?? '') !== reason) conditions.push(condition());
  if (conditions.length > CONDITIONS_LENGTH_LIMIT) status.conditions = conditions.slice(conditions.length - CONDITIONS_LENGTH_LIMIT);
}
