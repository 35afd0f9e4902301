// The CSV reconciler: one pass of the step list (steps.ts) over a copy of the cached CSV, then — unless a step
// settled the pass itself — the status written once when lastUpdateTime, phase, reason or message changed (as
// upstream; a conflict is retried from a fresh cache), the CSV metrics after a successful write, and the after-sync
// work of upstream's syncClusterServiceVersion: cluster RBAC for a group of every namespace, and the copy of the CSV
// into its target namespaces. Nothing is kept between passes; a killed process converges on the next one.
import { ClusterServiceVersionKind, V1alpha1, type ClusterServiceVersion } from '../../../api/operators/index.ts';
import { errorMessage, routine, routineOf, runSteps, type Reconciler, type Result, type StepsOutcome } from '../../shared/controller/index.ts';
import { isConflict, isNotFound } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { ensureRBACInTargetNamespace, operatorGroupFromAnnotations, type CopyPorts } from './copy.ts';
import { isUncopiable } from './phase.ts';
import type { CSVState, CSVStep, CSVStepPorts } from './steps.ts';

export interface CSVReconcilerOptions {
  readonly ports: CSVStepPorts;
  readonly copy: CopyPorts;
  readonly steps: readonly CSVStep[];
  readonly logger: Logger;
  /** Every CSV again after this long (upstream's wakeup interval, 5 minutes). */
  readonly resyncMs: number;
  /** Copy the CSV into its target namespaces (upstream's csvCopyQueueSet). */
  readonly enqueueCopy: (key: string) => void;
}

/** Whether the status differs in what upstream compares before writing. */
export const statusChanged = (a: ClusterServiceVersion, b: ClusterServiceVersion): boolean =>
  (a.status?.lastUpdateTime ?? '') !== (b.status?.lastUpdateTime ?? '') ||
  (a.status?.phase ?? '') !== (b.status?.phase ?? '') ||
  (a.status?.reason ?? '') !== (b.status?.reason ?? '') ||
  (a.status?.message ?? '') !== (b.status?.message ?? '');

/** The smallest delay for "again now", so a CSV waiting on itself does not spin. */
const SOON_MS = 200;

export function csvReconciler(o: CSVReconcilerOptions): Reconciler {
  const { ports } = o;
  return {
    async reconcile(key, signal): Promise<Result | void> {
      const cached = ports.caches.csvs.get(key);
      if (!cached) return;
      const log = o.logger.child({ csv: cached.metadata.name, namespace: cached.metadata.namespace, phase: cached.status?.phase ?? '' });
      const state: CSVState = { cached, out: structuredClone(cached), log };
      let outcome: StepsOutcome | undefined;
      try {
        outcome = await runSteps(o.steps, state, signal);
      } catch (err) {
        outcome = { err, step: 'unknown' };
      }
      if (outcome?.final) {
        if (outcome.err !== undefined) throw outcome.err;
        return outcome.result;
      }
      const errors: unknown[] = [];
      if (outcome?.err !== undefined) errors.push(outcome.err);
      const { out } = state;
      let stale = false;
      if (statusChanged(cached, out)) {
        try {
          await ports.client.updateStatus({ ...out, apiVersion: V1alpha1, kind: ClusterServiceVersionKind }, { signal });
          ports.metrics?.emit(cached, out);
        } catch (err) {
          // A newer CSV than the cache's: its update event brings it back; the pass is done again from it.
          if (isConflict(err)) stale = true;
          else if (!isNotFound(err)) errors.push(new Error(`error updating ClusterServiceVersion status: ${errorMessage(err)}`));
        }
      }
      const og = operatorGroupFromAnnotations(ports.caches, cached);
      if (og && !(og.status?.namespaces?.length === 1 && og.status.namespaces[0] === cached.metadata.namespace)) {
        try {
          await ensureRBACInTargetNamespace(o.copy, cached, og, signal);
        } catch (err) {
          log.info("couldn't ensure RBAC in target namespaces", { err: errorMessage(err) });
          errors.push(err);
        }
        if (!isUncopiable(out)) o.enqueueCopy(key);
      }
      if (errors.length > 0) {
        if (errors.length === 1) throw errors[0];
        const joined = new Error(errors.map(errorMessage).join('; '));
        // Routine only when every part is (each logged below error level by the controller).
        const marks = errors.map(routineOf);
        if (marks.every((m) => m !== undefined)) throw routine(joined, marks[0]!.reason, marks[0]!.level);
        throw joined;
      }
      if (stale) {
        log.debug('status not written: the CSV changed meanwhile; again from the newer one');
        return { requeueAfterMs: SOON_MS };
      }
      if (state.requeueAfterMs !== undefined) return { requeueAfterMs: Math.max(SOON_MS, state.requeueAfterMs) };
      return { requeueAfterMs: o.resyncMs };
    },
  };
}
