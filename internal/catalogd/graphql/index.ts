// catalogd's GraphQL queries (upstream feature gate GraphQLCatalogQueries). See README.md.
export { createCatalogQueries, withGraphQLSchemas } from './service.ts';
export type { CatalogQueries, CatalogQueriesOptions } from './service.ts';
