// operator-controller as a capability: operatorControllerSetup (setup.ts, the ClusterExtension pipeline's wiring), its
// options (options.ts), the process's implementations (implementations.ts) and the revision sources OpenShift's v1
// gating reads (revisionsource.ts). See README.md.
export { operatorControllerSetup } from './setup.ts';
export type { CatalogContentCache, OperatorControllerImplementations, OperatorControllerParts } from './setup.ts';
export { objectSetRevisionSource, revisionHeadSource } from './revisionsource.ts';
export type { RevisionSource } from './revisionsource.ts';
export type { CertProviderName, OperatorControllerOptions } from './options.ts';
export { defaultImplementations } from './implementations.ts';
