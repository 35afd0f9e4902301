// The registry+v1 bundle configuration (`spec.config.inline`): its JSON schema, built from the
// bundle's install modes as upstream builds it (rukpak/bundle/registryv1.go), and a validator for
// exactly the keywords that schema uses, producing upstream's messages (config/config.go, which
// formats santhosh-tekuri/jsonschema errors).
import { supportedInstallModes, type ClusterServiceVersion } from '../../shared/registryv1/index.ts';
import { isObject } from '../../shared/toolkit/index.ts';

export type Schema = {
  type?: 'object' | 'string' | 'array' | 'null';
  properties?: Record<string, Schema>;
  additionalProperties?: false | Schema;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  /** Upstream reaches this schema through `$ref` (a Kubernetes type): its errors are wrapped in a reference node. */
  ref?: string;
};

export const FORMAT_OWN_NAMESPACE = 'ownNamespaceInstallMode';
export const FORMAT_SINGLE_NAMESPACE = 'singleNamespaceInstallMode';

const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };
const k8sType = (ref: string, required: string[] = []): Schema => ({
  ref,
  type: 'object',
  ...(required.length > 0 ? { required, properties: Object.fromEntries(required.map((r) => [r, { type: 'string' as const }])) } : {}),
});
const listOf = (item: Schema): Schema => ({ type: 'array', items: item });

/**
 * OLMv0 SubscriptionConfig minus `selector`. The Kubernetes types are checked for their kind and
 * required fields only (upstream's schema has their full OpenAPI); like upstream's, they are
 * `$ref`s, so problems inside them surface as the library's `validation failed`.
 */
const DEPLOYMENT_CONFIG: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    nodeSelector: stringMap,
    tolerations: listOf(k8sType('io.k8s.api.core.v1.Toleration')),
    resources: k8sType('io.k8s.api.core.v1.ResourceRequirements'),
    envFrom: listOf(k8sType('io.k8s.api.core.v1.EnvFromSource')),
    env: listOf(k8sType('io.k8s.api.core.v1.EnvVar', ['name'])),
    volumes: listOf(k8sType('io.k8s.api.core.v1.Volume', ['name'])),
    volumeMounts: listOf(k8sType('io.k8s.api.core.v1.VolumeMount', ['name', 'mountPath'])),
    affinity: k8sType('io.k8s.api.core.v1.Affinity'),
    annotations: stringMap,
  },
};

/** The bundle's config schema: watchNamespace only with Single/Own support, required without AllNamespaces. */
export function bundleConfigSchema(csv: ClusterServiceVersion, opts: { deploymentConfig?: boolean } = {}): Schema {
  const modes = new Set(supportedInstallModes(csv));
  const properties: Record<string, Schema> = {};
  const schema: Schema = { type: 'object', additionalProperties: false, properties };
  const own = modes.has('OwnNamespace');
  const single = modes.has('SingleNamespace');
  if (own || single) {
    const ns: Schema = { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };
    if (own && !single) ns.format = FORMAT_OWN_NAMESPACE;
    if (single && !own) ns.format = FORMAT_SINGLE_NAMESPACE;
    if (modes.has('AllNamespaces')) {
      properties['watchNamespace'] = { anyOf: [{ type: 'null' }, ns] };
    } else {
      properties['watchNamespace'] = ns;
      schema.required = ['watchNamespace'];
    }
  }
  if (opts.deploymentConfig !== false) properties['deploymentConfig'] = DEPLOYMENT_CONFIG;
  return schema;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v; // string, number, boolean, object
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
  | { kind: 'anyOf' }
  | { kind: 'group' }
  | { kind: 'reference' };

interface SchemaError {
  readonly error: ErrorKind;
  readonly location: readonly string[];
  readonly causes: readonly SchemaError[];
}

/** The library's quote(): Go %q with `"` unescaped and `'` escaped, in single quotes. */
const quote = (s: string): string => `'${JSON.stringify(s).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
const display = (v: unknown): string => (typeof v === 'string' ? quote(v) : JSON.stringify(v));

function formatError(format: string, value: unknown, installNamespace: string): string | undefined {
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

/**
 * Validates as the library does: a type or format failure stops at that keyword; otherwise every
 * keyword adds its errors (required, then properties, then additionalProperties; minLength,
 * maxLength, pattern; anyOf with each branch's error as causes); several errors become a group.
 * Upstream visits properties in Go map order (random); this visits them sorted.
 */
function validate(schema: Schema, v: unknown, location: string[], installNamespace: string): SchemaError | undefined {
  if (schema.ref !== undefined) {
    const err = validate({ ...schema, ref: undefined }, v, location, installNamespace);
    if (!err) return undefined;
    return { error: { kind: 'reference' }, location, causes: err.error.kind === 'group' ? err.causes : [err] };
  }
  const leaf = (error: ErrorKind): SchemaError => ({ error, location, causes: [] });
  if (schema.type && jsonType(v) !== schema.type) return leaf({ kind: 'type', got: jsonType(v), want: schema.type });
  if (schema.format !== undefined) {
    const err = formatError(schema.format, v, installNamespace);
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
        const err = validate(sub, v[k], [...location, k], installNamespace);
        if (err) errors.push(err);
      } else if (schema.additionalProperties === false) additional.push(k);
    }
    if (additional.length > 0) errors.push(leaf({ kind: 'additionalProperties', properties: additional }));
  } else if (Array.isArray(v) && schema.items) {
    v.forEach((item, i) => {
      const err = validate(schema.items!, item, [...location, String(i)], installNamespace);
      if (err) errors.push(err);
    });
  } else if (typeof v === 'string') {
    const len = [...v].length;
    if (schema.minLength !== undefined && len < schema.minLength) errors.push(leaf({ kind: 'minLength', got: len, want: schema.minLength }));
    if (schema.maxLength !== undefined && len > schema.maxLength) errors.push(leaf({ kind: 'maxLength', got: len, want: schema.maxLength }));
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(v)) errors.push(leaf({ kind: 'pattern', got: v, want: schema.pattern }));
  }
  if (schema.anyOf) {
    const branchErrors: SchemaError[] = [];
    const matched = schema.anyOf.some((branch) => {
      const err = validate(branch, v, location, installNamespace);
      if (err) branchErrors.push(err);
      return !err;
    });
    if (!matched) errors.push({ error: { kind: 'anyOf' }, location, causes: branchErrors });
  }
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return { error: { kind: 'group' }, location, causes: errors };
}

/** The library's String() of an error kind. */
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
    case 'anyOf':
      return 'anyOf failed';
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
 * a single cause is skipped in favour of that cause's unit, which keeps the reference's kind (so
 * it prints `validation failed`, at the cause's location), as the library does.
 */
function flatten(nodes: readonly SchemaError[], out: SchemaError[]): SchemaError[] {
  for (const n of nodes) {
    if (n.error.kind === 'reference' && n.causes.length === 1) {
      const only = n.causes[0]!;
      out.push({ error: n.error, location: only.location, causes: [] });
      flatten(only.causes, out);
      continue;
    }
    out.push(n);
    flatten(n.causes, out);
  }
  return out;
}

/** Every problem of `config` against `schema`, as upstream words each one, in upstream's order. */
export function configErrors(schema: Schema, config: unknown, installNamespace: string): string[] {
  const err = validate(schema, config, [], installNamespace);
  if (!err) return [];
  const top = err.error.kind === 'group' ? err.causes : [err];
  return flatten(top, []).map(formatUnit);
}

/** Upstream's one-line summary: the message itself, or `multiple errors found:` and a bullet per message. */
export function formatConfigErrors(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `multiple errors found:\n  - ${errs.join('\n  - ')}`;
}
