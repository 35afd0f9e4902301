// ClusterExtension status conditions with upstream's types, reasons and messages. See README.md.
export {
  MSG_AVAILABLE,
  MSG_DEPRECATION_UNKNOWN,
  MSG_DESIRED_STATE,
  MSG_NO_BUNDLE_INSTALLED,
  MSG_NO_BUNDLE_YET,
  ensureFailureConditions,
  setAvailable,
  setDeprecationConditions,
  setInstalledFromBundle,
  setInstalledUnknown,
  setProgressing,
  wrapWithResolution,
  type DeprecationEntryInfo,
  type InstalledBundleInfo,
} from './status.ts';
