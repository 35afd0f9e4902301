// CRD upgrade safety (olmv1.md §5.4). See README.md.
export type { CheckResult, CrdCheck, PropertyCheck } from './checks.ts';
export { CRD_CHECKS, PROPERTY_CHECKS, compareVersions } from './checks.ts';
export type { ConversionPolicy, CrdifyConfig, EnforcementPolicy, ValidationConfig } from './config.ts';
export { CHECK_NAMES, CrdifyConfigError, OLM_CRDIFY_CONFIG, resolveConfig } from './config.ts';
export type { CrdGetter, CrdUpgradeSafetyOptions } from './preflight.ts';
export { kubeCrdGetter } from './kube.ts';
export { CrdUpgradeSafetyError, CrdUpgradeSafetyPreflight, crdUpgradeSafetyDisabled } from './preflight.ts';
export type { Crd, CrdVersion, Schema } from './schema.ts';
export { isCrd } from './schema.ts';
export { condense as condenseUnhandledDiff } from './unhandled.ts';
export { servedVersionLines, upgradeMessage, validateUpgrade } from './validate.ts';
