// Public surface of the file-based catalog (FBC) library. See README.md.

export { listCatalogFiles, loadCatalog, walkMetas } from './load.ts';
export type { Catalog, LoadOptions, Meta } from './load.ts';

export { SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_DEPRECATION, SCHEMA_PACKAGE } from './declcfg.ts';
export type { ChannelEntry, DeclChannel, DeclDeprecation, DeclPackage, DeprecationEntry } from './declcfg.ts';

export { catalogProblem, describeProblem, validate, validateDirectory } from './validate.ts';
export { channelHead } from './model.ts';
export type { Deprecation } from './model.ts';

export { BlobIndex, BlobIndexBuilder, encodeJsonl } from './encode.ts';
export type { BlobIndexEntry, Section } from './encode.ts';

export { canonicalJSON } from './canonical.ts';
export { GO_YAML_SCHEMA, decodeDocuments } from './yaml.ts';

export { FbcLoadError, FbcValidationError, describeRef as describeBlobRef } from './messages.ts';
