// Masterminds/semver v3.5.0 constraints (`NewConstraint`, `Check`, `Validate`, `String`), the
// semantics of ClusterExtension `spec.source.catalog.version`. Written from the library's documented
// grammar and behaviour; error and validation texts are the library's.
//
// Grammar of one OR group (the input is first split on "||"), with WS = [\t\n\f\r ] (Go's \s):
//   group      = WS* comparator WS* ( ( WS+ | "," WS* ) comparator WS* )*
//   comparator = OP WS* CV
//   OP         = "" | "=" | "!=" | ">" | "<" | ">=" | "=>" | "<=" | "=<" | "~" | "~>" | "^"
//   CV         = "v"? N ("." N)? ("." N)? ("-" IDS)? ("+" IDS)?     N = [0-9xX*|]+   IDS = [0-9A-Za-z-]+ ("." [0-9A-Za-z-]+)*
// Hyphen ranges `A - B` (whitespace on both sides) are rewritten to `>= A, <= B ` before splitting.
// (`|` really is accepted inside N by upstream's character class; such a version then fails to parse.)

import { MastermindsError } from './errors.ts';
import { goQuote } from './golang.ts';
import { tryParseMastermindsVersion } from './masterminds-version.ts';
import { compareVersions, comparePrerelease, formatVersion } from './version.ts';
import type { Version } from './version.ts';

const WS_CLASS = '[\\t\\n\\f\\r ]';
const NUM_CLASS = '[0-9|xX*]';
const IDS = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const CV = `v?${NUM_CLASS}+(?:\\.${NUM_CLASS}+)?(?:\\.${NUM_CLASS}+)?(?:-${IDS})?(?:\\+${IDS})?`;
const HYPHEN_SEPARATOR = new RegExp(`${WS_CLASS}-${WS_CLASS}`);
const HYPHEN_RANGE = new RegExp(`${WS_CLASS}*(${CV})${WS_CLASS}+-${WS_CLASS}+(${CV})${WS_CLASS}*`, 'g');

const isWs = (ch: string | undefined): boolean =>
  ch === ' ' || ch === '\t' || ch === '\n' || ch === '\f' || ch === '\r';
const isOpChar = (ch: string | undefined): boolean =>
  ch === '=' || ch === '!' || ch === '>' || ch === '<' || ch === '~' || ch === '^';
const isNumChar = (ch: string | undefined): boolean =>
  ch !== undefined && ((ch >= '0' && ch <= '9') || ch === 'x' || ch === 'X' || ch === '*' || ch === '|');
const isIdChar = (ch: string | undefined): boolean =>
  ch !== undefined && ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '-');
const isX = (part: string | undefined): boolean => part === 'x' || part === 'X' || part === '*';

/** What a comparator does, named after upstream's constraint functions. */
export type ComparatorKind =
  | 'tildeOrEqual'
  | 'notEqual'
  | 'greaterThan'
  | 'lessThan'
  | 'greaterThanEqual'
  | 'lessThanEqual'
  | 'tilde'
  | 'caret';

const KIND_BY_OP: ReadonlyMap<string, ComparatorKind> = new Map<string, ComparatorKind>([
  ['', 'tildeOrEqual'],
  ['=', 'tildeOrEqual'],
  ['!=', 'notEqual'],
  ['>', 'greaterThan'],
  ['<', 'lessThan'],
  ['>=', 'greaterThanEqual'],
  ['=>', 'greaterThanEqual'],
  ['<=', 'lessThanEqual'],
  ['=<', 'lessThanEqual'],
  ['~', 'tilde'],
  ['~>', 'tilde'],
  ['^', 'caret'],
]);

/** One parsed comparator, e.g. `>=1.2` (exported for tests and diagnostics). */
export interface Comparator {
  /** The operator as written. */
  readonly op: string;
  readonly kind: ComparatorKind;
  /** The version text as written (e.g. `1.x`, `v2.0`); used in String() and messages. */
  readonly orig: string;
  /** The version compared against, with wildcard / missing parts set to 0. */
  readonly con: Version;
  /** Some part was a wildcard or missing. */
  readonly dirty: boolean;
  /** The minor part (and so the patch) was a wildcard or missing. */
  readonly minorDirty: boolean;
  /** The patch part was a wildcard or missing. */
  readonly patchDirty: boolean;
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** Rewrites hyphen ranges `A - B` to `>= A, <= B ` exactly as upstream (exported for tests). */
export function rewriteHyphenRanges(s: string): string {
  if (!HYPHEN_SEPARATOR.test(s)) return s; // every hyphen range contains one; skips the scan
  let out = s;
  for (const m of s.matchAll(HYPHEN_RANGE)) {
    const at = out.indexOf(m[0]);
    if (at >= 0) out = out.slice(0, at) + `>= ${m[1] ?? ''}, <= ${m[2] ?? ''} ` + out.slice(at + m[0].length);
  }
  return out;
}

/** End index of a CV starting at `i`, or -1; stops where the grammar stops (the caller checks what follows). */
function scanVersion(s: string, i: number): number {
  let k = s[i] === 'v' ? i + 1 : i;
  const numStart = k;
  while (isNumChar(s[k])) k++;
  if (k === numStart) return -1;
  for (let n = 0; n < 2 && s[k] === '.' && isNumChar(s[k + 1]); n++) {
    k += 1;
    while (isNumChar(s[k])) k++;
  }
  for (const lead of ['-', '+']) {
    if (s[k] !== lead || !isIdChar(s[k + 1])) continue;
    k += 1;
    while (isIdChar(s[k])) k++;
    while (s[k] === '.' && isIdChar(s[k + 1])) {
      k += 1;
      while (isIdChar(s[k])) k++;
    }
  }
  return k;
}

interface RawComparator {
  readonly op: string;
  readonly version: string;
}

/** Splits a group into comparators, or undefined when it does not match the group grammar. */
function splitGroup(group: string, single: boolean): RawComparator[] | undefined {
  const out: RawComparator[] = [];
  let i = 0;
  while (isWs(group[i])) i++;
  for (;;) {
    const opStart = i;
    while (isOpChar(group[i])) i++;
    const op = group.slice(opStart, i);
    if (!KIND_BY_OP.has(op)) return undefined;
    while (isWs(group[i])) i++;
    const end = scanVersion(group, i);
    if (end < 0) return undefined;
    out.push({ op, version: group.slice(i, end) });
    i = end;
    const wsStart = i;
    while (isWs(group[i])) i++;
    if (i === group.length) return out;
    if (single) return undefined;
    if (group[i] === ',') {
      i++;
      while (isWs(group[i])) i++;
    } else if (i === wsStart) {
      return undefined;
    }
  }
}

function versionParts(cv: string): { major: string; minor?: string; patch?: string; pre: string } {
  const body = cv.startsWith('v') ? cv.slice(1) : cv;
  const plus = body.indexOf('+');
  const noBuild = plus >= 0 ? body.slice(0, plus) : body;
  const dash = noBuild.indexOf('-');
  const core = dash >= 0 ? noBuild.slice(0, dash) : noBuild;
  const [major = '', minor, patch] = core.split('.');
  return { major, minor, patch, pre: dash >= 0 ? noBuild.slice(dash) : '' };
}

function buildComparator(op: string, orig: string): Comparator {
  const kind = KIND_BY_OP.get(op) ?? 'tildeOrEqual';
  const p = versionParts(orig);
  let text = orig;
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(p.major)) {
    text = `0.0.0${p.pre}`;
    dirty = true;
  } else if (p.minor === undefined || isX(p.minor)) {
    text = `${p.major}.0.0${p.pre}`;
    dirty = minorDirty = true;
  } else if (p.patch === undefined || isX(p.patch)) {
    text = `${p.major}.${p.minor}.0${p.pre}`;
    dirty = patchDirty = true;
  }
  const con = tryParseMastermindsVersion(text);
  if (typeof con === 'string') {
    throw new MastermindsError('MASTERMINDS_INVALID_CONSTRAINT', 'constraint parser error', orig);
  }
  return { op, kind, orig, con, dirty, minorDirty, patchDirty };
}

/**
 * Upstream's single-comparator parser (`parseConstraint`), exported for tests: one comparator with
 * optional surrounding whitespace, and the empty string meaning "any" (NewConstraint never lets an
 * empty string through).
 */
export function parseComparator(s: string): Comparator {
  if (s.length === 0) {
    return { op: '', kind: 'tildeOrEqual', orig: '', con: zero(), dirty: true, minorDirty: false, patchDirty: false };
  }
  const parts = splitGroup(s, true);
  const first = parts?.[0];
  if (!first) throw new MastermindsError('MASTERMINDS_INVALID_CONSTRAINT', `improper constraint: ${goQuote(s)}`, s);
  return buildComparator(first.op, first.version);
}

function zero(): Version {
  return { major: 0, minor: 0, patch: 0, prerelease: [], build: [], raw: '0.0.0' };
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/**
 * Checks one comparator; returns undefined when `v` satisfies it, otherwise upstream's reason.
 * `includePre` is true when the comparator's OR group names a prerelease (or IncludePrerelease).
 */
export function evaluateComparator(c: Comparator, v: Version, includePre: boolean): string | undefined {
  const vs = formatVersion(v);
  if (v.prerelease.length > 0 && !includePre) {
    return `${goQuote(vs)} is a prerelease version and the constraint is only looking for release versions`;
  }
  const con = c.con;
  const cmp = compareVersions(v, con);
  switch (c.kind) {
    case 'tildeOrEqual':
      if (c.dirty) return tilde(c, v, vs, cmp);
      return cmp === 0 ? undefined : `${goQuote(vs)} is not equal to ${goQuote(c.orig)}`;
    case 'tilde':
      return tilde(c, v, vs, cmp);
    case 'notEqual':
      return notEqual(c, v, vs, cmp);
    case 'greaterThan': {
      const bad = `${goQuote(vs)} is less than or equal to ${goQuote(c.orig)}`;
      if (!c.dirty) return cmp === 1 ? undefined : bad;
      if (v.major > con.major) return undefined;
      if (v.major < con.major || c.minorDirty) return bad;
      if (c.patchDirty) return v.minor > con.minor ? undefined : bad;
      return cmp === 1 ? undefined : bad;
    }
    case 'lessThan':
      return cmp < 0 ? undefined : `${goQuote(vs)} is greater than or equal to ${goQuote(c.orig)}`;
    case 'greaterThanEqual':
      return cmp >= 0 ? undefined : `${goQuote(vs)} is less than ${goQuote(c.orig)}`;
    case 'lessThanEqual': {
      const bad = `${goQuote(vs)} is greater than ${goQuote(c.orig)}`;
      if (!c.dirty) return cmp <= 0 ? undefined : bad;
      if (v.major > con.major) return bad;
      if (v.major === con.major && v.minor > con.minor && !c.minorDirty) return bad;
      return undefined;
    }
    case 'caret':
      return caret(c, v, vs, cmp);
  }
}

function tilde(c: Comparator, v: Version, vs: string, cmp: number): string | undefined {
  const con = c.con;
  if (cmp < 0) return `${goQuote(vs)} is less than ${goQuote(c.orig)}`;
  // ~0.0.0 (but not ~0 or ~0.0) accepts everything at or above 0.0.0.
  if (con.major === 0 && con.minor === 0 && con.patch === 0 && !c.minorDirty && !c.patchDirty) return undefined;
  if (v.major !== con.major) return `${goQuote(vs)} does not have same major version as ${goQuote(c.orig)}`;
  if (v.minor !== con.minor && !c.minorDirty) return `${goQuote(vs)} does not have same major and minor version as ${goQuote(c.orig)}`;
  return undefined;
}

function notEqual(c: Comparator, v: Version, vs: string, cmp: number): string | undefined {
  const con = c.con;
  const equal = `${goQuote(vs)} is equal to ${goQuote(c.orig)}`;
  if (c.dirty) {
    if (con.major !== v.major) return undefined;
    if (con.minor !== v.minor && !c.minorDirty) return undefined;
    if (c.minorDirty) return equal;
    if (con.patch !== v.patch && !c.patchDirty) return undefined;
    if (c.patchDirty) {
      if (v.prerelease.length > 0 || con.prerelease.length > 0) {
        return comparePrerelease(v.prerelease, con.prerelease) !== 0 ? undefined : equal;
      }
      return equal;
    }
  }
  return cmp === 0 ? equal : undefined;
}

function caret(c: Comparator, v: Version, vs: string, cmp: number): string | undefined {
  const con = c.con;
  if (cmp < 0) return `${goQuote(vs)} is less than ${goQuote(c.orig)}`;
  if (con.major > 0 || c.minorDirty) {
    return v.major === con.major ? undefined : `${goQuote(vs)} does not have same major version as ${goQuote(c.orig)}`;
  }
  if (v.major > 0) return `${goQuote(vs)} does not have same major version as ${goQuote(c.orig)}`;
  if (con.minor > 0 || c.patchDirty) {
    return v.minor === con.minor
      ? undefined
      : `${goQuote(vs)} does not have same minor version as ${goQuote(c.orig)}. ` +
          'Expected minor versions to match when constraint major version is 0';
  }
  if (v.minor > 0) return `${goQuote(vs)} does not have same minor version as ${goQuote(c.orig)}`;
  return con.patch === v.patch
    ? undefined
    : `${goQuote(vs)} does not equal ${goQuote(c.orig)}. Expect version and constraint to equal when major and minor versions are 0`;
}

// ---------------------------------------------------------------------------------------------
// Public surface

export interface ConstraintOptions {
  /**
   * Masterminds `Constraints.IncludePrerelease`: let prereleases match every OR group, not only the
   * groups that name a prerelease. OLM leaves this off.
   */
  readonly includePrerelease?: boolean;
}

export interface ConstraintValidation {
  readonly ok: boolean;
  /** Upstream's reasons (Validate's errors) when `ok` is false; empty otherwise. */
  readonly reasons: readonly string[];
}

/** A parsed Masterminds constraint. */
export interface Constraints {
  /** Masterminds `Constraints.Check`. */
  check(v: Version): boolean;
  /** Masterminds `Constraints.Validate`: the same answer as `check`, with upstream's reasons. */
  validate(v: Version): ConstraintValidation;
  /** Masterminds `Constraints.String()`: comparators joined by spaces, groups by ` || `. */
  toString(): string;
  /** The comparators, one list per OR group. */
  readonly groups: readonly (readonly Comparator[])[];
  readonly includePrerelease: boolean;
}

/**
 * Masterminds `semver.NewConstraint`. Throws `MastermindsError` (code MASTERMINDS_INVALID_CONSTRAINT)
 * with upstream's message: `improper constraint: <group>` for a group that does not match the
 * grammar (including the empty string), `constraint parser error` when a version in it cannot be built.
 */
export function parseConstraints(s: string, options: ConstraintOptions = {}): Constraints {
  const rewritten = rewriteHyphenRanges(s);
  const groups: Comparator[][] = [];
  const groupHasPre: boolean[] = [];
  for (const group of rewritten.split('||')) {
    const raw = splitGroup(group, false);
    if (!raw) throw new MastermindsError('MASTERMINDS_INVALID_CONSTRAINT', `improper constraint: ${goQuote(group)}`, s);
    let comparators: Comparator[];
    try {
      comparators = raw.map((r) => buildComparator(r.op, r.version));
    } catch (e) {
      if (e instanceof MastermindsError) throw new MastermindsError('MASTERMINDS_INVALID_CONSTRAINT', e.message, s);
      throw e;
    }
    groups.push(comparators);
    groupHasPre.push(comparators.some((c) => c.con.prerelease.length > 0));
  }
  const includePrerelease = options.includePrerelease ?? false;
  const includePreFor = (i: number): boolean => includePrerelease || (groupHasPre[i] ?? false);

  return {
    groups,
    includePrerelease,
    check(v: Version): boolean {
      return groups.some((g, i) => g.every((c) => evaluateComparator(c, v, includePreFor(i)) === undefined));
    },
    validate(v: Version): ConstraintValidation {
      const reasons: string[] = [];
      let preReported = false;
      for (const [i, g] of groups.entries()) {
        let ok = true;
        for (const c of g) {
          if (v.prerelease.length > 0 && !includePreFor(i)) {
            if (!preReported) {
              reasons.push(
                `${goQuote(formatVersion(v))} is a prerelease version and the constraint is only looking for release versions`,
              );
              preReported = true;
            }
            ok = false;
            continue;
          }
          const why = evaluateComparator(c, v, includePreFor(i));
          if (why !== undefined) {
            reasons.push(why);
            ok = false;
          }
        }
        if (ok) return { ok: true, reasons: [] };
      }
      return { ok: false, reasons };
    },
    toString(): string {
      return groups.map((g) => g.map((c) => c.op + c.orig).join(' ')).join(' || ');
    },
  };
}
