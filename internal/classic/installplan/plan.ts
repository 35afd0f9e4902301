// Pure helpers over InstallPlan status as upstream's api types have them (installplan_types.go):
// OrderSteps, NeedsRequeue, GetCondition / SetCondition and the
// ConditionFailed / ConditionMet constructors.
import {
  ClusterServiceVersionKind,
  StepStatusWaitingForAPI,
  type InstallPlanCondition,
  type InstallPlanStatus,
  type Step,
} from '../../../api/operators/index.ts';

export const CustomResourceDefinitionKind = 'CustomResourceDefinition';

/** CSVs first, then CRDs, then everything else, each group in its original order (OrderSteps). */
export function orderSteps<T extends Pick<Step, 'resource'>>(steps: readonly T[]): T[] {
  const csvs = steps.filter((s) => s.resource.kind === ClusterServiceVersionKind);
  const crds = steps.filter((s) => s.resource.kind === CustomResourceDefinitionKind);
  const rest = steps.filter((s) => s.resource.kind !== ClusterServiceVersionKind && s.resource.kind !== CustomResourceDefinitionKind);
  return [...csvs, ...crds, ...rest];
}

/** Some step still waits for its API (a CRD not yet Established): the plan is not Complete (NeedsRequeue). */
export function needsRequeue(status: Pick<InstallPlanStatus, 'plan'>): boolean {
  return (status.plan ?? []).some((s) => s.status === StepStatusWaitingForAPI);
}

/** The condition of `type`, or one with status `Unknown` when there is none (GetCondition). */
export function getCondition(status: Pick<InstallPlanStatus, 'conditions'>, type: string): InstallPlanCondition {
  return status.conditions?.find((c) => c.type === type) ?? { type, status: 'Unknown' };
}

/**
 * Adds or replaces the condition of `cond.type`, in place; an existing condition of the same status keeps its
 * `lastTransitionTime` (SetCondition). Returns the condition as stored.
 */
export function setCondition(status: Pick<InstallPlanStatus, 'conditions'>, cond: InstallPlanCondition): InstallPlanCondition {
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    conditions.push(cond);
    return cond;
  }
  const existing = conditions[i]!;
  const stored: InstallPlanCondition = { ...cond };
  if (existing.status === cond.status) {
    if (existing.lastTransitionTime === undefined) delete stored.lastTransitionTime;
    else stored.lastTransitionTime = existing.lastTransitionTime;
  }
  conditions[i] = stored;
  return stored;
}

/** Status `False` with a reason and message, both times `now` (ConditionFailed); empty fields omitted as Go's JSON does. */
export function conditionFailed(type: string, reason: string, message: string, now: string): InstallPlanCondition {
  return {
    type,
    status: 'False',
    ...(reason && { reason }),
    ...(message && { message }),
    lastUpdateTime: now,
    lastTransitionTime: now,
  };
}

/** Status `True`, both times `now`, no reason or message (ConditionMet). */
export function conditionMet(type: string, now: string): InstallPlanCondition {
  return { type, status: 'True', lastUpdateTime: now, lastTransitionTime: now };
}
