// registry+v1 model and rules both OLMs share: reading a bundle (v1's renderer, classic's Subscription sync, the
// publisher), the CSV's shape, a Deployment of its install strategy (v1's renderer, classic's CSV install
// strategy), rbacv1.PolicyRule's Go encoding, and the CRD stored-versions rule. See README.md.
export type { RegistryV1 } from './bundle.ts';
export { BUNDLE_PATHS, BundleLoadError, loadRegistryV1, PACKAGE_ANNOTATION, readBundleAnnotations } from './bundle.ts';
export type {
  ClusterServiceVersion,
  CSVSpec,
  InstallModeType,
  PolicyRule,
  StrategyDeploymentPermissions,
  StrategyDeploymentSpec,
  WebhookDescription,
} from './csv.ts';
export { clusterPermissionsOf, deploymentsOf, permissionsOf, supportedInstallModes, webhooksOf } from './csv.ts';
export { strategyDeployment } from './deployment.ts';
export type { DeploymentConfig } from './deployment-config.ts';
export { applyDeploymentConfig } from './deployment-config.ts';
export { goPolicyRule } from './policy-rule.ts';
export { quantityError } from './quantity.ts';
export { removedStoredVersions } from './stored-versions.ts';
