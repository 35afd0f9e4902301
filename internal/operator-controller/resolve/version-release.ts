// A bundle's version and release (upstream bundleutil and declcfg.VersionRelease): the version
// comes from the bundle's `olm.package` property, parsed with blang; registry+v1 bundles may carry
// their release in the build metadata (`1.0.0+2` is version 1.0.0, release 2).
import type { PackageBundle } from '../contentclient/index.ts';
import { compareVersions, comparePrerelease, formatVersion, parseBlang, type Version } from '../../shared/semver/index.ts';
import { goQuote } from '../../shared/gocompat/index.ts';
import { jsonKind, tryOr, tryOrThrow } from '../../shared/toolkit/index.ts';
import { msg } from './messages.ts';

/**
 * A release: dot-separated identifiers compared like semver prerelease identifiers.
 * `undefined` is Go's nil (no release); `[]` is an explicit empty release (only from an explicit
 * `release` field), which compares equal to nil.
 */
export type Release = readonly string[] | undefined;

export interface VersionRelease {
  readonly version: Version;
  readonly release: Release;
}

/** Over this many characters a release is refused (the CSV CRD's limit). */
export const RELEASE_MAX_LENGTH = 20;

/** blang NewPRVersion's check of one identifier; returns the error text or undefined. */
function prVersionError(s: string): string | undefined {
  if (s.length === 0) return 'Prerelease is empty';
  if (/^[0-9]+$/.test(s)) return s.length > 1 && s.startsWith('0') ? `Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}` : undefined;
  if (/^[0-9A-Za-z-]+$/.test(s)) return undefined;
  return `Invalid character(s) found in prerelease ${goQuote(s)}`;
}

/**
 * declcfg.NewRelease: `""` is nil; otherwise at most 20 characters of identifiers that blang
 * accepts as prerelease identifiers. Throws with upstream's text, e.g.
 * `invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01"`.
 */
export function parseRelease(s: string): Release {
  if (s === '') return undefined;
  if (s.length > RELEASE_MAX_LENGTH) throw new Error(`invalid release ${goQuote(s)}: exceeds maximum length of ${RELEASE_MAX_LENGTH} characters`);
  const segments = s.split('.');
  const errs: string[] = [];
  segments.forEach((seg, i) => {
    const e = prVersionError(seg);
    if (e !== undefined) errs.push(`segment ${i}: ${e}`);
  });
  if (errs.length > 0) throw new Error(`invalid release ${goQuote(s)}: ${errs.join('\n')}`);
  return segments;
}

/** Release.Compare: no release sorts below any release; otherwise prerelease-identifier order. */
export function compareRelease(a: Release, b: Release): -1 | 0 | 1 {
  const la = a?.length ?? 0;
  const lb = b?.length ?? 0;
  if (la === 0 && lb > 0) return -1;
  if (lb === 0 && la > 0) return 1;
  if (la === 0) return 0;
  return comparePrerelease(a as readonly string[], b as readonly string[]);
}

/** VersionRelease.Compare: version (build ignored) then release. */
export function compareVersionRelease(a: VersionRelease, b: VersionRelease): -1 | 0 | 1 {
  return compareVersions(a.version, b.version) || compareRelease(a.release, b.release);
}

/**
 * bundleutil.ParseLegacyVersionRelease: a blang version whose build metadata, when it parses as a
 * release, becomes the release (and the build is dropped); otherwise the build stays and there is
 * no release. Throws blang's error for an invalid version.
 */
export function parseLegacyVersionRelease(s: string): VersionRelease {
  const version = parseBlang(s);
  const rel = tryOr(() => parseRelease(version.build.join('.')), undefined);
  if (rel !== undefined && rel.length > 0) {
    return { version: { ...version, build: [] }, release: rel };
  }
  return { version, release: undefined };
}

/** bundleutil.ParseExplicitRelease (BundleReleaseSupport with a `release` key): build kept. */
export function parseExplicitRelease(version: string, release: string): VersionRelease {
  const v = tryOrThrow(() => parseBlang(version), (err) => new Error(`error parsing version ${goQuote(version)}: ${err.message}`, { cause: err }));
  if (release === '') return { version: v, release: [] };
  return { version: v, release: tryOrThrow(() => parseRelease(release), (err) => new Error(`error parsing release ${goQuote(release)}: ${err.message}`, { cause: err })) };
}

export interface VersionOptions {
  /** The `BundleReleaseSupport` feature gate: honour an explicit `release` key of `olm.package`. */
  readonly bundleReleaseSupport?: boolean;
}

/** property.Package as json.Unmarshal reads it from the decoded property value. */
function readPackageProperty(value: unknown): { version: string; release?: string } {
  if (value === null || value === undefined) return { version: '' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`error unmarshalling package property: json: cannot unmarshal ${jsonKind(value)} into Go value of type property.Package`);
  }
  let version = '';
  let release: string | undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = k.toLowerCase();
    if (key !== 'version' && key !== 'release' && key !== 'packagename') continue;
    if (v !== null && typeof v !== 'string') {
      const field = key === 'packagename' ? 'packageName' : key;
      throw new Error(`error unmarshalling package property: json: cannot unmarshal ${jsonKind(v)} into Go struct field Package.${field} of type string`);
    }
    if (key === 'version') version = v ?? '';
    if (key === 'release' && v !== null) release = v;
  }
  return release === undefined ? { version } : { version, release };
}

/**
 * bundleutil.GetVersionAndRelease: the first `olm.package` property decides. Throws
 * `no package property found in bundle "<name>"`, the unmarshal error, or blang's parse error.
 */
export function getVersionAndRelease(bundle: Pick<PackageBundle, 'name' | 'properties'>, options: VersionOptions = {}): VersionRelease {
  const prop = bundle.properties.find((p) => p.type === 'olm.package');
  if (prop === undefined) throw new Error(msg.noPackageProperty(bundle.name));
  const pkg = readPackageProperty(prop.value);
  if (options.bundleReleaseSupport && pkg.release !== undefined) return parseExplicitRelease(pkg.version, pkg.release);
  return parseLegacyVersionRelease(pkg.version);
}

/** Like getVersionAndRelease, but the error is returned (bundles that fail sort last, match nothing). */
export function tryVersionAndRelease(bundle: Pick<PackageBundle, 'name' | 'properties'>, options: VersionOptions = {}): VersionRelease | Error {
  try {
    return getVersionAndRelease(bundle, options);
  } catch (err) {
    return err as Error;
  }
}

/**
 * The installed bundle's version/release as successors.go reads status.install.bundle: an
 * explicit `release` (even `""`) is used as is; otherwise the legacy build-metadata rule.
 */
export function installedVersionRelease(installed: { readonly version: string; readonly release?: string | undefined }): VersionRelease {
  const { release } = installed;
  if (release === undefined) {
    return tryOrThrow(
      () => parseLegacyVersionRelease(installed.version),
      (err) => new Error(`failed to get version and release of installed bundle: ${err.message}`, { cause: err }),
    );
  }
  const version = tryOrThrow(
    () => parseBlang(installed.version),
    (err) => new Error(`failed to parse installed bundle version ${goQuote(installed.version)}: ${err.message}`, { cause: err }),
  );
  if (release === '') return { version, release: [] };
  return {
    version,
    release: tryOrThrow(() => parseRelease(release), (err) => new Error(`failed to parse installed bundle release ${goQuote(release)}: ${err.message}`, { cause: err })),
  };
}

export const releaseString = (r: Release): string => (r ?? []).join('.');

/**
 * bundleutil.MetadataFor: with BundleReleaseSupport, `{version, release?}` apart (release present
 * when not nil); without it the release is written back as build metadata (`1.0.0+2`).
 */
export function bundleMetadataVersion(vr: VersionRelease, options: VersionOptions = {}): { version: string; release?: string } {
  if (options.bundleReleaseSupport) {
    const version = formatVersion(vr.version);
    return vr.release === undefined ? { version } : { version, release: releaseString(vr.release) };
  }
  const build = vr.release !== undefined && vr.release.length > 0 ? vr.release : vr.version.build;
  return { version: formatVersion({ ...vr.version, build }) };
}

/** `1.0.0` or `1.0.0 (release 2)` for explanations. */
export function describeVersionRelease(vr: VersionRelease): string {
  const v = formatVersion(vr.version);
  return vr.release !== undefined && vr.release.length > 0 ? `${v} (release ${releaseString(vr.release)})` : v;
}
