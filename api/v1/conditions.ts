// Condition types and reasons written to status.conditions of ClusterExtensions and
// ClusterCatalogs. The strings are part of the API: clients match on them.

// ---- Condition types -------------------------------------------------------------------------

/** ClusterExtension: whether a bundle is installed (True/Succeeded, False/Failed|Absent, Unknown/Failed). */
export const TypeInstalled = 'Installed';
/** ClusterExtension and ClusterCatalog: whether the object is moving towards its desired state. */
export const TypeProgressing = 'Progressing';
/** ClusterExtension: roll-up of the three deprecation conditions below. */
export const TypeDeprecated = 'Deprecated';
/** ClusterExtension: the requested package is marked deprecated in the catalog. */
export const TypePackageDeprecated = 'PackageDeprecated';
/** ClusterExtension: one of the requested channels is marked deprecated in the catalog. */
export const TypeChannelDeprecated = 'ChannelDeprecated';
/** ClusterExtension: the installed bundle is marked deprecated in the catalog. */
export const TypeBundleDeprecated = 'BundleDeprecated';
/** ClusterCatalog: whether the catalog content is served over HTTP. */
export const TypeServing = 'Serving';
/**
 * ClusterExtension, beyond upstream: whether every applied object passes its health probe
 * (CRDs Established, Deployments rolled out and Available, …). Set once objects were applied.
 */
export const TypeAvailable = 'Available';

// ---- Reasons ---------------------------------------------------------------------------------

/** Installed=True, Progressing=True (desired state reached), also ClusterCatalog Progressing=True. */
export const ReasonSucceeded = 'Succeeded';
/** Installed=False (nothing installed) or Installed=Unknown (install state could not be read). */
export const ReasonFailed = 'Failed';
/** Installed=False while the first rollout is healthy but not finished. */
export const ReasonAbsent = 'Absent';
/** Progressing=True: an error that a later attempt may resolve. */
export const ReasonRetrying = 'Retrying';
/** Progressing=False: an error that needs a human to fix it. */
export const ReasonBlocked = 'Blocked';
/** Progressing=False: the extension's configuration cannot be used. */
export const ReasonInvalidConfiguration = 'InvalidConfiguration';
/** Progressing=True while a new revision rolls out. */
export const ReasonRollingOut = 'RollingOut';
/** Progressing=False: a rollout did not finish within its deadline. */
export const ReasonProgressDeadlineExceeded = 'ProgressDeadlineExceeded';
/** Deprecation conditions = True. */
export const ReasonDeprecated = 'Deprecated';
/** Deprecation conditions = False. */
export const ReasonNotDeprecated = 'NotDeprecated';
/** Deprecation conditions = Unknown (no catalog data, or nothing installed yet). */
export const ReasonDeprecationStatusUnknown = 'DeprecationStatusUnknown';
/** ClusterCatalog Serving=True: content is served. */
export const ReasonAvailable = 'Available';
/** ClusterCatalog Serving=False: content is not (yet) available. */
export const ReasonUnavailable = 'Unavailable';
/** ClusterCatalog Serving=False: spec.availabilityMode is Unavailable. */
export const ReasonUserSpecifiedUnavailable = 'UserSpecifiedUnavailable';

// ---- Sets ------------------------------------------------------------------------------------

/** Every condition type a ClusterExtension may carry (standard feature set). */
export const ClusterExtensionConditionTypes = [
  TypeInstalled,
  TypeProgressing,
  TypeDeprecated,
  TypePackageDeprecated,
  TypeChannelDeprecated,
  TypeBundleDeprecated,
] as const;
export type ClusterExtensionConditionType = (typeof ClusterExtensionConditionTypes)[number];

/** Every reason a ClusterExtension condition may carry. */
export const ClusterExtensionConditionReasons = [
  ReasonSucceeded,
  ReasonFailed,
  ReasonAbsent,
  ReasonRetrying,
  ReasonBlocked,
  ReasonInvalidConfiguration,
  ReasonRollingOut,
  ReasonProgressDeadlineExceeded,
  ReasonDeprecated,
  ReasonNotDeprecated,
  ReasonDeprecationStatusUnknown,
] as const;
export type ClusterExtensionConditionReason = (typeof ClusterExtensionConditionReasons)[number];

/** Every condition type a ClusterCatalog may carry. */
export const ClusterCatalogConditionTypes = [TypeServing, TypeProgressing] as const;
export type ClusterCatalogConditionType = (typeof ClusterCatalogConditionTypes)[number];

/** Every reason a ClusterCatalog condition may carry. */
export const ClusterCatalogConditionReasons = [
  ReasonAvailable,
  ReasonUnavailable,
  ReasonUserSpecifiedUnavailable,
  ReasonSucceeded,
  ReasonRetrying,
  ReasonBlocked,
] as const;
export type ClusterCatalogConditionReason = (typeof ClusterCatalogConditionReasons)[number];
