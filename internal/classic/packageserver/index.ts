// The package server (upstream's package-server): packages.operators.coreos.com/v1 PackageManifests served as an
// aggregated API from the CatalogSources' loaded content. See README.md.
export { DEFAULT_SERVICE as DEFAULT_PACKAGE_SERVER_SERVICE, packageServerSetup } from './setup.ts';
export { PACKAGES_APISERVICE, certDecision, issueSecret, servingHosts, servingPair, servingSecretName } from './certificate.ts';
export type { CertDecision, ServiceRef, TLSSecret } from './certificate.ts';
export type { PackageServerParts, PackageServerSetupOptions } from './setup.ts';
export { packageProvider } from './provider.ts';
export { listItem } from './server.ts';
export type { PackageProvider, PackageProviderOptions } from './provider.ts';
export { API_VERSION as PACKAGES_API_VERSION, GROUP as PACKAGES_GROUP, RESOURCE as PACKAGEMANIFESTS, contentManifests, packageManifest } from './manifest.ts';
export type { CSVDescription, ChannelEntry, PackageChannel, PackageManifest, PackageManifestStatus } from './manifest.ts';
export { PackageIndex, watchEvent } from './watch.ts';
export type { Change, IndexedItem, PackageIndexOptions, WatchEventType, WatchScope } from './watch.ts';
