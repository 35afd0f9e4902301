// Go encoding/json decoding of a blob into opm's structs, reduced to what matters here: which
// values are accepted and the exact error text when they are not. Rules reproduced: struct field
// names match exactly or case-insensitively (keys are visited in the blob's sorted order, so of
// `Name` and `name` the latter wins), unknown keys are ignored, `null` leaves the zero value,
// a wrong JSON type is an UnmarshalTypeError ("json: cannot unmarshal number into Go struct field
// Bundle.image of type string") and decoding continues; the first error is reported.

import { compareGoStrings, goFold, ownString } from './go.ts';
import { msg } from './messages.ts';

export type GoType =
  | { readonly kind: 'string'; readonly goName: string }
  | { readonly kind: 'bool' }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'raw' }
  | { readonly kind: 'slice'; readonly goName: string; readonly elem: GoType }
  | { readonly kind: 'map'; readonly goName: string; readonly elem: GoType }
  | { readonly kind: 'struct'; readonly goName: string; readonly short: string; readonly fields: Readonly<Record<string, GoType>> };

const str: GoType = { kind: 'string', goName: 'string' };
const strNamed = (goName: string): GoType => ({ kind: 'string', goName });
const bool: GoType = { kind: 'bool' };
const bytes: GoType = { kind: 'bytes' };
const raw: GoType = { kind: 'raw' };
const slice = (goName: string, elem: GoType): GoType => ({ kind: 'slice', goName, elem });
const map = (goName: string, elem: GoType): GoType => ({ kind: 'map', goName, elem });
const struct = (goName: string, fields: Record<string, GoType>): GoType => ({
  kind: 'struct',
  goName,
  short: goName.slice(goName.lastIndexOf('.') + 1),
  fields,
});

// ---- alpha/property ----
export const PropertyType = struct('property.Property', { type: str, value: raw });
const properties = slice('[]property.Property', PropertyType);
export const PackagePropertyType = struct('property.Package', { packageName: str, version: str, release: str });
export const PackageRequiredPropertyType = struct('property.PackageRequired', { packageName: str, versionRange: str });
export const GVKPropertyType = struct('property.GVK', { group: str, kind: str, version: str });
export const GVKRequiredPropertyType = struct('property.GVKRequired', { group: str, kind: str, version: str });
export const BundleObjectPropertyType = struct('property.BundleObject', { data: bytes });
export const ChannelPropertyType = struct('property.Channel', { channelName: str });
const apiServiceDescription = struct('property.APIServiceDescription', {
  name: str,
  group: str,
  version: str,
  kind: str,
  displayName: str,
  description: str,
});
const crdDescription = struct('property.CRDDescription', { name: str, version: str, kind: str, displayName: str, description: str });
const appLink = struct('v1alpha1.AppLink', { name: str, url: str });
export const CSVMetadataPropertyType = struct('property.CSVMetadata', {
  annotations: map('map[string]string', str),
  apiServiceDefinitions: struct('property.APIServiceDefinitions', {
    owned: slice('[]property.APIServiceDescription', apiServiceDescription),
    required: slice('[]property.APIServiceDescription', apiServiceDescription),
  }),
  crdDescriptions: struct('property.CustomResourceDefinitions', {
    owned: slice('[]property.CRDDescription', crdDescription),
    required: slice('[]property.CRDDescription', crdDescription),
  }),
  description: str,
  displayName: str,
  installModes: slice(
    '[]v1alpha1.InstallMode',
    struct('v1alpha1.InstallMode', { type: strNamed('v1alpha1.InstallModeType'), supported: bool }),
  ),
  keywords: slice('[]string', str),
  labels: map('map[string]string', str),
  links: slice('[]v1alpha1.AppLink', appLink),
  maintainers: slice('[]v1alpha1.Maintainer', struct('v1alpha1.Maintainer', { name: str, email: str })),
  maturity: str,
  minKubeVersion: str,
  nativeAPIs: slice('[]v1.GroupVersionKind', struct('v1.GroupVersionKind', { group: str, version: str, kind: str })),
  provider: appLink,
});

// ---- alpha/declcfg ----
export const PackageType = struct('declcfg.Package', {
  schema: str,
  name: str,
  defaultChannel: str,
  icon: struct('declcfg.Icon', { base64data: bytes, mediatype: str }),
  description: str,
  properties,
});
export const ChannelType = struct('declcfg.Channel', {
  schema: str,
  name: str,
  package: str,
  entries: slice(
    '[]declcfg.ChannelEntry',
    struct('declcfg.ChannelEntry', { name: str, replaces: str, skips: slice('[]string', str), skipRange: str }),
  ),
  properties,
});
export const BundleType = struct('declcfg.Bundle', {
  schema: str,
  name: str,
  package: str,
  image: str,
  properties,
  relatedImages: slice('[]declcfg.RelatedImage', struct('declcfg.RelatedImage', { name: str, image: str })),
});
export const DeprecationType = struct('declcfg.Deprecation', {
  schema: str,
  package: str,
  entries: slice(
    '[]declcfg.DeprecationEntry',
    struct('declcfg.DeprecationEntry', {
      reference: struct('declcfg.PackageScopedReference', { schema: str, name: str }),
      message: str,
    }),
  ),
});

// ---------------------------------------------------------------------------------------------

/** The JSON kind of a decoded non-null value as Go's messages name it. */
export function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

const STD_BASE64 = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** base64.StdEncoding.Decode validity (`\r`/`\n` ignored); returns Go's error text or undefined. */
export function checkStdBase64(s: string): string | undefined {
  if (s.length % 4 === 0 && STD_BASE64.test(s)) return undefined;
  const isNewline = (c: number): boolean => c === 0x0a || c === 0x0d;
  let j = 0; // position within the current 4-character quantum
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isNewline(c)) continue;
    if (c === 0x3d /* = */) {
      if (j < 2) return msg.illegalBase64(i);
      let k = i + 1;
      if (j === 2) {
        // `xx=` must be followed by a second `=`.
        while (k < s.length && isNewline(s.charCodeAt(k))) k++;
        if (k >= s.length) return msg.illegalBase64(s.length);
        if (s.charCodeAt(k) !== 0x3d) return msg.illegalBase64(k);
        k++;
      }
      while (k < s.length && isNewline(s.charCodeAt(k))) k++;
      return k < s.length ? msg.illegalBase64(k) : undefined;
    }
    const ok = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
    if (!ok) return msg.illegalBase64(i);
    j = (j + 1) % 4;
  }
  return j === 0 ? undefined : msg.illegalBase64(s.length - j);
}

interface Ctx {
  struct: string;
  path: string[];
  err: string | undefined;
}

function fail(ctx: Ctx, kind: string, type: GoType): void {
  if (ctx.err !== undefined) return;
  const goName = type.kind === 'bool' ? 'bool' : type.kind === 'bytes' ? '[]uint8' : type.kind === 'raw' ? 'json.RawMessage' : type.goName;
  ctx.err = msg.jsonTypeError(kind, goName, ctx.struct, ctx.path);
}

function walk(v: unknown, type: GoType, ctx: Ctx): void {
  if (v === null || type.kind === 'raw') return;
  switch (type.kind) {
    case 'string':
      if (typeof v !== 'string') fail(ctx, jsonKind(v), type);
      return;
    case 'bool':
      if (typeof v !== 'boolean') fail(ctx, jsonKind(v), type);
      return;
    case 'bytes':
      if (typeof v === 'string') {
        const err = checkStdBase64(v);
        if (err !== undefined && ctx.err === undefined) ctx.err = err;
      } else if (!Array.isArray(v)) fail(ctx, jsonKind(v), type);
      return;
    case 'slice':
      if (!Array.isArray(v)) {
        fail(ctx, jsonKind(v), type);
        return;
      }
      for (const e of v) walk(e, type.elem, ctx);
      return;
    case 'map':
      if (typeof v !== 'object' || Array.isArray(v)) {
        fail(ctx, jsonKind(v), type);
        return;
      }
      for (const k of Object.keys(v).sort(compareGoStrings)) walk((v as Record<string, unknown>)[k], type.elem, ctx);
      return;
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) {
        fail(ctx, jsonKind(v), type);
        return;
      }
      const obj = v as Record<string, unknown>;
      const savedStruct = ctx.struct;
      for (const key of Object.keys(obj).sort(compareGoStrings)) {
        const field = fieldFor(type, key);
        if (field === undefined) continue;
        ctx.struct = type.short;
        ctx.path.push(field);
        walk(obj[key], type.fields[field] as GoType, ctx);
        ctx.path.pop();
        ctx.struct = savedStruct;
      }
      return;
    }
  }
}

function fieldFor(type: Extract<GoType, { kind: 'struct' }>, key: string): string | undefined {
  if (Object.hasOwn(type.fields, key)) return key;
  const f = goFold(key);
  for (const name of Object.keys(type.fields)) if (goFold(name) === f) return name;
  return undefined;
}

/** Type-checks `v` against `type` as json.Unmarshal would; returns Go's first error text or undefined. */
export function checkGoJSON(v: unknown, type: GoType): string | undefined {
  const ctx: Ctx = { struct: '', path: [], err: undefined };
  walk(v, type, ctx);
  return ctx.err;
}

/**
 * Reads field `name` of a decoded struct value as Go would have filled it: the last key (in
 * sorted order) that matches the field name exactly or case-insensitively. Call after
 * checkGoJSON succeeded.
 */
export function goField(obj: unknown, name: string): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const rec = obj as Record<string, unknown>;
  let found: unknown;
  let foundKey: string | undefined;
  const f = goFold(name);
  for (const key of Object.keys(rec)) {
    if (key !== name && goFold(key) !== f) continue;
    if (foundKey === undefined || compareGoStrings(key, foundKey) > 0) {
      foundKey = key;
      found = rec[key];
    }
  }
  return found;
}

/** A Go string field (`""` for missing or null), as an owned copy (see ownString). */
export function goString(obj: unknown, name: string): string {
  const v = goField(obj, name);
  return typeof v === 'string' ? ownString(v) : '';
}

/** A Go []string field, as owned copies. */
export function goStrings(obj: unknown, name: string): string[] {
  const v = goField(obj, name);
  return Array.isArray(v) ? v.map((e) => (typeof e === 'string' ? ownString(e) : '')) : [];
}

/** A Go slice-of-struct field, as the decoded element objects (null elements become `{}`). */
export function goObjects(obj: unknown, name: string): unknown[] {
  const v = goField(obj, name);
  return Array.isArray(v) ? v.map((e) => (e === null ? {} : e)) : [];
}
