// One InstallPlan's sync (upstream's syncInstallPlans): plans without steps are the Subscription side's to
// fill; Complete and Failed are final. The namespace's OperatorGroup decides the attenuated service account
// (an unanswerable question is `Installed=False`/`InstallCheckFailed` and a retry); a newly found account is
// written to `status.attenuatedServiceAccountRef` first. Then the phase machine runs and the status is
// written; an Installing plan comes back every 5 s. Also the RBAC retry (installplan_sync.go): a Failed plan
// with an attenuated service account goes back to Installing when a Role, RoleBinding or ServiceAccount of
// its namespace changes.
import { isDeepStrictEqual } from 'node:util';
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
import { formatTime, splitKey, type Reconciler, type Result } from '../../shared/controller/index.ts';
import type { Logger } from '../../shared/toolkit/index.ts';
import { errorText } from './errors.ts';
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
  readonly now?: () => Date;
  readonly logger: Logger;
}

export function newInstallPlanReconciler(o: InstallPlanReconcilerOptions): Reconciler {
  const now = o.now ?? ((): Date => new Date());
  const typed = (p: InstallPlan): InstallPlan => ({ ...p, apiVersion: V1alpha1, kind: InstallPlanKind });
  // Our last status write per plan: the resourceVersion it replaced and what the server stored. A retry that
  // runs before the informer has seen that write would otherwise execute the plan again from the old status.
  const written = new Map<string, { readonly replaced: string; readonly stored: InstallPlan }>();
  const write = async (key: string, plan: InstallPlan, signal: AbortSignal): Promise<InstallPlan> => {
    const stored = await o.writeStatus(plan, signal);
    written.set(key, { replaced: plan.metadata.resourceVersion ?? '', stored });
    return stored;
  };
  const latest = (key: string, cached: InstallPlan): InstallPlan => {
    const mine = written.get(key);
    if (mine && mine.replaced === cached.metadata.resourceVersion) return mine.stored;
    written.delete(key);
    return cached;
  };

  const setInstalledCondition = async (key: string, plan: InstallPlan, reason: string, message: string, signal: AbortSignal): Promise<InstallPlan> => {
    const out = structuredClone(typed(plan));
    out.status ??= { phase: '', catalogSources: [] };
    setCondition(out.status, conditionFailed(InstallPlanInstalled, reason, message, formatTime(now())));
    try {
      return await write(key, out, signal);
    } catch (err) {
      o.logger.error('error updating InstallPlan status', { err });
      throw new Error(`error updating InstallPlan status: ${errorText(err)}`, { cause: err });
    }
  };

  return {
    async reconcile(key: string, signal: AbortSignal): Promise<Result | void> {
      const cached = o.get(key);
      if (!cached) {
        written.delete(key);
        return;
      }
      let plan = typed(structuredClone(latest(key, cached)));
      const log = o.logger;
      const fields = { ip: plan.metadata.name, namespace: plan.metadata.namespace, phase: plan.status?.phase };
      log.debug('syncing', fields);

      if ((plan.status?.plan ?? []).length === 0 && (plan.status?.bundleLookups ?? []).length === 0) {
        log.debug('skip processing installplan without status - subscription sync responsible for initial status', fields);
        return;
      }
      const phase = plan.status?.phase;
      if (phase === InstallPlanPhaseFailed || phase === InstallPlanPhaseComplete) return;

      let ref: ObjectReference | undefined;
      try {
        ref = serviceAccountFor(o.operatorGroups(plan.metadata.namespace ?? ''));
      } catch (err) {
        const failure = `attenuated service account query failed - ${errorText(err)}`;
        log.info(failure, fields);
        await setInstalledCondition(key, plan, InstallPlanReasonInstallCheckFailed, errorText(err), signal);
        throw new Error(failure, { cause: err });
      }
      // The InstallCheckFailed condition only comes from the query above: clear it now that the query answered.
      if (getCondition(plan.status ?? { phase: '', catalogSources: [] }, InstallPlanInstalled).reason === InstallPlanReasonInstallCheckFailed) {
        plan = typed(await setInstalledCondition(key, plan, 'Unknown', '', signal));
      }
      if (ref) {
        const out = structuredClone(plan);
        out.status!.attenuatedServiceAccountRef = ref;
        if (!isDeepStrictEqual(plan.status?.attenuatedServiceAccountRef, ref)) {
          try {
            await write(key, out, signal);
          } catch (err) {
            throw new Error(`failed to attach attenuated ServiceAccount to status - ${errorText(err)}`, { cause: err });
          }
          log.info('successfully attached attenuated ServiceAccount to status', { ...fields, 'attenuated-sa': ref.name });
          return; // the status update brings the plan back
        }
      }

      const execute: PlanExecutor = (p) => o.execute(p, signal);
      const { plan: out, error } = await transitionInstallPlanState(plan, execute, now(), o.retryTimeoutMs);
      const installing = out.status?.phase === InstallPlanPhaseInstalling;
      // A failed sync is retried with backoff; an Installing plan also comes back after 5 s, whichever is first.
      const failed = (err: Error): Error => {
        if (installing) o.requeueAfter(key, INSTALLING_REQUEUE_MS);
        return err;
      };

      if (!isDeepStrictEqual(out.status, plan.status)) {
        try {
          await write(key, out, signal);
        } catch (err) {
          const updateErr = `error updating InstallPlan status: ${errorText(err)}`;
          if (error === undefined) throw failed(new Error(updateErr, { cause: err }));
          throw failed(new Error(`error transitioning InstallPlan: ${errorText(error)} and error updating InstallPlan status: ${updateErr}`, { cause: err }));
        }
      }
      if (error !== undefined) {
        log.info('error transitioning InstallPlan', { ...fields, syncError: errorText(error) });
        throw failed(error instanceof Error ? error : new Error(String(error)));
      }
      return installing ? { requeueAfterMs: INSTALLING_REQUEUE_MS } : undefined;
    },
  };
}

/** Whether a Role, RoleBinding or ServiceAccount change concerns InstallPlans (scoped.IsObjectRBACRelated). */
export const RBAC_RELATED_KINDS: ReadonlySet<string> = new Set(['Role', 'RoleBinding', 'ServiceAccount']);

export interface RbacRetryOptions {
  /** The InstallPlans of a namespace. */
  readonly installPlans: (namespace: string) => readonly InstallPlan[];
  readonly writeStatus: (plan: InstallPlan, signal: AbortSignal) => Promise<InstallPlan>;
  readonly logger: Logger;
}

/**
 * Keyed by namespace: every Failed plan there that has an attenuated service account goes back to Installing,
 * so permissions granted since its failure are tried (triggerInstallPlanRetry). Errors are collected.
 */
export function newRbacRetryReconciler(o: RbacRetryOptions): Reconciler {
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
          errors.push(errorText(err));
        }
      }
      if (errors.length === 1) throw new Error(errors[0]);
      if (errors.length > 1) throw new Error(`[${errors.join(', ')}]`);
    },
  };
}
