// Validation of a custom resource against a CRD version's OpenAPI v3 schema with the API server's messages
// (apiextensions-apiserver ValidateCustomResource over kube-openapi's SchemaValidator), for upstream's check
// that existing CRs still pass a CRD's new schema. Only the OpenAPI part, as upstream's NewSchemaValidator:
// no CEL rules, no defaulting, no pruning.
//
// Checks per schema node, in kube-openapi's order: type (nullable, x-kubernetes-int-or-string), allOf/anyOf/
// oneOf/not, string (maxLength, minLength, pattern), format, number (multipleOf, maximum, minimum), array
// (items, minItems, maxItems, uniqueItems), enum, object (min/maxProperties, additionalProperties, properties,
// required, patternProperties). Each kube-openapi error becomes the field error the API server prints:
//
//   <path>: Invalid value: <value>: <path> in body should be greater than or equal to 3
//   <path>: Required value
//   <path>: Unsupported value: "x": supported values: "a", "b"
//   <path>: Too long: may not be more than 5 bytes
//   <path>: Too many: 4: must have at most 3 items
//
// Differences from upstream worth knowing: Go iterates properties in map order (random); we go by sorted name.
// anyOf/oneOf report the composite message and the errors of the first failing alternative (kube-openapi
// picks the alternative with most passing checks). Formats checked: date, date-time, uuid (3/4/5), ipv4, ipv6,
// cidr, mac, byte, hostname, email; the API server knows a few more (isbn, creditcard, …) which pass here.
import { goQuote } from '../../shared/gocompat/index.ts';
import { isObject, tryOr } from '../../shared/toolkit/index.ts';

export type JsonSchemaProps = Record<string, unknown>;

interface OpenApiError {
  readonly code: 'type' | 'required' | 'enum' | 'tooLong' | 'maxItems' | 'tooManyProperties' | 'other' | 'composite';
  /** kube-openapi's error name: the dotted path of the value (`spec.replicas`, `spec.list[0]`). */
  readonly name: string;
  readonly message: string;
  readonly value?: unknown;
  readonly valid?: number;
  readonly values?: readonly unknown[];
}

const isInt64 = (n: number): boolean => Number.isInteger(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER * 1024;

/** The JSON type kube-openapi infers for a decoded value (int64 for integral numbers, as apimachinery decodes them). */
function jsonType(v: unknown): string {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return isInt64(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** Go's `%v` of a float64 (strconv 'g', shortest): exponent form below 1e-4 and from 1e21. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant = '', e = '0'] = f.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 21) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

/** `%v` of a value kube-openapi holds: int64 as an integer, float64 as Go prints it, strings bare, else Go's %v. */
function goValue(v: unknown): string {
  if (typeof v === 'number') return isInt64(v) ? String(v) : goFloat(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  return `map[${Object.keys(v as object).sort().map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`).join(' ')}]`;
}

const inBody = (name: string): string => `${name} in body`;

export interface ValidateOptions {
  /**
   * The field path errors hang from: upstream OLM passes `field.NewPath("")`, printed `[]` (`[].spec.x: …`);
   * the API server passes none (`spec.x: …`).
   */
  readonly root?: string;
}

/**
 * Validates `value` against `schema` (a CRD version's `schema.openAPIV3Schema`) and returns the field errors as the
 * API server prints them, deduplicated; empty when valid.
 */
export function validateCustomResource(schema: JsonSchemaProps | undefined, value: unknown, options: ValidateOptions = {}): string[] {
  if (!schema) return [];
  return [...new Set(validateNode(schema, value, '').map((e) => fieldError(e, options.root)))];
}

// ---- kube-openapi's validators ---------------------------------------------------------------------------

function add(into: OpenApiError[], ...errs: OpenApiError[]): void {
  for (const e of errs) if (!into.some((x) => x.message === e.message)) into.push(e);
}

function typesOf(schema: JsonSchemaProps): string[] {
  if (schema['x-kubernetes-int-or-string'] === true) return ['integer', 'string'];
  return typeof schema['type'] === 'string' && schema['type'] ? [schema['type']] : [];
}

function validateNode(schema: JsonSchemaProps, data: unknown, path: string): OpenApiError[] {
  const out: OpenApiError[] = [];
  if (data === null || data === undefined) {
    add(out, ...typeCheck(schema, null, path), ...enumCheck(schema, null, path));
    return out;
  }
  add(out, ...typeCheck(schema, data, path));
  add(out, ...combinators(schema, data, path));
  if (typeof data === 'string') add(out, ...stringChecks(schema, data, path));
  add(out, ...formatCheck(schema, data, path));
  if (typeof data === 'number') add(out, ...numberChecks(schema, data, path));
  if (Array.isArray(data)) add(out, ...arrayChecks(schema, data, path));
  add(out, ...enumCheck(schema, data, path));
  if (isObject(data)) add(out, ...objectChecks(schema, data, path));
  return out;
}

function invalidType(path: string, typeName: string, value: string): OpenApiError {
  return { code: 'type', name: path, value, message: `${inBody(path)} must be of type ${typeName}: ${goQuote(value)}` };
}

function typeCheck(schema: JsonSchemaProps, data: unknown, path: string): OpenApiError[] {
  const types = typesOf(schema);
  const format = typeof schema['format'] === 'string' ? schema['format'] : '';
  if (types.length === 0 && !format) return [];
  if (data === null) {
    if (types.length > 0 && !types.includes('null') && schema['nullable'] !== true) return [invalidType(path, types.join(','), 'null')];
    return [];
  }
  const t = jsonType(data);
  const isFloatInt = t === 'number' && Number.isInteger(data) && types.includes('integer');
  const isIntFloat = t === 'integer' && types.includes('number');
  if (!(types.includes('number') || types.includes('integer')) && format && (typeof data === 'string' || Array.isArray(data))) return [];
  if (types.length > 0 && !(types.includes(t) || isFloatInt || isIntFloat)) return [invalidType(path, types.join(','), t)];
  return [];
}

function combinators(schema: JsonSchemaProps, data: unknown, path: string): OpenApiError[] {
  const out: OpenApiError[] = [];
  const list = (k: string): JsonSchemaProps[] => (Array.isArray(schema[k]) ? (schema[k] as unknown[]).filter(isObject) : []);
  const anyOf = list('anyOf');
  if (anyOf.length > 0) {
    const results = anyOf.map((s) => validateNode(s, data, path));
    if (!results.some((r) => r.length === 0)) {
      add(out, { code: 'composite', name: path, message: `${goQuote(path)} must validate at least one schema (anyOf)` });
      add(out, ...results[0]!);
    }
  }
  const oneOf = list('oneOf');
  if (oneOf.length > 0) {
    const results = oneOf.map((s) => validateNode(s, data, path));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid !== 1) {
      const more = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      add(out, { code: 'composite', name: path, message: `${goQuote(path)} must validate one and only one schema (oneOf). ${more}` });
      if (valid === 0) add(out, ...results[0]!);
    }
  }
  const allOf = list('allOf');
  if (allOf.length > 0) {
    let validated = 0;
    for (const s of allOf) {
      const r = validateNode(s, data, path);
      if (r.length === 0) validated++;
      add(out, ...r);
    }
    if (validated !== allOf.length) {
      add(out, { code: 'composite', name: path, message: `${goQuote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}` });
    }
  }
  if (isObject(schema['not']) && validateNode(schema['not'], data, path).length === 0) {
    add(out, { code: 'composite', name: path, message: `${goQuote(path)} must not validate the schema (not)` });
  }
  return out;
}

function stringChecks(schema: JsonSchemaProps, data: string, path: string): OpenApiError[] {
  const length = [...data].length;
  const max = schema['maxLength'];
  if (typeof max === 'number' && length > max) {
    return [{ code: 'tooLong', name: path, value: data, valid: max, message: `${inBody(path)} should be at most ${max} chars long` }];
  }
  const min = schema['minLength'];
  if (typeof min === 'number' && length < min) {
    return [{ code: 'other', name: path, value: data, message: `${inBody(path)} should be at least ${min} chars long` }];
  }
  const pattern = schema['pattern'];
  if (typeof pattern === 'string' && pattern) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, 'u');
    } catch (err) {
      return [{ code: 'other', name: path, value: data, message: `${inBody(path)} should match '${pattern}, but pattern is invalid: ${(err as Error).message}'` }];
    }
    if (!re.test(data)) return [{ code: 'other', name: path, value: data, message: `${inBody(path)} should match '${pattern}'` }];
  }
  return [];
}

const dateTime = (s: string): boolean =>
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));

const FORMATS: Readonly<Record<string, RegExp | ((s: string) => boolean)>> = {
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': dateTime,
  datetime: dateTime,
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid3: /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid4: /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  uuid5: /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  ipv4: /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/,
  ipv6: (s) => s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s),
  cidr: (s) => /^[0-9a-fA-F:.]+\/\d{1,3}$/.test(s),
  mac: /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/,
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  hostname: /^(?=.{1,255}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/,
  email: /^[^@\s]+@[^@\s]+$/,
};

function formatCheck(schema: JsonSchemaProps, data: unknown, path: string): OpenApiError[] {
  const format = schema['format'];
  if (typeof format !== 'string' || typeof data !== 'string') return [];
  const check = FORMATS[format];
  if (!check) return [];
  const ok = typeof check === 'function' ? check(data) : check.test(data);
  return ok ? [] : [invalidType(path, format, data)];
}

function numberChecks(schema: JsonSchemaProps, data: number, path: string): OpenApiError[] {
  const out: OpenApiError[] = [];
  const multipleOf = schema['multipleOf'];
  if (typeof multipleOf === 'number') {
    const intCase = isInt64(data);
    const factor = intCase ? Math.trunc(multipleOf) : multipleOf;
    if (factor <= 0) out.push({ code: 'other', name: path, value: factor, message: `factor MultipleOf declared for ${path} must be positive: ${goValue(factor)}` });
    else {
      const mult = intCase ? data % factor === 0 : Number.isInteger(factor < 1 ? (1 / factor) * data : data / factor);
      if (!mult) out.push({ code: 'other', name: path, value: data, message: `${inBody(path)} should be a multiple of ${goValue(factor)}` });
    }
  }
  const bound = (key: 'minimum' | 'maximum'): OpenApiError | undefined => {
    const limit = schema[key];
    if (typeof limit !== 'number') return undefined;
    const exclusive = schema[key === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum'] === true;
    // An int64 value is compared with the limit truncated to int64, as MinimumNativeType does.
    const l = isInt64(data) ? Math.trunc(limit) : limit;
    const bad = key === 'minimum' ? (exclusive ? data <= l : data < l) : exclusive ? data >= l : data > l;
    if (!bad) return undefined;
    const words = key === 'minimum' ? (exclusive ? 'greater than' : 'greater than or equal to') : exclusive ? 'less than' : 'less than or equal to';
    return { code: 'other', name: path, value: data, message: `${inBody(path)} should be ${words} ${goValue(l)}` };
  };
  return [...out, ...[bound('minimum'), bound('maximum')].filter((e) => e !== undefined)];
}

function arrayChecks(schema: JsonSchemaProps, data: readonly unknown[], path: string): OpenApiError[] {
  const out: OpenApiError[] = [];
  const items = schema['items'];
  if (isObject(items)) data.forEach((v, i) => add(out, ...validateNode(items, v, `${path}[${i}]`)));
  else if (Array.isArray(items)) items.forEach((s, i) => i < data.length && isObject(s) && add(out, ...validateNode(s, data[i], `${path}[${i}]`)));
  const min = schema['minItems'];
  if (typeof min === 'number' && data.length < min) add(out, { code: 'other', name: path, value: data.length, message: `${inBody(path)} should have at least ${min} items` });
  const max = schema['maxItems'];
  if (typeof max === 'number' && data.length > max) add(out, { code: 'maxItems', name: path, value: data.length, valid: max, message: `${inBody(path)} should have at most ${max} items` });
  if (schema['uniqueItems'] === true && new Set(data.map(canonical)).size < data.length) {
    add(out, { code: 'other', name: path, message: `${inBody(path)} shouldn't contain duplicates` });
  }
  return out;
}

/** JSON text with every object's keys sorted: equal values (the enum check, the step ensurer's patch) give equal text. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

function enumCheck(schema: JsonSchemaProps, data: unknown, path: string): OpenApiError[] {
  const values = schema['enum'];
  if (!Array.isArray(values) || values.length === 0) return [];
  if (values.some((v) => canonical(v) === canonical(data ?? null))) return [];
  return [{ code: 'enum', name: path, value: data ?? null, values, message: `${inBody(path)} should be one of [${values.map(goValue).join(' ')}]` }];
}

function objectChecks(schema: JsonSchemaProps, data: Record<string, unknown>, path: string): OpenApiError[] {
  const out: OpenApiError[] = [];
  const keys = Object.keys(data);
  const minP = schema['minProperties'];
  if (typeof minP === 'number' && keys.length < minP) add(out, { code: 'other', name: path, value: keys.length, message: `${inBody(path)} should have at least ${minP} properties` });
  const maxP = schema['maxProperties'];
  if (typeof maxP === 'number' && keys.length > maxP) {
    add(out, { code: 'tooManyProperties', name: path, value: keys.length, valid: maxP, message: `${inBody(path)} should have at most ${maxP} properties` });
  }
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const patterns = isObject(schema['patternProperties']) ? Object.entries(schema['patternProperties']).filter((e): e is [string, JsonSchemaProps] => isObject(e[1])) : [];
  const matching = (k: string): [string, JsonSchemaProps][] => patterns.filter(([p]) => safeTest(p, k));
  const additional = schema['additionalProperties'];
  const child = (k: string): string => (path ? `${path}.${k}` : k);
  if (additional === false) {
    for (const k of keys.sort()) {
      if (!(k in properties) && matching(k).length === 0) add(out, { code: 'other', name: path, value: k, message: `${path}.${k} in body is a forbidden property` });
    }
  } else {
    for (const k of keys.sort()) {
      const matched = matching(k);
      for (const [, s] of matched) add(out, ...validateNode(s, data[k], `${path}.${k}`));
      if (!(k in properties) && matched.length === 0 && isObject(additional)) add(out, ...validateNode(additional, data[k], `${path}.${k}`));
    }
  }
  for (const name of Object.keys(properties).sort()) {
    const s = properties[name];
    if (isObject(s) && name in data) add(out, ...validateNode(s, data[name], child(name)));
  }
  const required = Array.isArray(schema['required']) ? (schema['required'] as unknown[]).filter((r): r is string => typeof r === 'string') : [];
  for (const k of required) if (!(k in data)) add(out, { code: 'required', name: `${path}.${k}`, message: `${path}.${k} in body is required` });
  return out;
}

const safeTest = (pattern: string, s: string): boolean => tryOr(() => new RegExp(pattern, 'u').test(s), false);

// ---- kube-openapi error → apimachinery field error (kubeOpenAPIResultToFieldErrors) -----------------------

function fieldPath(root: string | undefined, name: string): string {
  const rel = name && name !== '.' ? name.replace(/^\./, '') : '';
  if (root === undefined) return rel || '<nil>';
  return rel ? `${root}.${rel}` : root;
}

/** ErrorBody's printing of a bad value: numbers and booleans bare, strings quoted, anything else as JSON. */
function badValue(v: unknown): string {
  if (typeof v === 'number') return isInt64(v) ? String(v) : goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return goQuote(v);
  return JSON.stringify(v ?? null);
}

function fieldError(e: OpenApiError, root: string | undefined): string {
  if (e.code === 'composite') return `${root === undefined ? '<nil>' : root}: Invalid value: "": ${e.message}`;
  const at = fieldPath(root, e.name);
  switch (e.code) {
    case 'required':
      return `${at}: Required value`;
    case 'enum': {
      const supported = (e.values ?? []).map((v) => goQuote(typeof v === 'string' ? v : JSON.stringify(v)));
      return `${at}: Unsupported value: ${badValue(e.value)}${supported.length ? `: supported values: ${supported.join(', ')}` : ''}`;
    }
    case 'tooLong':
      return `${at}: Too long: may not be more than ${e.valid} ${e.valid === 1 ? 'byte' : 'bytes'}`;
    case 'maxItems':
    case 'tooManyProperties':
      return `${at}: Too many: ${e.value}: must have at most ${e.valid} ${e.valid === 1 ? 'item' : 'items'}`;
    case 'type':
    case 'other':
      return `${at}: Invalid value: ${badValue(e.value === undefined ? '' : e.value)}: ${e.message}`;
  }
}
