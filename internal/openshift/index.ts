// OpenShift upgrade gating: versions and `olm.maxOpenShiftVersion` under classic OLM's and OLM v1's rules, and
// the controllers that keep a ClusterOperator's Upgradeable condition from them. See README.md.
export type { ClassicSkew, OcpMinor, RawProperty } from './version.ts';
export {
  CLASSIC_BLOCKING_HEADER,
  MAX_OPENSHIFT_VERSION_PROPERTY,
  classicBlockingMessage,
  classicBlocks,
  classicMaxOpenShiftVersion,
  classicReleaseVersion,
  formatMinor,
  nextMinor,
  nextY,
  normalize,
  v1AllowedVersion,
  v1BlockingMessage,
  v1Compatible,
  v1CurrentMinor,
  v1NextMinorText,
} from './version.ts';
export { CSV_PROPERTIES_ANNOTATION, classicPropertiesFromAnnotation, v1PropertiesFromAnnotation } from './properties.ts';
export type {
  ClusterOperator,
  ClusterOperatorCondition,
  ClusterOperatorStatus,
  ClusterVersion,
  ConditionStatus,
  ObjectReference,
  OperandVersion,
  OperatorCondition,
} from './clusteroperator.ts';
export {
  ClusterOperatorKind,
  ClusterVersionKind,
  ClusterVersionName,
  ConfigGroupVersion,
  OperatorStatusChangedReason,
  OperatorUpgradeable,
  conditionDiff,
  unionCondition,
} from './clusteroperator.ts';
export type { ClassicStatusInput, ClassicVerdict, CsvInfo } from './classic.ts';
export {
  CopiedLabelKey,
  ErrorCheckingOperatorCompatibility,
  IncompatibleOperatorsInstalled,
  WaitingForUpdates,
  classicRelatedObjects,
  classicSkews,
  classicStatus,
  classicVerdict,
  csvMaxOpenShiftVersion,
  isCopied,
} from './classic.ts';
export type { ExtensionInfo, RevisionInfo, V1Blocker, V1Result } from './v1.ts';
export {
  FailureGettingExtensionMetadata,
  InstalledOLMOperatorsUpgradeable,
  latestActive,
  v1CheckProperties,
  v1Incompatible,
  v1OperatorCondition,
  v1Upgradeable,
} from './v1.ts';
export { BLOCKING_INSTALLS_METRIC } from './gating.ts';
export type { ClassicGatingOptions, ClassicGatingParts } from './classic-controller.ts';
export { classicGatingSetup } from './classic-controller.ts';
export type { RevisionHeadSource, V1GatingOptions, V1GatingParts } from './v1-controller.ts';
export { v1GatingSetup } from './v1-controller.ts';
export { OLM_VERSION } from './olm-version.ts';
