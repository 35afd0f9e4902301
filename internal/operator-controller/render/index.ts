// Public surface of the registry+v1 renderer. See README.md.
export { CERT_PROVIDERS, certConfigFor, certManagerProvider, openshiftServiceCAProvider } from './certproviders.ts';
export type { CertConfig, CertificateProvider, CertSecretInfo } from './certproviders.ts';
export { bundleConfigSchema, configErrors, formatConfigErrors } from './config.ts';
export type { DeploymentConfig } from '../../shared/registryv1/index.ts';
export { GENERATORS } from './generators.ts';
export { objectNameForBaseAndSuffix, uniqueName } from './names.ts';
export { registryV1Renderer, renderBundle, renderRegistryV1, RenderError } from './render.ts';
export type { ManifestProviderGates, RegistryV1RendererOptions, RenderErrorKind, RenderOptions } from './render.ts';
export { sortForGolden } from './order.ts';
export { BUNDLE_CHECKS, validateBundle } from './validators.ts';
