// declcfg → model (alpha/declcfg/declcfg_to_model.go ConvertToModel) and model.Validate()
// (alpha/model/model.go). Conversion checks run in opm's order and the first failure wins; model
// validation collects everything into opm's `invalid index:` error tree. Where opm iterates Go
// maps (random order), this code iterates in sorted name order so output is deterministic.

import { dns1123LabelErrors } from '../gocompat/index.ts';
import { BlangError, blangPrereleaseError, parseBlangRange, tryParseBlang } from '../semver/index.ts';
import { SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_PACKAGE, type ChannelEntry, type DeclarativeConfig } from './declcfg.ts';
import { compareGoStrings, sortedGoStrings } from './go.ts';
import { imageReferenceError } from './imageref.ts';
import { FbcValidationError, msg, type BlobRef, type ErrorTree, type FbcErrorCode } from './messages.ts';
import type { PackageProperty } from './properties.ts';
import { newTree, renderTree, type TreeBuilder } from './tree.ts';

export interface Deprecation {
  readonly message: string;
}

export interface ModelPackage {
  readonly name: string;
  defaultChannel: ModelChannel | undefined;
  readonly channels: Map<string, ModelChannel>;
  deprecation: Deprecation | undefined;
  /** The `olm.package` blob. */
  readonly ref: BlobRef | undefined;
}

export interface ModelChannel {
  readonly package: ModelPackage;
  readonly name: string;
  /** Bundles by name; one object per (channel, entry). */
  readonly bundles: Map<string, ModelBundle>;
  deprecation: Deprecation | undefined;
  /** The `olm.channel` blob (the package's blob for a default channel no blob defines). */
  readonly ref: BlobRef | undefined;
}

/** A channel entry (name, replaces, skips, skipRange) with its bundle. */
export interface ModelBundle extends ChannelEntry {
  readonly package: ModelPackage;
  readonly channel: ModelChannel;
  image: string;
  /** The `olm.package` version as written (valid blang semver once converted); `""` if no blob. */
  version: string;
  /** The `olm.package` release (`""` when none). */
  release: string;
  /** Whether the version has build metadata (`+…`). */
  hasBuildMetadata: boolean;
  /** Number of `olm.package` properties (1 once converted; 0 for an entry without blob). */
  packageProperties: number;
  /** property.Parse error, if any. */
  propertyError: string | undefined;
  /** Whether the bundle carries `olm.bundle.object` manifests (then an image is optional). */
  hasObjects: boolean;
  deprecation: Deprecation | undefined;
  /** The blob this bundle was filled from. */
  ref: BlobRef | undefined;
}

/** packageName → package. */
export type Model = Map<string, ModelPackage>;

function fail(code: FbcErrorCode, message: string, ref?: BlobRef): never {
  throw new FbcValidationError(code, message, ref ? { ref } : undefined);
}

/** `<version>[-<release>]`, the key of opm's unique-version check. */
export function versionString(b: Pick<ModelBundle, 'version' | 'release'>): string {
  const v = b.version === '' ? '0.0.0' : b.version;
  return b.release === '' ? v : `${v}-${b.release}`;
}

/** model.NewRelease: `""` is no release; otherwise ≤ 20 bytes of dot-separated prerelease identifiers. */
function releaseError(release: string): string | undefined {
  if (release === '') return undefined;
  if (Buffer.byteLength(release, 'utf8') > 20) return msg.releaseTooLong(release);
  const segments = release.split('.');
  for (let i = 0; i < segments.length; i++) {
    const problem = blangPrereleaseError(segments[i] as string);
    if (problem) return msg.releaseSegment(release, i, problem);
  }
  return undefined;
}

/**
 * ConvertToModel followed by model.Validate(). Throws FbcValidationError with opm's message:
 * the first conversion error, or the `invalid index:` tree.
 */
export function convertToModel(cfg: DeclarativeConfig): Model {
  const model: Model = new Map();
  const defaultChannels = new Map<string, string>();

  for (const p of cfg.packages) {
    if (p.name === '') fail('FBC_PACKAGE_NO_NAME', msg.packageNoName, p.ref);
    if (model.has(p.name)) fail('FBC_DUPLICATE_PACKAGE', msg.duplicatePackage(p.name), p.ref);
    const errs = dns1123LabelErrors(p.name);
    if (errs.length > 0) fail('FBC_INVALID_PACKAGE_NAME', msg.invalidPackageName(p.name, errs), p.ref);
    model.set(p.name, { name: p.name, defaultChannel: undefined, channels: new Map(), deprecation: undefined, ref: p.ref });
    defaultChannels.set(p.name, p.defaultChannel);
  }

  // opm keeps one entry set per package and overwrites it for every channel (a quirk: only the
  // last channel of a package is checked for entries without a bundle blob).
  const channelDefinedEntries = new Map<string, Set<string>>();
  const lastChannelRef = new Map<string, BlobRef | undefined>();
  for (const c of cfg.channels) {
    const pkg = model.get(c.package);
    if (pkg === undefined) fail('FBC_CHANNEL_UNKNOWN_PACKAGE', msg.channelUnknownPackage(c.package, c.name), c.ref);
    if (c.name === '') fail('FBC_CHANNEL_NO_NAME', msg.channelNoName(c.package), c.ref);
    if (pkg.channels.has(c.name)) fail('FBC_DUPLICATE_CHANNEL', msg.duplicateChannel(c.package, c.name), c.ref);
    const ch: ModelChannel = { package: pkg, name: c.name, bundles: new Map(), deprecation: undefined, ref: c.ref };
    const entries = new Set<string>();
    for (const e of c.entries) {
      if (ch.bundles.has(e.name)) fail('FBC_DUPLICATE_CHANNEL_ENTRY', msg.duplicateChannelEntry(c.package, c.name, e.name), c.ref);
      entries.add(e.name);
      ch.bundles.set(e.name, {
        package: pkg,
        channel: ch,
        name: e.name,
        replaces: e.replaces,
        skips: e.skips,
        skipRange: e.skipRange,
        image: '',
        version: '',
        release: '',
        hasBuildMetadata: false,
        packageProperties: 0,
        propertyError: undefined,
        hasObjects: false,
        deprecation: undefined,
        ref: undefined,
      });
    }
    channelDefinedEntries.set(c.package, entries);
    lastChannelRef.set(c.package, c.ref);
    pkg.channels.set(c.name, ch);
    if (defaultChannels.get(c.package) === c.name) pkg.defaultChannel = ch;
  }

  const packageBundles = new Map<string, Set<string>>();
  for (const b of cfg.bundles) {
    if (b.package === '') fail('FBC_BUNDLE_NO_PACKAGE', msg.bundleNoPackage(b.name), b.ref);
    const pkg = model.get(b.package);
    if (pkg === undefined) fail('FBC_BUNDLE_UNKNOWN_PACKAGE', msg.bundleUnknownPackage(b.package, b.name), b.ref);
    let names = packageBundles.get(b.package);
    if (names === undefined) packageBundles.set(b.package, (names = new Set()));
    if (names.has(b.name)) fail('FBC_DUPLICATE_BUNDLE', msg.duplicateBundle(b.package, b.name), b.ref);
    names.add(b.name);

    const props = b.properties;
    if (props.error !== undefined) fail('FBC_BUNDLE_PROPERTIES', msg.bundleProperties(b.name, props.error), b.ref);
    if (props.packages.length !== 1) {
      fail('FBC_PACKAGE_PROPERTY_COUNT', msg.packagePropertyCount(b.package, b.name, props.packages.length), b.ref);
    }
    const pp = props.packages[0] as PackageProperty;
    if (b.package !== pp.packageName) fail('FBC_PACKAGE_PROPERTY_MISMATCH', msg.packagePropertyMismatch(b.package, pp.packageName), b.ref);

    if (b.image !== '') {
      const err = imageReferenceError(b.image);
      if (err !== undefined) fail('FBC_INVALID_IMAGE', msg.invalidImage(msg.bundleImageField(b.package, b.name), b.image, err), b.ref);
    }
    b.relatedImages.forEach((img, i) => {
      if (img === '') return;
      const err = imageReferenceError(img);
      if (err !== undefined) fail('FBC_INVALID_IMAGE', msg.invalidImage(msg.relatedImageField(b.package, b.name, i), img, err), b.ref);
    });

    const version = tryParseBlang(pp.version);
    if (typeof version === 'string') fail('FBC_INVALID_VERSION', msg.bundleVersion(b.name, pp.version, version), b.ref);
    const relErr = releaseError(pp.release);
    if (relErr !== undefined) fail('FBC_INVALID_RELEASE', msg.bundleRelease(b.name, pp.release, relErr), b.ref);

    channelDefinedEntries.get(b.package)?.delete(b.name);
    let found = false;
    for (const ch of pkg.channels.values()) {
      const mb = ch.bundles.get(b.name);
      if (mb === undefined) continue;
      found = true;
      mb.image = b.image;
      mb.version = pp.version;
      mb.release = pp.release;
      mb.hasBuildMetadata = version.build.length > 0;
      mb.packageProperties = props.packages.length;
      mb.propertyError = props.error;
      mb.hasObjects = props.bundleObjects > 0;
      mb.ref = b.ref;
    }
    if (!found) fail('FBC_BUNDLE_NOT_IN_CHANNEL', msg.bundleNotInChannel(b.package, b.name), b.ref);
  }

  for (const [pkg, entries] of channelDefinedEntries) {
    if (entries.size > 0) fail('FBC_ENTRY_WITHOUT_BUNDLE', msg.entriesWithoutBundle(pkg, sortedGoStrings(entries)), lastChannelRef.get(pkg));
  }

  for (const pkg of model.values()) {
    const name = defaultChannels.get(pkg.name) ?? '';
    if (name !== '' && pkg.defaultChannel === undefined) {
      const ch: ModelChannel = { package: pkg, name, bundles: new Map(), deprecation: undefined, ref: pkg.ref };
      pkg.defaultChannel = ch;
      pkg.channels.set(name, ch);
    }
  }

  const deprecated = new Set<string>();
  cfg.deprecations.forEach((d, i) => {
    if (d.package === '') fail('FBC_DEPRECATION_NO_PACKAGE', msg.deprecationNoPackage(i), d.ref);
    const pkg = model.get(d.package);
    if (pkg === undefined) fail('FBC_DEPRECATION_UNKNOWN_PACKAGE', msg.deprecationUnknownPackage(d.package), d.ref);
    if (deprecated.has(d.package)) fail('FBC_DEPRECATION_DUPLICATE_PACKAGE', msg.deprecationDuplicatePackage(d.package), d.ref);
    deprecated.add(d.package);
    const seen = new Set<string>();
    d.entries.forEach((e, j) => {
      const { schema, name } = e.reference;
      if (schema === '') fail('FBC_DEPRECATION_ENTRY_NO_SCHEMA', msg.deprecationEntryNoSchema(j, d.package), d.ref);
      const refText = msg.scopedRef(schema, name);
      if (seen.has(refText)) fail('FBC_DEPRECATION_DUPLICATE_ENTRY', msg.deprecationDuplicateEntry(refText, d.package), d.ref);
      seen.add(refText);
      const deprecation = { message: e.message };
      switch (schema) {
        case SCHEMA_BUNDLE:
          if (!packageBundles.get(d.package)?.has(name)) {
            fail('FBC_DEPRECATION_BUNDLE_NOT_FOUND', msg.deprecateBundleNotFound(name, d.package), d.ref);
          }
          for (const ch of pkg.channels.values()) {
            const mb = ch.bundles.get(name);
            if (mb) mb.deprecation = deprecation;
          }
          break;
        case SCHEMA_CHANNEL: {
          const ch = pkg.channels.get(name);
          if (ch === undefined) fail('FBC_DEPRECATION_CHANNEL_NOT_FOUND', msg.deprecateChannelNotFound(name, d.package), d.ref);
          ch.deprecation = deprecation;
          break;
        }
        case SCHEMA_PACKAGE:
          if (name !== '') fail('FBC_DEPRECATION_PACKAGE_NAME', msg.deprecatePackageName(d.package, name), d.ref);
          pkg.deprecation = deprecation;
          break;
        default:
          fail('FBC_DEPRECATION_UNKNOWN_SCHEMA', msg.deprecateUnknownSchema(refText, j, d.package), d.ref);
      }
    });
  });

  const tree = validateModel(model);
  if (tree !== undefined) {
    const ref = firstRef(tree);
    throw new FbcValidationError('FBC_INVALID_MODEL', renderTree(tree), ref ? { tree, ref } : { tree });
  }
  return model;
}

// ---------------------------------------------------------------------------------------------
// model.Validate()

/** The blob of the first problem the tree reports: the deepest node on its first path that names one. */
function firstRef(tree: ErrorTree): BlobRef | undefined {
  let ref: BlobRef | undefined;
  for (let node: ErrorTree | string | undefined = tree; node !== undefined && typeof node !== 'string'; node = node.children[0]) ref = node.ref ?? ref;
  return ref;
}

const byName = <T extends { name: string }>(items: Iterable<T>): T[] => [...items].sort((a, b) => compareGoStrings(a.name, b.name));

/** model.Validate(): the `invalid index` error tree, or undefined when the model is valid. */
export function validateModel(model: Model): ErrorTree | undefined {
  const root = newTree(msg.invalidIndex);
  for (const pkg of byName(model.values())) root.addTree(validatePackage(pkg));
  return root.build();
}

function validatePackage(pkg: ModelPackage): TreeBuilder {
  const t = newTree(msg.invalidPackage(pkg.name), pkg.ref);
  if (pkg.name === '') t.add(msg.packageNameEmpty);
  if (pkg.defaultChannel === undefined) t.add(msg.defaultChannelMustBeSet);
  if (pkg.channels.size === 0) t.add(msg.packageNoChannels);
  let foundDefault = false;
  for (const ch of byName(pkg.channels.values())) {
    t.addTree(validateChannel(ch));
    if (ch === pkg.defaultChannel) foundDefault = true;
    if (ch.package !== pkg) t.add(msg.channelNotLinked(ch.name));
  }
  const dup = duplicateVersions(pkg);
  if (dup !== undefined) t.add(dup);
  if (pkg.defaultChannel !== undefined && !foundDefault) t.add(msg.defaultChannelNotFound(pkg.defaultChannel.name));
  if (pkg.deprecation !== undefined && pkg.deprecation.message === '') t.add(msg.invalidDeprecation);
  return t;
}

function duplicateVersions(pkg: ModelPackage): string | undefined {
  const byVersion = new Map<string, Set<string>>();
  for (const ch of pkg.channels.values()) {
    for (const b of ch.bundles.values()) {
      const v = versionString(b);
      let names = byVersion.get(v);
      if (names === undefined) byVersion.set(v, (names = new Set()));
      names.add(b.name);
    }
  }
  const groups = sortedGoStrings(byVersion.keys())
    .map((version) => ({ version, bundles: sortedGoStrings(byVersion.get(version) ?? []) }))
    .filter((g) => g.bundles.length > 1);
  return groups.length > 0 ? msg.duplicateVersions(groups) : undefined;
}

function validateChannel(ch: ModelChannel): TreeBuilder {
  const t = newTree(msg.invalidChannel(ch.name), ch.ref);
  if (ch.name === '') t.add(msg.channelNameEmpty);
  if (ch.bundles.size === 0) t.add(msg.channelNoBundles);
  else {
    const err = replacesChainError(ch.bundles.values());
    if (err !== undefined) t.add(err);
  }
  for (const b of byName(ch.bundles.values())) {
    t.addTree(validateBundle(b));
    if (b.channel !== ch) t.add(msg.bundleNotLinked(b.name));
  }
  if (ch.deprecation !== undefined && ch.deprecation.message === '') t.add(msg.invalidDeprecation);
  return t;
}

interface GraphNode {
  readonly name: string;
  readonly replaces: string;
  readonly skips: readonly string[];
}

/** Channel.Head(): the one entry nothing replaces or skips. */
export function channelHead(entries: Iterable<GraphNode>): { head: string } | { error: string } {
  const list = [...entries];
  const incoming = new Set<string>();
  for (const b of list) {
    if (b.replaces !== '') incoming.add(b.replaces);
    for (const s of b.skips) incoming.add(s);
  }
  const heads = list.filter((b) => !incoming.has(b.name)).map((b) => b.name);
  if (heads.length === 0) return { error: msg.noChannelHead };
  if (heads.length > 1) return { error: msg.multipleChannelHeads(sortedGoStrings(heads)) };
  return { head: heads[0] as string };
}

/**
 * validateReplacesChain: one head; following `replaces` from it must not cycle and, with the
 * skipped entries, must reach every entry (the tail may replace something absent).
 */
export function replacesChainError(entries: Iterable<GraphNode>): string | undefined {
  const list = [...entries];
  const head = channelHead(list);
  if ('error' in head) return head.error;
  const byName = new Map(list.map((b) => [b.name, b]));
  const skipped = new Set<string>();
  for (const b of list) for (const s of b.skips) skipped.add(s);
  const chainFrom = new Map<string, string[]>();
  const inChain = new Set<string>([head.head]);
  let cur = byName.get(head.head);
  while (cur !== undefined) {
    if (!chainFrom.has(cur.name)) chainFrom.set(cur.name, [cur.name]);
    if (skipped.has(cur.replaces)) break; // a replaces edge known to be skipped is disregarded
    for (const chain of chainFrom.values()) chain.push(cur.replaces);
    if (inChain.has(cur.replaces)) return msg.replacesCycle(chainFrom.get(cur.replaces) ?? []);
    inChain.add(cur.replaces);
    cur = byName.get(cur.replaces);
  }
  const stranded = sortedGoStrings(list.map((b) => b.name).filter((n) => !inChain.has(n) && !skipped.has(n)));
  return stranded.length > 0 ? msg.strandedBundles(stranded) : undefined;
}

function validateBundle(b: ModelBundle): TreeBuilder {
  const t = newTree(msg.invalidBundle(b.name), b.ref ?? b.channel.ref);
  if (b.name === '') t.add(msg.bundleNameMustBeSet);
  if (b.release !== '') {
    const normalized = `${b.package.name}-v${b.version}-${b.release}`;
    if (b.name !== normalized) t.add(msg.bundleNameNotNormalized(b.name, normalized));
  }
  if (b.propertyError !== undefined) t.add(b.propertyError);
  b.skips.forEach((s, i) => {
    if (s === '') t.add(msg.skipEmpty(i));
  });
  if (b.skipRange !== '') {
    // opm checks olm.skipRange with blang's ParseRange and prints its error text.
    try {
      parseBlangRange(b.skipRange);
    } catch (err) {
      if (!(err instanceof BlangError)) throw err;
      t.add(msg.invalidSkipRange(b.skipRange, err.message));
    }
  }
  if (b.propertyError === undefined && b.packageProperties !== 1) t.add(msg.exactlyOnePackageProperty);
  if (b.image === '' && !b.hasObjects) t.add(msg.bundleImageMustBeSet);
  if (b.deprecation !== undefined && b.deprecation.message === '') t.add(msg.invalidDeprecation);
  if (b.hasBuildMetadata && b.release !== '') t.add(msg.buildMetadataWithRelease);
  return t;
}
