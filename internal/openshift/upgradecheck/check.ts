// The heart of `kubectl olm upgrade-check`: which installs block the cluster's next minor (or a named target)
// under the rules of their kind — ClusterExtensions as cluster-olm-operator judges them, CSVs as classic OLM does —
// and, for each, what to upgrade it to first, asked of a finder per kind (cluster.ts reads the live catalogs).
import { compareVersions, makeVersion, parseTolerant, type Version } from '../../shared/semver/index.ts';
import { csvMaxOpenShiftVersion, type CsvInfo } from '../classic.ts';
import { withErrorPrefix } from '../../shared/toolkit/index.ts';
import { v1PropertiesFromAnnotation } from '../properties.ts';
import {
  MAX_OPENSHIFT_VERSION_PROPERTY,
  classicBlocks,
  formatMinor,
  nextMinor,
  normalize,
  v1AllowedVersion,
  v1Compatible,
  type OcpMinor,
  type RawProperty,
} from '../version.ts';

export type InstallKind = 'ClusterExtension' | 'ClusterServiceVersion';

/** The cluster version and the minor it is checked against. */
export interface CheckTarget {
  /** The cluster's version as read (ClusterVersion or --current). */
  readonly current: string;
  /** `--to`, when given: the version to check against instead of the next minor. */
  readonly to?: string;
}

/** Whether a bundle's max lets the cluster reach the target, under its kind's rules. */
export type Allows = (kind: InstallKind, max: Version | undefined) => boolean;

/**
 * Without `--to`, upstream's own rules: classic — normalized max at least the next minor; v1 — max above the
 * cluster's minor, 4.23 counted as 5.0. With `--to`, for both kinds: normalized max at least the normalized target.
 */
export function targetRules(t: CheckTarget): { readonly currentMinor: OcpMinor; readonly target: OcpMinor; readonly allows: Allows } {
  const current = parseTolerant(t.current);
  const currentMinor = { major: current.major, minor: current.minor };
  if (t.to !== undefined) {
    const raw = parseTolerant(t.to);
    const to = normalize(raw);
    const atLeastTo = (max: Version): boolean => {
      const m = normalize(max);
      return compareVersions(makeVersion(m.major, m.minor, 0), makeVersion(to.major, to.minor, 0)) >= 0;
    };
    return { currentMinor, target: { major: raw.major, minor: raw.minor }, allows: (_kind, max) => max === undefined || atLeastTo(max) };
  }
  const next = nextMinor(currentMinor);
  const v1Current = makeVersion(current.major, current.minor, 0);
  return {
    currentMinor,
    target: next,
    allows: (kind, max) => max === undefined || (kind === 'ClusterServiceVersion' ? !classicBlocks(max, next) : v1Compatible(max, v1Current)),
  };
}

/** What to upgrade a blocking install to, or why nothing is named. */
export type UpgradeCandidate =
  | {
      readonly bundle: string;
      readonly version: string;
      /** Where it comes from: `ClusterCatalog <name>`, `CatalogSource <ns>/<name> channel <c>`. */
      readonly source: string;
      readonly maxOpenShiftVersion?: string;
      /** A condition of the move, e.g. the extension's version range must be widened. */
      readonly note?: string;
    }
  | { readonly none: string };

/** An installed ClusterExtension as the check needs it. */
export interface ExtensionInstall {
  readonly name: string;
  readonly bundle: string;
  readonly version: string;
  /** Its revision's `olm.properties`, when the record has them. */
  readonly properties?: string;
}

export interface CsvInstall extends CsvInfo {
  readonly bundle: string;
}

export interface Blocker {
  readonly kind: InstallKind;
  readonly namespace?: string;
  readonly name: string;
  readonly bundle: string;
  /** `<major>.<minor>` of its olm.maxOpenShiftVersion. */
  readonly maxOpenShiftVersion?: string;
  /** Why its property is invalid (it blocks, as upstream counts it). */
  readonly error?: string;
  readonly upgradeTo: UpgradeCandidate;
}

export interface Report {
  readonly current: string;
  readonly target: string;
  readonly blocking: readonly Blocker[];
}

export interface Finders {
  extension(ext: ExtensionInstall, allows: (max: Version | undefined) => boolean): Promise<UpgradeCandidate>;
  csv(csv: CsvInstall, allows: (max: Version | undefined) => boolean): Promise<UpgradeCandidate>;
}

/** v1's reading of an extension's recorded properties: its max, or the problem upstream reports. */
export function extensionMax(properties: string | undefined): Version | undefined {
  if (properties === undefined) return undefined;
  return bundleMaxV1(withErrorPrefix('could not convert olm.properties', () => v1PropertiesFromAnnotation(properties)));
}

/** A bundle's max under v1's rules (more than one property, or one ToAllowedSemver refuses: an error). */
export function bundleMaxV1(props: readonly RawProperty[]): Version | undefined {
  const found = props.filter((p) => p.type === MAX_OPENSHIFT_VERSION_PROPERTY);
  if (found.length > 1) throw new Error(`more than one ${MAX_OPENSHIFT_VERSION_PROPERTY} found in bundle`);
  if (found.length === 0) return undefined;
  return withErrorPrefix(`error converting to semver for version ${found[0]!.value}`, () => v1AllowedVersion(found[0]!.value));
}

const minorText = (v: Version): string => `${v.major}.${v.minor}`;

/** Every blocking install with its way out. Extensions first (by name), then CSVs (by namespace and name). */
export async function upgradeCheck(
  target: CheckTarget,
  installs: { readonly extensions: readonly ExtensionInstall[]; readonly csvs: readonly CsvInstall[] },
  finders: Finders,
): Promise<Report> {
  const rules = targetRules(target);
  const blocking: Blocker[] = [];
  for (const ext of [...installs.extensions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const judged = judge(() => extensionMax(ext.properties), (max) => rules.allows('ClusterExtension', max));
    if (!judged) continue;
    const upgradeTo = await finders.extension(ext, (max) => rules.allows('ClusterExtension', max));
    blocking.push({ kind: 'ClusterExtension', name: ext.name, bundle: ext.bundle, ...judged, upgradeTo });
  }
  const csvs = [...installs.csvs].sort((a, b) => (a.namespace === b.namespace ? (a.name < b.name ? -1 : 1) : a.namespace < b.namespace ? -1 : 1));
  for (const csv of csvs) {
    const judged = judge(() => csvMaxOpenShiftVersion(csv), (max) => rules.allows('ClusterServiceVersion', max));
    if (!judged) continue;
    const upgradeTo = await finders.csv(csv, (max) => rules.allows('ClusterServiceVersion', max));
    blocking.push({ kind: 'ClusterServiceVersion', namespace: csv.namespace, name: csv.name, bundle: csv.bundle, ...judged, upgradeTo });
  }
  return { current: target.current, target: formatMinor(rules.target), blocking };
}

/** undefined: does not block; else its max or its error. */
function judge(max: () => Version | undefined, allows: (max: Version | undefined) => boolean): { maxOpenShiftVersion?: string; error?: string } | undefined {
  let v: Version | undefined;
  try {
    v = max();
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (allows(v)) return undefined;
  return { maxOpenShiftVersion: minorText(v!) };
}
