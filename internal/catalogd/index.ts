// catalogd as a capability: catalogdSetup (setup.ts, the wiring), its options and defaults (options.ts) and the
// process's implementations (implementations.ts). See README.md.
export { catalogdSetup } from './setup.ts';
export type { CatalogdParts } from './setup.ts';
export type { CatalogGraphQL, CatalogServer, CatalogServerOptions, CatalogdImplementations, CatalogdOptions } from './options.ts';
export { DEFAULT_EXTERNAL_ADDRESS, DEFAULT_MAX_CATALOG_FILES, catalogBaseUrl } from './options.ts';
export { defaultImplementations } from './implementations.ts';
