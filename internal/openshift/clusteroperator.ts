// OpenShift's ClusterOperator and ClusterVersion (config.openshift.io/v1) as the gating controllers and the CLI
// read and write them, and the two upstream ways of setting a ClusterOperator condition:
//   OLM classic's (`ClusterOperator.SetCondition`: the condition is replaced and moved to the end; callers only
//   set it when type, status, reason or message differ — lastTransitionTime is theirs);
//   library-go's (`configv1helpers.SetStatusCondition`: updated in place, lastTransitionTime moves only with the
//   status), used by cluster-olm-operator's status syncer, with its union of `*Upgradeable` operator conditions
//   and its status-diff text for the `OperatorStatusChanged` Event.
import type { KubeObject } from '../../api/meta/v1.ts';
import { goQuote } from '../shared/gocompat/index.ts';

export const ConfigGroupVersion = 'config.openshift.io/v1';
export const ClusterOperatorKind = 'ClusterOperator';
export const ClusterVersionKind = 'ClusterVersion';
/** The singleton ClusterVersion of a cluster. */
export const ClusterVersionName = 'version';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export const OperatorAvailable = 'Available';
export const OperatorProgressing = 'Progressing';
export const OperatorDegraded = 'Degraded';
export const OperatorUpgradeable = 'Upgradeable';

export interface ClusterOperatorCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

export interface OperandVersion {
  name: string;
  version: string;
}

export interface ObjectReference {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

export interface ClusterOperatorStatus {
  conditions?: ClusterOperatorCondition[];
  versions?: OperandVersion[];
  relatedObjects?: ObjectReference[];
  extension?: unknown;
}

export interface ClusterOperator extends KubeObject {
  spec?: Record<string, never>;
  status?: ClusterOperatorStatus;
}

export interface ClusterVersion extends KubeObject {
  spec?: { clusterID?: string; channel?: string; desiredUpdate?: { version?: string; image?: string } };
  status?: {
    desired?: { version?: string; image?: string };
    history?: { state?: string; version?: string }[];
  };
}

/** A new ClusterOperator as upstream creates a missing one: name only, `spec: {}`. */
export const newClusterOperator = (name: string): ClusterOperator => ({ apiVersion: ConfigGroupVersion, kind: ClusterOperatorKind, metadata: { name }, spec: {} });

export const findCondition = (status: ClusterOperatorStatus | undefined, type: string): ClusterOperatorCondition | undefined =>
  status?.conditions?.find((c) => c.type === type);

/** OLM's conditionsEqual: type, status, reason and message (lastTransitionTime ignored). */
export function conditionsEqual(a: ClusterOperatorCondition | undefined, b: ClusterOperatorCondition | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.type === b.type && a.status === b.status && (a.message ?? '') === (b.message ?? '') && (a.reason ?? '') === (b.reason ?? '');
}

/** OLM's versionsMatch: the same operand versions, as a multiset. */
export function versionsMatch(a: readonly OperandVersion[] | undefined, b: readonly OperandVersion[]): boolean {
  const sorted = (vs: readonly OperandVersion[]): string => JSON.stringify(vs.map((v) => JSON.stringify([v.name, v.version])).sort());
  return sorted(a ?? []) === sorted(b);
}

/**
 * OLM's pattern: set `desired` (with lastTransitionTime now) only when it differs from the current condition, as OLM's
 * SetCondition does — the condition of the same type dropped and this one appended (so it moves to the end).
 */
export function olmSetIfChanged(status: ClusterOperatorStatus, desired: Omit<ClusterOperatorCondition, 'lastTransitionTime'>, now: string): void {
  const cond: ClusterOperatorCondition = { ...desired, lastTransitionTime: now };
  if (conditionsEqual(findCondition(status, desired.type), cond)) return;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), cond];
}

/** library-go's SetStatusCondition: in place; lastTransitionTime moves only when the status does. */
export function libraryGoSetCondition(status: ClusterOperatorStatus, condition: Omit<ClusterOperatorCondition, 'lastTransitionTime'>, now: string): void {
  const conditions = (status.conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    // empty reason and message left out, as Go's `omitempty` writes them
    const { reason, message } = condition;
    conditions.push({ type: condition.type, status: condition.status, lastTransitionTime: now, ...(reason && { reason }), ...(message && { message }) });
    return;
  }
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = now;
  }
  if (condition.reason) existing.reason = condition.reason;
  else delete existing.reason;
  if (condition.message) existing.message = condition.message;
  else delete existing.message;
}

/** An operator condition (operator.openshift.io) as cluster-olm-operator's controllers write them. */
export interface OperatorCondition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * library-go's UnionCondition for a ClusterOperator condition of `conditionType` from operator conditions whose
 * type ends with it (no inertia): none ⇒ Unknown `NoData`; none away from `defaultStatus` ⇒ `defaultStatus`,
 * `AsExpected`, the messages (or `All is well`); else the bad ones' status, reasons `<prefix>_<reason>` sorted and
 * joined by `::`, and their message lines each prefixed `<type>: ` (a condition's repeated lines once).
 */
export function unionCondition(conditionType: string, defaultStatus: ConditionStatus, conditions: readonly OperatorCondition[]): Omit<ClusterOperatorCondition, 'lastTransitionTime'> {
  const interesting = conditions.filter((c) => c.type.endsWith(conditionType));
  if (interesting.length === 0) return { type: conditionType, status: 'Unknown', reason: 'NoData' };
  const opposite: ConditionStatus = defaultStatus === 'True' ? 'False' : 'True';
  const bad = interesting.filter((c) => c.status !== defaultStatus).sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  if (bad.length === 0) return { type: conditionType, status: defaultStatus, reason: 'AsExpected', message: unionMessage(interesting) || 'All is well' };
  const status: ConditionStatus = bad.some((c) => c.status === opposite) ? opposite : 'Unknown';
  const reasons = bad.map((c) => {
    const prefix = c.type.slice(0, c.type.length - conditionType.length);
    return c.reason ? `${prefix}_${c.reason}` : prefix;
  });
  return { type: conditionType, status, reason: reasons.sort().join('::'), message: unionMessage(bad) };
}

function unionMessage(conditions: readonly OperatorCondition[]): string {
  const lines: string[] = [];
  for (const c of conditions) {
    if (!c.message) continue;
    for (const line of new Set(c.message.split('\n'))) lines.push(`${c.type}: ${line}`);
  }
  return lines.join('\n');
}

/**
 * library-go's GetStatusDiff, for the conditions of `types`: `<T> set to <S> ("<msg>")`,
 * `<T> changed from <A> to <B> ("<msg>")`, `<T> message changed from "<a>" to "<b>"`, joined by `,`; '' when
 * nothing of them changed.
 */
export function conditionDiff(before: ClusterOperatorStatus | undefined, after: ClusterOperatorStatus, types: readonly string[]): string {
  const out: string[] = [];
  for (const c of after.conditions ?? []) {
    if (!types.includes(c.type)) continue;
    const old = findCondition(before, c.type);
    if (!old) out.push(`${c.type} set to ${c.status} (${goQuote(c.message ?? '')})`);
    else if (old.status !== c.status) out.push(`${c.type} changed from ${old.status} to ${c.status} (${goQuote(c.message ?? '')})`);
    else if ((old.message ?? '') !== (c.message ?? '')) out.push(`${c.type} message changed from ${goQuote(old.message ?? '')} to ${goQuote(c.message ?? '')}`);
  }
  return out.join(',');
}

/** The Event library-go's status syncer records when a ClusterOperator's status changes. */
export const OperatorStatusChangedReason = 'OperatorStatusChanged';
export const operatorStatusChangedMessage = (name: string, diff: string): string => `Status for clusteroperator/${name} changed: ${diff}`;
