// One namespace's Subscriptions resolved together (upstream's syncResolvingNamespace, olm-classic.md §2.2), as a list
// of small named steps (sync-steps.ts) over one state: read → subscription health (catalog health, the referenced
// InstallPlan) → the installed CSV and the generating InstallPlan recorded → skip when every Subscription waits on a
// plan → resolve → unpack the resolved bundles in process → create the InstallPlan → statuses. Statuses are written
// once, at the end of the pass, each re-read and overwritten on conflict as upstream's updateSubscriptionStatuses does.
import type { Subscription, SubscriptionStatus } from '../../../api/operators/index.ts';
import { formatTime, joinErrors, mapLimit, runSteps, type Reconciler } from '../../shared/controller/index.ts';
import { semanticEqual } from '../../shared/kube/index.ts';
import { namespaceSyncSteps, type NamespaceState, type SyncPorts } from './sync-steps.ts';

/** Subscription statuses written at once at the end of a pass. */
const STATUS_WRITE_CONCURRENCY = 8;

const statusOf = (sub: Subscription): SubscriptionStatus => structuredClone(sub.status ?? { lastUpdated: '' });

/** The reconciler of the namespace queue: builds the state, runs the steps, writes every changed status once. */
export function newNamespaceReconciler(p: SyncPorts): Reconciler {
  const steps = namespaceSyncSteps(p);
  return {
    async reconcile(namespace, signal) {
      const subs = (await p.listSubscriptions(namespace, signal)).sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
      if (subs.length === 0) return;
      const plans = await p.listInstallPlans(namespace, signal);
      for (const sub of subs) p.synced?.(sub);
      const st: NamespaceState = {
        namespace,
        now: formatTime(p.now()),
        subs: subs.map((sub) => ({ sub, status: statusOf(sub) })),
        plans,
      };
      const outcome = await runSteps(steps, st, signal);
      // upstream's updateSubscriptionStatuses: every changed status written (each on its own, a few at once), the
      // errors joined; one failed write does not keep the others (a just-created InstallPlan's references) unwritten
      const changed = st.subs.filter((w) => !semanticEqual(w.status, w.sub.status ?? {}));
      const errs: unknown[] = [];
      await mapLimit(changed, STATUS_WRITE_CONCURRENCY, async (w) => {
        if (!w.status.lastUpdated) w.status.lastUpdated = st.now;
        try {
          await p.writeStatus(w.sub, w.status, signal);
        } catch (err) {
          if (signal.aborted) throw err;
          errs.push(err);
        }
      });
      if (outcome?.err) errs.unshift(outcome.err);
      if (errs.length > 0) throw joinErrors(errs);
      return outcome?.result;
    },
  };
}
