// How Go prints a JSONSchemaProps, which upstream's messages embed in two ways:
// - `goSchemaString`: the protobuf-generated `String()` (`&JSONSchemaProps{ID:,Schema:,…}`) that crdify's oneOf
//   check puts into `allowed oneOf schemas removed: [...]`;
// - `cmpDiffLines`: the `-`/`+` lines of go-cmp's diff of two schemas that crdify's unhandled check reports and
//   operator-controller condenses (see unhandled.ts). go-cmp's layout heuristics are not reproduced in full: leaf
//   fields print as go-cmp prints them, nested structs are compared field by field, whole values print as single-line
//   Go literals with zero fields left out.
import { canonicalJson, goNumber, goQuote, isObject, type Schema } from './schema.ts';

type Kind =
  | 'string'
  | 'bool'
  | 'ptrString'
  | 'ptrFloat'
  | 'ptrInt'
  | 'ptrBool'
  | 'ptrJSON'
  | 'jsonList'
  | 'strings'
  | 'schemaOrArray'
  | 'schemas'
  | 'ptrSchema'
  | 'schemaMap'
  | 'schemaOrBool'
  | 'dependencies'
  | 'definitions'
  | 'externalDocs'
  | 'validations';

/** A struct field: JSON name, Go name, Go shape. */
type Field = readonly [json: string, go: string, kind: Kind];

/** JSONSchemaProps' fields in Go struct order. */
export const SCHEMA_FIELDS: readonly Field[] = [
  ['id', 'ID', 'string'],
  ['$schema', 'Schema', 'string'],
  ['$ref', 'Ref', 'ptrString'],
  ['description', 'Description', 'string'],
  ['type', 'Type', 'string'],
  ['format', 'Format', 'string'],
  ['title', 'Title', 'string'],
  ['default', 'Default', 'ptrJSON'],
  ['maximum', 'Maximum', 'ptrFloat'],
  ['exclusiveMaximum', 'ExclusiveMaximum', 'bool'],
  ['minimum', 'Minimum', 'ptrFloat'],
  ['exclusiveMinimum', 'ExclusiveMinimum', 'bool'],
  ['maxLength', 'MaxLength', 'ptrInt'],
  ['minLength', 'MinLength', 'ptrInt'],
  ['pattern', 'Pattern', 'string'],
  ['maxItems', 'MaxItems', 'ptrInt'],
  ['minItems', 'MinItems', 'ptrInt'],
  ['uniqueItems', 'UniqueItems', 'bool'],
  ['multipleOf', 'MultipleOf', 'ptrFloat'],
  ['enum', 'Enum', 'jsonList'],
  ['maxProperties', 'MaxProperties', 'ptrInt'],
  ['minProperties', 'MinProperties', 'ptrInt'],
  ['required', 'Required', 'strings'],
  ['items', 'Items', 'schemaOrArray'],
  ['allOf', 'AllOf', 'schemas'],
  ['oneOf', 'OneOf', 'schemas'],
  ['anyOf', 'AnyOf', 'schemas'],
  ['not', 'Not', 'ptrSchema'],
  ['properties', 'Properties', 'schemaMap'],
  ['additionalProperties', 'AdditionalProperties', 'schemaOrBool'],
  ['patternProperties', 'PatternProperties', 'schemaMap'],
  ['dependencies', 'Dependencies', 'dependencies'],
  ['additionalItems', 'AdditionalItems', 'schemaOrBool'],
  ['definitions', 'Definitions', 'definitions'],
  ['externalDocs', 'ExternalDocs', 'externalDocs'],
  ['example', 'Example', 'ptrJSON'],
  ['nullable', 'Nullable', 'bool'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields', 'ptrBool'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource', 'bool'],
  ['x-kubernetes-int-or-string', 'XIntOrString', 'bool'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys', 'strings'],
  ['x-kubernetes-list-type', 'XListType', 'ptrString'],
  ['x-kubernetes-map-type', 'XMapType', 'ptrString'],
  ['x-kubernetes-validations', 'XValidations', 'validations'],
];

const VALIDATION_RULE_FIELDS: readonly Field[] = [
  ['rule', 'Rule', 'string'],
  ['message', 'Message', 'string'],
  ['messageExpression', 'MessageExpression', 'string'],
  ['reason', 'Reason', 'ptrString'],
  ['fieldPath', 'FieldPath', 'string'],
  ['optionalOldSelf', 'OptionalOldSelf', 'ptrBool'],
];

const EXTERNAL_DOCS_FIELDS: readonly Field[] = [
  ['description', 'Description', 'string'],
  ['url', 'URL', 'string'],
];

/** The UTF-8 bytes of a JSON value as Go's encoding/json holds it in `JSON.Raw`. */
const rawBytes = (v: unknown): number[] => [...Buffer.from(canonicalJson(v), 'utf8')];

/** Go's `%v` of a float64. */
export function goFloat(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const exp = Number(n.toExponential().split('e')[1]);
  if (exp < -4 || exp >= 21) {
    const [mant, e] = n.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[+-]/, '');
    return `${mant}e${sign}${digits.padStart(2, '0')}`;
  }
  return goNumber(n);
}

// ---- the generated String() ---------------------------------------------------------------------

/** Where Go would print a pointer's address (`%v` of a non-nil scalar pointer inside a struct value): never stable. */
export const GO_POINTER = '0xc000000000';

/** `(*JSONSchemaProps).String()` of the protobuf-generated code, for a schema as JSON. */
export function goSchemaString(s: Schema | undefined): string {
  return s === undefined ? 'nil' : structString('JSONSchemaProps', SCHEMA_FIELDS, s);
}

/** A generated `String()` of a struct pointer: `&<type>{<Go name>:<value>,…}`. */
function structString(type: string, fields: readonly Field[], s: Schema): string {
  return `&${type}{${fields.map(([json, go, kind]) => `${go}:${stringField(s[json], kind)},`).join('')}}`;
}

function stringField(v: unknown, kind: Kind): string {
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? v : '';
    case 'bool':
      return v === true ? 'true' : 'false';
    case 'ptrString':
      return typeof v === 'string' ? `*${v}` : 'nil';
    case 'ptrFloat':
    case 'ptrInt':
      return typeof v === 'number' ? `*${goFloat(v)}` : 'nil';
    case 'ptrBool':
      return typeof v === 'boolean' ? `*${v}` : 'nil';
    case 'ptrJSON':
      return jsonString(v);
    case 'jsonList':
      return `[]JSON{${list(v).map((e) => `${jsonString(e).slice(1)},`).join('')}}`;
    case 'strings':
      return `[${list(v).map(String).join(' ')}]`;
    case 'schemaOrArray':
      return schemaOrArrayString(v);
    case 'schemas':
      return `[]JSONSchemaProps{${list(v).map((e) => `${goSchemaString(asSchema(e)).slice(1)},`).join('')}}`;
    case 'ptrSchema':
      return isObject(v) ? goSchemaString(v) : 'nil';
    case 'schemaMap':
      return `map[string]JSONSchemaProps{${sortedEntries(v).map(([k, e]) => `${k}: ${schemaValue(asSchema(e))},`).join('')}}`;
    case 'schemaOrBool':
      return schemaOrBoolString(v);
    case 'dependencies':
      return `JSONSchemaDependencies{${sortedEntries(v).map(([k, e]) => `${k}: ${dependencyValue(e)},`).join('')}}`;
    case 'definitions':
      return `JSONSchemaDefinitions{${sortedEntries(v).map(([k, e]) => `${k}: ${schemaValue(asSchema(e))},`).join('')}}`;
    case 'externalDocs':
      return isObject(v) ? structString('ExternalDocumentation', EXTERNAL_DOCS_FIELDS, v) : 'nil';
    case 'validations':
      return `[]ValidationRule{${list(v).map((e) => `${structString('ValidationRule', VALIDATION_RULE_FIELDS, asSchema(e)).slice(1)},`).join('')}}`;
  }
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asSchema = (v: unknown): Schema => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const sortedEntries = (v: unknown): [string, unknown][] => (isObject(v) ? Object.keys(v).sort().map((k) => [k, v[k]]) : []);

function jsonString(v: unknown): string {
  return v === undefined ? 'nil' : `&JSON{Raw:*[${rawBytes(v).join(' ')}],}`;
}

function schemaOrArrayString(v: unknown): string {
  if (v === undefined) return 'nil';
  const schema = isObject(v) ? goSchemaString(v) : 'nil';
  const schemas = Array.isArray(v) ? v.map((e) => `${goSchemaString(asSchema(e)).slice(1)},`).join('') : '';
  return `&JSONSchemaPropsOrArray{Schema:${schema},JSONSchemas:[]JSONSchemaProps{${schemas}},}`;
}

function schemaOrBoolString(v: unknown): string {
  if (v === undefined) return 'nil';
  const allows = v === false ? 'false' : 'true';
  return `&JSONSchemaPropsOrBool{Allows:${allows},Schema:${isObject(v) ? goSchemaString(v) : 'nil'},}`;
}

/** Go's `%v` of a JSONSchemaProps value (a map element): `{f1 f2 …}`, Stringers called, other pointers as addresses. */
function schemaValue(s: Schema, fields: readonly Field[] = SCHEMA_FIELDS): string {
  return `{${fields.map(([json, , kind]) => valueField(s[json], kind)).join(' ')}}`;
}

function valueField(v: unknown, kind: Kind): string {
  switch (kind) {
    case 'string':
      return str(v);
    case 'bool':
      return v === true ? 'true' : 'false';
    case 'ptrString':
    case 'ptrFloat':
    case 'ptrInt':
    case 'ptrBool':
      return v === undefined ? '<nil>' : GO_POINTER;
    case 'jsonList':
      return `[${list(v).map((e) => `{[${rawBytes(e).join(' ')}]}`).join(' ')}]`;
    case 'strings':
      return `[${list(v).map(String).join(' ')}]`;
    case 'schemas':
      return `[${list(v).map((e) => schemaValue(asSchema(e))).join(' ')}]`;
    case 'schemaMap':
    case 'definitions':
      return `map[${sortedEntries(v).map(([k, e]) => `${k}:${schemaValue(asSchema(e))}`).join(' ')}]`;
    case 'dependencies':
      return `map[${sortedEntries(v).map(([k, e]) => `${k}:${dependencyValue(e)}`).join(' ')}]`;
    case 'validations':
      return `[${list(v).map((e) => schemaValue(asSchema(e), VALIDATION_RULE_FIELDS)).join(' ')}]`;
    default:
      // *JSON, *JSONSchemaProps, *JSONSchemaPropsOrArray, *JSONSchemaPropsOrBool, *ExternalDocumentation: Stringers.
      return stringField(v, kind);
  }
}

function dependencyValue(v: unknown): string {
  const schema = isObject(v) ? goSchemaString(v) : 'nil';
  return `{${schema} [${Array.isArray(v) ? v.map(String).join(' ') : ''}]}`;
}

// ---- go-cmp's diff ------------------------------------------------------------------------------

/** One `-` or `+` line of go-cmp's report, as `<field>: <value>` or a bare value. */
export interface DiffLine {
  readonly sign: '-' | '+';
  readonly text: string;
}

/** The `-`/`+` lines of `cmp.Diff(a, b)` for two schemas, top-level fields in struct order. */
export function cmpDiffLines(a: Schema, b: Schema): DiffLine[] {
  const out: DiffLine[] = [];
  diffFields(a, b, SCHEMA_FIELDS, out);
  // Keys Go would not decode into JSONSchemaProps cannot reach crdify; ours are reported under their JSON name.
  const known = new Set(SCHEMA_FIELDS.map(([json]) => json));
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (known.has(key) || canonicalJson(a[key]) === canonicalJson(b[key])) continue;
    out.push({ sign: '-', text: `${key}: ${literal(a[key], 'ptrJSON')}` }, { sign: '+', text: `${key}: ${literal(b[key], 'ptrJSON')}` });
  }
  return out;
}

function diffFields(a: Schema, b: Schema, fields: readonly Field[], out: DiffLine[]): void {
  for (const [json, go, kind] of fields) diffValue(go, a[json], b[json], kind, out);
}

function isZero(v: unknown, kind: Kind): boolean {
  if (v === undefined) return true;
  if (kind === 'string') return v === '';
  if (kind === 'bool') return v === false;
  return false;
}

function diffValue(field: string, a: unknown, b: unknown, kind: Kind, out: DiffLine[]): void {
  if (isZero(a, kind) && isZero(b, kind)) return;
  if (canonicalJson(a) === canonicalJson(b)) return;
  const whole = (): void => {
    out.push({ sign: '-', text: `${field}: ${literal(a, kind)}` }, { sign: '+', text: `${field}: ${literal(b, kind)}` });
  };
  if (a === undefined || b === undefined) return whole();
  switch (kind) {
    case 'ptrJSON':
      out.push(
        { sign: '-', text: `Raw: []uint8(${goStringLiteral(canonicalJson(a))})` },
        { sign: '+', text: `Raw: []uint8(${goStringLiteral(canonicalJson(b))})` },
      );
      return;
    case 'ptrSchema':
      return isObject(a) && isObject(b) ? diffFields(a, b, SCHEMA_FIELDS, out) : whole();
    case 'externalDocs':
      return isObject(a) && isObject(b) ? diffFields(a, b, EXTERNAL_DOCS_FIELDS, out) : whole();
    case 'schemaOrBool':
    case 'schemaOrArray':
      return diffWrapper(a, b, kind, out);
    case 'strings':
    case 'jsonList':
    case 'schemas':
    case 'validations':
      return diffList(list(a), list(b), kind, out);
    case 'schemaMap':
    case 'definitions':
    case 'dependencies':
      return diffMap(a, b, kind, out);
    default:
      return whole();
  }
}

/** JSONSchemaPropsOrBool / OrArray: a struct whose fields go-cmp compares one by one. */
function diffWrapper(a: unknown, b: unknown, kind: 'schemaOrBool' | 'schemaOrArray', out: DiffLine[]): void {
  if (kind === 'schemaOrBool') {
    diffValue('Allows', a !== false, b !== false, 'bool', out);
    diffValue('Schema', isObject(a) ? a : undefined, isObject(b) ? b : undefined, 'ptrSchema', out);
    return;
  }
  diffValue('Schema', isObject(a) ? a : undefined, isObject(b) ? b : undefined, 'ptrSchema', out);
  diffValue('JSONSchemas', Array.isArray(a) ? a : undefined, Array.isArray(b) ? b : undefined, 'schemas', out);
}

/** Slices: equal-length lists are compared element by element; otherwise added and removed elements print whole. */
function diffList(a: unknown[], b: unknown[], kind: Kind, out: DiffLine[]): void {
  const elementLiteral = (e: unknown): string => elementText(e, kind);
  if (a.length === b.length) {
    a.forEach((e, i) => {
      const f = b[i];
      if (canonicalJson(e) === canonicalJson(f)) return;
      if ((kind === 'schemas' || kind === 'validations') && isObject(e) && isObject(f)) {
        diffFields(e, f, kind === 'schemas' ? SCHEMA_FIELDS : VALIDATION_RULE_FIELDS, out);
      } else {
        out.push({ sign: '-', text: elementLiteral(e) }, { sign: '+', text: elementLiteral(f) });
      }
    });
    return;
  }
  const inB = new Set(b.map((e) => canonicalJson(e)));
  const inA = new Set(a.map((e) => canonicalJson(e)));
  for (const e of a) if (!inB.has(canonicalJson(e))) out.push({ sign: '-', text: elementLiteral(e) });
  for (const e of b) if (!inA.has(canonicalJson(e))) out.push({ sign: '+', text: elementLiteral(e) });
}

function elementText(e: unknown, kind: Kind): string {
  if (kind === 'strings') return goQuote(String(e));
  if (kind === 'jsonList') return jsonLiteral(e, false);
  if (kind === 'validations') return structLiteral(asSchema(e), VALIDATION_RULE_FIELDS, '');
  return structLiteral(asSchema(e), SCHEMA_FIELDS, '');
}

function diffMap(a: unknown, b: unknown, kind: Kind, out: DiffLine[]): void {
  const am = asSchema(a);
  const bm = asSchema(b);
  for (const key of [...new Set([...Object.keys(am), ...Object.keys(bm)])].sort()) {
    const [x, y] = [am[key], bm[key]];
    if (canonicalJson(x) === canonicalJson(y)) continue;
    if (x !== undefined && y !== undefined && isObject(x) && isObject(y)) {
      diffFields(x, y, SCHEMA_FIELDS, out);
      continue;
    }
    if (x !== undefined) out.push({ sign: '-', text: `${goQuote(key)}: ${mapValueLiteral(x, kind)}` });
    if (y !== undefined) out.push({ sign: '+', text: `${goQuote(key)}: ${mapValueLiteral(y, kind)}` });
  }
}

function mapValueLiteral(v: unknown, kind: Kind): string {
  if (kind === 'dependencies') {
    if (Array.isArray(v)) return `{Property: []string{${v.map((e) => goQuote(String(e))).join(', ')}}}`;
    return `{Schema: ${structLiteral(asSchema(v), SCHEMA_FIELDS, '&v1.JSONSchemaProps')}}`;
  }
  return structLiteral(asSchema(v), SCHEMA_FIELDS, '');
}

/** A whole value as go-cmp prints it on one line. */
function literal(v: unknown, kind: Kind): string {
  switch (kind) {
    case 'string':
      return goQuote(str(v));
    case 'bool':
      return v === true ? 'true' : 'false';
    case 'ptrString':
      return typeof v === 'string' ? `&${goQuote(v)}` : 'nil';
    case 'ptrFloat':
    case 'ptrInt':
      return typeof v === 'number' ? `&${goFloat(v)}` : 'nil';
    case 'ptrBool':
      return typeof v === 'boolean' ? `&${v}` : 'nil';
    case 'ptrJSON':
      return v === undefined ? 'nil' : jsonLiteral(v, true);
    case 'jsonList':
      return v === undefined ? 'nil' : `[]v1.JSON{${list(v).map((e) => jsonLiteral(e, false)).join(', ')}}`;
    case 'strings':
      return v === undefined ? 'nil' : `[]string{${list(v).map((e) => goQuote(String(e))).join(', ')}}`;
    case 'schemas':
      return v === undefined ? 'nil' : `[]v1.JSONSchemaProps{${list(v).map((e) => structLiteral(asSchema(e), SCHEMA_FIELDS, '')).join(', ')}}`;
    case 'ptrSchema':
      return isObject(v) ? structLiteral(v, SCHEMA_FIELDS, '&v1.JSONSchemaProps') : 'nil';
    case 'schemaOrArray':
    case 'schemaOrBool': {
      if (v === undefined) return 'nil';
      const name = kind === 'schemaOrBool' ? 'JSONSchemaPropsOrBool' : 'JSONSchemaPropsOrArray';
      const fields: string[] = [];
      if (kind === 'schemaOrBool' && v !== false) fields.push('Allows: true');
      if (isObject(v)) fields.push(`Schema: ${structLiteral(v, SCHEMA_FIELDS, '&v1.JSONSchemaProps')}`);
      if (Array.isArray(v)) fields.push(`JSONSchemas: ${literal(v, 'schemas')}`);
      return `&v1.${name}{${fields.join(', ')}}`;
    }
    case 'schemaMap':
    case 'definitions':
    case 'dependencies': {
      if (v === undefined) return 'nil';
      const type = kind === 'schemaMap' ? 'map[string]v1.JSONSchemaProps' : kind === 'definitions' ? 'v1.JSONSchemaDefinitions' : 'v1.JSONSchemaDependencies';
      return `${type}{${sortedEntries(v).map(([k, e]) => `${goQuote(k)}: ${mapValueLiteral(e, kind)}`).join(', ')}}`;
    }
    case 'externalDocs':
      return isObject(v) ? structLiteral(v, EXTERNAL_DOCS_FIELDS, '&v1.ExternalDocumentation') : 'nil';
    case 'validations':
      return v === undefined ? 'nil' : `v1.ValidationRules{${list(v).map((e) => structLiteral(asSchema(e), VALIDATION_RULE_FIELDS, '')).join(', ')}}`;
  }
}

function structLiteral(s: Schema, fields: readonly Field[], type: string): string {
  const parts = fields.filter(([json, , kind]) => !isZero(s[json], kind)).map(([json, go, kind]) => `${go}: ${literal(s[json], kind)}`);
  return `${type}{${parts.join(', ')}}`;
}

/** `&v1.JSON{Raw: []uint8(…)}`: go-cmp prints text bytes as a string literal, raw (backquoted) when that reads better. */
function jsonLiteral(v: unknown, pointer: boolean): string {
  return `${pointer ? '&v1.JSON' : ''}{Raw: []uint8(${goStringLiteral(canonicalJson(v))})}`;
}

function goStringLiteral(s: string): string {
  const quoted = goQuote(s);
  if (quoted.length === s.length + 2) return quoted;
  if (!/[`\n]/.test(s) && /^[\P{C}\t]*$/u.test(s)) return `\`${s}\``;
  return quoted;
}
