// Dependency properties → entry predicates (OLM R/resolver.go predicateForProperty, R/cache/predicates.go)
// and the olm.constraint parser (operator-framework/api pkg/constraints); CEL rules compile in cel.ts.
// Texts are upstream's; where upstream prints a cel-go or encoding/json error we cannot reproduce,
// the message names the offending value.
import { parseBlang, parseBlangRange, type BlangRange } from '../../shared/semver/index.ts';
import { goQuote } from '../../shared/gocompat/index.ts';
import { compileCel } from './cel.ts';
import type { Entry } from './entries.ts';
import { tryOr, withErrorPrefix } from '../../shared/toolkit/index.ts';

export interface Predicate {
  test(e: Entry): boolean;
  toString(): string;
  /** Every entry the predicate can match has this package / provides this GVK (an index key). */
  readonly hint?: { readonly package?: string; readonly gvk?: string };
}

export const gvkKey = (group: unknown, version: unknown, kind: unknown): string => `${String(group)}\u0000${String(version)}\u0000${String(kind)}`;

const parsed = new WeakMap<Entry, { type: string; value: unknown }[]>();
/** The entry's properties with JSON-decoded values (null when a value does not decode), cached. */
export function decodedProperties(e: Entry): { type: string; value: unknown }[] {
  let out = parsed.get(e);
  if (!out) {
    out = e.properties.map((p) => ({ type: p.type, value: tryOr(() => JSON.parse(p.value) as unknown, null) }));
    parsed.set(e, out);
  }
  return out;
}

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const gvkPredicate = (group: string, version: string, kind: string): Predicate => ({
  test: (e) =>
    decodedProperties(e).some((p) => {
      if (p.type !== 'olm.gvk') return false;
      const v = obj(p.value);
      return v.group === group && v.version === version && v.kind === kind;
    }),
  toString: () => `providing an API with group: ${group}, version: ${version}, kind: ${kind}`,
  hint: { gvk: gvkKey(group, version, kind) },
});

export const packagePredicate = (name: string): Predicate => ({
  test: (e) => decodedProperties(e).some((p) => p.type === 'olm.package' && obj(p.value).packageName === name) || e.package === name,
  toString: () => `with package: ${name}`,
  hint: { package: name },
});

// Parsed olm.package versions by text (predicates test the same few versions many times); null = unparsable.
const parsedVersions = new Map<string, ReturnType<typeof parseBlang> | null>();
function blangVersion(text: string): ReturnType<typeof parseBlang> | null {
  let v = parsedVersions.get(text);
  if (v === undefined) {
    v = tryOr(() => parseBlang(text), null);
    if (parsedVersions.size >= 65536) parsedVersions.clear();
    parsedVersions.set(text, v);
  }
  return v;
}

export const versionInRangePredicate = (range: BlangRange, text: string): Predicate => ({
  test: (e) => {
    for (const p of decodedProperties(e)) {
      if (p.type !== 'olm.package') continue;
      const v = blangVersion(str(obj(p.value).version)); // unparsable versions are skipped, as upstream
      try {
        if (v !== null && range(v)) return true;
      } catch {
        // as an unparsable version
      }
    }
    return e.version !== undefined && range(e.version);
  },
  toString: () => `with version in range: ${text}`,
});

export const labelPredicate = (label: string): Predicate => ({
  test: (e) => decodedProperties(e).some((p) => p.type === 'olm.label' && obj(p.value).label === label),
  toString: () => `with label: ${label}`,
});

export const andPredicate = (ps: readonly Predicate[]): Predicate => ({
  test: (e) => ps.every((p) => p.test(e)),
  toString: () => ps.map(String).join(' and '),
  ...(ps.find((p) => p.hint) ? { hint: ps.find((p) => p.hint)?.hint } : {}),
});
export const orPredicate = (ps: readonly Predicate[]): Predicate => ({
  test: (e) => ps.some((p) => p.test(e)),
  toString: () => ps.map(String).join(' or '),
});
/** ¬(p1 ∨ p2 …); upstream's text joins with " and not " and has no leading "not". */
export const notPredicate = (ps: readonly Predicate[]): Predicate => ({
  test: (e) => !ps.some((p) => p.test(e)),
  toString: () => ps.map(String).join(' and not '),
});

/** olm.package.required / package constraint: And(package, version in blang range). */
export function packageRequiredPredicate(name: string, versionRange: string): Predicate {
  const range = parseBlangRange(versionRange); // throws BlangError with blang's message
  return andPredicate([packagePredicate(name), versionInRangePredicate(range, versionRange)]);
}

// ---- CEL -------------------------------------------------------------------------------------

/** A CEL predicate; evaluation errors make it false, as upstream. */
export function celPredicate(rule: string, failureMessage: string): Predicate {
  const program = compileCel(rule);
  return {
    test: (e) => tryOr(() => program(decodedProperties(e)), false),
    toString: () => `with constraint: ${goQuote(rule)} and message: ${goQuote(failureMessage)}`,
  };
}

// ---- olm.constraint --------------------------------------------------------------------------

export const MAX_CONSTRAINT_SIZE = 2 << 16; // 131072, though upstream's comment says 64Kb
export const MAX_SIZE_MESSAGE = `olm.constraint value is greater than max constraint size ${MAX_CONSTRAINT_SIZE} bytes`;

export interface Constraint {
  failureMessage?: string;
  cel?: { rule: string };
  package?: { packageName: string; versionRange: string };
  gvk?: { group: string; version: string; kind: string };
  all?: { constraints: Constraint[] };
  any?: { constraints: Constraint[] };
  not?: { constraints: Constraint[] };
  none?: { constraints: Constraint[] };
}

// Go encoding/json matches field names case-insensitively; DisallowUnknownFields rejects the rest.
const FIELDS: Record<string, Record<string, 'string' | 'object' | 'list'>> = {
  Constraint: { failureMessage: 'string', cel: 'object', package: 'object', gvk: 'object', all: 'object', any: 'object', not: 'object', none: 'object' },
  Cel: { rule: 'string' },
  PackageConstraint: { packageName: 'string', versionRange: 'string' },
  GVKConstraint: { group: 'string', kind: 'string', version: 'string' },
  CompoundConstraint: { constraints: 'list' },
};
const NESTED: Record<string, string> = { cel: 'Cel', package: 'PackageConstraint', gvk: 'GVKConstraint', all: 'CompoundConstraint', any: 'CompoundConstraint', not: 'CompoundConstraint', none: 'CompoundConstraint' };
const jsonKind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : 'string');

function decodeStruct(type: string, value: unknown, path: string): Record<string, unknown> | undefined {
  if (value === null) return undefined;
  if (jsonKind(value) !== 'object') throw new Error(`json: cannot unmarshal ${jsonKind(value)} into Go value of type constraints.${type}${path ? ` (field ${path})` : ''}`);
  const fields = FIELDS[type] ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const field = Object.keys(fields).find((f) => f === key) ?? Object.keys(fields).find((f) => f.toLowerCase() === key.toLowerCase());
    if (!field) throw new Error(`json: unknown field ${goQuote(key)}`);
    const kind = fields[field];
    if (v === null) continue;
    if (kind === 'string') {
      if (typeof v !== 'string') throw new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${type}.${field} of type string`);
      out[field] = v;
    } else if (kind === 'list') {
      if (!Array.isArray(v)) throw new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${type}.${field} of type []constraints.Constraint`);
      out[field] = v.map((c) => decodeStruct('Constraint', c, field) ?? {});
    } else {
      out[field] = decodeStruct(NESTED[field] ?? 'Constraint', v, field) ?? {};
    }
  }
  return out;
}

/** constraints.Parse: the size limit on the raw bytes, then a strict JSON decode. */
export function parseConstraint(raw: string): Constraint {
  if (Buffer.byteLength(raw) > MAX_CONSTRAINT_SIZE) throw new Error(MAX_SIZE_MESSAGE);
  const value = withErrorPrefix(`invalid JSON in olm.constraint value ${goQuote(raw.length > 80 ? raw.slice(0, 80) + '…' : raw)}`, () => JSON.parse(raw) as unknown);
  return (decodeStruct('Constraint', value, '') ?? {}) as Constraint;
}

/** convertConstraints: first set key wins in the order gvk, package, all, any, not, cel. */
export function constraintPredicate(c: Constraint): Predicate {
  if (c.gvk) return gvkPredicate(c.gvk.group ?? '', c.gvk.version ?? '', c.gvk.kind ?? '');
  if (c.package) return packageRequiredPredicate(c.package.packageName ?? '', c.package.versionRange ?? '');
  if (c.all) return andPredicate((c.all.constraints ?? []).map(constraintPredicate));
  if (c.any) return orPredicate((c.any.constraints ?? []).map(constraintPredicate));
  if (c.not) return notPredicate((c.not.constraints ?? []).map(constraintPredicate));
  if (c.cel) return celPredicate(c.cel.rule ?? '', c.failureMessage ?? '');
  throw new Error('constraint is empty');
}

/**
 * predicateForProperty: olm.constraint, olm.gvk.required, olm.package.required, olm.label.required;
 * any other type is not a dependency (undefined). Throws with upstream's wrapping.
 */
export function predicateForProperty(type: string, value: string): Predicate | undefined {
  if (type === 'olm.constraint') {
    const c = withErrorPrefix('parse olm.constraint', () => parseConstraint(value));
    return withErrorPrefix('convert olm.constraint to resolver predicate', () => constraintPredicate(c));
  }
  if (type !== 'olm.gvk.required' && type !== 'olm.package.required' && type !== 'olm.label.required') return undefined;
  const v = obj(withErrorPrefix(`invalid ${type} property value ${goQuote(value)}`, () => JSON.parse(value) as unknown));
  if (type === 'olm.gvk.required') return gvkPredicate(str(v.group), str(v.version), str(v.kind));
  if (type === 'olm.package.required') return packageRequiredPredicate(str(v.packageName), str(v.versionRange));
  return labelPredicate(str(v.label));
}
