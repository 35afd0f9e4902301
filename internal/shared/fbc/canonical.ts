// The bytes catalogd stores for a blob: opm's Meta.UnmarshalJSON decodes the document into a
// map and re-encodes it with encoding/json, SetEscapeHTML(false): compact, map keys sorted (Go
// string order) at every level, `<>&` left alone, U+2028/U+2029 escaped, numbers through float64,
// then a trailing newline. Also the Meta key rules: `schema`/`package`/`name` matched after
// Unicode case folding, top-level keys that fold alike rejected, meta values must be strings.

import { compareGoStrings, goFold, ownString } from './go.ts';
import { msg, type FbcErrorCode } from './messages.ts';

/** A value JSON cannot encode (from YAML `.inf`/`.nan`); message is Go's. */
export class UnsupportedValueError extends Error {
  constructor(v: number) {
    super(msg.unsupportedValue(v));
    this.name = 'UnsupportedValueError';
  }
}

const NEEDS_LS_PS = /[\u2028\u2029]/;

/** JSON.stringify's text with U+2028/U+2029 escaped, as Go's encoder escapes them even without HTML escaping. */
const escapeLsPs = (json: string): string =>
  NEEDS_LS_PS.test(json) ? json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') : json;

function encodeNumber(n: number): string {
  if (!Number.isFinite(n)) throw new UnsupportedValueError(n);
  // Go's float64 encoder and Number#toString agree (shortest digits, exponent below 1e-6 and from
  // 1e21, `e-7` not `e-07`), except that Go keeps the sign of negative zero.
  return n === 0 && Object.is(n, -0) ? '-0' : String(n);
}

/** Sorted keys, Go order; the common all-ASCII case uses the built-in sort. */
function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  if (keys.length < 2) return keys;
  for (const k of keys) {
    for (let i = 0; i < k.length; i++) {
      if (k.charCodeAt(i) >= 0xd800) return keys.sort(compareGoStrings);
    }
  }
  return keys.sort();
}

/**
 * YAML aliases let a small document describe a huge tree (the "billion laughs"); go-yaml refuses
 * such documents and so do we, by bounding the number of nodes one blob may expand to.
 */
const MAX_BLOB_NODES = 5_000_000;

export class ExcessiveAliasingError extends Error {
  constructor() {
    super(msg.excessiveAliasing);
    this.name = 'ExcessiveAliasingError';
  }
}

let nodeBudget = 0;

/**
 * Whether JSON.stringify(v) already is the canonical encoding: every object's own keys are in Go
 * order (true for most catalogs, which opm writes key-sorted) and there is no -0. Throws
 * UnsupportedValueError for Infinity/NaN, which JSON.stringify would silently turn into null.
 */
function stringifyIsCanonical(v: unknown): boolean {
  if (--nodeBudget < 0) throw new ExcessiveAliasingError();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new UnsupportedValueError(v);
    return !(v === 0 && Object.is(v, -0));
  }
  if (typeof v !== 'object' || v === null) return true;
  if (Array.isArray(v)) {
    let ok = true;
    for (let i = 0; i < v.length; i++) if (!stringifyIsCanonical(v[i])) ok = false;
    return ok;
  }
  const obj = v as Record<string, unknown>;
  let ok = true;
  let prev: string | undefined;
  for (const k in obj) {
    if (prev !== undefined && compareGoStrings(prev, k) >= 0) ok = false;
    prev = k;
    if (!stringifyIsCanonical(obj[k])) ok = false;
  }
  return ok;
}

/** Canonical compact JSON of a decoded document (without the trailing newline). */
export function canonicalJSON(v: unknown): string {
  nodeBudget = MAX_BLOB_NODES;
  return stringifyIsCanonical(v) ? escapeLsPs(JSON.stringify(v)) : encodeValue(v);
}

function encodeValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return escapeLsPs(JSON.stringify(v));
    case 'number':
      return encodeNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) return `[${v.map(encodeValue).join(',')}]`;
      const obj = v as Record<string, unknown>;
      return `{${sortedKeys(obj)
        .map((k) => `${escapeLsPs(JSON.stringify(k))}:${encodeValue(obj[k])}`)
        .join(',')}}`;
    }
    default:
      // undefined cannot come out of YAML or JSON decoding; encode like a missing value would be.
      return 'null';
  }
}

/** The meta fields of a blob. */
export interface MetaFields {
  readonly schema: string;
  readonly package: string;
  readonly name: string;
}

const META_KEYS = ['schema', 'package', 'name'] as const;

/**
 * opm's extractUniqueMetaKeys: fails when two top-level keys fold to the same value, or when
 * `schema`/`package`/`name` (matched case-insensitively) is not a string. Returns the meta fields
 * or the error.
 */
export function extractMeta(obj: Record<string, unknown>): MetaFields | { readonly error: string; readonly code: FbcErrorCode } {
  const keys = Object.keys(obj);
  let byFold: Map<string, string[]> | undefined;
  // Fast path: lower-case ASCII keys fold to themselves and cannot collide with each other.
  if (!keys.every((k) => /^[a-z0-9_.\-/]*$/.test(k))) {
    byFold = new Map();
    for (const k of keys) {
      const f = goFold(k);
      const list = byFold.get(f);
      if (list) list.push(k);
      else byFold.set(f, [k]);
    }
    const dups: string[] = [];
    for (const [folded, list] of [...byFold].sort((a, b) => compareGoStrings(a[0], b[0]))) {
      if (list.length > 1) dups.push(msg.duplicateKeys(folded, list.sort(compareGoStrings)));
    }
    if (dups.length > 0) return { error: msg.aggregate(dups), code: 'FBC_DUPLICATE_KEYS' };
  }
  const out: Record<(typeof META_KEYS)[number], string> = { schema: '', package: '', name: '' };
  for (const metaKey of META_KEYS) {
    const key = byFold ? byFold.get(metaKey)?.[0] : Object.hasOwn(obj, metaKey) ? metaKey : undefined;
    if (key === undefined) continue;
    const value = obj[key];
    if (typeof value !== 'string') return { error: msg.metaNotString(key, value), code: 'FBC_META_NOT_STRING' };
    out[metaKey] = ownString(value);
  }
  return out;
}
