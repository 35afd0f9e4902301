// OLM v1's gating (cluster-olm-operator's incompatible-operator controller, ClusterObjectSet path) as pure
// functions: for each ClusterExtension, its latest Active revision's `olm.properties`; which bundles block the
// next minor; the `InstalledOLMOperatorsUpgradeable` operator condition; and the ClusterOperator `Upgradeable`
// condition library-go's status syncer makes of it.
import type { Version } from '../shared/semver/index.ts';
import { OperatorUpgradeable, unionCondition, type ClusterOperatorCondition, type OperatorCondition } from './clusteroperator.ts';
import { v1PropertiesFromAnnotation } from './properties.ts';
import { MAX_OPENSHIFT_VERSION_PROPERTY, v1AllowedVersion, v1BlockingMessage, v1Compatible, type RawProperty } from './version.ts';

export const InstalledOLMOperatorsUpgradeable = 'InstalledOLMOperatorsUpgradeable';
export const V1IncompatibleOperatorsInstalled = 'IncompatibleOperatorsInstalled';
export const FailureGettingExtensionMetadata = 'FailureGettingExtensionMetadata';

/** What the v1 controller needs of one revision record of an extension. */
export interface RevisionInfo {
  readonly number: number;
  /** `lifecycleState: Active` (not Archived). */
  readonly active: boolean;
  /** The `olm.operatorframework.io/bundle-name` annotation. */
  readonly bundleName: string;
  /** The `olm.properties` annotation, when the record has one. */
  readonly properties?: string;
}

export interface ExtensionInfo {
  readonly name: string;
  readonly revisions: readonly RevisionInfo[];
}

/** The highest-numbered Active revision (upstream's getLatestObjectSet), if any. */
export function latestActive(revisions: readonly RevisionInfo[]): RevisionInfo | undefined {
  let selected: RevisionInfo | undefined;
  for (const r of revisions) if (r.active && (!selected || r.number > selected.number)) selected = r;
  return selected;
}

/** upstream's checkIncompatibility: whether the properties block the cluster's next minor, and every problem. */
export function v1CheckProperties(props: readonly RawProperty[], currentMinor: Version): { incompatible: boolean; errors: string[] } {
  const errors: string[] = [];
  let incompatible = false;
  let seen = 0;
  for (const p of props) {
    if (p.type !== MAX_OPENSHIFT_VERSION_PROPERTY) continue;
    if (++seen > 1) {
      errors.push(`more than one ${MAX_OPENSHIFT_VERSION_PROPERTY} found in bundle`);
      break;
    }
    let max: Version;
    try {
      max = v1AllowedVersion(p.value);
    } catch (err) {
      errors.push(`error converting to semver for version ${p.value}: ${(err as Error).message}`);
      continue;
    }
    incompatible = !v1Compatible(max, currentMinor);
  }
  return { incompatible, errors };
}

export interface V1Blocker {
  readonly extension: string;
  readonly bundle: string;
}

export interface V1Result {
  /** Blocking bundles, in extension order (the message sorts them). */
  readonly blocking: readonly V1Blocker[];
  /** Problems, one per extension, as upstream words them. */
  readonly errors: readonly string[];
}

/** upstream's getIncompatibleOperatorsFromObjectSet over the given extensions. */
export function v1Incompatible(extensions: readonly ExtensionInfo[], currentMinor: Version): V1Result {
  const blocking: V1Blocker[] = [];
  const errors: string[] = [];
  for (const ext of extensions) {
    const rev = latestActive(ext.revisions);
    if (!rev || rev.properties === undefined) continue;
    const bundle = rev.bundleName;
    let props: RawProperty[];
    try {
      props = v1PropertiesFromAnnotation(rev.properties);
    } catch (err) {
      errors.push(`error with cluster extension ${ext.name}: error in bundle ${bundle}: could not convert olm.properties: ${(err as Error).message}`);
      continue;
    }
    const check = v1CheckProperties(props, currentMinor);
    if (check.errors.length > 0) {
      errors.push(`error(s) with cluster extension ${ext.name}: error in bundle ${bundle}: ${check.errors.join('\n')}`);
      continue;
    }
    if (check.incompatible) blocking.push({ extension: ext.name, bundle });
  }
  return { blocking, errors };
}

/** The `InstalledOLMOperatorsUpgradeable` operator condition cluster-olm-operator writes for a result. */
export function v1OperatorCondition(result: V1Result, currentMinor: Version): OperatorCondition {
  const errors = result.errors.join('\n'); // errors.Join
  if (result.blocking.length > 0) {
    return {
      type: InstalledOLMOperatorsUpgradeable,
      status: 'False',
      reason: V1IncompatibleOperatorsInstalled,
      message: v1BlockingMessage(currentMinor, result.blocking, errors),
    };
  }
  if (errors !== '') return { type: InstalledOLMOperatorsUpgradeable, status: 'False', reason: FailureGettingExtensionMetadata, message: errors };
  return { type: InstalledOLMOperatorsUpgradeable, status: 'True' };
}

/** The ClusterOperator `Upgradeable` condition library-go's status syncer makes of that operator condition. */
export function v1Upgradeable(result: V1Result, currentMinor: Version): Omit<ClusterOperatorCondition, 'lastTransitionTime'> {
  return unionCondition(OperatorUpgradeable, 'True', [v1OperatorCondition(result, currentMinor)]);
}
