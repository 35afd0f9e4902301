import { fitsUint64 } from './golang.ts';

/**
 * A parsed version, shared by both engines. Prerelease and build identifiers are kept as the strings
 * that were written (so `1.0.0-01a` and numeric identifiers beyond 2^53 stay exact); use
 * `compareVersions` for ordering.
 */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Dot-separated prerelease identifiers, empty for a release. */
  readonly prerelease: readonly string[];
  /** Dot-separated build metadata identifiers; never part of precedence. */
  readonly build: readonly string[];
  /** The string the version was parsed from (or its canonical form when built from parts). */
  readonly raw: string;
}

/** Builds a version from parts (like Masterminds `semver.New`); `raw` defaults to the canonical form. */
export function makeVersion(
  major: number,
  minor: number,
  patch: number,
  prerelease: readonly string[] = [],
  build: readonly string[] = [],
  raw?: string,
): Version {
  const v = { major, minor, patch, prerelease: [...prerelease], build: [...build], raw: '' };
  v.raw = raw ?? formatVersion(v);
  return v;
}

/** `MAJOR.MINOR.PATCH[-PRE][+BUILD]`, without any `v` prefix (both libraries' String()). */
export function formatVersion(v: Version): string {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.prerelease.length > 0) s += `-${v.prerelease.join('.')}`;
  if (v.build.length > 0) s += `+${v.build.join('.')}`;
  return s;
}

const sign = (n: number): -1 | 0 | 1 => (n < 0 ? -1 : n > 0 ? 1 : 0);

// A numeric identifier is one that strconv.ParseUint accepts. blang rejects larger all-digit
// identifiers at parse time; Masterminds then treats them as alphanumeric, which this rule matches.
function compareIdentifier(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  const aNum = fitsUint64(a);
  const bNum = fitsUint64(b);
  if (aNum && bNum) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (aNum) return -1;
  if (bNum) return 1;
  return a < b ? -1 : 1; // identifiers are ASCII, so UTF-16 order is byte order
}

/** Semver 2.0 precedence of two prerelease identifier lists (an empty list is not handled here). */
export function comparePrerelease(a: readonly string[], b: readonly string[]): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(a[i] ?? '', b[i] ?? '');
    if (c !== 0) return c;
  }
  return sign(a.length - b.length);
}

/**
 * Semver 2.0 precedence: major, minor, patch numerically; a prerelease sorts below its release;
 * prerelease identifiers left to right (numeric < alphanumeric, numbers by value, text by bytes,
 * a longer list wins a tie); build metadata ignored. Both upstream libraries order this way.
 */
export function compareVersions(a: Version, b: Version): -1 | 0 | 1 {
  if (a.major !== b.major) return sign(a.major - b.major);
  if (a.minor !== b.minor) return sign(a.minor - b.minor);
  if (a.patch !== b.patch) return sign(a.patch - b.patch);
  const aPre = a.prerelease.length > 0;
  const bPre = b.prerelease.length > 0;
  if (!aPre || !bPre) return aPre === bPre ? 0 : aPre ? -1 : 1;
  return comparePrerelease(a.prerelease, b.prerelease);
}
