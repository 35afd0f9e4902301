// The declarative config (alpha/declcfg) as this folder keeps it: the fields validation, the
// model and the graph need, taken from each blob once at load time. Bundle properties are kept
// as a summary (types, olm.package values, parse error), not as values, so a loaded catalog is
// its canonical JSON plus this small index; anything else is read back from `Meta.json`.

import {
  BundleType,
  ChannelType,
  DeprecationType,
  PackageType,
  checkGoJSON,
  goField,
  goObjects,
  goString,
  goStrings,
} from './gojson.ts';
import { msg, type BlobRef, type FbcErrorCode } from './messages.ts';
import { checkBundleObjects, summarizeProperties, type Property, type PropertySummary } from './properties.ts';

export const SCHEMA_PACKAGE = 'olm.package';
export const SCHEMA_CHANNEL = 'olm.channel';
export const SCHEMA_BUNDLE = 'olm.bundle';
export const SCHEMA_DEPRECATION = 'olm.deprecations';

export interface DeclPackage {
  readonly name: string;
  readonly defaultChannel: string;
  readonly ref?: BlobRef;
}

export interface ChannelEntry {
  readonly name: string;
  /** `""` when absent. */
  readonly replaces: string;
  readonly skips: readonly string[];
  /** `""` when absent. */
  readonly skipRange: string;
}

export interface DeclChannel {
  readonly name: string;
  readonly package: string;
  readonly entries: readonly ChannelEntry[];
  readonly ref?: BlobRef;
}

export interface DeclBundle {
  readonly name: string;
  readonly package: string;
  readonly image: string;
  /** `relatedImages[].image`, in order. */
  readonly relatedImages: readonly string[];
  readonly properties: PropertySummary;
  readonly ref?: BlobRef;
}

export interface PackageScopedReference {
  readonly schema: string;
  readonly name: string;
}

export interface DeprecationEntry {
  readonly reference: PackageScopedReference;
  readonly message: string;
}

export interface DeclDeprecation {
  readonly package: string;
  readonly entries: readonly DeprecationEntry[];
  readonly ref?: BlobRef;
}

/** The typed part of a catalog, in load order; blobs of other schemas are only in `Catalog.metas`. */
export interface DeclarativeConfig {
  readonly packages: readonly DeclPackage[];
  readonly channels: readonly DeclChannel[];
  readonly bundles: readonly DeclBundle[];
  readonly deprecations: readonly DeclDeprecation[];
}

export interface MutableDeclarativeConfig {
  packages: DeclPackage[];
  channels: DeclChannel[];
  bundles: DeclBundle[];
  deprecations: DeclDeprecation[];
}

export const emptyDeclarativeConfig = (): MutableDeclarativeConfig => ({ packages: [], channels: [], bundles: [], deprecations: [] });

const withRef = <T extends object>(o: T, ref: BlobRef | undefined): T => (ref ? { ...o, ref } : o);

function properties(obj: unknown): Property[] {
  return goObjects(obj, 'properties').map((p) => {
    const value = goField(p, 'value');
    return value === undefined ? { type: goString(p, 'type') } : { type: goString(p, 'type'), value };
  });
}

/** Failure to read a blob into its schema's struct: opm's `parse bundle: …` and friends. */
export interface BlobParseFailure {
  readonly code: FbcErrorCode;
  readonly message: string;
}

/**
 * opm's fbcBuilder.addMeta for one decoded blob whose meta fields are known: type-checks it like
 * json.Unmarshal into the schema's struct and appends it to `cfg`. Blobs of other schemas are
 * ignored here. Returns the failure (and adds nothing) when the blob does not decode.
 */
export function addBlob(cfg: MutableDeclarativeConfig, schema: string, value: unknown, ref?: BlobRef): BlobParseFailure | undefined {
  switch (schema) {
    case SCHEMA_PACKAGE: {
      const err = checkGoJSON(value, PackageType);
      if (err !== undefined) return { code: 'FBC_PARSE_BLOB', message: msg.parsePackage(err) };
      cfg.packages.push(withRef({ name: goString(value, 'name'), defaultChannel: goString(value, 'defaultChannel') }, ref));
      return undefined;
    }
    case SCHEMA_CHANNEL: {
      const err = checkGoJSON(value, ChannelType);
      if (err !== undefined) return { code: 'FBC_PARSE_BLOB', message: msg.parseChannel(err) };
      const entries = goObjects(value, 'entries').map((e) => ({
        name: goString(e, 'name'),
        replaces: goString(e, 'replaces'),
        skips: goStrings(e, 'skips'),
        skipRange: goString(e, 'skipRange'),
      }));
      cfg.channels.push(withRef({ name: goString(value, 'name'), package: goString(value, 'package'), entries }, ref));
      return undefined;
    }
    case SCHEMA_BUNDLE: {
      const err = checkGoJSON(value, BundleType);
      if (err !== undefined) return { code: 'FBC_PARSE_BLOB', message: msg.parseBundle(err) };
      const props = properties(value);
      const name = goString(value, 'name');
      const pkg = goString(value, 'package');
      const objErr = checkBundleObjects(pkg, name, props);
      if (objErr !== undefined) return { code: 'FBC_BUNDLE_OBJECT', message: objErr };
      cfg.bundles.push(
        withRef(
          {
            name,
            package: pkg,
            image: goString(value, 'image'),
            relatedImages: goObjects(value, 'relatedImages').map((r) => goString(r, 'image')),
            properties: summarizeProperties(props),
          },
          ref,
        ),
      );
      return undefined;
    }
    case SCHEMA_DEPRECATION: {
      const err = checkGoJSON(value, DeprecationType);
      if (err !== undefined) return { code: 'FBC_PARSE_BLOB', message: msg.parseDeprecation(err) };
      const entries = goObjects(value, 'entries').map((e) => {
        const r = goField(e, 'reference');
        return { reference: { schema: goString(r, 'schema'), name: goString(r, 'name') }, message: goString(e, 'message') };
      });
      cfg.deprecations.push(withRef({ package: goString(value, 'package'), entries }, ref));
      return undefined;
    }
    default:
      return undefined;
  }
}
