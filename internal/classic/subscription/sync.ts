// One namespace's Subscriptions resolved together (upstream's syncResolvingNamespace, olm-classic.md §2.2), as a list
// of small named steps (sync-steps.ts) over one state: read → subscription health (catalog health, the referenced
// InstallPlan) → the installed CSV and the generating InstallPlan recorded → skip when every Subscription waits on a
// plan → resolve → unpack the resolved bundles in process → create the InstallPlan → statuses. Statuses are written
// once, at the end of the pass, each re-read and overwritten on conflict as upstream's updateSubscriptionStatuses does.
import type {
  CatalogSource,
  ClusterServiceVersion,
  InstallPlan,
  OperatorGroup,
  Step,
  Subscription,
  SubscriptionStatus,
} from '../../../api/operators/index.ts';
import { formatTime, joinErrors, mapLimit, routine, runSteps, type Result } from '../../shared/controller/index.ts';
import { semanticEqual, type EventRecorder } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import type { CatalogContent } from '../catalogsource/index.ts';
import { loadCelFor, resolve, type ClassicResolutionMetrics, type ResolvedEntry, type ResolveInput } from '../resolver/index.ts';
import { installedEntries, namespaceCatalogs } from './sources.ts';
import type { RegistryV1 } from '../../shared/registryv1/index.ts';
import { namespaceSyncSteps } from './sync-steps.ts';

/** Subscription statuses written at once at the end of a pass. */
const STATUS_WRITE_CONCURRENCY = 8;

/** The OperatorGroup annotation that keeps the global catalog namespace out of a namespace's resolution. */
export const ExcludeGlobalNamespaceAnnotation = 'olm.operatorframework.io/exclude-global-namespace-resolution';

/** What the namespace sync reads and writes; the implementations are chosen in setup.ts. */
export interface SyncPorts {
  /** Live lists, as upstream's (a cache could still hold a Subscription without the plan just written). */
  listSubscriptions(namespace: string, signal: AbortSignal): Promise<Subscription[]>;
  listInstallPlans(namespace: string, signal: AbortSignal): Promise<InstallPlan[]>;
  csvs(namespace: string): ClusterServiceVersion[];
  operatorGroups(namespace: string): OperatorGroup[];
  catalogSources(namespace: string): CatalogSource[];
  content(namespace: string, name: string): CatalogContent | undefined;
  /** Pulls a bundle image and reads it as registry+v1. */
  bundle(image: string, signal: AbortSignal): Promise<RegistryV1>;
  /** Creates the InstallPlan and writes its status (upstream's create + UpdateStatus). */
  createInstallPlan(plan: InstallPlan, status: NonNullable<InstallPlan['status']>, signal: AbortSignal): Promise<InstallPlan>;
  /** Writes a Subscription's status onto its latest version (conflicts retried). */
  writeStatus(sub: Subscription, status: SubscriptionStatus, signal: AbortSignal): Promise<void>;
  readonly events: EventRecorder;
  /** Called once per Subscription per namespace sync (subscription_sync_total). */
  synced?(sub: Subscription): void;
  readonly metrics?: ClassicResolutionMetrics;
  readonly logger: Logger;
  readonly globalNamespace: string;
  now(): Date;
}

/** One Subscription in the pass: as read (its status is what was stored), and its status as the steps change it. */
export interface Working {
  readonly sub: Subscription;
  status: SubscriptionStatus;
}

export interface NamespaceState {
  readonly namespace: string;
  readonly now: string;
  subs: Working[];
  readonly plans: InstallPlan[];
  /** The resolution (the resolve step): the operators to install, in order. */
  resolved?: ResolvedEntry[];
  /** The catalog bundle (image, properties) behind each resolved entry (the resolve step, for unpackBundles). */
  bundleOf?: NamespaceResolution['bundleOf'];
  /** The InstallPlan's steps (unpackBundles), ordered. */
  steps?: Step[];
  /** Subscriptions whose currentCSV resolution changed (they get the new InstallPlan). */
  updated?: Working[];
}

const statusOf = (sub: Subscription): SubscriptionStatus => structuredClone(sub.status ?? { lastUpdated: '' });

export interface NamespaceResolutionInput {
  readonly namespace: string;
  readonly globalNamespace: string;
  readonly subscriptions: readonly Subscription[];
  readonly csvs: readonly ClusterServiceVersion[];
  readonly operatorGroups: readonly OperatorGroup[];
  readonly catalogSources: (namespace: string) => readonly CatalogSource[];
  readonly content: (namespace: string, name: string) => CatalogContent | undefined;
  readonly metrics?: ClassicResolutionMetrics;
}

export interface NamespaceResolution {
  /** The resolving namespaces: the namespace, and the global one unless the OperatorGroup excludes it. */
  readonly namespaces: readonly string[];
  readonly resolved: ResolvedEntry[];
  /** The catalog bundle (image, properties) behind a resolved entry. */
  readonly bundleOf: ReturnType<typeof namespaceCatalogs>['bundleOf'];
}

/**
 * Upstream's ResolveSteps up to the solver: exactly one OperatorGroup, the namespace's and the global namespace's
 * CatalogSources (every one must have content), the installed CSVs as @existing, the resolver. Throws upstream's
 * errors (a NotSatisfiableError when the constraints conflict).
 */
export async function resolveNamespace(i: NamespaceResolutionInput): Promise<NamespaceResolution> {
  const ogs = i.operatorGroups;
  if (ogs.length !== 1) {
    const err = new Error(`expected 1 OperatorGroup in the namespace, found ${ogs.length}`);
    // None yet is a wait (its creation re-queues the namespace); more than one needs someone to act.
    throw ogs.length === 0 ? routine(err, 'NoOperatorGroup') : err;
  }
  const excluded = ogs[0]?.metadata.annotations?.[ExcludeGlobalNamespaceAnnotation] === 'true';
  const namespaces = i.namespace === i.globalNamespace || excluded ? [i.namespace] : [i.namespace, i.globalNamespace];
  const catalogs = namespaceCatalogs(
    namespaces.flatMap((ns) => i.catalogSources(ns)),
    i.content,
  );
  if (catalogs.errors.length > 0) {
    // A CatalogSource whose content is not loaded yet: a wait; the CatalogSource's own status and logs say why it is not.
    throw routine(new Error(catalogs.errors.length === 1 ? catalogs.errors[0] : `[${catalogs.errors.join(', ')}]`), 'CatalogSourceNotReady', 'info');
  }
  const input: ResolveInput = {
    namespaces,
    catalogs: catalogs.catalogs,
    installed: installedEntries(i.csvs, i.subscriptions, i.namespace),
    subscriptions: i.subscriptions.map((s) => ({
      name: s.metadata.name ?? '',
      namespace: i.namespace,
      spec: s.spec,
      status: { installedCSV: s.status?.installedCSV ?? '' },
    })),
  };
  await loadCelFor(input);
  const resolved = resolve(input, { ...(i.metrics && { metrics: i.metrics }) });
  return { namespaces, resolved, bundleOf: catalogs.bundleOf };
}

/** The reconciler of the namespace queue: builds the state, runs the steps, writes every changed status once. */
export function newNamespaceReconciler(p: SyncPorts): { reconcile(key: string, signal: AbortSignal): Promise<Result | void> } {
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
