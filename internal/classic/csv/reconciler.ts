// The CSV reconciler: the step list (steps.ts) on the shared ObjectReconciler. Status is written once per pass, only
// when lastUpdateTime, phase, reason or message changed (upstream's rule: `requirementStatus` alone is not written);
// after the write, the CSV metrics (when written) and upstream's after-sync work: cluster RBAC for a group of every
// namespace, and the copy of the CSV into its target namespaces. Nothing is kept between passes.
import { ClusterServiceVersionKind, type ClusterServiceVersion, type ClusterServiceVersionStatus as CSVStatus } from '../../../api/operators/index.ts';
import { ObjectReconciler, errorMessage, type Result } from '../../shared/controller/index.ts';
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

/** The smallest delay for "again now", so a CSV waiting on itself does not spin. */
const SOON_MS = 200;

/** Whether the status differs in what upstream compares before writing. */
const statusChanged = (a: CSVStatus | undefined, b: CSVStatus | undefined): boolean =>
  (a?.lastUpdateTime ?? '') !== (b?.lastUpdateTime ?? '') || (a?.phase ?? '') !== (b?.phase ?? '') || (a?.reason ?? '') !== (b?.reason ?? '') || (a?.message ?? '') !== (b?.message ?? '');

export function newCSVReconciler(o: CSVReconcilerOptions): ObjectReconciler<ClusterServiceVersion, CSVState> {
  const { ports } = o;
  return new ObjectReconciler<ClusterServiceVersion, CSVState>({
    kind: ClusterServiceVersionKind,
    client: ports.client,
    get: (key) => ports.caches.csvs.get(key),
    steps: o.steps,
    logger: o.logger,
    logKey: 'csv',
    state: ({ cached, obj, log }) => ({ cached, out: obj, log: log.child({ csv: cached.metadata.name, namespace: cached.metadata.namespace, phase: cached.status?.phase ?? '' }) }),
    statusChanged,
    afterWrite: async ({ cached, out, log }, wrote, signal) => {
      if (wrote) ports.metrics?.emit(cached, out);
      const og = operatorGroupFromAnnotations(ports.caches, cached);
      if (!og || (og.status?.namespaces?.length === 1 && og.status.namespaces[0] === cached.metadata.namespace)) return;
      try {
        await ensureRBACInTargetNamespace(o.copy, cached, og, signal);
      } catch (err) {
        log.info("couldn't ensure RBAC in target namespaces", { err: errorMessage(err) });
        throw err;
      } finally {
        if (!isUncopiable(out)) o.enqueueCopy(`${cached.metadata.namespace ?? ''}/${cached.metadata.name ?? ''}`);
      }
    },
    done: (s): Result => ({ requeueAfterMs: s.requeueAfterMs === undefined ? o.resyncMs : Math.max(SOON_MS, s.requeueAfterMs) }),
  });
}
