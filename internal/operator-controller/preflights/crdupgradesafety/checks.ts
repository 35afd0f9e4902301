// The checks of crdify's default registry as OLM configures them (olmv1.md §5.4): three that look at
// the whole CRD and per-property comparators. A comparator reads one field of the old and new schema,
// reports what makes the change unsafe, then deletes that field from both copies; whatever differs
// once every comparator has run is an "unhandled" change and fails closed.
import {
  canonicalJson,
  flattenVersion,
  goList,
  goNumber,
  goQuote,
  walkSchema,
  type Crd,
  type Schema,
} from './schema.ts';

/** What one check found: its name and its messages (empty when the change is safe). */
export interface CheckResult {
  readonly name: string;
  readonly errors: readonly string[];
}

// ---- CRD-wide ----------------------------------------------------------------------------------

export interface CrdCheck {
  readonly name: string;
  compare(oldCrd: Crd, newCrd: Crd): string[];
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
    const names = new Set((newCrd.spec.versions ?? []).map((v) => v.name));
    const removed = (oldCrd.status?.storedVersions ?? []).filter((v) => !names.has(v));
    return removed.length > 0 ? [`stored versions removed : ${goList(removed)}`] : [];
  },
};

/** In registry order. */
export const CRD_CHECKS: readonly CrdCheck[] = [existingFieldRemoval, scope, storedVersionRemoval];

// ---- per property ------------------------------------------------------------------------------

export interface PropertyCheck {
  readonly name: string;
  /** Reads and then deletes its field(s) from both (mutable) copies. */
  compare(a: Schema, b: Schema): string[];
}

const num = (s: Schema, k: string): number | undefined => (typeof s[k] === 'number' ? (s[k] as number) : undefined);

function take<T>(a: Schema, b: Schema, key: string, read: (s: Schema, k: string) => T): [T, T] {
  const pair: [T, T] = [read(a, key), read(b, key)];
  delete a[key];
  delete b[key];
  return pair;
}

/** maximum / maxItems / maxLength / maxProperties: added, or lowered. */
function maxCheck(name: string): PropertyCheck {
  return {
    name,
    compare(a, b) {
      const [older, newer] = take(a, b, name, num);
      if (older === undefined && newer !== undefined) return [`maximum constraint added when there was none previously : ${goNumber(newer)}`];
      if (older !== undefined && newer !== undefined && newer < older) return [`maximum decreased : ${goNumber(older)} -> ${goNumber(newer)}`];
      return [];
    },
  };
}

/** minimum / minItems / minLength / minProperties: added, or raised. */
function minCheck(name: string): PropertyCheck {
  return {
    name,
    compare(a, b) {
      const [older, newer] = take(a, b, name, num);
      if (older === undefined && newer !== undefined) return [`minimum constraint added when there was none previously : ${goNumber(newer)}`];
      if (older !== undefined && newer !== undefined && newer > older) return [`minimum increased : ${goNumber(older)} -> ${goNumber(newer)}`];
      return [];
    },
  };
}

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

const enumValues = (s: Schema, k: string): Set<string> =>
  new Set(Array.isArray(s[k]) ? (s[k] as unknown[]).map((v) => canonicalJson(v)) : []);

/** OLM configures `additionPolicy: Allow`: new values are fine, removed ones and a new constraint are not. */
const enumCheck: PropertyCheck = {
  name: 'enum',
  compare(a, b) {
    const [older, newer] = take(a, b, 'enum', enumValues);
    const sorted = (s: Iterable<string>): string[] => [...s].sort(byBytes);
    if (older.size === 0 && newer.size > 0) return [`enum constraint added when there was none previously : ${goList(sorted(newer))}`];
    const removed = [...older].filter((v) => !newer.has(v));
    if (removed.length > 0) return [`allowed enum values removed : ${goList(sorted(removed))}`];
    return [];
  },
};

const strings = (s: Schema, k: string): string[] => (Array.isArray(s[k]) ? (s[k] as unknown[]).map(String) : []);

const requiredCheck: PropertyCheck = {
  name: 'required',
  compare(a, b) {
    const [older, newer] = take(a, b, 'required', strings);
    const added = [...new Set(newer)].filter((f) => !older.includes(f)).sort(byBytes);
    return added.length > 0 ? [`new required fields: ${goList(added)}`] : [];
  },
};

const str = (s: Schema, k: string): string => (typeof s[k] === 'string' ? (s[k] as string) : '');

const typeCheck: PropertyCheck = {
  name: 'type',
  compare(a, b) {
    const [older, newer] = take(a, b, 'type', str);
    return older === newer ? [] : [`type changed : ${goQuote(older)} -> ${goQuote(newer)}`];
  },
};

/** Description changes never block in OLM (enforcement None): the field is only cleared. */
const descriptionCheck: PropertyCheck = {
  name: 'description',
  compare(a, b) {
    take(a, b, 'description', str);
    return [];
  },
};

const patternCheck: PropertyCheck = {
  name: 'pattern',
  compare(a, b) {
    const [older, newer] = take(a, b, 'pattern', str);
    if (older === newer || newer === '') return []; // removing a pattern is safe
    if (older === '') return [`pattern added : ${goQuote(older)} -> ${goQuote(newer)}`];
    return [`pattern changed : ${goQuote(older)} -> ${goQuote(newer)}`];
  },
};

const bool = (s: Schema, k: string): boolean => s[k] === true;

const nullableCheck: PropertyCheck = {
  name: 'nullable',
  compare(a, b) {
    const [older, newer] = take(a, b, 'nullable', bool);
    if (older === newer) return [];
    return [`${newer ? 'nullable added' : 'nullable removed'} : ${older} -> ${newer}`];
  },
};

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
  typeCheck,
  descriptionCheck,
  patternCheck,
  nullableCheck,
];

function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- unhandled ---------------------------------------------------------------------------------

/** JSONSchemaProps fields in Go struct order, with their Go names and how Go holds them. */
const GO_FIELDS: readonly (readonly [json: string, go: string, kind: 'string' | 'bool' | 'pointer' | 'slice'])[] = [
  ['id', 'ID', 'string'],
  ['$schema', 'Schema', 'string'],
  ['$ref', 'Ref', 'pointer'],
  ['description', 'Description', 'string'],
  ['type', 'Type', 'string'],
  ['format', 'Format', 'string'],
  ['title', 'Title', 'string'],
  ['default', 'Default', 'pointer'],
  ['maximum', 'Maximum', 'pointer'],
  ['exclusiveMaximum', 'ExclusiveMaximum', 'bool'],
  ['minimum', 'Minimum', 'pointer'],
  ['exclusiveMinimum', 'ExclusiveMinimum', 'bool'],
  ['maxLength', 'MaxLength', 'pointer'],
  ['minLength', 'MinLength', 'pointer'],
  ['pattern', 'Pattern', 'string'],
  ['maxItems', 'MaxItems', 'pointer'],
  ['minItems', 'MinItems', 'pointer'],
  ['uniqueItems', 'UniqueItems', 'bool'],
  ['multipleOf', 'MultipleOf', 'pointer'],
  ['enum', 'Enum', 'slice'],
  ['maxProperties', 'MaxProperties', 'pointer'],
  ['minProperties', 'MinProperties', 'pointer'],
  ['required', 'Required', 'slice'],
  ['externalDocs', 'ExternalDocs', 'pointer'],
  ['example', 'Example', 'pointer'],
  ['nullable', 'Nullable', 'bool'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields', 'pointer'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource', 'bool'],
  ['x-kubernetes-int-or-string', 'XIntOrString', 'bool'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys', 'slice'],
  ['x-kubernetes-list-type', 'XListType', 'pointer'],
  ['x-kubernetes-map-type', 'XMapType', 'pointer'],
  ['x-kubernetes-validations', 'XValidations', 'slice'],
];

/**
 * What is left different after every comparator: `unhandled changes found (<GoField> <old> -> <new>; …)`,
 * the condensed form operator-controller makes of crdify's diff.
 */
export function unhandledChanges(a: Schema, b: Schema): string[] {
  if (canonicalJson(a) === canonicalJson(b)) return [];
  const details: string[] = [];
  const known = new Set<string>();
  for (const [json, go, kind] of GO_FIELDS) {
    known.add(json);
    if (canonicalJson(a[json]) === canonicalJson(b[json])) continue;
    details.push(`${go} ${goValue(a[json], kind)} -> ${goValue(b[json], kind)}`);
  }
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (known.has(key) || canonicalJson(a[key]) === canonicalJson(b[key])) continue;
    details.push(`${key} ${goValue(a[key], 'pointer')} -> ${goValue(b[key], 'pointer')}`);
  }
  return [details.length > 0 ? `unhandled changes found (${details.join('; ')})` : 'unhandled changes found'];
}

function goValue(v: unknown, kind: 'string' | 'bool' | 'pointer' | 'slice'): string {
  if (v === undefined) {
    if (kind === 'string') return '""';
    if (kind === 'bool') return 'false';
    return 'nil';
  }
  const pointer = kind === 'pointer' ? '&' : '';
  if (typeof v === 'string') return pointer + goQuote(v);
  if (typeof v === 'number') return pointer + goNumber(v);
  if (typeof v === 'boolean') return pointer + String(v);
  return '<complex value>';
}

/** Runs every property check and the unhandled check over copies of one property's old and new schema. */
export function compareProperty(oldSchema: Schema, newSchema: Schema): CheckResult[] {
  const a: Schema = { ...oldSchema };
  const b: Schema = { ...newSchema };
  const results: CheckResult[] = PROPERTY_CHECKS.map((check) => ({ name: check.name, errors: check.compare(a, b) }));
  results.push({ name: 'unhandled', errors: unhandledChanges(a, b) });
  return results;
}

/** Properties of `oldVersion` that differ in `newVersion` (a removed one compares against `{}`), checked. */
export function compareVersions(
  oldVersion: Parameters<typeof flattenVersion>[0],
  newVersion: Parameters<typeof flattenVersion>[0],
): Map<string, CheckResult[]> {
  const oldFlat = flattenVersion(oldVersion);
  const newFlat = flattenVersion(newVersion);
  const out = new Map<string, CheckResult[]>();
  for (const path of [...oldFlat.keys()].sort(byBytes)) {
    const before = oldFlat.get(path) ?? {};
    const after = newFlat.get(path) ?? {};
    if (newFlat.has(path) && canonicalJson(before) === canonicalJson(after)) continue;
    out.set(path, compareProperty(before, after));
  }
  return out;
}
