// OpenShift upgrade gating: versions and `olm.maxOpenShiftVersion` under classic OLM's and OLM v1's rules, and
// the controllers that keep a ClusterOperator's Upgradeable condition from them. See README.md.
export type { ClusterOperator, ClusterOperatorCondition } from './clusteroperator.ts';
export type { CsvInfo } from './classic.ts';
export { classicStatus, classicVerdict } from './classic.ts';
export type { ExtensionInfo } from './v1.ts';
export { v1Incompatible, v1Upgradeable } from './v1.ts';
export { v1CurrentMinor } from './version.ts';
export type { ClassicGatingOptions, ClassicGatingParts } from './classic-controller.ts';
export { classicGatingSetup } from './classic-controller.ts';
export type { RevisionHeadSource, V1GatingOptions, V1GatingParts } from './v1-controller.ts';
export { v1GatingSetup } from './v1-controller.ts';
