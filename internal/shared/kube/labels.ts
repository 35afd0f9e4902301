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
/** A selector string's operators: LabelSelector's, and `==`, `!=`, `gt`, `lt`. */
type ParsedOp = Op | '==' | '!=' | 'gt' | 'lt';

interface Requirement {
  readonly key: string;
  readonly op: ParsedOp;
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
function requirementErrors(key: string, op: ParsedOp, values: readonly string[] | undefined): string[] {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  const vals = values ?? [];
  if ((op === 'in' || op === 'notin') && vals.length === 0) {
    errs.push(`values: Invalid value: ${goSliceLiteral(values)}: for 'in', 'notin' operators, values set can't be empty`);
  } else if ((op === '=' || op === '==' || op === '!=') && vals.length !== 1) {
    errs.push(`values: Invalid value: ${goSliceLiteral(values)}: exact-match compatibility requires one single value`);
  } else if ((op === 'exists' || op === '!') && vals.length !== 0) {
    errs.push(`values: Invalid value: ${goSliceLiteral(values)}: values set must be empty for exists and does not exist`);
  } else if (op === 'gt' || op === 'lt') {
    vals.forEach((v, i) => {
      if (!/^[+-]?\d+$/.test(v)) errs.push(`values[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
    });
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

/** Selector.Matches for one requirement: `=`/`==`/`in` need the key with one of the values, `gt`/`lt` an integer value. */
function holds(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key] as string;
  switch (r.op) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(value);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value)) return false;
      const bound = Number(r.values[0]);
      return r.op === 'gt' ? Number(value) > bound : Number(value) < bound;
    }
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

/** The sentinel for an empty selector. */
export const labelsEverything: LabelMatcher = EVERYTHING;

// ---------------------------------------------------------------------------------------------
// Selector strings (`-l a=b,c in (d,e),!f`): apimachinery's labels lexer and parser, and
// metav1.ParseToLabelSelector on top, with their messages.

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
const KEYWORDS: Readonly<Record<string, Tok>> = { ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', in: 'in', '<': '<', '!=': '!=', notin: 'notin', '(': '(' };
const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';

function lex(s: string): { tok: Tok; lit: string }[] {
  const items: { tok: Tok; lit: string }[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos] as string)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos] as string)) {
      let buffer = '';
      let last: { tok: Tok; lit: string } | undefined;
      while (pos < s.length && isSpecial(s[pos] as string)) {
        buffer += s[pos];
        pos++;
        const t = KEYWORDS[buffer];
        if (t !== undefined) last = { tok: t, lit: buffer };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let buffer = '';
    while (pos < s.length && !isSpecial(s[pos] as string) && !isWhitespace(s[pos] as string)) buffer += s[pos++];
    const keyword = KEYWORDS[buffer];
    items.push({ tok: keyword ?? 'id', lit: buffer });
  }
}

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

class SelectorParser {
  readonly #items: { tok: Tok; lit: string }[];
  #pos = 0;
  constructor(s: string) {
    this.#items = lex(s);
  }
  // In a values context the keywords in/notin are identifiers.
  #look(values: boolean): { tok: Tok; lit: string } {
    const it = this.#items[this.#pos] ?? { tok: 'eos' as Tok, lit: '' };
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id', lit: it.lit } : it;
  }
  #take(values: boolean): { tok: Tok; lit: string } {
    const it = this.#look(values);
    this.#pos++;
    return it;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.#look(true);
      if (tok === 'id' || tok === '!') {
        let r: Requirement;
        try {
          r = this.#requirement();
        } catch (err) {
          throw new LabelSelectorError(`unable to parse requirement: ${(err as Error).message}`);
        }
        reqs.push(r);
        const next = this.#take(true);
        if (next.tok === 'eos') return reqs;
        if (next.tok === ',') {
          const after = this.#look(true);
          if (after.tok !== 'id' && after.tok !== '!') throw new LabelSelectorError(`found '${after.lit}', expected: identifier after ','`);
          continue;
        }
        throw new LabelSelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      }
      if (tok === 'eos') return reqs;
      throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  #requirement(): Requirement {
    let op: ParsedOp | undefined;
    let { tok, lit } = this.#take(true);
    if (tok === '!') {
      op = '!';
      ({ tok, lit } = this.#take(true));
    }
    if (tok !== 'id') throw new Error(`found '${lit}', expected: identifier`);
    const keyErrs = qualifiedNameErrors(lit);
    if (keyErrs.length > 0) throw new Error(`<nil>: Invalid value: ${goQuote(lit)}: ${keyErrs.join('; ')}`);
    const key = lit;
    const after = this.#look(true).tok;
    if (after === 'eos' || after === ',') op = op ?? 'exists';
    if (op === 'exists' || op === '!') return this.#checked({ key, op, values: [] });
    const o = this.#take(false);
    const binary = ({ in: 'in', '=': '=', '==': '==', '>': 'gt', '<': 'lt', notin: 'notin', '!=': '!=' } as const)[o.tok as string] as ParsedOp | undefined;
    if (binary === undefined) throw new Error(`found '${o.lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    const values = binary === 'in' || binary === 'notin' ? this.#values() : this.#exactValue();
    return this.#checked({ key, op: binary, values: [...new Set(values)].sort() });
  }

  #checked(r: Requirement): Requirement {
    const errs = requirementErrors(r.key, r.op, r.values);
    if (errs.length > 0) throw new Error(aggregate(errs));
    return r;
  }

  #values(): string[] {
    const open = this.#take(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.#look(true);
    if (tok === 'id' || tok === ',') {
      const s = this.#identifiers();
      if (this.#take(true).tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
      return s;
    }
    if (tok === ')') {
      this.#take(true);
      return [''];
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  #identifiers(): string[] {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.#take(true);
      if (tok === 'id') {
        s.add(lit);
        const next = this.#look(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return [...s];
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        if (s.size === 0) s.add('');
        const next = this.#look(true).tok;
        if (next === ')') {
          s.add('');
          return [...s];
        }
        if (next === ',') s.add('');
        continue;
      }
      throw new Error(`found '${lit}', expected: ',', or identifier`);
    }
  }

  #exactValue(): string[] {
    const next = this.#look(true).tok;
    if (next === 'eos' || next === ',') return [''];
    const { tok, lit } = this.#take(true);
    if (tok === 'id') return [lit];
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/**
 * A selector string's requirements; LabelSelectorError with labels.Parse's text when it does not parse, or with
 * metav1.ParseToLabelSelector's (`couldn't parse the selector string "<text>": <labels.Parse's>`) when `wrap`.
 */
function parseRequirements(text: string, wrap: boolean): Requirement[] {
  try {
    return new SelectorParser(text).parse();
  } catch (err) {
    const message = (err as Error).message;
    throw new LabelSelectorError(wrap ? `couldn't parse the selector string "${text}": ${message}` : message);
  }
}

/**
 * labels.Parse: a selector string (a list request's `labelSelector`) straight to a matcher — `=`/`==`, `!=`, `in`,
 * `notin`, `key`, `!key`, `gt`/`lt` (integers). Throws LabelSelectorError with labels.Parse's text, as the API
 * server's 400 for a list's `labelSelector` words it (e.g. `unable to parse requirement: found 'b' expected: '('`).
 */
export function parseSelector(text: string): LabelMatcher {
  const reqs = parseRequirements(text, false);
  if (reqs.length === 0) return EVERYTHING;
  return { empty: false, matches: (labels) => reqs.every((r) => holds(r, labels ?? {})) };
}

/**
 * metav1.ParseToLabelSelector: a selector string as kubectl's `-l` takes it, turned into a
 * LabelSelector (`=`/`==` into matchLabels; `in`, `notin`, `key`, `!key` into matchExpressions).
 * Throws LabelSelectorError with apimachinery's text, e.g. `couldn't parse the selector string
 * "a in b": unable to parse requirement: found 'b' expected: '('`; `!=`, `<` and `>` parse but
 * have no LabelSelector form (`"!=" is not a valid label selector operator`).
 */
export function parseLabelSelector(text: string): LabelSelector {
  const reqs = parseRequirements(text, true);
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const matchLabels: Record<string, string> = {};
  const matchExpressions: NonNullable<LabelSelector['matchExpressions']> = [];
  for (const r of reqs) {
    if (r.op === '=' || r.op === '==') {
      matchLabels[r.key] = r.values[0] ?? '';
      continue;
    }
    if (r.op === 'gt' || r.op === 'lt') throw new LabelSelectorError(`${goQuote(r.op)} isn't supported in label selectors`);
    const operator = ({ in: 'In', notin: 'NotIn', exists: 'Exists', '!': 'DoesNotExist' } as const)[r.op as 'in'];
    if (operator === undefined) throw new LabelSelectorError(`${goQuote(r.op)} is not a valid label selector operator`);
    matchExpressions.push({ key: r.key, operator, ...(r.values.length > 0 && { values: [...r.values] }) });
  }
  // Empty parts are left out, as Go's omitempty leaves them out of the JSON.
  return { ...(Object.keys(matchLabels).length > 0 && { matchLabels }), ...(matchExpressions.length > 0 && { matchExpressions }) };
}
