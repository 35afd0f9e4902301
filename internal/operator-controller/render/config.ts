// The registry+v1 bundle configuration (`spec.config.inline`): its JSON schema, built from the
// bundle's install modes as upstream builds it (rukpak/bundle/registryv1.go), and a draft-07
// validator for exactly the keywords that schema uses, producing upstream's messages
// (config/config.go, which formats santhosh-tekuri/jsonschema v6 errors).
//
// The base schema is upstream's own file, vendored unmodified as data beside this module:
// registryv1bundleconfig.json = operator-framework/operator-controller
// internal/operator-controller/rukpak/bundle/registryv1bundleconfig.json at commit
// df2c201d70e83d02eae23597d604269fa1baf20a (git blob 7ce7b8df3d591cdc768614adc034ef214eee215f),
// Apache License 2.0. It holds deploymentConfig (OLMv0's SubscriptionConfig minus `selector`) with
// the full OpenAPI of the Kubernetes types it embeds under `components.schemas`.
import { supportedInstallModes, type ClusterServiceVersion } from '../../shared/registryv1/index.ts';
import { isObject } from '../../shared/toolkit/index.ts';
// A JSON module: bundled by esbuild into whichever output holds this one (controllers and CLI alike).
import upstreamBaseSchema from './registryv1bundleconfig.json' with { type: 'json' };

type JsonType = 'object' | 'string' | 'array' | 'null' | 'boolean' | 'number' | 'integer';

/** A draft-07 schema node, as far as the validator reads it; every other key is an annotation. */
export interface Schema {
  readonly type?: JsonType;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: boolean | Schema;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly allOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  /** A JSON pointer into the root document (`#/components/schemas/…`); in draft-07 the keywords beside it are ignored. */
  readonly $ref?: string;
  readonly components?: { readonly schemas?: Readonly<Record<string, Schema>> };
  readonly [annotation: string]: unknown;
}

/** Keywords the validator applies; the audit in config.test.ts holds the vendored schema to these plus annotations. */
export const VALIDATION_KEYWORDS = ['type', 'properties', 'additionalProperties', 'required', 'items', 'allOf', 'anyOf', 'oneOf', 'minLength', 'maxLength', 'pattern', 'format', '$ref'] as const;

export const FORMAT_OWN_NAMESPACE = 'ownNamespaceInstallMode';
export const FORMAT_SINGLE_NAMESPACE = 'singleNamespaceInstallMode';

/** Upstream's base schema (watchNamespace and deploymentConfig), shared: never edited, only copied from. */
export function baseBundleConfigSchema(): Schema {
  return upstreamBaseSchema as Schema;
}

/**
 * The bundle's config schema, as buildBundleConfigSchema edits the base: watchNamespace (a namespace
 * name, with the Own/Single format) only with Single/Own support, required without AllNamespaces;
 * without the DeploymentConfig gate, no deploymentConfig (as the manifest provider drops it).
 */
export function bundleConfigSchema(csv: ClusterServiceVersion, opts: { deploymentConfig?: boolean } = {}): Schema {
  const modes = new Set(supportedInstallModes(csv));
  const base = baseBundleConfigSchema();
  const properties: Record<string, Schema> = { ...base.properties };
  const required = new Set(base.required ?? []);
  const own = modes.has('OwnNamespace');
  const single = modes.has('SingleNamespace');
  if (own || single) {
    const format = own && !single ? FORMAT_OWN_NAMESPACE : single && !own ? FORMAT_SINGLE_NAMESPACE : undefined;
    const ns: Schema = { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', ...(format && { format }) };
    if (modes.has('AllNamespaces')) {
      properties['watchNamespace'] = { anyOf: [{ type: 'null' }, ns] };
      required.delete('watchNamespace');
    } else {
      properties['watchNamespace'] = ns;
      required.add('watchNamespace');
    }
  } else {
    delete properties['watchNamespace'];
    required.delete('watchNamespace');
  }
  if (opts.deploymentConfig === false) delete properties['deploymentConfig'];
  const { required: _, ...rest } = base;
  return { ...rest, properties, ...(required.size > 0 && { required: [...required] }) };
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v; // string, number, boolean, object
}

/** The library's type check: an integral number is also an `integer`. */
function typeMatches(want: JsonType, v: unknown): boolean {
  const got = jsonType(v);
  return got === want || (want === 'integer' && got === 'number' && Number.isInteger(v));
}

/**
 * A node of santhosh-tekuri/jsonschema's error tree: its kind (rendered as the library's
 * `String()`, plus what config.go reads from it), the instance location, and its causes.
 */
type ErrorKind =
  | { kind: 'type'; got: string; want: string }
  | { kind: 'format'; got: string; want: string; err: string }
  | { kind: 'required'; missing: string[] }
  | { kind: 'additionalProperties'; properties: string[] }
  | { kind: 'minLength' | 'maxLength'; got: number; want: number }
  | { kind: 'pattern'; got: string; want: string }
  | { kind: 'allOf' | 'anyOf' }
  | { kind: 'oneOf'; matched?: readonly [number, number] }
  | { kind: 'group' }
  | { kind: 'reference' };

interface SchemaError {
  readonly error: ErrorKind;
  readonly location: readonly string[];
  readonly causes: readonly SchemaError[];
}

/** The library's quote(): Go %q with `"` unescaped and `'` escaped, in single quotes. */
const quote = (s: string): string => `'${JSON.stringify(s).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
/** The library's display() of a format failure's value (`%v` for the rest; every format here checks strings only). */
const display = (v: unknown): string => (typeof v === 'string' ? quote(v) : Array.isArray(v) || isObject(v) ? 'value' : v === null ? '<nil>' : String(v));

/** Go's time package quote(): ASCII kept (`"` and `\` escaped), every other byte and control byte as \xNN. */
function goTimeQuote(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) {
    if (b >= 0x80 || b < 0x20) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += (b === 0x22 || b === 0x5c ? '\\' : '') + String.fromCharCode(b);
  }
  return `${out}"`;
}

const isDigit = (s: Buffer, i: number): boolean => i < s.length && s[i]! >= 0x30 && s[i]! <= 0x39;

/** Go's strconv.Atoi of a short ASCII token: an optional sign, then decimal digits only. */
function goAtoi(tok: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(tok) ? Number.parseInt(tok, 10) : undefined;
}

/** Go's strings.SplitN: at most n parts, the last holding the rest. */
function goSplitN(s: string, sep: string, n: number): string[] {
  const parts: string[] = [];
  let rest = s;
  for (let i = rest.indexOf(sep); parts.length < n - 1 && i >= 0; i = rest.indexOf(sep)) {
    parts.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  return [...parts, rest];
}

/** Go's time.Parse("2006-01-02", s) for the 10 bytes the library hands it: its error text, or undefined. */
function goParseDate(s: Buffer): string | undefined {
  const value = goTimeQuote(s);
  const cannot = (rest: Buffer, elem: string): string => `parsing time ${value} as "2006-01-02": cannot parse ${goTimeQuote(rest)} as "${elem}"`;
  if (s.length < 4 || !isDigit(s, 0) || goAtoi(s.subarray(0, 4).toString('latin1')) === undefined) return cannot(s, '2006');
  const year = Number(s.subarray(0, 4).toString('latin1'));
  let rest = s.subarray(4);
  const num = (elem: string, dash: boolean): number | string => {
    if (dash) {
      if (rest.length === 0 || rest[0] !== 0x2d) return cannot(rest, '-');
      rest = rest.subarray(1);
    }
    if (!isDigit(rest, 0) || !isDigit(rest, 1)) return cannot(rest, elem);
    const n = (rest[0]! - 0x30) * 10 + (rest[1]! - 0x30);
    rest = rest.subarray(2);
    return n;
  };
  const month = num('01', true);
  if (typeof month === 'string') return month;
  if (month < 1 || month > 12) return `parsing time ${value}: month out of range`;
  const day = num('02', true);
  if (typeof day === 'string') return day;
  if (rest.length > 0) return `parsing time ${value}: extra text: ${goTimeQuote(rest)}`;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day < 1 || day > days ? `parsing time ${value}: day out of range` : undefined;
}

/** The library's RFC 3339 time check (leap seconds only at 23:59 UTC). */
function timeError(str: string): string | undefined {
  if (str.length < 9) return 'less than 9 characters long';
  if (str[2] !== ':' || str[5] !== ':') return 'missing colon in correct place';
  const hms: number[] = [];
  for (const tok of goSplitN(str.slice(0, 8), ':', 3)) {
    const n = goAtoi(tok);
    if (n === undefined) return 'invalid hour/min/sec';
    if (n < 0) return 'non-positive hour/min/sec';
    hms.push(n);
  }
  if (hms.length !== 3) return 'missing hour/min/sec';
  let [h, m] = hms as [number, number, number];
  const sec = hms[2]!;
  if (h > 23 || m > 59 || sec > 60) return 'hour/min/sec out of range';
  let rest = str.slice(8);
  if (rest.startsWith('.')) {
    const digits = /^[0-9]*/.exec(rest.slice(1))![0].length;
    if (digits === 0) return 'no digits in second fraction';
    rest = rest.slice(1 + digits);
  }
  if (rest !== 'z' && rest !== 'Z') {
    if (rest.length !== 6) return 'offset must be 6 characters long';
    if (rest[0] !== '+' && rest[0] !== '-') return 'offset must begin with plus/minus';
    const sign = rest[0] === '+' ? -1 : 1;
    rest = rest.slice(1);
    if (rest[2] !== ':') return 'missing colon in offset in correct place';
    const zhm: number[] = [];
    for (const tok of goSplitN(rest, ':', 2)) {
      const n = goAtoi(tok);
      if (n === undefined) return 'invalid hour/min in offset';
      if (n < 0) return 'non-positive hour/min in offset';
      zhm.push(n);
    }
    const [zh, zm] = zhm as [number, number];
    if (zh > 23 || zm > 59) return 'hour/min in offset out of range';
    let hm = h * 60 + m + sign * (zh * 60 + zm);
    if (hm < 0) hm += 24 * 60;
    h = Math.floor(hm / 60);
    m = hm % 60;
  }
  if (sec >= 60 && (h !== 23 || m !== 59)) return 'invalid leap second';
  return undefined;
}

/** The library's `date-time` format (RFC 3339 section 5.6), on the UTF-8 bytes as Go indexes a string. */
function dateTimeError(s: string): string | undefined {
  const b = Buffer.from(s, 'utf8');
  if (b.length < 20) return 'less than 20 characters long';
  if (b[10] !== 0x74 && b[10] !== 0x54) return '11th character must be t or T';
  const date = goParseDate(b.subarray(0, 10));
  if (date !== undefined) return `invalid date element: ${date}`;
  // Past the 'T' the checks look at ASCII only; a non-ASCII byte fails them as it does in Go.
  const time = timeError(b.subarray(11).toString('latin1'));
  return time === undefined ? undefined : `invalid time element: ${time}`;
}

/**
 * The formats a draft-07 schema asserts here: upstream's two install-mode formats (registered by
 * config.go, checked only when the install namespace is known) and the library's `date-time`;
 * any other name (`int32`, `int64`, …) is unknown to the library and so not checked.
 */
function formatError(format: string, value: unknown, installNamespace: string): string | undefined {
  if (format === 'date-time') return typeof value === 'string' ? dateTimeError(value) : undefined;
  if (format !== FORMAT_OWN_NAMESPACE && format !== FORMAT_SINGLE_NAMESPACE) return undefined;
  if (installNamespace === '') return undefined;
  if (typeof value !== 'string') return 'value must be a string';
  if (format === FORMAT_OWN_NAMESPACE && value !== installNamespace) {
    return `invalid value ${JSON.stringify(value)}: must be ${JSON.stringify(installNamespace)} (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode`;
  }
  if (format === FORMAT_SINGLE_NAMESPACE && value === installNamespace) {
    return `invalid value ${JSON.stringify(value)}: must be different from ${JSON.stringify(installNamespace)} (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace`;
  }
  return undefined;
}

/** `$ref` within the document: a JSON pointer fragment (`#/components/schemas/…`), resolved once. */
function resolver(root: Schema): (ref: string) => Schema {
  const cache = new Map<string, Schema>();
  return (ref) => {
    let found = cache.get(ref);
    if (found) return found;
    if (!ref.startsWith('#')) throw new Error(`bundle config schema: $ref ${JSON.stringify(ref)} is not within the document`);
    let node: unknown = root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const tok = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      node = isObject(node) && Object.hasOwn(node, tok) ? node[tok] : undefined;
    }
    if (!isObject(node)) throw new Error(`bundle config schema: $ref ${JSON.stringify(ref)} resolves to nothing`);
    found = node as Schema;
    cache.set(ref, found);
    return found;
  };
}

interface Context {
  readonly resolve: (ref: string) => Schema;
  readonly installNamespace: string;
}

/**
 * Validates as the library does for draft-07: `$ref` alone decides (its error becomes a reference
 * node holding the target's errors); a type or format failure stops at that keyword; otherwise every
 * keyword adds its errors (required, properties, additionalProperties; minLength, maxLength,
 * pattern; then allOf, anyOf, oneOf, each keeping its failing branches' errors as causes); several
 * errors become a group. Upstream visits properties in Go map order (random); this visits them sorted.
 */
function validate(schema: Schema, v: unknown, location: string[], ctx: Context): SchemaError | undefined {
  if (schema.$ref !== undefined) {
    const err = validate(ctx.resolve(schema.$ref), v, location, ctx);
    if (!err) return undefined;
    return { error: { kind: 'reference' }, location, causes: err.error.kind === 'group' ? err.causes : [err] };
  }
  const leaf = (error: ErrorKind, causes: readonly SchemaError[] = []): SchemaError => ({ error, location, causes });
  if (schema.type && !typeMatches(schema.type, v)) return leaf({ kind: 'type', got: jsonType(v), want: schema.type });
  if (schema.format !== undefined) {
    const err = formatError(schema.format, v, ctx.installNamespace);
    if (err !== undefined) return leaf({ kind: 'format', got: display(v), want: schema.format, err });
  }
  const errors: SchemaError[] = [];
  if (isObject(v)) {
    const missing = (schema.required ?? []).filter((r) => !Object.hasOwn(v, r));
    if (missing.length > 0) errors.push(leaf({ kind: 'required', missing }));
    const props = schema.properties ?? {};
    const additional: string[] = [];
    for (const k of Object.keys(v).sort()) {
      const sub = Object.hasOwn(props, k) ? props[k] : typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      if (sub) {
        const err = validate(sub, v[k], [...location, k], ctx);
        if (err) errors.push(err);
      } else if (schema.additionalProperties === false) additional.push(k);
    }
    if (additional.length > 0) errors.push(leaf({ kind: 'additionalProperties', properties: additional }));
  } else if (Array.isArray(v) && schema.items) {
    v.forEach((item, i) => {
      const err = validate(schema.items!, item, [...location, String(i)], ctx);
      if (err) errors.push(err);
    });
  } else if (typeof v === 'string') {
    const len = [...v].length;
    if (schema.minLength !== undefined && len < schema.minLength) errors.push(leaf({ kind: 'minLength', got: len, want: schema.minLength }));
    if (schema.maxLength !== undefined && len > schema.maxLength) errors.push(leaf({ kind: 'maxLength', got: len, want: schema.maxLength }));
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(v)) errors.push(leaf({ kind: 'pattern', got: v, want: schema.pattern }));
  }
  const branch = (sub: Schema): SchemaError | undefined => validate(sub, v, location, ctx);
  if (schema.allOf) {
    const failed = schema.allOf.map(branch).filter((e) => e !== undefined);
    if (failed.length > 0) errors.push(leaf({ kind: 'allOf' }, failed));
  }
  if (schema.anyOf) {
    const failed: SchemaError[] = [];
    const matched = schema.anyOf.some((sub) => {
      const err = branch(sub);
      if (err) failed.push(err);
      return !err;
    });
    if (!matched) errors.push(leaf({ kind: 'anyOf' }, failed));
  }
  if (schema.oneOf) {
    // Each branch's error is kept until one matches; a second match is the error, without causes.
    const failed: SchemaError[] = [];
    let first = -1;
    let second = -1;
    for (const [i, sub] of schema.oneOf.entries()) {
      const err = branch(sub);
      if (err && first === -1) failed.push(err);
      if (!err && first === -1) first = i;
      else if (!err) {
        second = i;
        break;
      }
    }
    if (first === -1) errors.push(leaf({ kind: 'oneOf' }, failed));
    else if (second !== -1) errors.push(leaf({ kind: 'oneOf', matched: [first, second] }));
  }
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return { error: { kind: 'group' }, location, causes: errors };
}

/** The library's String() of an error kind (v6.0.3's words). */
function kindString(k: ErrorKind): string {
  switch (k.kind) {
    case 'type':
      return `got ${k.got}, want ${k.want}`;
    case 'format':
      return `${k.got} is not valid ${k.want}: ${k.err}`;
    case 'required':
      return k.missing.length === 1 ? `missing property ${quote(k.missing[0]!)}` : `missing properties ${k.missing.map(quote).join(', ')}`;
    case 'additionalProperties':
      return `additional properties ${k.properties.map(quote).join(', ')} not allowed`;
    case 'minLength':
    case 'maxLength':
      return `${k.kind}: got ${k.got}, want ${k.want}`;
    case 'pattern':
      return `${quote(k.got)} does not match pattern ${quote(k.want)}`;
    case 'allOf':
    case 'anyOf':
      return `'${k.kind}' failed`;
    case 'oneOf':
      return k.matched ? `'oneOf' failed, subschemas ${k.matched[0]}, ${k.matched[1]} matched` : "'oneOf' failed, none matched";
    case 'group':
    case 'reference':
      return 'validation failed';
  }
}

/** config.go formatSingleError: one unit of the library's BasicOutput in upstream's words. */
function formatUnit(e: SchemaError): string {
  const path = e.location.join('.');
  const p = JSON.stringify(path);
  const k = e.error;
  switch (k.kind) {
    case 'required':
      return `required field ${JSON.stringify(k.missing[0])} is missing`;
    case 'additionalProperties':
      return `unknown field ${JSON.stringify(k.properties[0])}`;
    case 'type':
      if (path === '') return `invalid type: ${kindString(k)}`;
      return kindString(k).includes('got null') ? `required field ${p} is missing` : `invalid type for field ${p}: ${kindString(k)}`;
    case 'format':
      return path === '' ? `invalid format: ${kindString(k)}` : `invalid format for field ${p}: ${kindString(k)}`;
    case 'anyOf':
      return path === '' ? 'invalid value' : `invalid value for field ${p}`;
    case 'maxLength':
      return path === '' ? kindString(k) : `field ${p} must have maximum length of ${k.want} (len=${k.got})`;
    case 'minLength':
      return path === '' ? kindString(k) : `field ${p} must have minimum length of ${k.want} (len=${k.got})`;
    case 'pattern':
      return path === '' ? kindString(k) : `field ${p} must match pattern ${JSON.stringify(k.want)}`;
    default:
      return kindString(k);
  }
}

/**
 * BasicOutput: every node below the root, depth first, a node before its causes. A reference with
 * a single cause is "skipped": it stands as one unit of its own kind (`validation failed`) and
 * whatever lies below its cause is not listed, as the library's output() does.
 */
function flatten(nodes: readonly SchemaError[], out: SchemaError[]): SchemaError[] {
  for (const n of nodes) {
    if (n.error.kind === 'reference' && n.causes.length === 1) {
      out.push({ error: n.error, location: n.causes[0]!.location, causes: [] });
      continue;
    }
    out.push(n);
    flatten(n.causes, out);
  }
  return out;
}

/** Every problem of `config` against `schema`, as upstream words each one, in upstream's order. */
export function configErrors(schema: Schema, config: unknown, installNamespace: string): string[] {
  const err = validate(schema, config, [], { resolve: resolver(schema), installNamespace });
  if (!err) return [];
  const top = err.error.kind === 'group' ? err.causes : [err];
  return flatten(top, []).map(formatUnit);
}

/** Upstream's one-line summary: the message itself, or `multiple errors found:` and a bullet per message. */
export function formatConfigErrors(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `multiple errors found:\n  - ${errs.join('\n  - ')}`;
}
