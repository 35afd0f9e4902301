// Ordering and the version filter (upstream catalogmetadata/compare): spec.version is a
// Masterminds constraint checked against the bundle's blang version with the release stripped.
import type { DeclDeprecation } from '../../shared/fbc/index.ts';
import { parseConstraints, type Version } from '../../shared/semver/index.ts';
import { memoize } from '../../shared/toolkit/index.ts';
import { compareVersionRelease, type VersionRelease } from './version-release.ts';

/** A version filter: true when the version is in range. */
export type VersionRange = (v: Version) => boolean;

/**
 * compare.NewVersionRange: a Masterminds constraint (build metadata ignored on both sides,
 * prereleases only matched by groups that name one). Throws Masterminds' error
 * (`improper constraint: "foobar"`). spec.version strings repeat on every reconcile of an extension: each is parsed
 * once (an invalid one every time).
 */
export const newVersionRange = memoize((range: string): VersionRange => {
  const constraints = parseConstraints(range);
  return (v) => constraints.check(v);
}, 10_000);

/**
 * compare.ByVersionAndRelease for bundles whose version/release was read beforehand (an Error
 * when it could not be): highest first; bundles without a readable version sort after the rest.
 */
export function byVersionAndRelease(a: VersionRelease | Error, b: VersionRelease | Error): number {
  const aErr = a instanceof Error;
  const bErr = b instanceof Error;
  if (aErr || bErr) return aErr === bErr ? 0 : aErr ? 1 : -1;
  return compareVersionRelease(b, a);
}

/** The names of bundles a deprecation blob marks deprecated (entries with schema olm.bundle). */
export function deprecatedBundleNames(deprecation: DeclDeprecation | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  for (const e of deprecation?.entries ?? []) if (e.reference.schema === 'olm.bundle') names.add(e.reference.name);
  return names;
}
