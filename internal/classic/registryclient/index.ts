// A typed client of the registry gRPC API (`api.Registry`, registry.proto beside this file) that
// CatalogSources with spec.address point at, e.g. `opm serve`. Field names are the proto's.
// @grpc/grpc-js and @grpc/proto-loader are loaded with the first client, not at start-up: only
// spec.address CatalogSources need them (~25 MiB RSS, bench/footprint.ts).
export { RegistryClient, RegistryStatus } from './client.ts';
export type { Deprecation, Channel, Package, GroupVersionKind, Dependency, Property, Bundle, RegistryClientOptions } from './client.ts';
