// Every message this folder produces. Texts are opm's own (operator-registry `alpha/declcfg`,
// `alpha/model`, `alpha/property`, plus the apimachinery / docker-reference / blang texts they
// wrap), so they can be compared with `opm validate` output; code should match on `code`.

import { goBoolT, goQuote, goStringSlice, goValueV } from './go.ts';

export type FbcErrorCode =
  // ---- loading (opm LoadFS / catalogd WalkMetasFS) ----
  /** A file could not be read, or the walk failed. */
  | 'FBC_READ'
  /** YAML syntax error, or a bad `---` separator line. */
  | 'FBC_YAML_SYNTAX'
  /** JSON syntax error in a JSON stream. */
  | 'FBC_JSON_SYNTAX'
  /** A document is not a JSON object (e.g. a list or a scalar). */
  | 'FBC_NOT_AN_OBJECT'
  /** Top-level keys that differ only in case. */
  | 'FBC_DUPLICATE_KEYS'
  /** `schema`, `package` or `name` is not a string. */
  | 'FBC_META_NOT_STRING'
  /** A value JSON cannot represent (`.inf`, `.nan`). */
  | 'FBC_UNSUPPORTED_VALUE'
  /** A blob without `schema` (strict loading only). */
  | 'FBC_MISSING_SCHEMA'
  /** An `olm.*` blob whose fields have the wrong JSON types (`parse bundle: json: …`). */
  | 'FBC_PARSE_BLOB'
  /** An `olm.bundle.object` property that cannot be decoded. */
  | 'FBC_BUNDLE_OBJECT'
  // ---- declcfg → model conversion (first error wins) ----
  | 'FBC_PACKAGE_NO_NAME'
  | 'FBC_DUPLICATE_PACKAGE'
  | 'FBC_INVALID_PACKAGE_NAME'
  | 'FBC_CHANNEL_UNKNOWN_PACKAGE'
  | 'FBC_CHANNEL_NO_NAME'
  | 'FBC_DUPLICATE_CHANNEL'
  | 'FBC_DUPLICATE_CHANNEL_ENTRY'
  | 'FBC_BUNDLE_NO_PACKAGE'
  | 'FBC_BUNDLE_UNKNOWN_PACKAGE'
  | 'FBC_DUPLICATE_BUNDLE'
  | 'FBC_BUNDLE_PROPERTIES'
  | 'FBC_PACKAGE_PROPERTY_COUNT'
  | 'FBC_PACKAGE_PROPERTY_MISMATCH'
  | 'FBC_INVALID_IMAGE'
  | 'FBC_INVALID_VERSION'
  | 'FBC_INVALID_RELEASE'
  | 'FBC_BUNDLE_NOT_IN_CHANNEL'
  | 'FBC_ENTRY_WITHOUT_BUNDLE'
  | 'FBC_DEPRECATION_NO_PACKAGE'
  | 'FBC_DEPRECATION_UNKNOWN_PACKAGE'
  | 'FBC_DEPRECATION_DUPLICATE_PACKAGE'
  | 'FBC_DEPRECATION_ENTRY_NO_SCHEMA'
  | 'FBC_DEPRECATION_DUPLICATE_ENTRY'
  | 'FBC_DEPRECATION_BUNDLE_NOT_FOUND'
  | 'FBC_DEPRECATION_CHANNEL_NOT_FOUND'
  | 'FBC_DEPRECATION_PACKAGE_NAME'
  | 'FBC_DEPRECATION_UNKNOWN_SCHEMA'
  // ---- model.Validate() ----
  /** The `invalid index:` error tree; details are in `tree`. */
  | 'FBC_INVALID_MODEL';

/** Where a blob came from. */
export interface BlobRef {
  /** Path relative to the catalog root, `/`-separated. */
  readonly file: string;
  /** 1-based index of the document within the file (YAML document or JSON value). */
  readonly document: number;
  /** 1-based line where the document starts. */
  readonly line: number;
  readonly schema: string;
  readonly package: string;
  readonly name: string;
}

/** `pkg/catalog.yaml: document 3 (line 120), olm.bundle "foo.v1.0.0"`. */
export function describeRef(ref: BlobRef): string {
  let s = `${ref.file}: document ${ref.document} (line ${ref.line})`;
  if (ref.schema !== '') s += `, ${ref.schema}`;
  if (ref.name !== '') s += ref.schema !== '' ? ` ${goQuote(ref.name)}` : `, name ${goQuote(ref.name)}`;
  else if (ref.package !== '') s += `, package ${goQuote(ref.package)}`;
  return s;
}

/** A catalog could not be loaded. `detail` is opm's own text; `message` adds the location. */
export class FbcLoadError extends Error {
  readonly code: FbcErrorCode;
  readonly detail: string;
  readonly file: string;
  readonly ref?: BlobRef;

  constructor(code: FbcErrorCode, detail: string, file: string, ref?: BlobRef, options?: ErrorOptions) {
    super(`${ref ? describeRef(ref) : file}: ${detail}`, options);
    this.name = 'FbcLoadError';
    this.code = code;
    this.detail = detail;
    this.file = file;
    if (ref) this.ref = ref;
  }
}

/** A node of opm's validation error tree (alpha/model/error.go). */
export interface ErrorTree {
  readonly message: string;
  readonly children: readonly (ErrorTree | string)[];
  /** The blob the node is about (a package, channel or bundle), when there is one; not part of opm's text. */
  readonly ref?: BlobRef;
}

/** A catalog failed validation. `message` is exactly what `opm validate` prints. */
export class FbcValidationError extends Error {
  readonly code: FbcErrorCode;
  /** The blob the (conversion) error is about, when there is one. */
  readonly ref?: BlobRef;
  /** For FBC_INVALID_MODEL: the structured error tree `message` renders. */
  readonly tree?: ErrorTree;

  constructor(code: FbcErrorCode, message: string, extra?: { ref?: BlobRef; tree?: ErrorTree }) {
    super(message);
    this.name = 'FbcValidationError';
    this.code = code;
    if (extra?.ref) this.ref = extra.ref;
    if (extra?.tree) this.tree = extra.tree;
  }
}

const q = goQuote;

export const msg = {
  // ---- loading ----
  notADirectory: (root: string) => `not a directory: ${root}`,
  readIsDirectory: (rel: string) => `read ${rel}: is a directory`,
  /** sigs.k8s.io/yaml wraps every YAML problem this way. */
  yamlToJSON: (err: string) => `error converting YAML to JSON: ${err}`,
  yamlSyntax: (line: number, reason: string) => `yaml: line ${line}: ${reason}`,
  yamlOther: (message: string) => `yaml: ${message}`,
  excessiveAliasing: 'yaml: document contains excessive aliasing',
  jsonSyntax: (err: string) => `json: ${err}`,
  invalidYamlSeparator: (rest: string) => `invalid Yaml document separator: ${rest}`,
  notAnObject: (kind: string) => `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
  duplicateKeys: (folded: string, keys: readonly string[]) => `duplicate keys for key ${q(folded)}: ${goStringSlice(keys)}`,
  /** k8s utilerrors.NewAggregate: one error as is, several as `[a, b]`. */
  aggregate: (errs: readonly string[]) => (errs.length === 1 ? (errs[0] ?? '') : `[${errs.join(', ')}]`),
  metaNotString: (key: string, value: unknown) =>
    `expected value for key ${q(key)} to be a string, got ${goBoolT(value)}: ${goValueV(value)}`,
  unsupportedValue: (v: number) => `json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`,
  missingSchema: (blob: string) => `object '${blob}' is missing root schema field`,
  parsePackage: (err: string) => `parse package: ${err}`,
  parseChannel: (err: string) => `parse channel: ${err}`,
  parseBundle: (err: string) => `parse bundle: ${err}`,
  parseDeprecation: (err: string) => `parse deprecation: ${err}`,
  readBundleObjects: (err: string) => `read bundle objects: ${err}`,
  bundleObjectParse: (pkg: string, bundle: string, i: number, err: string) =>
    `package ${q(pkg)}, bundle ${q(bundle)}: parse property at index ${i} as bundle object: ${err}`,
  bundleObjectToJSON: (pkg: string, bundle: string, i: number, err: string) =>
    `package ${q(pkg)}, bundle ${q(bundle)}: convert bundle object property at index ${i} to JSON: ${err}`,

  // ---- Go encoding/json decoding into opm's structs ----
  jsonTypeError: (kind: string, goType: string, struct: string, fieldPath: readonly string[]) =>
    fieldPath.length > 0
      ? `json: cannot unmarshal ${kind} into Go struct field ${struct}.${fieldPath.join('.')} of type ${goType}`
      : `json: cannot unmarshal ${kind} into Go value of type ${goType}`,
  illegalBase64: (offset: number) => `illegal base64 data at input byte ${offset}`,
  unexpectedEndOfJSON: 'unexpected end of JSON input',
  parseProperty: (i: number, type: string, err: string) => `parse property[${i}] of type ${q(type)}: ${err}`,

  // ---- ConvertToModel (alpha/declcfg/declcfg_to_model.go) ----
  packageNoName: 'config contains package with no name',
  duplicatePackage: (pkg: string) => `duplicate package ${q(pkg)}`,
  invalidPackageName: (pkg: string, errs: readonly string[]) => `invalid package name ${q(pkg)}: ${goStringSlice(errs)}`,
  channelUnknownPackage: (pkg: string, ch: string) => `unknown package ${q(pkg)} for channel ${q(ch)}`,
  channelNoName: (pkg: string) => `package ${q(pkg)} contains channel with no name`,
  duplicateChannel: (pkg: string, ch: string) => `package ${q(pkg)} has duplicate channel ${q(ch)}`,
  duplicateChannelEntry: (pkg: string, ch: string, entry: string) =>
    `invalid package ${q(pkg)}, channel ${q(ch)}: duplicate entry ${q(entry)}`,
  bundleNoPackage: (bundle: string) => `package name must be set for bundle ${q(bundle)}`,
  bundleUnknownPackage: (pkg: string, bundle: string) => `unknown package ${q(pkg)} for bundle ${q(bundle)}`,
  duplicateBundle: (pkg: string, bundle: string) => `package ${q(pkg)} has duplicate bundle ${q(bundle)}`,
  bundleProperties: (bundle: string, err: string) => `parse properties for bundle ${q(bundle)}: ${err}`,
  packagePropertyCount: (pkg: string, bundle: string, n: number) =>
    `package ${q(pkg)} bundle ${q(bundle)} must have exactly 1 "olm.package" property, found ${n}`,
  packagePropertyMismatch: (pkg: string, propPkg: string) => `package ${q(pkg)} does not match "olm.package" property ${q(propPkg)}`,
  invalidImage: (field: string, ref: string, err: string) => `${field}: invalid image pull spec ${q(ref)}: ${err}`,
  bundleImageField: (pkg: string, bundle: string) => `package ${q(pkg)} bundle ${q(bundle)} image`,
  relatedImageField: (pkg: string, bundle: string, i: number) => `package ${q(pkg)} bundle ${q(bundle)} relatedImages[${i}].image`,
  bundleVersion: (bundle: string, version: string, err: string) =>
    `error parsing bundle ${q(bundle)} version ${q(version)}: ${err}`,
  bundleRelease: (bundle: string, release: string, err: string) =>
    `error parsing bundle ${q(bundle)} release version ${q(release)}: ${err}`,
  bundleNotInChannel: (pkg: string, bundle: string) => `package ${q(pkg)}, bundle ${q(bundle)} not found in any channel entries`,
  entriesWithoutBundle: (pkg: string, entries: readonly string[]) =>
    `no olm.bundle blobs found in package ${q(pkg)} for olm.channel entries ${goStringSlice(entries)}`,
  deprecationNoPackage: (i: number) => `package name must be set for deprecation item ${i}`,
  deprecationUnknownPackage: (pkg: string) => `cannot apply deprecations to an unknown package ${q(pkg)}`,
  deprecationDuplicatePackage: (pkg: string) => `expected a maximum of one deprecation per package: ${q(pkg)}`,
  deprecationEntryNoSchema: (j: number, pkg: string) => `schema must be set for deprecation entry [${j}] for package ${q(pkg)}`,
  /** Go's %#v of a declcfg.PackageScopedReference. */
  scopedRef: (schema: string, name: string) => `declcfg.PackageScopedReference{Schema:${q(schema)}, Name:${q(name)}}`,
  deprecationDuplicateEntry: (ref: string, pkg: string) => `duplicate deprecation entry ${ref} for package ${q(pkg)}`,
  deprecateBundleNotFound: (bundle: string, pkg: string) => `cannot deprecate bundle ${q(bundle)} for package ${q(pkg)}: bundle not found`,
  deprecateChannelNotFound: (ch: string, pkg: string) => `cannot deprecate channel ${q(ch)} for package ${q(pkg)}: channel not found`,
  deprecatePackageName: (pkg: string, name: string) =>
    `package name must be empty for deprecated package ${q(pkg)} (specified ${q(name)})`,
  deprecateUnknownSchema: (ref: string, j: number, pkg: string) =>
    `cannot deprecate object ${ref} referenced by entry ${j} for package ${q(pkg)}: object schema unknown`,

  // ---- model.Validate() (alpha/model/model.go) ----
  invalidIndex: 'invalid index',
  invalidPackage: (pkg: string) => `invalid package ${q(pkg)}`,
  invalidChannel: (ch: string) => `invalid channel ${q(ch)}`,
  invalidBundle: (bundle: string) => `invalid bundle ${q(bundle)}`,
  packageNameEmpty: 'package name must not be empty',
  defaultChannelMustBeSet: 'default channel must be set',
  packageNoChannels: 'package must contain at least one channel',
  channelNotLinked: (ch: string) => `channel ${q(ch)} not correctly linked to parent package`,
  duplicateVersions: (groups: readonly { version: string; bundles: readonly string[] }[]) =>
    `duplicate versions found in bundles: [${groups.map((g) => `{${g.version}: [${g.bundles.join(', ')}]}`).join(' ')}]`,
  defaultChannelNotFound: (ch: string) => `default channel ${q(ch)} not found in channels list`,
  invalidDeprecation: 'invalid deprecation: message must be set',
  channelNameEmpty: 'channel name must not be empty',
  channelNoBundles: 'channel must contain at least one bundle',
  noChannelHead: 'no channel head found in graph',
  multipleChannelHeads: (heads: readonly string[]) => `multiple channel heads found in graph: ${heads.join(', ')}`,
  replacesCycle: (chain: readonly string[]) => `detected cycle in replaces chain of upgrade graph: ${chain.join(' -> ')}`,
  strandedBundles: (names: readonly string[]) => `channel contains one or more stranded bundles: ${names.join(', ')}`,
  bundleNotLinked: (bundle: string) => `bundle ${q(bundle)} not correctly linked to parent channel`,
  bundleNameMustBeSet: 'name must be set',
  bundleNameNotNormalized: (name: string, normalized: string) => `name ${q(name)} does not match normalized name ${q(normalized)}`,
  skipEmpty: (i: number) => `skip[${i}] is empty`,
  invalidSkipRange: (range: string, err: string) => `invalid skipRange ${q(range)}: ${err}`,
  exactlyOnePackageProperty: 'must be exactly one property with type "olm.package"',
  bundleImageMustBeSet: 'bundle image must be set',
  buildMetadataWithRelease: 'cannot use build metadata in version with a release version',

  // ---- bundle release (alpha/model/versionrelease.go) ----
  releaseTooLong: (r: string) => `invalid release ${q(r)}: exceeds maximum length of 20 characters`,
  releaseSegment: (r: string, i: number, err: string) => `invalid release ${q(r)}: segment ${i}: ${err}`,

  // ---- docker reference (go.podman.io/image/v5/docker/reference, opencontainers/go-digest) ----
  refInvalidFormat: 'invalid reference format',
  refNameUppercase: 'repository name must be lowercase',
  refNormalizedUppercase: 'invalid reference format: repository name must be lowercase',
  refNameEmpty: 'repository name must have at least one component',
  refNameTooLong: 'repository name must not be more than 255 characters',
  refHexIdentifier: (s: string) => `invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`,
  digestInvalidFormat: 'invalid checksum digest format',
  digestUnsupported: 'unsupported digest algorithm',
  digestInvalidLength: 'invalid checksum digest length',
} as const;
