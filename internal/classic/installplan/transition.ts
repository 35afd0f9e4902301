// The InstallPlan phase machine (upstream's transitionInstallPlanState), pure but for the executor it
// is handed: RequiresApproval waits for spec.approved; Installing executes the plan, retries an error
// within the retry window (a Forbidden one for ever), fails after it, and completes once no step waits
// for its API. Every other phase passes through unchanged.
import {
  InstallPlanInstalled,
  InstallPlanPhaseComplete,
  InstallPlanPhaseFailed,
  InstallPlanPhaseInstalling,
  InstallPlanPhaseRequiresApproval,
  InstallPlanReasonComponentFailed,
  type InstallPlan,
  type InstallPlanStatus,
} from '../../../api/operators/index.ts';
import { formatTime } from '../../shared/controller/index.ts';
import { isForbiddenError } from './errors.ts';
import { conditionFailed, conditionMet, needsRequeue, setCondition } from './plan.ts';
import { errorMessage } from '../../shared/toolkit/index.ts';

/** Applies a plan's steps, updating each step's status in place on the plan it is given (ExecutePlan). */
export type PlanExecutor = (plan: InstallPlan) => Promise<void>;

export interface Transition {
  /** The plan with its new status (a copy; the input is not changed). */
  readonly plan: InstallPlan;
  /** ExecutePlan's error, when it failed: the sync is retried. */
  readonly error?: unknown;
}

/** `retrying execution due to error: <err>` — the message of a plan that keeps Installing after an error. */
export const retryingMessage = (err: unknown): string => `retrying execution due to error: ${errorMessage(err)}`;

export async function transitionInstallPlanState(input: InstallPlan, execute: PlanExecutor, now: Date, retryTimeoutMs: number): Promise<Transition> {
  const out = structuredClone(input);
  const status: InstallPlanStatus = (out.status ??= { phase: '', catalogSources: [] });
  switch (status.phase) {
    case InstallPlanPhaseRequiresApproval:
      if (out.spec.approved) {
        status.phase = InstallPlanPhaseInstalling;
        delete status.message;
      }
      return { plan: out };

    case InstallPlanPhaseInstalling: {
      const stamp = formatTime(now);
      status.startTime ??= stamp;
      try {
        await execute(out);
      } catch (error) {
        if (isForbiddenError(error) || now.getTime() - Date.parse(status.startTime) < retryTimeoutMs) {
          // Forbidden is never terminal: the service account may be given the permissions later.
          status.message = retryingMessage(error);
        } else {
          setCondition(status, conditionFailed(InstallPlanInstalled, InstallPlanReasonComponentFailed, errorMessage(error), stamp));
          status.phase = InstallPlanPhaseFailed;
          status.message = errorMessage(error);
        }
        return { plan: out, error };
      }
      if (!needsRequeue(status)) {
        setCondition(status, conditionMet(InstallPlanInstalled, stamp));
        status.phase = InstallPlanPhaseComplete;
        delete status.message;
      }
      return { plan: out };
    }

    default:
      return { plan: out };
  }
}
