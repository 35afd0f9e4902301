// catalogd's catalog HTTP server. See README.md.
export {
  DEFAULT_CATALOGS_SERVER_ADDR,
  GZIP_MIN_SIZE,
  REQUEST_DURATION_BUCKETS,
  REQUEST_DURATION_METRIC,
  createCatalogServer,
} from './server.ts';
export type { CatalogServer, CatalogServerOptions } from './server.ts';
export { DEFAULT_TLS_RELOAD_INTERVAL_MS } from '../../shared/tlsprofile/index.ts';
export { EMPTY_QUERY, GRAPHQL_BODY_LIMIT, INVALID_BODY, MAX_QUERY_BYTES, QUERY_TOO_LARGE, decodeQuery } from './graphql.ts';
export type { GraphQLQueries, RequestBody } from './graphql.ts';
