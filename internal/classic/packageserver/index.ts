// The package server (upstream's package-server): packages.operators.coreos.com/v1 PackageManifests served as an
// aggregated API from the CatalogSources' loaded content. See README.md.
export { DEFAULT_SERVICE as DEFAULT_PACKAGE_SERVER_SERVICE, packageServerSetup } from './setup.ts';
export { PACKAGES_APISERVICE } from './certificate.ts';
export { packageProvider } from './provider.ts';
export { listItem } from './server.ts';
export { contentManifests, packageManifest } from './manifest.ts';
export type { ChannelEntry, PackageManifest } from './manifest.ts';
export type { WatchEventType } from './watch.ts';
