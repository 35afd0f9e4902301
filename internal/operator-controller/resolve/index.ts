// Public surface of the ClusterExtension resolver. See README.md.
export type { BundleValidation, CatalogResolverOptions, ResolveResult, ResolvedBundle } from './resolver.ts';
export { CatalogResolver, ResolutionError, noDependencyValidation } from './resolver.ts';
export type { BundleExplanation, BundleOutcome, CatalogDrop, CatalogExplanation, Explanation, FilterRejection } from './explain.ts';
export { formatExplanation, notServedAdvice, notServedCatalog } from './explain.ts';
export type { ResolutionMetrics, ResolutionOutcome } from './metrics.ts';
export { RESOLUTION_DURATION_METRIC, createResolutionMetrics, noopResolutionMetrics } from './metrics.ts';
export type { InstalledBundleMetadata, SuccessorReason } from './successors.ts';
export type { Release, VersionOptions, VersionRelease } from './version-release.ts';
export { bundleMetadataVersion, getVersionAndRelease, parseLegacyVersionRelease } from './version-release.ts';
export type { PackageSource } from './offline.ts';
export { StaticContentClient } from './offline.ts';
