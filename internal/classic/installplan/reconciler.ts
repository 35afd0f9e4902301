// One InstallPlan's sync (upstream's syncInstallPlans): plans without steps are the Subscription side's to
// fill; Complete and Failed are final. The namespace's OperatorGroup decides the attenuated service account
// (an unanswerable question is `Installed=False`/`InstallCheckFailed` and a retry); a newly found account is
// written to `status.attenuatedServiceAccountRef` first. Then the phase machine runs and the status is
// written; an Installing plan comes back every 5 s. Also the RBAC retry (installplan_sync.go): a Failed plan
// with an attenuated service account goes back to Installing when a Role, RoleBinding or ServiceAccount of
// its namespace changes.
import { isDeepStrictEqual } from 'node:util';
import { isConflict } from '../../shared/kube/index.ts';
import {
  InstallPlanInstalled,
  InstallPlanKind,
  InstallPlanPhaseComplete,
  InstallPlanPhaseFailed,
  InstallPlanPhaseInstalling,
  InstallPlanReasonInstallCheckFailed,
  V1alpha1,
  type InstallPlan,
  type ObjectReference,
  type OperatorGroup,
} from '../../../api/operators/index.ts';
import { ObjectReconciler, formatTime, realClock, splitKey, type Pass, type Reconciler, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import type { LogFields, Logger } from '../../shared/observability/index.ts';
import { aggregateMessages, errorMessage } from '../../shared/toolkit/index.ts';

import { serviceAccountFor } from './attenuate.ts';
import { conditionFailed, getCondition, setCondition } from './plan.ts';
import { transitionInstallPlanState, type PlanExecutor } from './transition.ts';

/** How soon an Installing plan is synced again (upstream: 5 s). */
export const INSTALLING_REQUEUE_MS = 5_000;

export interface InstallPlanReconcilerOptions {
  readonly get: (key: string) => InstallPlan | undefined;
  /** The OperatorGroups of a namespace. */
  readonly operatorGroups: (namespace: string) => readonly OperatorGroup[];
  /** PUT of the status subresource at the plan's resourceVersion; resolves the stored plan. */
  readonly writeStatus: (plan: InstallPlan, signal: AbortSignal) => Promise<InstallPlan>;
  readonly execute: (plan: InstallPlan, signal: AbortSignal) => Promise<void>;
  /** Retry window of a failing Installing plan (`--install-plan-retry-timeout`). */
  readonly retryTimeoutMs: number;
  /** Upstream queues an Installing plan again after 5 s even when the sync failed (and is retried with backoff). */
  readonly requeueAfter: (key: string, ms: number) => void;
  /** Wall time of the conditions and phase changes; default the toolkit's realClock. */
  readonly now?: () => Date;
  readonly logger: Logger;
}

/** What one pass knows. */
interface PlanPass {
  readonly pass: Pass<InstallPlan>;
  readonly key: string;
  readonly fields: LogFields;
  /** The service account the namespace's OperatorGroup names (attenuate step). */
  ref?: ObjectReference;
}

/**
 * Named steps on the shared ObjectReconciler (skipWithoutSteps, skipFinal, attenuate, transition). Each step that
 * changes status writes it itself, with upstream's error texts, and ends the pass (`final`). A pass that runs before
 * the informer has seen this reconciler's last write starts from what was written (`readYourWrites`), so a retry
 * never executes the plan again from the old status.
 */
export function newInstallPlanReconciler(o: InstallPlanReconcilerOptions): Reconciler {
  const now = o.now ?? ((): Date => realClock.date());

  /** Sets the Installed condition on the copy and writes it now. */
  const setInstalledCondition = async (s: PlanPass, reason: string, message: string, signal: AbortSignal): Promise<void> => {
    const plan = s.pass.obj;
    plan.status ??= { phase: '', catalogSources: [] };
    setCondition(plan.status, conditionFailed(InstallPlanInstalled, reason, message, formatTime(now())));
    try {
      await s.pass.writeStatus(signal);
    } catch (err) {
      // A conflict is routine (the next pass reads the plan afresh); anything else needs a look.
      if (isConflict(err)) o.logger.debug('error updating InstallPlan status', { reason: 'Conflict', err });
      else o.logger.error('error updating InstallPlan status', { err });
      throw new Error(`error updating InstallPlan status: ${errorMessage(err)}`, { cause: err });
    }
  };

  const steps: Step<PlanPass>[] = [
    {
      name: 'skipWithoutSteps',
      run: async ({ pass, fields }) => {
        o.logger.debug('syncing', fields);
        const plan = pass.obj;
        if ((plan.status?.plan ?? []).length > 0 || (plan.status?.bundleLookups ?? []).length > 0) return undefined;
        o.logger.debug('skip processing installplan without status - subscription sync responsible for initial status', fields);
        return { final: true };
      },
    },
    {
      name: 'skipFinal',
      run: async ({ pass }) => {
        const phase = pass.obj.status?.phase;
        return phase === InstallPlanPhaseFailed || phase === InstallPlanPhaseComplete ? { final: true } : undefined;
      },
    },
    {
      // The namespace's OperatorGroup decides the attenuated service account; a newly found one is written first.
      name: 'attenuate',
      run: async (s, signal) => {
        const plan = s.pass.obj;
        try {
          s.ref = serviceAccountFor(o.operatorGroups(plan.metadata.namespace ?? ''));
        } catch (err) {
          const failure = `attenuated service account query failed - ${errorMessage(err)}`;
          o.logger.info(failure, s.fields);
          await setInstalledCondition(s, InstallPlanReasonInstallCheckFailed, errorMessage(err), signal);
          return { final: true, err: new Error(failure, { cause: err }) };
        }
        // The InstallCheckFailed condition only comes from the query above: clear it now that the query answered.
        if (getCondition(plan.status ?? { phase: '', catalogSources: [] }, InstallPlanInstalled).reason === InstallPlanReasonInstallCheckFailed) {
          await setInstalledCondition(s, 'Unknown', '', signal);
        }
        if (!s.ref || isDeepStrictEqual(plan.status?.attenuatedServiceAccountRef, s.ref)) return undefined;
        plan.status!.attenuatedServiceAccountRef = s.ref;
        try {
          await s.pass.writeStatus(signal);
        } catch (err) {
          return { final: true, err: new Error(`failed to attach attenuated ServiceAccount to status - ${errorMessage(err)}`, { cause: err }) };
        }
        o.logger.info('successfully attached attenuated ServiceAccount to status', { ...s.fields, 'attenuated-sa': s.ref.name });
        return { final: true }; // the status update brings the plan back
      },
    },
    {
      // The phase machine; an Installing plan comes back every 5 s (also after a failed sync, besides its backoff).
      name: 'transition',
      run: async (s, signal) => {
        const plan = s.pass.obj;
        const execute: PlanExecutor = (p) => o.execute(p, signal);
        const { plan: out, error } = await transitionInstallPlanState(structuredClone(plan), execute, now(), o.retryTimeoutMs);
        const installing = out.status?.phase === InstallPlanPhaseInstalling;
        const failed = (err: Error): StepOutcome => {
          if (installing) o.requeueAfter(s.key, INSTALLING_REQUEUE_MS);
          return { final: true, err };
        };
        plan.status = out.status;
        try {
          await s.pass.writeStatus(signal);
        } catch (err) {
          const updateErr = `error updating InstallPlan status: ${errorMessage(err)}`;
          if (error === undefined) return failed(new Error(updateErr, { cause: err }));
          return failed(new Error(`error transitioning InstallPlan: ${errorMessage(error)} and error updating InstallPlan status: ${updateErr}`, { cause: err }));
        }
        if (error !== undefined) {
          o.logger.info('error transitioning InstallPlan', { ...s.fields, syncError: errorMessage(error) });
          return failed(error instanceof Error ? error : new Error(String(error)));
        }
        return { final: true, ...(installing && { result: { requeueAfterMs: INSTALLING_REQUEUE_MS } }) };
      },
    },
  ];

  return new ObjectReconciler<InstallPlan, PlanPass>({
    kind: InstallPlanKind,
    writer: { updateStatus: (plan, signal) => o.writeStatus(plan, signal) },
    get: o.get,
    readYourWrites: true,
    steps,
    logger: o.logger,
    state: (pass) => ({ pass, key: pass.key, fields: { ip: pass.obj.metadata.name, namespace: pass.obj.metadata.namespace, phase: pass.obj.status?.phase } }),
  });
}

/** Whether a Role, RoleBinding or ServiceAccount change concerns InstallPlans (scoped.IsObjectRBACRelated). */
export const RBAC_RELATED_KINDS: ReadonlySet<string> = new Set(['Role', 'RoleBinding', 'ServiceAccount']);

export interface RbacRetryReconcilerOptions {
  /** The InstallPlans of a namespace. */
  readonly installPlans: (namespace: string) => readonly InstallPlan[];
  readonly writeStatus: (plan: InstallPlan, signal: AbortSignal) => Promise<InstallPlan>;
  readonly logger: Logger;
}

/**
 * Keyed by namespace: every Failed plan there that has an attenuated service account goes back to Installing,
 * so permissions granted since its failure are tried (triggerInstallPlanRetry). Errors are collected.
 */
export function newRbacRetryReconciler(o: RbacRetryReconcilerOptions): Reconciler {
  return {
    async reconcile(key: string, signal: AbortSignal): Promise<void> {
      const namespace = splitKey(key).name;
      const errors: string[] = [];
      for (const ip of o.installPlans(namespace)) {
        if (ip.status?.phase !== InstallPlanPhaseFailed || !ip.status.attenuatedServiceAccountRef) continue;
        const out: InstallPlan = { ...structuredClone(ip), apiVersion: V1alpha1, kind: InstallPlanKind };
        out.status!.phase = InstallPlanPhaseInstalling;
        const fields = { ip: ip.metadata.name, namespace, phase: ip.status.phase };
        try {
          await o.writeStatus(out, signal);
          o.logger.info("InstallPlan status set to 'Installing' for retry", fields);
        } catch (err) {
          o.logger.warn('failed to kick off InstallPlan retry', { ...fields, err });
          errors.push(errorMessage(err));
        }
      }
      if (errors.length > 0) throw new Error(aggregateMessages(errors));
    },
  };
}
