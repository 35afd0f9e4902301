// Client-side label selectors: apimachinery's metav1.LabelSelectorAsSelector and
// labels.Selector.Matches, with NewRequirement's validation and its exact error texts, for code
// that filters objects it already holds (e.g. ClusterCatalogs picked by a ClusterExtension).
import { DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_FMT, maxLenError, regexError } from '../gocompat/index.ts';
import type { LabelSelector } from '../../../api/meta/v1.ts';
import { goQuote } from '../gocompat/index.ts';

/** A parsed selector; `matches` is apimachinery's `Selector.Matches(labels.Set)`. */
export interface LabelMatcher {
  /** True for labels.Everything() (no requirements). */
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

/** A selector apimachinery refuses; `message` is its error text. */
export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
}

type Op = 'in' | 'notin' | 'exists' | '!' | '=';

interface Requirement {
  readonly key: string;
  readonly op: Op;
  readonly values: readonly string[];
}

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_RE = DNS1123_SUBDOMAIN;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** validation.IsQualifiedName. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else {
      if (byteLength(prefix) > 253) errs.push(`prefix part ${maxLenError(253)}`);
      if (!DNS1123_SUBDOMAIN_RE.test(prefix)) errs.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com')}`);
    }
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** validation.IsValidLabelValue. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * Go's `%#v` of the []string NewRequirement received, as field.Invalid prints a bad value that is
 * not a string. LabelSelectorAsSelector passes `append([]string(nil), values...)`, so an empty list
 * is always nil.
 */
const goSliceLiteral = (vals: readonly string[] | undefined): string =>
  vals === undefined || vals.length === 0 ? '[]string(nil)' : `[]string{${vals.map(goQuote).join(', ')}}`;

/** labels.NewRequirement's checks: every problem, in its order. */
function requirementErrors(key: string, op: Op, values: readonly string[] | undefined): string[] {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  const vals = values ?? [];
  if ((op === 'in' || op === 'notin') && vals.length === 0) {
    errs.push(`values: Invalid value: ${goSliceLiteral(values)}: for 'in', 'notin' operators, values set can't be empty`);
  } else if (op === '=' && vals.length !== 1) {
    errs.push(`values: Invalid value: ${goSliceLiteral(values)}: exact-match compatibility requires one single value`);
  } else if ((op === 'exists' || op === '!') && vals.length !== 0) {
    errs.push(`values: Invalid value: ${goSliceLiteral(values)}: values set must be empty for exists and does not exist`);
  }
  vals.forEach((v, i) => {
    const vErrs = labelValueErrors(v);
    if (vErrs.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${vErrs.join('; ')}`);
  });
  return errs;
}

/** utilerrors.Aggregate's text: one error alone, several deduplicated in brackets. */
function aggregate(errs: readonly string[]): string {
  const seen = [...new Set(errs)];
  return seen.length === 1 ? (seen[0] as string) : `[${seen.join(', ')}]`;
}

function holds(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case '=':
    case 'in':
      return has && r.values.includes(labels[r.key] as string);
    case 'notin':
      return !has || !r.values.includes(labels[r.key] as string);
    case 'exists':
      return has;
    case '!':
      return !has;
  }
}

const EVERYTHING: LabelMatcher = { empty: true, matches: () => true };
const NOTHING: LabelMatcher = { empty: false, matches: () => false };

/**
 * metav1.LabelSelectorAsSelector: `undefined` selects nothing (labels.Nothing()), an empty
 * selector everything; otherwise every matchLabels pair and matchExpressions requirement must
 * hold. Throws `LabelSelectorError` with apimachinery's text, e.g. `"bad" is not a valid label
 * selector operator` or `key: Invalid value: "": name part must be non-empty; ...`. matchLabels are
 * checked in sorted key order (Go walks its map in random order, so the first error it reports
 * for several bad keys varies).
 */
export function labelSelectorAsSelector(selector: LabelSelector | undefined | null): LabelMatcher {
  if (selector === undefined || selector === null) return NOTHING;
  const matchLabels = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const exprs = selector.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return EVERYTHING;
  const reqs: Requirement[] = [];
  for (const [key, value] of matchLabels) {
    const errs = requirementErrors(key, '=', [value]);
    if (errs.length > 0) throw new LabelSelectorError(aggregate(errs));
    reqs.push({ key, op: '=', values: [value] });
  }
  for (const e of exprs) {
    const op = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[e.operator as string] as Op | undefined;
    if (op === undefined) throw new LabelSelectorError(`${goQuote(String(e.operator))} is not a valid label selector operator`);
    const errs = requirementErrors(e.key, op, e.values);
    if (errs.length > 0) throw new LabelSelectorError(aggregate(errs));
    reqs.push({ key: e.key, op, values: [...(e.values ?? [])] });
  }
  return {
    empty: false,
    matches: (labels) => reqs.every((r) => holds(r, labels ?? {})),
  };
}

/** The sentinel labelSelectorAsSelector returns for an absent selector. */
export const labelsNothing: LabelMatcher = NOTHING;
/** The sentinel for an empty selector. */
export const labelsEverything: LabelMatcher = EVERYTHING;
