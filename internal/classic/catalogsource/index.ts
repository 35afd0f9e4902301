// The CatalogSource controller of the classic binary: an informer of CatalogSources (every replica),
// the leader's controller that writes their status, and the in-memory content of each CatalogSource
// (`contents`) that the classic resolver will read. See README.md.
export { catalogSourceSetup } from './setup.ts';
export { contentFromFbc, contentFromRegistry, findBundle, findPackage } from './content.ts';
export type { CatalogSourceOptions, CatalogSourceParts } from './setup.ts';
export type { CatalogContent, ContentBundle, ContentChannel, ContentChannelEntry, ContentPackage, ContentProperty } from './content.ts';
export type { ImageSources, ImageSourcesOptions } from './sources.ts';
export type { CatalogSourceReader, CatalogSourceReaderOptions } from './reader.ts';
export { catalogSourceReader } from './reader.ts';
export { imageSources } from './sources.ts';
export type { ContentRegistry } from './reconciler.ts';
export { configMapUnsupportedMessage, sourceTypeProblem } from './reconciler.ts';
export { parseGoDuration, pollInterval } from './interval.ts';
