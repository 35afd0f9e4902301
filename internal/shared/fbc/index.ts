// Public surface of the file-based catalog (FBC) library. See README.md.

export { catalogFromBlobs, catalogFromFiles, listCatalogFiles, loadCatalog, walkMetas } from './load.ts';
export type { Catalog, LoadOptions, Meta } from './load.ts';

export { SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_DEPRECATION, SCHEMA_PACKAGE } from './declcfg.ts';
export type {
  ChannelEntry,
  DeclBundle,
  DeclChannel,
  DeclDeprecation,
  DeclPackage,
  DeclarativeConfig,
  DeprecationEntry,
  PackageScopedReference,
} from './declcfg.ts';
export type { PackageProperty, PropertySummary } from './properties.ts';

export { catalogProblem, describeProblem, validate, validateCatalog, validateDirectory } from './validate.ts';
export type { ValidationResult } from './validate.ts';
export { channelHead, convertToModel, replacesChainError, validateModel, versionString } from './model.ts';
export type { Deprecation, Model, ModelBundle, ModelChannel, ModelPackage } from './model.ts';
export { renderTree, renderTreeLine } from './tree.ts';

export { BlobIndex, BlobIndexBuilder, encodeJsonl, sliceEntries } from './encode.ts';
export type { BlobIndexEntry, EncodedCatalog, MetasQuery, Section } from './encode.ts';

export { canonicalJSON } from './canonical.ts';
export { GO_YAML_SCHEMA, decodeDocuments, type DecodedDocument } from './yaml.ts';

export { FbcLoadError, FbcValidationError, describeRef as describeBlobRef } from './messages.ts';
export type { BlobRef, ErrorTree, FbcErrorCode } from './messages.ts';
