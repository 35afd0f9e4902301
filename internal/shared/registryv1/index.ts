// registry+v1 rules both OLMs share (v1's renderer, classic's CSV install strategy). See README.md.
export type { CertSecret, StrategyDeployment, StrategyDeploymentOptions } from './deployment.ts';
export { canonicalQuantities, ensureCertVolumes, strategyDeployment, typedDeploymentSpec } from './deployment.ts';
export type { DeploymentConfig } from './deployment-config.ts';
export { applyDeploymentConfig } from './deployment-config.ts';
export { canonicalQuantity, canonicalizeResources, quantityError } from './quantity.ts';
