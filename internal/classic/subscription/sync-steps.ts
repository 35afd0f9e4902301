// The namespace sync's steps (upstream's syncResolvingNamespace), one named factory each, over the NamespaceState of
// sync.ts: subscription health → the installed CSV and the generating InstallPlan recorded → skip when every
// Subscription waits on a plan → resolve → unpack the resolved bundles in process → create the InstallPlan → clear
// the failure conditions. What one step hands the next (the resolution, its bundles, the plan's steps) is in the state.
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  ApprovalAutomatic,
  ApprovalManual,
  GeneratedByAnnotation,
  InstallPlanPhaseFailed,
  InstallPlanPhaseInstalling,
  InstallPlanPhaseRequiresApproval,
  ReasonBundleUnpackFailed,
  ReasonConstraintsNotSatisfiable,
  ReasonEnsureInstallPlanFailed,
  ReasonErrorPreventedResolution,
  SubscriptionBundleUnpackFailed,
  SubscriptionBundleUnpacking,
  SubscriptionResolutionFailed,
  SubscriptionStateAtLatest,
  SubscriptionStateFailed,
  SubscriptionStateUpgradePending,
  UpgradeStrategyUnsafeFailForward,
  type CatalogSource,
  type ClusterServiceVersion,
  type InstallPlan,
  type OperatorGroup,
  type Step,
  type Subscription,
  type SubscriptionStatus,
} from '../../../api/operators/index.ts';
import { errorMessage, mapLimit, type Step as SyncStep, type StepOutcome } from '../../shared/controller/index.ts';
import { isNotSatisfiable, type Property, type ResolvedEntry } from '../resolver/index.ts';
import { orderSteps } from '../installplan/index.ts';
import { bundleSteps, inlineBundleSteps, subscriptionStep } from './plan.ts';
import { catalogHealth, checkInstallPlan, entryDeprecations, removeIfPresent, setIfChanged, updateDeprecations, updateHealth } from './status.ts';
import type { RegistryV1 } from '../../shared/registryv1/index.ts';
import { nonBlockingOwnerReference, type EventRecorder } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { bundleManifests, findPackage, servedProperties, type CatalogContent } from '../catalogsource/index.ts';
import type { ClassicResolutionMetrics } from '../resolver/index.ts';
import { resolveNamespace, type NamespaceResolution } from './resolve-namespace.ts';

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

/** Bundle images pulled at once within one sync. */
const UNPACK_CONCURRENCY = 4;

const end = (outcome: StepOutcome = {}): StepOutcome => outcome;
const isFailForward = (ogs: readonly OperatorGroup[]): boolean => ogs.length === 1 && ogs[0]?.spec?.upgradeStrategy === UpgradeStrategyUnsafeFailForward;

function objectRef(ip: InstallPlan): NonNullable<SubscriptionStatus['installPlanRef']> {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'InstallPlan',
    name: ip.metadata.name ?? '',
    namespace: ip.metadata.namespace ?? '',
    uid: ip.metadata.uid ?? '',
    resourceVersion: ip.metadata.resourceVersion ?? '',
  };
}

const legacyRef = (ref: NonNullable<SubscriptionStatus['installPlanRef']>): NonNullable<SubscriptionStatus['installplan']> => ({
  apiVersion: ref.apiVersion ?? '',
  kind: ref.kind ?? '',
  name: ref.name ?? '',
  uuid: ref.uid ?? '',
});

/** The namespace sync's steps, in order (upstream's syncResolvingNamespace). */
export function namespaceSyncSteps(p: SyncPorts): SyncStep<NamespaceState>[] {
  return [
    subscriptionHealthStep(p),
    ensureSubscriptionStateStep(p),
    nothingToUpdateStep(),
    resolveStep(p),
    unpackBundlesStep(p),
    ensureInstallPlanStep(p),
    clearConditionsStep(),
  ];
}

/** Each Subscription's catalog health, deprecations and the state of the InstallPlan it references. */
export function subscriptionHealthStep(p: SyncPorts): SyncStep<NamespaceState> {
  return {
    name: 'subscriptionHealth',
    run: async (st) => {
      if (st.subs.length === 0) return end();
      const own = p.catalogSources(st.namespace);
      const health = catalogHealth(st.namespace === p.globalNamespace ? own : [...own, ...p.catalogSources(p.globalNamespace)], st.now);
      const plans = new Map(st.plans.map((ip) => [ip.metadata.name ?? '', ip]));
      for (const w of st.subs) {
        updateHealth(w.sub, w.status, health, st.now);
        updateDeprecations(w.sub, w.status, entryDeprecations(w.sub, p.content(w.sub.spec.sourceNamespace, w.sub.spec.source)), st.now);
        const ref = w.status.installPlanRef?.name ?? w.status.installplan?.name;
        if (ref !== undefined) checkInstallPlan(w.status, plans.get(ref), st.now);
      }
      return undefined;
    },
  };
}

/**
 * upstream's ensureSubscriptionInstallPlanState and ensureSubscriptionCSVState: a dependency Subscription takes the
 * plan that generated it; the state follows the current CSV (AtLatest, UpgradePending, Failed under fail-forward).
 * A change ends the pass: the next sync sees the written statuses.
 */
export function ensureSubscriptionStateStep(p: SyncPorts): SyncStep<NamespaceState> {
  return {
    name: 'ensureSubscriptionState',
    run: async (st) => {
      const ogs = p.operatorGroups(st.namespace);
      const failForward = isFailForward(ogs);
      const csvs = new Set(p.csvs(st.namespace).map((c) => c.metadata.name));
      const plans = new Map(st.plans.map((ip) => [ip.metadata.name ?? '', ip]));
      let changed = false;
      for (const w of st.subs) {
        const s = w.status;
        // ensureSubscriptionInstallPlanState: a dependency Subscription takes the plan that generated it
        const generatedBy = w.sub.metadata.annotations?.[GeneratedByAnnotation];
        if (!s.installPlanRef && !s.installplan && generatedBy !== undefined) {
          const ip = plans.get(generatedBy);
          if (!ip) return end({ err: new Error(`installplan ${generatedBy} that generated subscription ${w.sub.metadata.name ?? ''} not found`) });
          s.installPlanRef = objectRef(ip);
          s.installplan = legacyRef(s.installPlanRef);
          s.state = failForward && ip.status?.phase === InstallPlanPhaseFailed ? SubscriptionStateFailed : SubscriptionStateUpgradePending;
          if (w.sub.spec.startingCSV) s.currentCSV = w.sub.spec.startingCSV;
          s.lastUpdated = st.now;
          changed = true;
        }
        // ensureSubscriptionCSVState
        if (s.currentCSV) {
          let state: string = SubscriptionStateUpgradePending;
          if (csvs.has(s.currentCSV)) {
            state = SubscriptionStateAtLatest;
            s.installedCSV = s.currentCSV;
          } else if (failForward && s.installPlanRef?.name && plans.get(s.installPlanRef.name)?.status?.phase === InstallPlanPhaseFailed) {
            state = SubscriptionStateFailed;
          }
          if (s.state !== state) {
            s.state = state;
            s.lastUpdated = st.now;
            changed = true;
          }
        }
      }
      // wait for the next sync, which sees the written statuses
      return changed ? end() : undefined;
    },
  };
}

/** Every Subscription waits on its InstallPlan: nothing to resolve. */
export function nothingToUpdateStep(): SyncStep<NamespaceState> {
  return {
    name: 'nothingToUpdate',
    run: async (st) => (st.subs.every((w) => w.status.installPlanRef && w.status.state === SubscriptionStateUpgradePending) ? end() : undefined),
  };
}

/**
 * Upstream's handling of a ResolveSteps error: a ResolutionFailed event and condition (ConstraintsNotSatisfiable for
 * an unsatisfiable set, which waits for a change of its inputs; ErrorPreventedResolution, retried, for anything else).
 */
function resolutionFailed(p: SyncPorts, st: NamespaceState, err: Error): StepOutcome {
  const notSatisfiable = isNotSatisfiable(err);
  p.events.warning(namespaceObject(st.namespace), 'ResolutionFailed', err.message);
  for (const w of st.subs) {
    setIfChanged(
      w.status,
      { type: SubscriptionResolutionFailed, status: 'True', reason: notSatisfiable ? ReasonConstraintsNotSatisfiable : ReasonErrorPreventedResolution, message: err.message },
      st.now,
    );
  }
  return notSatisfiable ? end() : end({ err });
}

/**
 * The namespace resolved (resolveNamespace); the resolved entries and their catalog bundles kept in the state. A
 * failure is a ResolutionFailed event and condition: retried, unless the constraints are unsatisfiable.
 */
export function resolveStep(p: SyncPorts): SyncStep<NamespaceState> {
  return {
    name: 'resolve',
    run: async (st) => {
      const ogs = p.operatorGroups(st.namespace);
      const fail = (err: Error): StepOutcome => resolutionFailed(p, st, err);
      let out: NamespaceResolution;
      try {
        out = await resolveNamespace({
          namespace: st.namespace,
          globalNamespace: p.globalNamespace,
          subscriptions: st.subs.map((w) => w.sub),
          csvs: p.csvs(st.namespace),
          operatorGroups: ogs,
          catalogSources: (ns) => p.catalogSources(ns),
          content: p.content,
          ...(p.metrics && { metrics: p.metrics }),
        });
      } catch (err) {
        return fail(err instanceof Error ? err : new Error(String(err)));
      }
      st.resolved = out.resolved;
      st.bundleOf = out.bundleOf;
      return undefined;
    },
  };
}

/**
 * The InstallPlan steps of the operators to (re)install, in resolution order; the Subscriptions whose current CSV
 * changes are the updated ones. A bundle with an image is pulled (a few at a time), even when the catalog also has its
 * objects; one without is installed from the manifests the catalog serves for it (upstream's ResolveSteps: an entry
 * whose BundlePath is "" keeps its api.Bundle and NewStepsFromBundle turns it into steps, a failure being a resolution
 * failure `failed to turn bundle into steps: …`).
 */
export function unpackBundlesStep(p: SyncPorts): SyncStep<NamespaceState> {
  return {
    name: 'unpackBundles',
    run: async (st, signal) => {
      const bundleOf = st.bundleOf;
      const csvs = new Set(p.csvs(st.namespace).map((c) => c.metadata.name));
      const steps: Step[] = [];
      const updated: Working[] = [];
      // the operators to (re)install in resolution order: an inline bundle's steps made now, an image's once pulled
      interface Todo {
        readonly op: ResolvedEntry;
        readonly matching: Working[];
        readonly properties: readonly Property[];
        readonly image: string;
        steps?: Step[];
      }
      const todo: Todo[] = [];
      for (const op of st.resolved ?? []) {
        const e = op.entry;
        const matching = st.subs.filter(
          (w) =>
            w.sub.spec.name === e.package &&
            (!w.sub.spec.channel || w.sub.spec.channel === e.channel) &&
            (!w.sub.spec.source || (w.sub.spec.source === e.catalog.name && w.sub.spec.sourceNamespace === e.catalog.namespace)),
        );
        if (matching.length > 0 && matching.every((w) => w.status.currentCSV === e.name && csvs.has(e.name))) continue;
        const bundle = bundleOf?.(e);
        if (!bundle) {
          return failUnpack(st, new Error(`bundle ${e.name} of package ${e.package} is not in the content of catalogsource ${e.catalog.namespace}/${e.catalog.name}`), true);
        }
        const t: Todo = { op, matching, properties: servedProperties(bundle.properties), image: bundle.image };
        todo.push(t);
        if (bundle.image) continue;
        try {
          const content = p.content(e.catalog.namespace, e.catalog.name);
          const manifests = bundleManifests(bundle, content && findPackage(content, e.package));
          t.steps = inlineBundleSteps(e.name, manifests, { namespace: st.namespace, replaces: op.replaces ?? '', catalog: e.catalog, properties: t.properties });
        } catch (err) {
          return resolutionFailed(p, st, new Error(`failed to turn bundle into steps: ${errorMessage(err)}`));
        }
      }
      const images = todo.filter((t) => t.image !== '');
      let bundles: RegistryV1[];
      try {
        bundles = await mapLimit(images, UNPACK_CONCURRENCY, (t) => p.bundle(t.image, signal));
      } catch (err) {
        if (signal.aborted) throw err;
        return failUnpack(st, err, false);
      }
      for (const [i, t] of images.entries()) {
        const e = t.op.entry;
        try {
          t.steps = bundleSteps(bundles[i]!, { namespace: st.namespace, replaces: t.op.replaces ?? '', catalog: e.catalog, properties: t.properties });
        } catch (err) {
          return failUnpack(st, err, false);
        }
      }
      for (const { op, matching, steps: own } of todo) {
        const e = op.entry;
        steps.push(...(own ?? []));
        if (matching.length === 0) steps.push(subscriptionStep(st.namespace, { package: e.package, channel: e.channel, catalog: e.catalog, startingCSV: e.name }));
        for (const w of matching) {
          if (w.status.currentCSV === e.name) continue;
          w.status.currentCSV = e.name;
          updated.push(w);
        }
      }
      st.steps = orderSteps(steps);
      st.updated = updated;
      return undefined;
    },
  };
}

/** The InstallPlan of the next generation found or created; the updated Subscriptions point at it. */
export function ensureInstallPlanStep(p: SyncPorts): SyncStep<NamespaceState> {
  return {
    name: 'ensureInstallPlan',
    run: async (st, signal) => {
      const updated = st.updated ?? [];
      if (updated.length === 0 || (st.steps ?? []).length === 0) return undefined;
      const plans = st.plans;
      const gen = Math.max(0, ...st.subs.map((w) => w.sub.status?.installPlanGeneration ?? 0), ...plans.map((ip) => ip.spec.generation ?? 0)) + 1;
      const approval = st.subs.some((w) => w.sub.spec.installPlanApproval === ApprovalManual) ? ApprovalManual : ApprovalAutomatic;
      let ip = plans.find((x) => x.spec.generation === gen);
      if (!ip) {
        try {
          ip = await p.createInstallPlan(newInstallPlan(st, gen, approval), planStatus(st.steps ?? [], approval), signal);
        } catch (err) {
          if (signal.aborted) throw err;
          const message = `error ensuring InstallPlan: ${errorMessage(err)}`;
          for (const w of st.subs) setIfChanged(w.status, { type: SubscriptionBundleUnpackFailed, status: 'True', reason: ReasonEnsureInstallPlanFailed, message }, st.now);
          return end({ err: new Error(message) });
        }
      }
      const ref = objectRef(ip);
      for (const w of updated) {
        w.status.lastUpdated = st.now;
        w.status.installPlanRef = ref;
        w.status.installplan = legacyRef(ref);
        w.status.state = SubscriptionStateUpgradePending;
        w.status.installPlanGeneration = gen;
      }
      return undefined;
    },
  };
}

/** A pass that got here clears the unpacking and resolution failure conditions. */
export function clearConditionsStep(): SyncStep<NamespaceState> {
  return {
    name: 'clearConditions',
    run: async (st) => {
      for (const w of st.subs) {
        removeIfPresent(w.status, SubscriptionBundleUnpacking, st.now);
        removeIfPresent(w.status, SubscriptionBundleUnpackFailed, st.now);
        removeIfPresent(w.status, SubscriptionResolutionFailed, st.now);
      }
      return undefined;
    },
  };
}

function failUnpack(st: NamespaceState, err: unknown, terminal: boolean): StepOutcome {
  const message = `Bundle unpacking failed - ${ReasonBundleUnpackFailed}: ${errorMessage(err)}`;
  for (const w of st.subs) {
    setIfChanged(w.status, { type: SubscriptionBundleUnpackFailed, status: 'True', reason: terminal ? 'ErrorPreventedUnpacking' : ReasonBundleUnpackFailed, message }, st.now);
    removeIfPresent(w.status, SubscriptionBundleUnpacking, st.now);
  }
  return terminal ? end() : end({ err: err instanceof Error ? err : new Error(String(err)) });
}

function newInstallPlan(st: NamespaceState, gen: number, approval: string): InstallPlan {
  const csvNames = (st.steps ?? []).filter((s) => s.resource.kind === 'ClusterServiceVersion').map((s) => s.resource.name);
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'InstallPlan',
    metadata: {
      generateName: 'install-',
      namespace: st.namespace,
      ownerReferences: st.subs.map((w) => nonBlockingOwnerReference('operators.coreos.com/v1alpha1', 'Subscription', w.sub)),
    },
    spec: { clusterServiceVersionNames: csvNames, approval, approved: approval === ApprovalAutomatic, generation: gen },
  };
}

function planStatus(steps: readonly Step[], approval: string): NonNullable<InstallPlan['status']> {
  const catalogSources = [...new Set(steps.map((s) => s.resource.sourceName))];
  return {
    phase: approval === ApprovalManual ? InstallPlanPhaseRequiresApproval : InstallPlanPhaseInstalling,
    plan: [...steps],
    catalogSources,
  };
}

const namespaceObject = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
