// Decoding one package's blobs (catalogd JSONL lines) into a PackageContent, the way upstream's
// GetPackage reads them back: its filesystem cache writes each blob to
// `<pkg>/<schema>/<name or schema>.json`, so a later blob with the same schema and name replaces
// an earlier one (several nameless `olm.deprecations` blobs of a package keep only the last), and
// `declcfg.LoadFS` then fills the typed lists. Blobs of other schemas are not part of it.
// Fields are read like Go's encoding/json reads a struct: an exact key first, else a key equal
// under case folding; absent or mistyped optional fields read as empty.
import { SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_DEPRECATION, SCHEMA_PACKAGE } from '../../shared/fbc/index.ts';
import type { ChannelEntry, DeclChannel, DeclDeprecation, DeclPackage, DeprecationEntry } from '../../shared/fbc/index.ts';
import { isObject, jsonKind } from '../../shared/toolkit/index.ts';
import type { BundleProperty, PackageBundle, PackageContent } from './types.ts';

export const EMPTY_CONTENT: PackageContent = Object.freeze({
  packages: Object.freeze([]),
  channels: Object.freeze([]),
  bundles: Object.freeze([]),
  deprecations: Object.freeze([]),
});

/** encoding/json's field match: exact key, else the first key equal under (ASCII/Unicode) case folding. */
export function field(obj: unknown, name: string): unknown {
  if (!isObject(obj)) return undefined;
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(obj)) if (k.length === name.length && k.toLowerCase() === lower) return obj[k];
  return undefined;
}

const str = (obj: unknown, name: string): string => {
  const v = field(obj, name);
  return typeof v === 'string' ? v : '';
};
const strs = (obj: unknown, name: string): string[] => {
  const v = field(obj, name);
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
};
const objs = (obj: unknown, name: string): unknown[] => {
  const v = field(obj, name);
  return Array.isArray(v) ? v : [];
};

/** The meta fields of a top-level blob (schema, package, name), matched like opm's Meta. */
export interface BlobMeta {
  readonly schema: string;
  readonly package: string;
  readonly name: string;
}

/** Reads a blob's meta fields; a non-string meta value is an error (opm's Meta decode fails). */
export function blobMeta(blob: unknown): BlobMeta | { readonly error: string } {
  if (!isObject(blob)) return { error: `json: cannot unmarshal ${jsonKind(blob)} into Go value of type declcfg.Meta` };
  const out = { schema: '', package: '', name: '' };
  for (const key of ['schema', 'package', 'name'] as const) {
    const v = field(blob, key);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return { error: `json: cannot unmarshal ${jsonKind(v)} into Go struct field Meta.${key} of type string` };
    out[key] = v;
  }
  return out;
}

/** Which package directory upstream's cache files a blob under (`olm.package`: its name). */
export const packageKeyOf = (m: BlobMeta): string => (m.schema === SCHEMA_PACKAGE ? m.name : m.package);

function toPackage(b: unknown): DeclPackage {
  return { name: str(b, 'name'), defaultChannel: str(b, 'defaultChannel') };
}

function toChannel(b: unknown): DeclChannel {
  const entries = objs(b, 'entries').map(
    (e): ChannelEntry => ({ name: str(e, 'name'), replaces: str(e, 'replaces'), skips: strs(e, 'skips'), skipRange: str(e, 'skipRange') }),
  );
  return { name: str(b, 'name'), package: str(b, 'package'), entries };
}

function toBundle(b: unknown): PackageBundle {
  const properties = objs(b, 'properties').map((p): BundleProperty => ({ type: str(p, 'type'), value: field(p, 'value') }));
  return { name: str(b, 'name'), package: str(b, 'package'), image: str(b, 'image'), properties };
}

function toDeprecation(b: unknown): DeclDeprecation {
  const entries = objs(b, 'entries').map((e): DeprecationEntry => {
    const r = field(e, 'reference');
    return { reference: { schema: str(r, 'schema'), name: str(r, 'name') }, message: str(e, 'message') };
  });
  return { package: str(b, 'package'), entries };
}

/**
 * One package's content from its JSONL text (the package's lines, in catalog order). Blobs keep
 * catalog order; a blob replaced by a later one with the same schema and name takes the later
 * one's place.
 */
export function decodePackage(text: string): PackageContent {
  // Last blob per upstream cache file (schema + name, or schema alone when the name is empty).
  const byFile = new Map<string, { schema: string; blob: unknown }>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const blob: unknown = JSON.parse(line);
    const m = blobMeta(blob);
    if ('error' in m) continue;
    const file = `${m.schema}\u0000${m.name === '' ? m.schema : m.name}`;
    byFile.delete(file); // re-inserted at the end: the later blob's position
    byFile.set(file, { schema: m.schema, blob });
  }
  if (byFile.size === 0) return EMPTY_CONTENT;
  const packages: DeclPackage[] = [];
  const channels: DeclChannel[] = [];
  const bundles: PackageBundle[] = [];
  const deprecations: DeclDeprecation[] = [];
  for (const { schema, blob } of byFile.values()) {
    switch (schema) {
      case SCHEMA_PACKAGE:
        packages.push(toPackage(blob));
        break;
      case SCHEMA_CHANNEL:
        channels.push(toChannel(blob));
        break;
      case SCHEMA_BUNDLE:
        bundles.push(toBundle(blob));
        break;
      case SCHEMA_DEPRECATION:
        deprecations.push(toDeprecation(blob));
        break;
      default:
        break; // other schemas: LoadFS keeps them in Others, which PackageContent does not carry
    }
  }
  return { packages, channels, bundles, deprecations };
}
