// Classic OLM's ClusterOperator status (operator-lifecycle-manager pkg/controller/operators/openshift), as pure
// functions: which CSVs block the next minor, and the status the reconciler writes — relatedObjects, versions,
// Progressing, Available, Degraded, Upgradeable — mutated in upstream's order with upstream's texts.
import type { Version } from '../shared/semver/index.ts';
import {
  OperatorAvailable,
  OperatorDegraded,
  OperatorProgressing,
  OperatorUpgradeable,
  olmSetIfChanged,
  versionsMatch,
  type ClusterOperatorStatus,
  type ObjectReference,
  type OperandVersion,
} from './clusteroperator.ts';
import { CSV_PROPERTIES_ANNOTATION, classicPropertiesFromAnnotation } from './properties.ts';
import { classicBlockingMessage, classicBlocks, classicMaxOpenShiftVersion, classicReleaseVersion, nextMinor, type ClassicSkew } from './version.ts';

export const IncompatibleOperatorsInstalled = 'IncompatibleOperatorsInstalled';
export const ErrorCheckingOperatorCompatibility = 'ErrorCheckingOperatorCompatibility';
/** Upgradeable/Degraded message while OLM has not synced or its versions are not the target's yet. */
export const WaitingForUpdates = 'Waiting for updates to take effect';
/** The label OLM puts on CSVs copied into an OperatorGroup's target namespaces. */
export const CopiedLabelKey = 'olm.copiedFrom';

/** What the classic controller needs of a CSV. */
export interface CsvInfo {
  readonly namespace: string;
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export const isCopied = (csv: CsvInfo): boolean => csv.labels?.[CopiedLabelKey] !== undefined;

/** Verdicts by annotation text: every recompute reads every CSV, and their annotations rarely change. */
const byAnnotation = new Map<string, { readonly max?: Version; readonly error?: string }>();
const CACHED_ANNOTATIONS = 8192;

/** A CSV's max, undefined without one; throws with upstream's text when the annotation or property is invalid. */
export function csvMaxOpenShiftVersion(csv: CsvInfo): Version | undefined {
  const annotation = csv.annotations?.[CSV_PROPERTIES_ANNOTATION];
  if (annotation === undefined) return undefined;
  let v = byAnnotation.get(annotation);
  if (!v) {
    try {
      const max = classicMaxOpenShiftVersion(classicPropertiesFromAnnotation(annotation));
      v = max === undefined ? {} : { max };
    } catch (err) {
      v = { error: (err as Error).message };
    }
    if (byAnnotation.size >= CACHED_ANNOTATIONS) byAnnotation.delete(byAnnotation.keys().next().value!);
    byAnnotation.set(annotation, v);
  }
  if (v.error !== undefined) throw new Error(v.error);
  return v.max;
}

/**
 * upstream's incompatibleOperators: every non-copied CSV whose normalized max is below `next`, and every one whose
 * property is invalid, in the given order.
 */
export function classicSkews(csvs: readonly CsvInfo[], next: { readonly major: number; readonly minor: number }): ClassicSkew[] {
  const out: ClassicSkew[] = [];
  for (const csv of csvs) {
    if (isCopied(csv)) continue;
    let max: Version | undefined;
    try {
      max = csvMaxOpenShiftVersion(csv);
    } catch (err) {
      out.push({ namespace: csv.namespace, name: csv.name, error: (err as Error).message });
      continue;
    }
    if (max && classicBlocks(max, next)) out.push({ namespace: csv.namespace, name: csv.name, max });
  }
  return out;
}

/** What the Upgradeable condition says about compatibility (when OLM is synced and at its target versions). */
export type ClassicVerdict =
  | { readonly kind: 'compatible' }
  | { readonly kind: 'incompatible'; readonly skews: readonly ClassicSkew[]; readonly message: string }
  | { readonly kind: 'error'; readonly message: string };

/** Compatibility of the CSVs with the minor after `RELEASE_VERSION`. */
export function classicVerdict(releaseVersion: string | undefined, csvs: readonly CsvInfo[]): ClassicVerdict {
  let current: Version;
  try {
    current = classicReleaseVersion(releaseVersion);
  } catch (err) {
    return { kind: 'error', message: (err as Error).message };
  }
  const skews = classicSkews(csvs, nextMinor(current));
  return skews.length === 0 ? { kind: 'compatible' } : { kind: 'incompatible', skews, message: classicBlockingMessage(skews) };
}

export interface ClassicStatusInput {
  /** The ClusterOperator's name (upstream's `--writeStatusName`). */
  readonly name: string;
  /** OLM has synced successfully at least once (upstream's SyncTracker). */
  readonly synced: boolean;
  /** `[{operator, $RELEASE_VERSION}, {<name>, <olm version>}]`. */
  readonly targetVersions: readonly OperandVersion[];
  readonly olmVersion: string;
  /** Non-copied CSVs of the OLM namespace; empty leaves relatedObjects as they are (upstream: best effort). */
  readonly related: readonly ObjectReference[];
  /** Computed only when needed (synced and at the target versions). */
  readonly verdict: () => ClassicVerdict;
  /** RFC 3339 time for conditions that change. */
  readonly now: string;
}

/** The status upstream's reconciler would write over `current` (a new object; `current` is not changed). */
export function classicStatus(current: ClusterOperatorStatus | undefined, input: ClassicStatusInput): { status: ClusterOperatorStatus; verdict?: ClassicVerdict } {
  const status: ClusterOperatorStatus = structuredClone(current ?? {});
  // WithOLMOperator's mutator runs first: related objects, when there are any.
  if (input.related.length > 0) status.relatedObjects = input.related.map((r) => ({ ...r }));
  // setVersions
  if (input.synced && !versionsMatch(status.versions, input.targetVersions)) status.versions = input.targetVersions.map((v) => ({ ...v }));
  const atLevel = input.synced && versionsMatch(status.versions, input.targetVersions);
  olmSetIfChanged(
    status,
    atLevel
      ? { type: OperatorProgressing, status: 'False', message: `Deployed ${input.olmVersion}` }
      : { type: OperatorProgressing, status: 'True', message: `Waiting to see update ${input.olmVersion} succeed` },
    input.now,
  );
  olmSetIfChanged(status, { type: OperatorAvailable, status: atLevel ? 'True' : 'False' }, input.now);
  olmSetIfChanged(status, atLevel ? { type: OperatorDegraded, status: 'False' } : { type: OperatorDegraded, status: 'True', message: WaitingForUpdates }, input.now);
  if (!atLevel) {
    olmSetIfChanged(status, { type: OperatorUpgradeable, status: 'False', message: WaitingForUpdates }, input.now);
    return { status };
  }
  const verdict = input.verdict();
  olmSetIfChanged(
    status,
    verdict.kind === 'compatible'
      ? { type: OperatorUpgradeable, status: 'True' }
      : verdict.kind === 'incompatible'
        ? { type: OperatorUpgradeable, status: 'False', reason: IncompatibleOperatorsInstalled, message: verdict.message }
        : {
            type: OperatorUpgradeable,
            status: 'False',
            reason: ErrorCheckingOperatorCompatibility,
            message: `Encountered errors while checking compatibility with the next minor version of OpenShift: ${verdict.message}`,
          },
    input.now,
  );
  return { status, verdict };
}

/** upstream's relatedObjects: the non-copied CSVs of the OLM namespace. */
export function classicRelatedObjects(csvs: readonly CsvInfo[], namespace: string): ObjectReference[] {
  return csvs
    .filter((c) => !isCopied(c) && (namespace === '' || c.namespace === namespace))
    .map((c) => ({ group: 'operators.coreos.com', resource: 'clusterserviceversions', namespace: c.namespace, name: c.name }));
}
