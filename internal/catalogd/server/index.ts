// catalogd's catalog HTTP server. See README.md.
export { createCatalogServer } from './server.ts';
export type { CatalogServer, CatalogServerOptions } from './server.ts';
export type { GraphQLQueries } from './graphql.ts';
