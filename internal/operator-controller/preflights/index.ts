// The install preflights: the certificate provider's kinds, the service account's permissions (only with the
// ServiceAccountInstalls gate), then CRD upgrade safety. See README.md.
export { Preflights, clusterPreflights } from './preflights.ts';
export type { ClusterPreflightOptions } from './preflights.ts';
export type { CrdifyConfig, CrdUpgradeSafetyOptions, EnforcementPolicy, ValidationConfig } from './crdupgradesafety/index.ts';
export { CrdUpgradeSafetyError, CrdUpgradeSafetyPreflight, kubeCrdGetter, OLM_CRDIFY_CONFIG } from './crdupgradesafety/index.ts';
export type { KindServed, ProviderKind, ProviderKinds } from './certprovider/index.ts';
export { CertificateProviderError, CertificateProviderPreflight, certificateProviderMessage, kubeKindServed } from './certprovider/index.ts';
export { kubePermissionSource, PermissionPreflight, PermissionPreflightError } from './permissions/index.ts';
