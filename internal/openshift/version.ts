// OpenShift versions and `olm.maxOpenShiftVersion`, with both upstream rule sets:
//   classic — OLM's ClusterOperator controller (operator-lifecycle-manager pkg/controller/operators/openshift):
//             RELEASE_VERSION and the property parsed tolerantly, major.minor only, quoted or bare;
//   v1      — cluster-olm-operator's incompatible-operator controller (internal/versionutils): RELEASE_VERSION
//             parsed strictly, the property a JSON string or number under stricter rules.
// OpenShift 4.23 and 5.0 are released together as equivalents; the only upgrade from either is 5.1.
import { compareVersions, formatVersion, makeVersion, parseBlang, parseTolerant, type Version } from '../shared/semver/index.ts';
import { errorMessage } from '../shared/controller/index.ts';
import { goJSONParse, goQuote, type GoJSONValue } from '../shared/gocompat/index.ts';
import { withErrorPrefix } from '../shared/toolkit/index.ts';

export const MAX_OPENSHIFT_VERSION_PROPERTY = 'olm.maxOpenShiftVersion';

/** An OpenShift minor release. */
export interface OcpMinor {
  readonly major: number;
  readonly minor: number;
}

export const formatMinor = (m: OcpMinor): string => `${m.major}.${m.minor}`;
const compareMinor = (a: OcpMinor, b: OcpMinor): number => a.major - b.major || a.minor - b.minor;

/** `{major, minor}` of a version, with 4.23 read as its co-released equivalent 5.0. */
export function normalize(v: OcpMinor): OcpMinor {
  return v.major === 4 && v.minor === 23 ? { major: 5, minor: 0 } : { major: v.major, minor: v.minor };
}

/** The next minor, raw: patch, prerelease and build dropped, no 4.23 mapping (4.23 → 4.24). */
export const nextY = (v: OcpMinor): OcpMinor => ({ major: v.major, minor: v.minor + 1 });

/** The minor a cluster at `current` upgrades to: 4.22 → 4.23, 4.23 → 5.1, 5.0 → 5.1. */
export const nextMinor = (current: OcpMinor): OcpMinor => nextY(normalize(current));

// ---- classic ------------------------------------------------------------------------------------

/** The cluster's release from `RELEASE_VERSION` (blang ParseTolerant), with classic OLM's messages. */
export function classicReleaseVersion(env: string | undefined): Version {
  if (env === undefined || env === '') throw new Error('desired release version missing from RELEASE_VERSION env variable');
  return withErrorPrefix('cluster version has invalid desired release version', () => parseTolerant(env));
}

/** One bundle property as OLM projects it: the raw JSON text of its value. */
export interface RawProperty {
  readonly type: string;
  readonly value: string;
}

/**
 * `olm.maxOpenShiftVersion` of a CSV from its `operatorframework.io/properties` annotation (classic rules): none ⇒
 * undefined (compatible with everything); the value with surrounding quotes trimmed, so `"4.8"` and `4.8` both
 * work; major.minor only (`4.8`, `4.8.0`, `1.1.0+build` yes; `4.8.1`, `1.1.0-pre` no).
 */
export function classicMaxOpenShiftVersion(properties: readonly RawProperty[]): Version | undefined {
  const found = properties.filter((p) => p.type === MAX_OPENSHIFT_VERSION_PROPERTY);
  if (found.length === 0) return undefined;
  if (found.length > 1) throw new Error(`defining more than one ${JSON.stringify(MAX_OPENSHIFT_VERSION_PROPERTY)} property is not allowed`);
  const value = found[0]!.value.replace(/^"+|"+$/g, '');
  if (value === '') throw new Error('value cannot be "" (an empty string)');
  const version = withErrorPrefix(`failed to parse ${JSON.stringify(value)} as semver`, () => parseTolerant(value));
  const truncated = makeVersion(version.major, version.minor, 0);
  if (compareVersions(version, truncated) !== 0) {
    throw new Error(`property ${MAX_OPENSHIFT_VERSION_PROPERTY} must specify only <major>.<minor> version, got invalid value ${formatVersion(version)}`);
  }
  return version;
}

/** Classic: a CSV blocks the upgrade to `next` when its normalized max is below it. */
export const classicBlocks = (max: Version, next: OcpMinor): boolean => compareMinor(normalize(max), next) < 0;

/** One CSV's verdict for the Upgradeable message: its max, or why its property is invalid. */
export type ClassicSkew =
  | { readonly namespace: string; readonly name: string; readonly max: Version }
  | { readonly namespace: string; readonly name: string; readonly error: string };

/** The header classic OLM writes (hard-coded upstream, whatever the cluster version). */
export const CLASSIC_BLOCKING_HEADER = 'ClusterServiceVersions blocking minor version upgrades to 4.23 or major version upgrades to 5.0:';

/**
 * The `IncompatibleOperatorsInstalled` message, lines in upstream's order: error lines first in list order, then
 * the blocking CSVs in reverse list order (upstream fills its array from both ends).
 */
export function classicBlockingMessage(skews: readonly ClassicSkew[]): string {
  const errors: string[] = [];
  const blocking: string[] = [];
  for (const s of skews) {
    if ('error' in s) errors.push(`- ${s.namespace}/${s.name} has invalid ${MAX_OPENSHIFT_VERSION_PROPERTY} properties: ${s.error}`);
    else blocking.unshift(`- maximum supported OCP version for ${s.namespace}/${s.name} is ${s.max.major}.${s.max.minor}`);
  }
  return [CLASSIC_BLOCKING_HEADER, ...errors, ...blocking].join('\n');
}

// ---- v1 -----------------------------------------------------------------------------------------

/** The cluster's minor from `RELEASE_VERSION` (blang Parse, strict), patch, prerelease and build zeroed. */
export function v1CurrentMinor(releaseVersion: string): Version {
  const v = parseBlang(releaseVersion);
  return makeVersion(v.major, v.minor, 0);
}

const MAJOR_MINOR = /^([1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

/** cluster-olm-operator's ToAllowedSemver: the raw JSON text of the property value → its version. */
export function v1AllowedVersion(rawJson: string): Version {
  let value: GoJSONValue;
  try {
    value = goJSONParse(rawJson);
  } catch (err) {
    throw new Error(errorMessage(err), { cause: err });
  }
  let text: string;
  if (value.kind === 'number') {
    const m = MAJOR_MINOR.exec(rawJson);
    if (!m) throw new Error(`invalid semver format ${goQuote(rawJson)}: expected <major>.<minor>`);
    text = `${m[1]}.${m[2]}`;
  } else if (value.kind === 'string') {
    text = value.value;
  } else {
    const goType = { null: '<nil>', array: '[]interface {}', bool: 'bool', object: 'map[string]interface {}' }[value.kind];
    throw new Error(`invalid type ${goType} for olm.maxOpenshiftVersion: ${rawJson}`);
  }
  if (text.startsWith('v') || text.split('.').length - 1 !== 1) throw new Error('invalid version format');
  return parseTolerant(text);
}

/** v1: compatible when the max is above the cluster's minor, 4.23 counted as 5.0. */
export function v1Compatible(max: Version, currentMinor: OcpMinor): boolean {
  const effective = normalize(currentMinor);
  return compareVersions(max, makeVersion(effective.major, effective.minor, 0)) > 0;
}

/** v1: the version named in the message: 4.22 → "4.23", 4.23 → "5.1", 5.0 → "5.1". */
export const v1NextMinorText = (currentMinor: OcpMinor): string => formatMinor(nextMinor(currentMinor));

/**
 * v1's message for the blocking extensions (`bundle "<b>" for ClusterExtension "<ce>"`, sorted, joined by `,`);
 * `errors` is the text of the metadata errors as upstream joins them (errors.Join: one per line).
 */
export function v1BlockingMessage(currentMinor: OcpMinor, blocking: readonly { readonly bundle: string; readonly extension: string }[], errors = ''): string {
  const items = blocking.map((b) => `bundle ${goQuote(b.bundle)} for ClusterExtension ${goQuote(b.extension)}`).sort();
  let msg = `Found ClusterExtensions that require upgrades prior to upgrading cluster to version ${v1NextMinorText(currentMinor)}: ${items.join(',')}.`;
  if (errors !== '') msg += `\n Additionally the following errors were encountered while getting extension metadata: ${errors}`;
  return msg;
}
