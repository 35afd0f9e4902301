// The parts of blang/semver v4.0.0 that opm's validation needs with opm's own error texts: strict Parse for
// bundle versions and NewPRVersion for release segments. Ranges (`olm.skipRange`) are checked by
// internal/shared/semver's blang engine (skiprange.ts).

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
