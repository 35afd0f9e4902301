// The CSV reconciler: the step list (steps.ts) on the shared ObjectReconciler. Status is written once per pass, only
// when lastUpdateTime, phase, reason or message changed (`statusChanged`: upstream's syncClusterServiceVersion compares
// exactly these, so `requirementStatus` alone is not written); after the write (`afterWrite`), the CSV metrics when
// written and upstream's after-sync work: cluster RBAC for a group of every namespace, the copy of the CSV into its
// targets. Again after `requeueAfterMs` (≥ 200 ms) or the resync; after a conflict, from fresh state (rate limited).
import { ClusterServiceVersionKind, type ClusterServiceVersion } from '../../../api/operators/index.ts';
import { ObjectReconciler, errorMessage, kubeObjectWriter, routineOf } from '../../shared/controller/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { ensureRBACInTargetNamespace, operatorGroupFromAnnotations, type CopyPorts } from './copy.ts';
import { isUncopiable, withStatusCleanup } from './phase.ts';
import type { CSVState, CSVStep, CSVStepPorts } from './steps.ts';

export interface CSVReconcilerOptions {
  readonly ports: CSVStepPorts;
  readonly copy: CopyPorts;
  readonly steps: readonly CSVStep[];
  /** The controller's own logger (`controller: clusterserviceversion`). */
  readonly log: Logger;
  /** Every CSV again after this long (upstream's wakeup interval, 5 minutes). */
  readonly resyncMs: number;
  /** Copy the CSV into its target namespaces (upstream's csvCopyQueueSet; bound late: the csv-copy controller). */
  readonly enqueueCopy: (key: string) => void;
}

/** The smallest delay for "again now", so a CSV waiting on itself does not spin. */
const SOON_MS = 200;

const COMPARED = ['lastUpdateTime', 'phase', 'reason', 'message'] as const; // what upstream compares before writing

export function newCSVReconciler(o: CSVReconcilerOptions): ObjectReconciler<ClusterServiceVersion, CSVState> {
  const writer = kubeObjectWriter<ClusterServiceVersion>(o.ports.client);
  return new ObjectReconciler<ClusterServiceVersion, CSVState>({
    kind: ClusterServiceVersionKind,
    // a status written has upstream's shape (`cleanup: {}`)
    writer: { ...writer, updateStatus: (obj, signal) => writer.updateStatus(withStatusCleanup(obj), signal) },
    get: (key) => o.ports.caches.csvs.get(key),
    steps: o.steps,
    logger: o.log,
    logKey: 'csv',
    state: ({ cached, obj, log }) => ({ cached, out: obj, log: log.child({ csv: cached.metadata.name, namespace: cached.metadata.namespace, phase: cached.status?.phase ?? '' }) }),
    statusChanged: (stored, out) => COMPARED.some((f) => (stored?.[f] ?? '') !== (out?.[f] ?? '')),
    afterWrite: async ({ cached, out, log }, wrote, signal) => {
      if (wrote) o.ports.metrics?.emit(cached, out);
      const og = operatorGroupFromAnnotations(o.ports.caches, cached);
      if (!og || (og.status?.namespaces?.length === 1 && og.status.namespaces[0] === cached.metadata.namespace)) return;
      const rbacErr: unknown = await ensureRBACInTargetNamespace(o.copy, cached, og, signal).catch((err: unknown) => err);
      // upstream's line at info; a routine wait (the InstallPlan has not made the operator's Roles yet) at debug: it
      // repeats on every pass until they come, and the retry says so again
      if (rbacErr !== undefined) log[routineOf(rbacErr) ? 'debug' : 'info']("couldn't ensure RBAC in target namespaces", { err: errorMessage(rbacErr) });
      if (!isUncopiable(out)) o.enqueueCopy(`${cached.metadata.namespace ?? ''}/${cached.metadata.name ?? ''}`);
      if (rbacErr !== undefined) throw rbacErr;
    },
    done: (s) => ({ requeueAfterMs: s.requeueAfterMs === undefined ? o.resyncMs : Math.max(SOON_MS, s.requeueAfterMs) }),
  });
}
