// A CSV's phase as upstream's API helpers keep it (operator-framework/api clusterserviceversion.go): the Event that
// goes with a phase change, and the copied / uncopiable tests. SetPhase and the 20-condition limit are api/operators'.
import {
  CSVPhaseFailed,
  CSVPhaseNone,
  CSVReasons,
  type ClusterServiceVersion,
  setPhase,
} from '../../../api/operators/index.ts';
export { isCopied, isCopiedObject } from '../olmcache/index.ts';
export { CONDITIONS_LENGTH_LIMIT, setPhase } from '../../../api/operators/index.ts';

/** Where phase changes are told (a Kubernetes Event with the CSV's reason, Warning when Failed). */
export interface PhaseEvents {
  phase(csv: ClusterServiceVersion, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** upstream's SetPhaseWithEvent. */
export function setPhaseWithEvent(csv: ClusterServiceVersion, phase: string, reason: string, message: string, now: string, events?: PhaseEvents): void {
  events?.phase(csv, phase === CSVPhaseFailed ? 'Warning' : 'Normal', reason, message);
  setPhase(csv, phase, reason, message, now);
}

/**
 * The CSV status as upstream's writes carry it: Go's encoding/json always writes the struct field `cleanup`
 * (CSVStatus.Cleanup, `json:"cleanup,omitempty"`: omitempty never omits a struct), so every status write has
 * `cleanup: {}` at least (operator-framework/api clusterserviceversion_types.go). Returns `csv`.
 */
export function withStatusCleanup(csv: ClusterServiceVersion): ClusterServiceVersion {
  if (csv.status && !csv.status.cleanup) csv.status.cleanup = {};
  return csv;
}

/** upstream's SetPhaseWithEventIfChanged: nothing when phase, reason and message are all as they are. */
export function setPhaseWithEventIfChanged(
  csv: ClusterServiceVersion,
  phase: string,
  reason: string,
  message: string,
  now: string,
  events?: PhaseEvents,
): void {
  const s = csv.status ?? {};
  if ((s.phase ?? CSVPhaseNone) === phase && (s.reason ?? '') === reason && (s.message ?? '') === message) return;
  setPhaseWithEvent(csv, phase, reason, message, now, events);
}

const UNCOPIABLE = new Set<string>([
  CSVReasons.Copied,
  CSVReasons.InvalidInstallModes,
  CSVReasons.NoTargetNamespaces,
  CSVReasons.UnsupportedOperatorGroup,
  CSVReasons.NoOperatorGroup,
  CSVReasons.TooManyOperatorGroups,
  CSVReasons.InterOperatorGroupOwnerConflict,
  CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs,
]);

/** Not copied into target namespaces: no phase yet, or failed for a group reason. */
export const isUncopiable = (csv: ClusterServiceVersion): boolean =>
  (csv.status?.phase ?? CSVPhaseNone) === CSVPhaseNone || UNCOPIABLE.has(csv.status?.reason ?? '');
