// The CatalogSource controller of the classic binary: an informer of CatalogSources (every replica),
// the leader's controller that writes their status, the follower that loads the same content on every other
// replica, and the in-memory content of each CatalogSource (`contents`) that the classic resolver and the
// package server read. See README.md.
export { catalogSourceSetup } from './setup.ts';
export { contentFromFbc, contentFromRegistry, findPackage } from './content.ts';
export type { CatalogSourceOptions, CatalogSourceParts } from './setup.ts';
export type { ContentFollower, ContentFollowerOptions } from './follower.ts';
export type { CatalogContent, ContentBundle, ContentPackage } from './content.ts';
export { catalogSourceReader } from './reader.ts';
export type { ContentRegistry } from './reconciler.ts';
export { configMapUnsupportedMessage } from './reconciler.ts';
export { bundleCsvJson, bundleManifests, servedProperties } from './inline.ts';
export type { BundleManifests } from './inline.ts';
export { parseGoDuration } from './interval.ts';
