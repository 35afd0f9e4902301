// Subscription (operators.coreos.com/v1alpha1). Fields as ./schema/subscription.ts; states,
// condition types and reasons with upstream's spelling (operator-framework/api subscription_types.go,
// and the reasons OLM's catalog operator writes).
import type { KubeObject, LabelSelector, List, ObjectMeta } from '../meta/v1.ts';
import type { Approval } from './installplan.ts';
import type { KubeValue, ObjectReference } from './common.ts';

export const SubscriptionStateNone = '';
export const SubscriptionStateFailed = 'UpgradeFailed';
export const SubscriptionStateUpgradeAvailable = 'UpgradeAvailable';
export const SubscriptionStateUpgradePending = 'UpgradePending';
export const SubscriptionStateAtLatest = 'AtLatestKnown';
export type SubscriptionState =
  | typeof SubscriptionStateNone
  | typeof SubscriptionStateFailed
  | typeof SubscriptionStateUpgradeAvailable
  | typeof SubscriptionStateUpgradePending
  | typeof SubscriptionStateAtLatest;

export const SubscriptionReasonInvalidCatalog = 'InvalidCatalog';
export const SubscriptionReasonUpgradeSucceeded = 'UpgradeSucceeded';

// Condition types.
export const SubscriptionCatalogSourcesUnhealthy = 'CatalogSourcesUnhealthy';
export const SubscriptionInstallPlanMissing = 'InstallPlanMissing';
export const SubscriptionInstallPlanPending = 'InstallPlanPending';
export const SubscriptionInstallPlanFailed = 'InstallPlanFailed';
export const SubscriptionResolutionFailed = 'ResolutionFailed';
export const SubscriptionBundleUnpacking = 'BundleUnpacking';
export const SubscriptionBundleUnpackFailed = 'BundleUnpackFailed';
export const SubscriptionDeprecated = 'Deprecated';
export const SubscriptionPackageDeprecated = 'PackageDeprecated';
export const SubscriptionChannelDeprecated = 'ChannelDeprecated';
export const SubscriptionBundleDeprecated = 'BundleDeprecated';

// Condition reasons.
export const NoCatalogSourcesFound = 'NoCatalogSourcesFound';
export const AllCatalogSourcesHealthy = 'AllCatalogSourcesHealthy';
export const CatalogSourcesAdded = 'CatalogSourcesAdded';
export const CatalogSourcesUpdated = 'CatalogSourcesUpdated';
export const CatalogSourcesDeleted = 'CatalogSourcesDeleted';
export const UnhealthyCatalogSourceFound = 'UnhealthyCatalogSourceFound';
export const ReferencedInstallPlanNotFound = 'ReferencedInstallPlanNotFound';
export const InstallPlanNotYetReconciled = 'InstallPlanNotYetReconciled';
export const InstallPlanFailed = 'InstallPlanFailed';
/** Reasons of ResolutionFailed / BundleUnpacking / BundleUnpackFailed (OLM's catalog operator). */
export const ReasonConstraintsNotSatisfiable = 'ConstraintsNotSatisfiable';
export const ReasonErrorPreventedResolution = 'ErrorPreventedResolution';
export const ReasonUnpackingInProgress = 'UnpackingInProgress';
export const ReasonBundleUnpackFailed = 'BundleUnpackFailed';
export const ReasonErrorPreventedUnpacking = 'ErrorPreventedUnpacking';
export const ReasonEnsureInstallPlanFailed = 'EnsureInstallPlanFailed';

/** Annotation on a dependency Subscription naming the InstallPlan that created it. */
export const GeneratedByAnnotation = 'olm.generated-by';

export interface SubscriptionConfig {
  affinity?: KubeValue;
  annotations?: Record<string, string>;
  env?: KubeValue[];
  envFrom?: KubeValue[];
  nodeSelector?: Record<string, string>;
  resources?: KubeValue;
  selector?: LabelSelector;
  tolerations?: KubeValue[];
  volumeMounts?: KubeValue[];
  volumes?: KubeValue[];
}

export interface SubscriptionSpec {
  /** The CatalogSource's name. */
  source: string;
  sourceNamespace: string;
  /** The package's name. */
  name: string;
  channel?: string;
  startingCSV?: string;
  /** Anything but `Manual` means Automatic. */
  installPlanApproval?: Approval | string;
  config?: SubscriptionConfig;
}

export interface SubscriptionCatalogHealth {
  catalogSourceRef: ObjectReference;
  healthy: boolean;
  lastUpdated: string;
}

/** The legacy `status.installplan` reference. */
export interface InstallPlanReference {
  apiVersion: string;
  kind: string;
  name: string;
  uuid: string;
}

/** Subscription conditions carry a heartbeat time and no observedGeneration. */
export interface SubscriptionCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface SubscriptionStatus {
  catalogHealth?: SubscriptionCatalogHealth[];
  conditions?: SubscriptionCondition[];
  currentCSV?: string;
  installPlanGeneration?: number;
  installPlanRef?: ObjectReference;
  installedCSV?: string;
  installplan?: InstallPlanReference;
  lastUpdated: string;
  reason?: string;
  state?: SubscriptionState | string;
}

export interface Subscription extends KubeObject {
  metadata: ObjectMeta;
  spec: SubscriptionSpec;
  status?: SubscriptionStatus;
}

export type SubscriptionList = List<Subscription>;
