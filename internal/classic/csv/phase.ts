// A CSV's phase as upstream's API helpers keep it (operator-framework/api clusterserviceversion.go): SetPhase,
// the Event that goes with a phase change, the 20-condition limit, and the copied / uncopiable tests.
import {
  CSVPhaseFailed,
  CSVPhaseNone,
  CSVReasons,
  type ClusterServiceVersion,
  type CSVCondition,
} from '../../../api/operators/index.ts';
export { isCopied, isCopiedObject } from '../olmcache/index.ts';
/** The newest conditions kept in `status.conditions`. */
export const CONDITIONS_LENGTH_LIMIT = 20;

/** Where phase changes are told (a Kubernetes Event with the CSV's reason, Warning when Failed). */
export interface PhaseEvents {
  phase(csv: ClusterServiceVersion, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/**
 * upstream's SetPhase: lastUpdateTime, message and reason always; lastTransitionTime only when the phase changes;
 * a condition appended only when phase or reason differ from the last one; the newest 20 kept.
 */
export function setPhase(csv: ClusterServiceVersion, phase: string, reason: string, message: string, now: string): void {
  const status = (csv.status ??= {});
  status.lastUpdateTime = now;
  if ((status.phase ?? CSVPhaseNone) !== phase) {
    status.phase = phase;
    status.lastTransitionTime = now;
  }
  // Go's omitempty: an empty message or reason is not written.
  if (message) status.message = message;
  else delete status.message;
  if (reason) status.reason = reason;
  else delete status.reason;
  const condition = (): CSVCondition => ({
    phase: status.phase ?? CSVPhaseNone,
    ...(status.lastTransitionTime !== undefined && { lastTransitionTime: status.lastTransitionTime }),
    lastUpdateTime: now,
    ...(message && { message }),
    ...(reason && { reason }),
  });
  const conditions = (status.conditions ??= []);
  const last = conditions[conditions.length - 1];
  if (!last || (last.phase ?? '') !== status.phase || (last.reason ?? '') !== reason) conditions.push(condition());
  if (conditions.length > CONDITIONS_LENGTH_LIMIT) status.conditions = conditions.slice(conditions.length - CONDITIONS_LENGTH_LIMIT);
}

/** upstream's SetPhaseWithEvent. */
export function setPhaseWithEvent(csv: ClusterServiceVersion, phase: string, reason: string, message: string, now: string, events?: PhaseEvents): void {
  events?.phase(csv, phase === CSVPhaseFailed ? 'Warning' : 'Normal', reason, message);
  setPhase(csv, phase, reason, message, now);
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
