// Public surface of the catalog content client. See README.md.
export type { BundleProperty, CatalogContentClient, PackageBundle, PackageContent } from './types.ts';
export { CatalogIndex, CatalogIndexBuilder, indexFromCatalog, indexFromDirectory, indexFromJsonl } from './catalog-index.ts';
export type { CatalogIndexOptions } from './catalog-index.ts';
export { EMPTY_CONTENT } from './decode.ts';
export { ContentClientError } from './messages.ts';
export { DEFAULT_TIMEOUT_MS, HttpContentClient, allEndpoint, validateCatalog } from './client.ts';
export type { HttpContentClientOptions } from './client.ts';
