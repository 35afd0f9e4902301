// catalogd's content storage: the CatalogStore seam and its local-disk implementation. See README.md.
export { CATALOG_FILE, CONTENT_FILE, ENCODING_VERSION, INDEX_FILE, LocalDirStore, indexFromCatalogdJSON } from './localdir.ts';
export type { LocalDirStoreOptions } from './localdir.ts';
export { dns1123SubdomainErrors, digestPath, isCatalogName } from './names.ts';
export type { CatalogStore, StoredCatalog } from './types.ts';
