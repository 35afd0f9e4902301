// blang/semver v4.0.0 semantics: strict `Parse`, `ParseTolerant` and `ParseRange`, including the
// quirks OLM depends on for skipRange and olm.package.required versionRange compatibility
// (see README.md, and upstream's `semver.go` and `range.go`). Written from the documented and
// observed behaviour; error texts are blang's.

import { BlangError } from './errors.ts';
import {
  goAtoi,
  goIncrementItoa,
  goLen,
  goParseUint,
  goQuote,
  goSplitN,
  goTrimSpace,
  indexOfUnicodeDigit,
} from './golang.ts';
import { compareVersions } from './version.ts';
import type { Version } from './version.ts';

const DIGITS = /^[0-9]*$/; // blang's containsOnly(s, numbers): the empty string passes
const ALPHANUM = /^[0-9A-Za-z-]*$/;

/** Reports why `s` is not a blang version, or returns the version. */
function parseStrict(s: string, raw: string): Version | string {
  if (s.length === 0) return 'Version string empty';
  const parts = goSplitN(s, '.', 3);
  if (parts.length !== 3) return 'No Major.Minor.Patch elements found';
  const [majorStr = '', minorStr = '', rest = ''] = parts;

  const major = parseNumber(majorStr, 'major', 'Major');
  if (typeof major === 'string') return major;
  const minor = parseNumber(minorStr, 'minor', 'Minor');
  if (typeof minor === 'string') return minor;

  let patchStr = rest;
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus >= 0) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash >= 0) {
    prerelease = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = parseNumber(patchStr, 'patch', 'Patch');
  if (typeof patch === 'string') return patch;

  for (const id of prerelease) {
    const problem = blangPrereleaseError(id);
    if (problem) return problem;
  }
  for (const id of build) {
    if (id.length === 0) return 'Build meta data is empty';
    if (!ALPHANUM.test(id)) return `Invalid character(s) found in build meta data ${goQuote(id)}`;
  }
  return { major, minor, patch, prerelease, build, raw };
}

/** blang `NewPRVersion`: why `id` is not a prerelease identifier (numeric without a leading zero, or alphanumeric). */
export function blangPrereleaseError(id: string): string | undefined {
  if (id.length === 0) return 'Prerelease is empty';
  if (/^[0-9]+$/.test(id)) {
    if (id.length > 1 && id.startsWith('0')) {
      return `Numeric PreRelease version must not contain leading zeroes ${goQuote(id)}`;
    }
    const n = goParseUint(id);
    return n.ok ? undefined : n.error;
  }
  return ALPHANUM.test(id) ? undefined : `Invalid character(s) found in prerelease ${goQuote(id)}`;
}

function parseNumber(s: string, lower: string, upper: string): number | string {
  if (!DIGITS.test(s)) return `Invalid character(s) found in ${lower} number ${goQuote(s)}`;
  if (s.length > 1 && s.startsWith('0')) return `${upper} number must not contain leading zeroes ${goQuote(s)}`;
  const n = goParseUint(s);
  return n.ok ? n.value : n.error;
}

/** blang `semver.Parse` without throwing: the version, or blang's error text. */
export const tryParseBlang = (s: string): Version | string => parseStrict(s, s);

/**
 * blang `semver.Parse`: exactly `X.Y.Z[-pre][+build]`, no `v`, no leading zeros, no short forms.
 * Throws `BlangError` (code BLANG_INVALID_VERSION) with blang's message.
 */
export function parseBlang(s: string): Version {
  const v = tryParseBlang(s);
  if (typeof v === 'string') throw new BlangError('BLANG_INVALID_VERSION', v, s);
  return v;
}

/**
 * blang `semver.ParseTolerant`: trims whitespace, drops one lowercase `v` prefix, strips leading
 * zeros from each of the first three dot parts, pads `1` / `1.2` to three parts (an error if the
 * short form carries `-` or `+`), then parses strictly. An uppercase `V` is NOT stripped (blang v4.0.0).
 */
export function parseTolerant(s: string): Version {
  let t = goTrimSpace(s);
  if (t.startsWith('v')) t = t.slice(1);
  const parts = goSplitN(t, '.', 3).map((p) => {
    if (goLen(p) <= 1) return p;
    const stripped = p.replace(/^0+/, '');
    return stripped.length === 0 || !/^[0-9]/.test(stripped) ? '0' + stripped : stripped;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] ?? '')) {
      throw new BlangError('BLANG_INVALID_VERSION', 'Short version cannot contain PreRelease/Build meta data', s);
    }
    while (parts.length < 3) parts.push('0');
  }
  const v = parseStrict(parts.join('.'), s);
  if (typeof v === 'string') throw new BlangError('BLANG_INVALID_VERSION', v, s);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Ranges

/** A parsed blang range: true when the version is in range. */
export type BlangRange = (v: Version) => boolean;

/** Comparison operator: = (eq), != (ne), > (gt), >= (ge), < (lt), <= (le). */
export type Op = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
const OPERATORS: ReadonlyMap<string, Op> = new Map<string, Op>([
  ['', 'eq'],
  ['=', 'eq'],
  ['==', 'eq'],
  ['!', 'ne'],
  ['!=', 'ne'],
  ['>', 'gt'],
  ['>=', 'ge'],
  ['<', 'lt'],
  ['<=', 'le'],
]);

/** One blang comparison (exported for tests). */
export interface Comparison {
  readonly op: Op;
  readonly version: Version;
}

/** Each operator's test on compareVersions(v, c.version). */
const HOLDS: Readonly<Record<Op, (d: number) => boolean>> = {
  eq: (d) => d === 0,
  ne: (d) => d !== 0,
  gt: (d) => d === 1,
  ge: (d) => d >= 0,
  lt: (d) => d === -1,
  le: (d) => d <= 0,
};

/** Whether `v` satisfies one comparison (exported for tests). */
export const comparisonHolds = (c: Comparison, v: Version): boolean => HOLDS[c.op](compareVersions(v, c.version));

/**
 * Tokenizes like blang's splitAndTrim: splits on ASCII spaces only, except a space right after
 * `>`, `<` or `=` (so `>= 1.0.0` is one token), drops tokens shorter than two bytes, and removes
 * the spaces left inside tokens. Exported for tests.
 */
export function tokenizeBlangRange(s: string): string[] {
  const tokens: string[] = [];
  let start = 0;
  let lastNonSpace = '';
  const keep = (t: string): void => {
    if (goLen(t) >= 2) tokens.push(t.replaceAll(' ', ''));
  };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === ' ' && lastNonSpace !== '>' && lastNonSpace !== '<' && lastNonSpace !== '=') {
      keep(s.slice(start, i));
      start = i + 1;
    } else if (ch !== ' ') {
      lastNonSpace = ch ?? '';
    }
  }
  keep(s.slice(start));
  return tokens;
}

/** Splits a token at its first Unicode digit: operator (trimmed) and version text. Exported for tests. */
export function splitBlangComparator(token: string): { op: string; version: string } {
  const i = indexOfUnicodeDigit(token);
  if (i < 0) throw new BlangError('BLANG_INVALID_RANGE', `Could not get version from string: ${goQuote(token)}`, token);
  return { op: goTrimSpace(token.slice(0, i)), version: token.slice(i) };
}

/** Adds one to dot part `index` the way blang does (Atoi, +1, Itoa); undefined when Atoi fails. Exported for tests. */
export function bumpPart(version: string, index: number): string | undefined {
  const parts = version.split('.');
  const n = goAtoi(parts[index] ?? '');
  if (n === undefined) return undefined;
  parts[index] = goIncrementItoa(n);
  return parts.join('.');
}

/** Which part a trailing `x` stands for, by the number of dot parts (blang getWildcardType). Exported for tests. */
export function wildcardKind(version: string): 'major' | 'minor' | 'patch' | 'none' {
  const parts = version.split('.');
  if (parts[parts.length - 1] !== 'x') return 'none';
  return parts.length === 1 ? 'major' : parts.length === 2 ? 'minor' : parts.length === 3 ? 'patch' : 'none';
}

/**
 * The version with its wildcard zeroed as blang does it (createVersionFromWildcard): the first
 * `.x.x` becomes `.x`, then the first `.x` anywhere becomes `.0`, and a two-part result gets `.0`.
 * Exported for tests.
 */
export function flattenWildcard(version: string): string {
  const flat = version.replace('.x.x', '.x').replace('.x', '.0');
  return flat.split('.').length === 2 ? flat + '.0' : flat;
}

/**
 * blang's wildcard bounds per operator: the operator of a first bound on the zeroed version (if any), the operator of
 * the second, and whether the second's version is bumped. Any other operator is dropped (an empty second operator).
 */
const WILDCARD_BOUNDS = new Map<string, readonly [first: string | undefined, op: string, increment: boolean]>([
  ['>', [undefined, '>=', true]],
  ['>=', [undefined, '>=', false]],
  ['<', [undefined, '<', false]],
  ['<=', [undefined, '<', true]],
  ['', ['>=', '<', true]],
  ['=', ['>=', '<', true]],
  ['==', ['>=', '<', true]],
  ['!=', ['<', '>=', true]],
  ['!', ['<', '>=', true]],
]);

/**
 * blang's wildcard rewriting, applied to every token that contains a lowercase `x` anywhere (not
 * just as a version part). Reproduces its bugs: `1.x.x` is treated as `1.x.0`-ish (`>=1.0.0 <1.1.0`),
 * `!=1.2.x` becomes the unsatisfiable `<1.2.0 >=1.3.0`, the first `.x` anywhere becomes `.0`,
 * operators other than = == != ! > >= < <= are dropped, and when there is nothing to increment the
 * version is dropped, leaving a bare operator. Exported for tests.
 */
export function expandBlangWildcard(token: string): string[] {
  if (!token.includes('x')) return [token];
  const { op, version } = splitBlangComparator(token);
  const kind = wildcardKind(version);
  const flat = flattenWildcard(version);

  const [first, resultOp, increment] = WILDCARD_BOUNDS.get(op) ?? [undefined, '', false];
  const out = first === undefined ? [] : [first + flat];
  let resultVersion = flat;
  if (increment) {
    if (kind === 'patch') resultVersion = bumpPart(flat, 1) ?? '';
    else if (kind === 'minor') resultVersion = bumpPart(flat, 0) ?? '';
    else resultVersion = '';
  }
  out.push(resultOp + resultVersion);
  return out;
}

/**
 * blang's buildVersionRange: an operator and a strict version. Throws a BlangError whose message is
 * upstream's unwrapped reason. Exported for tests.
 */
export function buildBlangComparison(opText: string, versionText: string): Comparison {
  const op = OPERATORS.get(opText);
  if (op === undefined) {
    throw new BlangError(
      'BLANG_INVALID_RANGE',
      `Could not parse comparator ${goQuote(opText)} in ${goQuote(opText + versionText)}`,
      opText + versionText,
    );
  }
  const version = parseStrict(versionText, versionText);
  if (typeof version === 'string') {
    throw new BlangError(
      'BLANG_INVALID_RANGE',
      `Could not parse version ${goQuote(versionText)} in ${goQuote(opText + versionText)}: ${version}`,
      opText + versionText,
    );
  }
  return { op, version };
}

function buildComparison(token: string): Comparison {
  const { op, version } = splitBlangComparator(token);
  try {
    return buildBlangComparison(op, version);
  } catch (e) {
    if (!(e instanceof BlangError)) throw e;
    throw new BlangError('BLANG_INVALID_RANGE', `Could not parse Range ${goQuote(token)}: ${e.message}`, token);
  }
}

/** blang's splitORParts: groups between standalone `||` tokens. Exported for tests. */
export function splitBlangOrGroups(tokens: readonly string[]): string[][] {
  const groups: string[][] = [];
  let start = 0;
  tokens.forEach((t, i) => {
    if (t !== '||') return;
    if (i === 0) throw new BlangError('BLANG_INVALID_RANGE', "First element in range is '||'", tokens.join(' '));
    groups.push(tokens.slice(start, i));
    start = i + 1;
  });
  if (start === tokens.length) {
    throw new BlangError('BLANG_INVALID_RANGE', "Last element in range is '||'", tokens.join(' '));
  }
  groups.push(tokens.slice(start));
  return groups;
}

/**
 * blang `semver.ParseRange`. AND is juxtaposition (ASCII spaces), OR is a standalone `||` token;
 * operators `= == != ! > >= < <=` (none means `=`); versions are strict; lowercase `x` wildcards;
 * prereleases compare by plain precedence (no exclusion). Throws `BlangError` with blang's message
 * (code BLANG_INVALID_RANGE); the error's `input` is the whole range.
 */
export function parseBlangRange(s: string): BlangRange {
  try {
    return compileRange(s);
  } catch (e) {
    if (e instanceof BlangError) throw new BlangError('BLANG_INVALID_RANGE', e.message, s);
    throw e;
  }
}

function compileRange(s: string): BlangRange {
  const groups = splitBlangOrGroups(tokenizeBlangRange(s));

  // Wildcards are expanded for every group before any comparator is parsed, as upstream does.
  const expanded = groups.map((g) => g.flatMap(expandBlangWildcard));
  const compiled = expanded.map((g) => g.map(buildComparison));

  return (v: Version): boolean => {
    for (const group of compiled) {
      if (group.length === 0) {
        // `a || || b`: upstream builds an OR with a nil function and panics when evaluation reaches it.
        throw new BlangError(
          'BLANG_RANGE_PANIC',
          'runtime error: invalid memory address or nil pointer dereference',
          s,
        );
      }
      if (group.every((c) => comparisonHolds(c, v))) return true;
    }
    return false;
  };
}
