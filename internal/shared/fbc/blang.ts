// The parts of blang/semver v4.0.0 that opm's validation needs: strict Parse for bundle
// versions, NewPRVersion for release segments, and ParseRange *validity* for skipRange. Kept
// private to this folder; `isValidBlangRange` is the one seam to swap for internal/shared/semver.

import { goTrimSpace } from './go.ts';
import { msg } from './messages.ts';

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = 18446744073709551615n;

export interface BlangVersion {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: readonly (string | bigint)[];
  readonly build: readonly string[];
}

const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s[0] === '0';

/** strconv.ParseUint(s, 10, 64) on a string of ASCII digits (possibly empty). */
function parseUint(s: string): bigint | string {
  if (s === '') return msg.semverParseUint(s, 'invalid syntax');
  const v = BigInt(s);
  return v > UINT64_MAX ? msg.semverParseUint(s, 'value out of range') : v;
}

/** NewPRVersion: a numeric (no leading zero) or alphanumeric prerelease identifier. */
export function parsePrerelease(s: string): bigint | string | { error: string } {
  if (s === '') return { error: msg.semverPrereleaseEmpty };
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) return { error: msg.semverPrereleaseLeadingZero(s) };
    const n = parseUint(s);
    return typeof n === 'string' ? { error: n } : n;
  }
  if (ALPHANUM.test(s)) return s;
  return { error: msg.semverPrereleaseInvalid(s) };
}

/** blang semver.Parse (strict `X.Y.Z[-pre][+build]`). Returns the version or blang's error text. */
export function parseBlangVersion(s: string): BlangVersion | string {
  if (s === '') return msg.semverEmpty;
  const first = s.indexOf('.');
  const second = first === -1 ? -1 : s.indexOf('.', first + 1);
  if (second === -1) return msg.semverNoMMP;
  const majorStr = s.slice(0, first);
  const minorStr = s.slice(first + 1, second);
  let patchStr = s.slice(second + 1);

  if (!NUMBERS.test(majorStr)) return msg.semverInvalidChars('major', majorStr);
  if (hasLeadingZeroes(majorStr)) return msg.semverLeadingZero('Major', majorStr);
  const major = parseUint(majorStr);
  if (typeof major === 'string') return major;

  if (!NUMBERS.test(minorStr)) return msg.semverInvalidChars('minor', minorStr);
  if (hasLeadingZeroes(minorStr)) return msg.semverLeadingZero('Minor', minorStr);
  const minor = parseUint(minorStr);
  if (typeof minor === 'string') return minor;

  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus !== -1) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash !== -1) {
    prerelease = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  if (!NUMBERS.test(patchStr)) return msg.semverInvalidChars('patch', patchStr);
  if (hasLeadingZeroes(patchStr)) return msg.semverLeadingZero('Patch', patchStr);
  const patch = parseUint(patchStr);
  if (typeof patch === 'string') return patch;

  const pre: (string | bigint)[] = [];
  for (const p of prerelease) {
    const r = parsePrerelease(p);
    if (typeof r === 'object') return r.error;
    pre.push(r);
  }
  for (const b of build) {
    if (b === '') return msg.semverBuildEmpty;
    if (!ALPHANUM.test(b)) return msg.semverBuildInvalid(b);
  }
  return { major, minor, patch, pre, build };
}

// ---------------------------------------------------------------------------------------------
// ParseRange validity (blang/semver v4.0.0 range.go)

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** splitAndTrim: split on ASCII spaces, except right after `>`, `<`, `=`; tokens shorter than 2 bytes vanish. */
function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === ' ' && lastChar !== '>' && lastChar !== '<' && lastChar !== '=') {
      if (byteLength(s.slice(last, i)) >= 2) result.push(s.slice(last, i));
      last = i + 1;
    } else if (c !== ' ') lastChar = c ?? '';
  }
  if (byteLength(s.slice(last)) >= 2) result.push(s.slice(last));
  return result.map((t) => t.replaceAll(' ', ''));
}

const DIGIT = /\p{Nd}/u;

/** splitComparatorVersion: the operator is everything before the first (Unicode) digit. */
function splitComparatorVersion(s: string): [string, string] | string {
  const m = DIGIT.exec(s);
  if (m === null) return msg.rangeNoVersion(s);
  return [goTrimSpace(s.slice(0, m.index)), s.slice(m.index)];
}

const COMPARATORS = new Set(['', '=', '==', '!', '!=', '>', '>=', '<', '<=']);

function atoi(s: string): number | undefined {
  return /^[+-]?[0-9]+$/.test(s) ? Number(s) : undefined;
}

function incrementPart(v: string, idx: 0 | 1): string {
  const parts = v.split('.');
  const n = atoi(parts[idx] ?? '');
  if (n === undefined) return ''; // the Go code ignores the Atoi error and uses ""
  parts[idx] = String(n + 1);
  return parts.join('.');
}

/** expandWildcardVersion: any token containing an `x` takes the wildcard path (blang's bug included). */
function expandWildcards(parts: string[][]): string[][] | string {
  const expanded: string[][] = [];
  for (const p of parts) {
    const out: string[] = [];
    for (let ap of p) {
      if (ap.includes('x')) {
        const split = splitComparatorVersion(ap);
        if (typeof split === 'string') return split;
        const [op, v] = split;
        const segs = v.split('.');
        const wildcard = segs[segs.length - 1] === 'x' ? segs.length : 0; // 2 = minor, 3 = patch
        let flat = v.replace('.x.x', '.x').replace('.x', '.0');
        if (flat.split('.').length === 2) flat += '.0';
        let resultOp = '';
        let increment = false;
        switch (op) {
          case '>':
            resultOp = '>=';
            increment = true;
            break;
          case '>=':
            resultOp = '>=';
            break;
          case '<':
            resultOp = '<';
            break;
          case '<=':
            resultOp = '<';
            increment = true;
            break;
          case '':
          case '=':
          case '==':
            out.push('>=' + flat);
            resultOp = '<';
            increment = true;
            break;
          case '!=':
          case '!':
            out.push('<' + flat);
            resultOp = '>=';
            increment = true;
            break;
        }
        let resultVersion = '';
        if (increment) {
          if (wildcard === 3) resultVersion = incrementPart(flat, 1);
          else if (wildcard === 2) resultVersion = incrementPart(flat, 0);
        } else resultVersion = flat;
        ap = resultOp + resultVersion;
      }
      out.push(ap);
    }
    expanded.push(out);
  }
  return expanded;
}

/**
 * blang/semver v4.0.0 ParseRange, reduced to "does it parse": returns blang's error text, or
 * undefined for a valid range. Matches upstream including its quirks (single-character tokens
 * dropped, `x` anywhere means wildcard, an empty OR group between two `||` accepted).
 */
export function isValidBlangRange(s: string): string | undefined {
  const parts = splitAndTrim(s);
  const orParts: string[][] = [];
  let last = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '||') {
      if (i === 0) return msg.rangeFirstOr;
      orParts.push(parts.slice(last, i));
      last = i + 1;
    }
  }
  if (last === parts.length) return msg.rangeLastOr;
  orParts.push(parts.slice(last));
  const expanded = expandWildcards(orParts);
  if (typeof expanded === 'string') return expanded;
  for (const group of expanded) {
    for (const ap of group) {
      const split = splitComparatorVersion(ap);
      if (typeof split === 'string') return split;
      const [op, v] = split;
      if (!COMPARATORS.has(op)) return msg.rangeParse(ap, msg.rangeComparator(op, op + v));
      const parsed = parseBlangVersion(v);
      if (typeof parsed === 'string') return msg.rangeParse(ap, msg.rangeVersion(v, op + v, parsed));
    }
  }
  return undefined;
}
