// catalogd's content storage: the CatalogStore seam and its local-disk implementation. See README.md.
export { LocalDirStore } from './localdir.ts';
export { dns1123SubdomainErrors } from './names.ts';
export type { CatalogStore, StoredCatalog } from './types.ts';
