// CRD shapes and the schema walk crdify compares on: every sub-schema of a version flattened to its
// "simple location" (`^.spec.foo`, `^.spec.list.items`, `^.spec.x.allOf[0]`), each with its children
// dropped so a change is judged only at the property where it happened.
import type { KubeObject } from '../../../../api/meta/v1.ts';
import { goJSONValue } from '../../../shared/gocompat/index.ts';
import { isObject } from '../../../shared/toolkit/index.ts';

/** A JSONSchemaProps as JSON. */
export type Schema = Record<string, unknown>;

export interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: Schema };
  [key: string]: unknown;
}

export interface Crd extends KubeObject {
  spec: {
    group?: string;
    scope?: string;
    versions?: CrdVersion[];
    conversion?: { strategy?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
  status?: { storedVersions?: string[]; [key: string]: unknown };
}

export const isCrd = (obj: KubeObject): obj is Crd =>
  obj.apiVersion === 'apiextensions.k8s.io/v1' && obj.kind === 'CustomResourceDefinition';

export { isObject };

/** Calls `visit` for `schema` and every sub-schema, in the order crdify's SchemaHas walks them. */
export function walkSchema(schema: Schema | undefined, path: string, visit: (path: string, s: Schema) => void): void {
  if (!schema) return;
  visit(path, schema);
  const items = schema['items'];
  if (Array.isArray(items)) items.forEach((s, i) => isObject(s) && walkSchema(s, `${path}.items[${i}]`, visit));
  else if (isObject(items)) walkSchema(items, `${path}.items`, visit);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((s, i) => isObject(s) && walkSchema(s, `${path}.${key}[${i}]`, visit));
  }
  if (isObject(schema['not'])) walkSchema(schema['not'], `${path}.not`, visit);
  for (const [name, s] of entries(schema['properties'])) walkSchema(s, `${path}.${name}`, visit);
  if (isObject(schema['additionalProperties'])) walkSchema(schema['additionalProperties'], `${path}.additionalProperties`, visit);
  for (const [name, s] of entries(schema['patternProperties'])) walkSchema(s, `${path}.patternProperties[${name}]`, visit);
  if (isObject(schema['additionalItems'])) walkSchema(schema['additionalItems'], `${path}.additionalItems`, visit);
  for (const [name, s] of entries(schema['definitions'])) walkSchema(s, `${path}.definitions[${name}]`, visit);
  for (const [name, s] of entries(schema['dependencies'])) walkSchema(s, `${path}.dependencies[${name}]`, visit);
}

function entries(v: unknown): [string, Schema][] {
  if (!isObject(v)) return [];
  return Object.entries(v).filter((e): e is [string, Schema] => isObject(e[1]));
}

/** Every property path of a version (`^`, `^.spec`, …) mapped to its own schema, children dropped. */
export function flattenVersion(version: CrdVersion): Map<string, Schema> {
  const flat = new Map<string, Schema>();
  walkSchema(version.schema?.openAPIV3Schema, '^', (path, s) => flat.set(path, ownSchema(s)));
  return flat;
}

/**
 * Child schemas dropped before comparing a property with itself: `properties` and `items`, whose schemas are judged
 * at their own paths. Other child schemas (`allOf`, `anyOf`, `oneOf`, `not`, `additionalProperties`, …) stay: the
 * oneOf check reads `oneOf`, and a change in any other is unhandled at the parent (fail closed), as crdify does.
 */
const CHILD_FIELDS = ['properties', 'items'];

/** Fields that are plain values (not pointers) in Go: their zero value is the same as absent. */
const ZERO_IS_ABSENT = new Set([
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'format',
  'title',
  'pattern',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'nullable',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
]);

/** A copy of `s` without child schemas and without zero values Go could not tell from absent. */
export function ownSchema(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (CHILD_FIELDS.includes(k)) continue;
    if (ZERO_IS_ABSENT.has(k) && (v === '' || v === false)) continue;
    // apimachinery's semantic equality treats an empty slice or map like a nil one.
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

/** JSON with sorted object keys, strings as Go's encoding/json writes them: the identity used for equality and raw-value comparison. */
export const canonicalJson = (v: unknown): string => goJSONValue(v, true);

export { goQuote } from '../../../shared/gocompat/index.ts';

/** Go's `%v` of a number whose magnitude JavaScript prints without an exponent the same way (see gofmt.ts goFloat). */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

export { goStringSlice as goList } from '../../../shared/gocompat/index.ts';

/** Orders version names as apimachinery's CompareKubeAwareVersionStrings: least important first. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa.type !== pb.type) return pa.type - pb.type;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

function parseKubeVersion(v: string): { major: number; type: number; minor: number } | undefined {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return undefined;
  const type = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
  return { major: Number(m[1]), type, minor: m[3] ? Number(m[3]) : 0 };
}
