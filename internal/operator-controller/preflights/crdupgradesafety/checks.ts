// The checks of crdify's default registry as OLM configures them (olmv1.md §5.4): three that look at
// the whole CRD and per-property comparators. A comparator reads one field of the old and new schema,
// reports what makes the change unsafe, then deletes that field from both copies; whatever differs
// once every comparator has run is an "unhandled" change and fails closed.
import { removedStoredVersions } from '../../../shared/registryv1/index.ts';
import type { CheckOptions, ResolvedConfig } from './config.ts';
import { goFloat, goSchemaString } from './gofmt.ts';
import { canonicalJson, flattenVersion, goList, goQuote, isObject, walkSchema, type Crd, type Schema } from './schema.ts';
import { unhandledChanges } from './unhandled.ts';

/** What one check found: its name and its messages (empty when the change is safe), split by enforcement. */
export interface CheckResult {
  readonly name: string;
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/** crdify's HandleErrors: `Error` reports errors, `Warn` warnings, `None` nothing. */
export function enforce(name: string, options: Pick<CheckOptions, 'enforcement'>, found: readonly string[]): CheckResult {
  if (options.enforcement === 'Error') return { name, errors: found, warnings: [] };
  if (options.enforcement === 'Warn') return { name, errors: [], warnings: found };
  return { name, errors: [], warnings: [] };
}

// ---- CRD-wide ----------------------------------------------------------------------------------

export interface CrdCheck {
  readonly name: string;
  compare(oldCrd: Crd, newCrd: Crd, options: CheckOptions): string[];
}

const existingFieldRemoval: CrdCheck = {
  name: 'existingFieldRemoval',
  compare(oldCrd, newCrd) {
    const errors: string[] = [];
    for (const newVersion of newCrd.spec.versions ?? []) {
      const oldVersion = oldCrd.spec.versions?.find((v) => v.name === newVersion.name);
      if (!oldVersion) continue;
      const newFields = fieldPaths(newVersion.schema?.openAPIV3Schema);
      const removed = [...fieldPaths(oldVersion.schema?.openAPIV3Schema)].filter((p) => !newFields.has(p)).sort();
      for (const path of removed) errors.push(`removed field : ${newVersion.name}.${path}`);
    }
    return errors;
  },
};

function fieldPaths(schema: Schema | undefined): Set<string> {
  const paths = new Set<string>();
  walkSchema(schema, '^', (path) => paths.add(path));
  return paths;
}

const scope: CrdCheck = {
  name: 'scope',
  compare(oldCrd, newCrd) {
    const [a, b] = [oldCrd.spec.scope ?? '', newCrd.spec.scope ?? ''];
    return a === b ? [] : [`scope changed : ${goQuote(a)} -> ${goQuote(b)}`];
  },
};

const storedVersionRemoval: CrdCheck = {
  name: 'storedVersionRemoval',
  compare(oldCrd, newCrd) {
    const removed = removedStoredVersions(oldCrd, newCrd);
    return removed.length > 0 ? [`stored versions removed : ${goList(removed)}`] : [];
  },
};

/** In registry order. */
export const CRD_CHECKS: readonly CrdCheck[] = [existingFieldRemoval, scope, storedVersionRemoval];

// ---- per property ------------------------------------------------------------------------------

export interface PropertyCheck {
  readonly name: string;
  /** Reads and then deletes its field(s) from both (mutable) copies. */
  compare(a: Schema, b: Schema, options: CheckOptions): string[];
}

const num = (s: Schema, k: string): number | undefined => (typeof s[k] === 'number' ? (s[k] as number) : undefined);

function take<T>(a: Schema, b: Schema, key: string, read: (s: Schema, k: string) => T): [T, T] {
  const pair: [T, T] = [read(a, key), read(b, key)];
  delete a[key];
  delete b[key];
  return pair;
}

/** maximum / maxItems / maxLength / maxProperties: added, or lowered; minimum / minItems / …: added, or raised. */
function boundCheck(name: string, bound: 'maximum' | 'minimum'): PropertyCheck {
  return {
    name,
    compare(a, b) {
      const [older, newer] = take(a, b, name, num);
      if (older === undefined && newer !== undefined) return [`${bound} constraint added when there was none previously : ${goFloat(newer)}`];
      if (older === undefined || newer === undefined || newer === older || (newer > older) === (bound === 'maximum')) return [];
      return [`${bound} ${bound === 'maximum' ? 'decreased' : 'increased'} : ${goFloat(older)} -> ${goFloat(newer)}`];
    },
  };
}
const maxCheck = (name: string): PropertyCheck => boundCheck(name, 'maximum');
const minCheck = (name: string): PropertyCheck => boundCheck(name, 'minimum');

const rawValue = (s: Schema, k: string): string | undefined => (k in s && s[k] !== undefined ? canonicalJson(s[k]) : undefined);

const defaultCheck: PropertyCheck = {
  name: 'default',
  compare(a, b) {
    const [older, newer] = take(a, b, 'default', rawValue);
    if (older === undefined && newer !== undefined) return [`default added when there was none previously : ${goQuote(newer)}`];
    if (older !== undefined && newer === undefined) return [`default value removed : ${goQuote(older)}`];
    if (older !== undefined && newer !== undefined && older !== newer) return [`default value changed : ${goQuote(older)} -> ${goQuote(newer)}`];
    return [];
  },
};

/** Sorted by UTF-16 code units, JavaScript's default (Go's byte order but for characters beyond U+FFFF). */
const sorted = (s: Iterable<string>): string[] => [...s].sort();

const enumValues = (s: Schema, k: string): Set<string> =>
  new Set(Array.isArray(s[k]) ? (s[k] as unknown[]).map((v) => canonicalJson(v)) : []);

/** A new constraint and removed values fail; new values fail unless `additionPolicy: Allow` (OLM's setting). */
const enumCheck: PropertyCheck = {
  name: 'enum',
  compare(a, b, options) {
    const [older, newer] = take(a, b, 'enum', enumValues);
    if (older.size === 0 && newer.size > 0) return [`enum constraint added when there was none previously : ${goList(sorted(newer))}`];
    const removed = [...older].filter((v) => !newer.has(v));
    if (removed.length > 0) return [`allowed enum values removed : ${goList(sorted(removed))}`];
    const added = [...newer].filter((v) => !older.has(v));
    if (added.length > 0 && options.additionPolicy !== 'Allow') return [`allowed enum values added : ${goList(sorted(added))}`];
    return [];
  },
};

const strings = (s: Schema, k: string): string[] => (Array.isArray(s[k]) ? (s[k] as unknown[]).map(String) : []);

const requiredCheck: PropertyCheck = {
  name: 'required',
  compare(a, b) {
    const [older, newer] = take(a, b, 'required', strings);
    const added = [...new Set(newer)].filter((f) => !older.includes(f)).sort();
    return added.length > 0 ? [`new required fields: ${goList(added)}`] : [];
  },
};

const str = (s: Schema, k: string): string => (typeof s[k] === 'string' ? (s[k] as string) : '');

/** Any change of the string `name` fails (type; description, which OLM's enforcement None never lets block). */
const changedCheck = (name: string): PropertyCheck => ({
  name,
  compare(a, b) {
    const [older, newer] = take(a, b, name, str);
    return older === newer ? [] : [`${name} changed : ${goQuote(older)} -> ${goQuote(newer)}`];
  },
});

/** Added or changed fails; removed fails unless `removalPolicy: Allow`. */
const patternCheck: PropertyCheck = {
  name: 'pattern',
  compare(a, b, options) {
    const [older, newer] = take(a, b, 'pattern', str);
    if (older === newer) return [];
    if (older === '') return [`pattern added : ${goQuote(older)} -> ${goQuote(newer)}`];
    if (newer === '') return options.removalPolicy === 'Allow' ? [] : [`pattern removed : ${goQuote(older)} -> ${goQuote(newer)}`];
    return [`pattern changed : ${goQuote(older)} -> ${goQuote(newer)}`];
  },
};

const bool = (s: Schema, k: string): boolean => s[k] === true;

/** Allowing or disallowing null fails unless the matching policy is `Allow`. */
const nullableCheck: PropertyCheck = {
  name: 'nullable',
  compare(a, b, options) {
    const [older, newer] = take(a, b, 'nullable', bool);
    if (older === newer) return [];
    if (newer && options.additionPolicy !== 'Allow') return [`nullable added : ${older} -> ${newer}`];
    if (!newer && options.removalPolicy !== 'Allow') return [`nullable removed : ${older} -> ${newer}`];
    return [];
  },
};

/**
 * oneOf subschemas compared as a set, each identified by Go's `String()` of it with description, title, example
 * and externalDocs cleared. A new constraint fails (with `additionPolicy: Allow` only when the property's old schema
 * is not one of the new subschemas); otherwise removed subschemas fail, then added ones, each unless its policy is
 * `Allow`. The lists print sorted, as Go's `%v` of a `[]string`.
 */
const oneOfCheck: PropertyCheck = {
  name: 'oneOf',
  compare(a, b, options) {
    const identity = (s: unknown): string => goSchemaString(normalizeSubschema(s));
    const [older, newer] = take(a, b, 'oneOf', (s, k) => new Set((Array.isArray(s[k]) ? (s[k] as unknown[]) : []).map(identity)));
    if (older.size === 0 && newer.size > 0) {
      if (options.additionPolicy !== 'Allow') return [`oneOf constraint added when there was none previously: ${goList(sorted(newer))}`];
      if (newer.has(identity(a))) return [];
      return [`oneOf constraint added and pre-existing property schema is not preserved in the new oneOf entries: ${goList(sorted(newer))}`];
    }
    const removed = sorted([...older].filter((s) => !newer.has(s)));
    if (removed.length > 0 && options.removalPolicy !== 'Allow') return [`allowed oneOf schemas removed: ${goList(removed)}`];
    const added = sorted([...newer].filter((s) => !older.has(s)));
    if (added.length > 0 && options.additionPolicy !== 'Allow') return [`allowed oneOf schemas added: ${goList(added)}`];
    return [];
  },
};

function normalizeSubschema(s: unknown): Schema {
  const copy: Schema = isObject(s) ? { ...s } : {};
  for (const key of ['description', 'title', 'example', 'externalDocs']) delete copy[key];
  return copy;
}

/** In the order results are reported. */
export const PROPERTY_CHECKS: readonly PropertyCheck[] = [
  defaultCheck,
  enumCheck,
  maxCheck('maximum'),
  maxCheck('maxItems'),
  maxCheck('maxLength'),
  maxCheck('maxProperties'),
  minCheck('minimum'),
  minCheck('minItems'),
  minCheck('minLength'),
  minCheck('minProperties'),
  requiredCheck,
  changedCheck('type'),
  changedCheck('description'),
  patternCheck,
  nullableCheck,
  oneOfCheck,
];

/** Runs every property check and the unhandled check over copies of one property's old and new schema. */
export function compareProperty(oldSchema: Schema, newSchema: Schema, config: ResolvedConfig): CheckResult[] {
  const a: Schema = { ...oldSchema };
  const b: Schema = { ...newSchema };
  const results: CheckResult[] = PROPERTY_CHECKS.map((check) => {
    const options = config.checks.get(check.name)!;
    return enforce(check.name, options, check.compare(a, b, options));
  });
  results.push(enforce('unhandled', { enforcement: config.unhandledEnforcement }, unhandledChanges(a, b)));
  return results;
}

/** Properties of `oldVersion` that differ in `newVersion` (a removed one compares against `{}`), checked. */
export function compareVersions(
  oldVersion: Parameters<typeof flattenVersion>[0],
  newVersion: Parameters<typeof flattenVersion>[0],
  config: ResolvedConfig,
): Map<string, CheckResult[]> {
  const oldFlat = flattenVersion(oldVersion);
  const newFlat = flattenVersion(newVersion);
  const out = new Map<string, CheckResult[]>();
  for (const path of [...oldFlat.keys()].sort()) {
    const before = oldFlat.get(path) ?? {};
    const after = newFlat.get(path) ?? {};
    if (newFlat.has(path) && canonicalJson(before) === canonicalJson(after)) continue;
    out.set(path, compareProperty(before, after, config));
  }
  return out;
}
