// Masterminds/semver v3.5.0 version parsing: `NewVersion` with its default CoerceNewVersion=true
// (lenient: optional `v`, 1-3 numeric parts, leading zeros coerced). Error texts are the library's
// (lower-case since v3.4.0).

import { MastermindsError } from './errors.ts';
import { goParseUint } from './golang.ts';
import type { Version } from './version.ts';

export const MM_ERR_INVALID_SEMVER = 'invalid semantic version';
export const MM_ERR_SEGMENT_STARTS_ZERO = 'version segment starts with 0';
export const MM_ERR_INVALID_METADATA = 'invalid metadata string';
export const MM_ERR_INVALID_PRERELEASE = 'invalid prerelease string';

const IDENT_LIST = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
// The lenient grammar NewVersion accepts (anchored; no surrounding whitespace).
const LOOSE_VERSION = new RegExp(
  `^v?([0-9]+)(?:\\.([0-9]+))?(?:\\.([0-9]+))?(?:-(${IDENT_LIST}))?(?:\\+(${IDENT_LIST}))?$`,
);

const ALLOWED = /^[0-9A-Za-z-]*$/;
const NUMERIC = /^[0-9]*$/; // like upstream's containsOnly: the empty string passes

/** validatePrerelease: why `pre` is not a prerelease (exported for tests). */
export function prereleaseProblem(pre: string): string | undefined {
  for (const id of pre.split('.')) {
    if (id === '') return MM_ERR_INVALID_PRERELEASE;
    if (NUMERIC.test(id)) {
      if (id.length > 1 && id.startsWith('0')) return MM_ERR_SEGMENT_STARTS_ZERO;
    } else if (!ALLOWED.test(id)) {
      return MM_ERR_INVALID_PRERELEASE;
    }
  }
  return undefined;
}

/** validateMetadata: why `meta` is not build metadata (exported for tests). */
export function metadataProblem(meta: string): string | undefined {
  for (const id of meta.split('.')) {
    if (id === '' || !ALLOWED.test(id)) return MM_ERR_INVALID_METADATA;
  }
  return undefined;
}

/** NewVersion's outcome without throwing: the version, or upstream's error text. */
export function tryParseMastermindsVersion(s: string): Version | string {
  const m = LOOSE_VERSION.exec(s);
  if (!m) return MM_ERR_INVALID_SEMVER;
  const [, majorStr = '', minorStr, patchStr, pre, meta] = m;
  const nums: number[] = [];
  for (const part of [majorStr, minorStr ?? '0', patchStr ?? '0']) {
    const n = goParseUint(part);
    if (!n.ok) return `error parsing version segment: ${n.error}`;
    nums.push(n.value);
  }
  if (pre !== undefined) {
    const problem = prereleaseProblem(pre);
    if (problem) return problem;
  }
  if (meta !== undefined) {
    const problem = metadataProblem(meta);
    if (problem) return problem;
  }
  const [major = 0, minor = 0, patch = 0] = nums;
  return { major, minor, patch, prerelease: pre ? pre.split('.') : [], build: meta ? meta.split('.') : [], raw: s };
}

/**
 * Masterminds `semver.NewVersion` (CoerceNewVersion=true, the default OLM runs with): `v1`, `1.2`,
 * `01.02.03`, `1.2-beta` are accepted and completed to three parts. Throws `MastermindsError`
 * (code MASTERMINDS_INVALID_VERSION).
 */
export function parseMastermindsVersion(s: string): Version {
  const v = tryParseMastermindsVersion(s);
  if (typeof v === 'string') throw new MastermindsError('MASTERMINDS_INVALID_VERSION', v, s);
  return v;
}
