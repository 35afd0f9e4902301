// catalogd's GraphQL queries (upstream feature gate GraphQLCatalogQueries). See README.md.
export { ARRAY_SAMPLE, ShapeBuilder, discoverShape } from './discover.ts';
export type { CatalogShape, FieldShape, Scalar, SchemaShape, TopFieldShape } from './discover.ts';
export { MAX_QUERY_ALIASES, MAX_QUERY_DEPTH, MAX_QUERY_FIELDS, complexityError } from './limits.ts';
export { fieldName, queryFieldName, typeName } from './names.ts';
export { DEFAULT_LIMIT, MAX_LIMIT, SchemaBuildError, buildSchema, goMarshal } from './schema.ts';
export type { BlobReader } from './schema.ts';
export { createCatalogQueries, encodeResult, withGraphQLSchemas } from './service.ts';
export type { CatalogQueries, CatalogQueriesOptions } from './service.ts';
