// crdify's configuration: how each check is enforced and configured, how unhandled changes are treated and
// whether served versions are compared when the new CRD converts through a webhook. The shape is crdify's
// config file (`validations[].{name,enforcement,configuration}`, `unhandledEnforcement`, `conversion`);
// `OLM_CRDIFY_CONFIG` is the configuration operator-controller runs with.
import { jsonKind } from '../../../shared/toolkit/index.ts';

export type EnforcementPolicy = 'Error' | 'Warn' | 'None';
export type ConversionPolicy = 'None' | 'Ignore';

export interface ValidationConfig {
  /** A check's name, e.g. `enum`, `oneOf`, `existingFieldRemoval`. */
  readonly name: string;
  readonly enforcement: EnforcementPolicy;
  /** The check's own options, e.g. `{ additionPolicy: 'Allow' }` for `enum`. */
  readonly configuration?: Readonly<Record<string, unknown>>;
}

export interface CrdifyConfig {
  /** Checks configured here replace their defaults; every other check runs with `Error` and its defaults. */
  readonly validations?: readonly ValidationConfig[];
  /** What a change no check handles does; defaults to `Error` (fail closed). */
  readonly unhandledEnforcement?: EnforcementPolicy | '';
  /** `Ignore` skips served-version comparison when the new CRD converts through a webhook; defaults to `None`. */
  readonly conversion?: ConversionPolicy | '';
}

/**
 * operator-controller's configuration: webhook conversion excuses served-version differences, unhandled changes
 * fail, description changes never block, and new enum values are allowed.
 */
export const OLM_CRDIFY_CONFIG: CrdifyConfig = {
  conversion: 'Ignore',
  unhandledEnforcement: 'Error',
  validations: [
    { name: 'description', enforcement: 'None' },
    { name: 'enum', enforcement: 'Error', configuration: { additionPolicy: 'Allow' } },
  ],
};

export type Policy = 'Allow' | 'Disallow';

/** A check's options once defaults are applied. */
export interface CheckOptions {
  readonly enforcement: EnforcementPolicy;
  readonly additionPolicy: Policy;
  readonly removalPolicy: Policy;
}

/** Which options each check reads (crdify's per-check config types); the others are ignored as crdify ignores unknown keys. */
const CHECK_POLICIES: Readonly<Record<string, readonly ('additionPolicy' | 'removalPolicy')[]>> = {
  existingFieldRemoval: [],
  scope: [],
  storedVersionRemoval: [],
  default: [],
  enum: ['additionPolicy'],
  maximum: [],
  maxItems: [],
  maxLength: [],
  maxProperties: [],
  minimum: [],
  minItems: [],
  minLength: [],
  minProperties: [],
  required: [],
  type: [],
  description: [],
  pattern: ['removalPolicy'],
  nullable: ['additionPolicy', 'removalPolicy'],
  oneOf: ['additionPolicy', 'removalPolicy'],
};

export const CHECK_NAMES: readonly string[] = Object.keys(CHECK_POLICIES);

export class CrdifyConfigError extends Error {
  override readonly name = 'CrdifyConfigError';
}

/** The effective options of every check and the two validator policies; throws crdify's runner error for a bad config. */
export interface ResolvedConfig {
  readonly checks: ReadonlyMap<string, CheckOptions>;
  readonly unhandledEnforcement: EnforcementPolicy;
  readonly conversion: ConversionPolicy;
}

const DEFAULTS: CheckOptions = { enforcement: 'Error', additionPolicy: 'Disallow', removalPolicy: 'Disallow' };

export function resolveConfig(config: CrdifyConfig): ResolvedConfig {
  const checks = new Map<string, CheckOptions>(CHECK_NAMES.map((name) => [name, DEFAULTS]));
  const errors: string[] = [];
  for (const v of config.validations ?? []) {
    const policies = CHECK_POLICIES[v.name];
    if (!policies) {
      errors.push(`configuring validation ${goQ(v.name)}: unknown validation : ${goQ(v.name)}`);
      continue;
    }
    const options = { ...DEFAULTS };
    const problem = readPolicies(v.name, v.configuration ?? {}, policies, options);
    if (problem) {
      errors.push(`configuring validation ${goQ(v.name)}: ${problem}`);
      continue;
    }
    if (v.enforcement !== 'Error' && v.enforcement !== 'Warn' && v.enforcement !== 'None') {
      errors.push(`configuring validation ${goQ(v.name)}: unknown enforcement policy : ${goQ(String(v.enforcement))}`);
    } else {
      options.enforcement = v.enforcement;
    }
    checks.set(v.name, options);
  }
  if (errors.length > 0) {
    throw new CrdifyConfigError(`creating CRD validation runner: configuring validations: ${errors.join('\n')}`);
  }
  // Neither policy is validated by crdify's runner: an unknown enforcement reports nothing, an unknown conversion
  // policy compares served versions like `None`.
  const unhandled = config.unhandledEnforcement || 'Error';
  const unhandledEnforcement: EnforcementPolicy = unhandled === 'Error' || unhandled === 'Warn' ? unhandled : 'None';
  return { checks, unhandledEnforcement, conversion: config.conversion === 'Ignore' ? 'Ignore' : 'None' };
}

function readPolicies(
  name: string,
  configuration: Readonly<Record<string, unknown>>,
  policies: readonly ('additionPolicy' | 'removalPolicy')[],
  out: { additionPolicy: Policy; removalPolicy: Policy },
): string | undefined {
  for (const key of policies) {
    const value = configuration[key];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') {
      const struct = `${name === 'oneOf' ? 'OneOf' : name[0]!.toUpperCase() + name.slice(1)}Config`;
      return `parsing config: unmarshalling input to output: json: cannot unmarshal ${jsonKind(value)} into Go struct field ${struct}.${key} of type ${goPolicyType(name, key)}`;
    }
    if (value !== 'Allow' && value !== 'Disallow') {
      const what = key === 'additionPolicy' ? 'addition' : 'removal';
      const valid = name === 'nullable' || name === 'pattern' ? ` (valid values: "Allow", "Disallow")` : '';
      return `validating ${name} config: unknown ${what} policy : ${goQ(value)}${valid}`;
    }
    out[key] = value;
  }
  return undefined;
}

function goPolicyType(name: string, key: string): string {
  if (name === 'nullable') return key === 'additionPolicy' ? 'property.NullableAdditionPolicy' : 'property.NullableRemovalPolicy';
  if (name === 'pattern') return 'property.PatternRemovalPolicy';
  return key === 'additionPolicy' ? 'property.AdditionPolicy' : 'property.RemovalPolicy';
}

const goQ = (s: string): string => JSON.stringify(s);
