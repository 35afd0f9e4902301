// The Operator API's two controllers, as upstream's olm-operator runs them (operator_controller.go,
// adoption_controller.go):
// - adoption: a Subscription labels itself, its installed CSV and its latest InstallPlan (older InstallPlans lose the
//   label) as components of `<package>.<namespace>`; a CSV so labelled passes its labels on to what it owns;
// - operator: an Operator per component label, created while it has components, its status listing them.
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  CSVPhaseFailed,
  CSVPhaseSucceeded,
  InstallPlanPhaseComplete,
  InstallPlanPhaseFailed,
  InstallPlanPhaseRequiresApproval,
  OperatorKind,
  OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel, ClusterServiceVersionKind, V1, V1alpha1,
  type ClusterServiceVersion,
  type InstallPlan,
  type Operator,
  type Subscription,
} from '../../../api/operators/index.ts';
import { ObjectReconciler, errorMessage, splitKey, type Reconciler, type Step } from '../../shared/controller/index.ts';
import { ignoreNotFound, isAlreadyExists, isConflict, isNotFound, NAMESPACE_INDEX, objectRef, type CacheReader, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { aggregateMessages } from '../../shared/toolkit/index.ts';
import { operatorStatus, type Component } from './components.ts';
import { COMPONENT_LABEL_KEY_PREFIX, componentLabelKey, operatorNames, packageOperatorName } from './names.ts';

/** Index of component informers: the Operators an object is a component of (by its label keys). */
export const COMPONENT_INDEX = 'operators.coreos.com/components';
/** Index of component informers: `uid:<uid>` of each owner reference, `csv:<namespace>/<name>` of CSV owner labels. */
export const CSV_OWNER_INDEX = 'olm.owner.clusterserviceversion';

/** One kind of component and where it is cached. */
export interface ComponentSource {
  readonly apiVersion: string;
  readonly kind: string;
  /** An informer with the component indexes. */
  readonly cache: CacheReader<KubeObject>;
}

/** The CSV-owner index's values of an object: upstream's IsOwnedBy (any owner reference's uid) and IsOwnedByLabel. */
export function csvOwnerIndex(obj: KubeObject): string[] {
  const out = (obj.metadata.ownerReferences ?? []).map((r) => `uid:${r.uid}`);
  const l = obj.metadata.labels ?? {};
  if (l[OwnerKindLabel] === ClusterServiceVersionKind && l[OwnerLabel] !== undefined && l[OwnerNamespaceLabel] !== undefined) {
    out.push(`csv:${l[OwnerNamespaceLabel]}/${l[OwnerLabel]}`);
  }
  return out;
}

/** The component index's values of an object: the names of the Operators its labels make it part of. */
export const componentIndex = (obj: KubeObject): string[] => operatorNames(obj.metadata.labels).filter((n) => n !== '');

/** The Operator name a component label key selects (the key's name part: the name, cut when too long). */
const labelName = (operatorName: string): string => componentLabelKey(operatorName).slice(COMPONENT_LABEL_KEY_PREFIX.length);

/** Every component of an Operator, over all sources. */
export function componentsOf(sources: readonly ComponentSource[], operatorName: string): Component[] {
  const name = labelName(operatorName);
  return sources.flatMap((s) => s.cache.byIndex(COMPONENT_INDEX, name).map((obj) => ({ apiVersion: s.apiVersion, kind: s.kind, obj })));
}

/**
 * Labels a component with an Operator's key when it has not got it (`adopt`), or takes the key off one that has it
 * (`disown`): a merge patch of that one label. False when nothing was written (or the component is gone).
 */
async function relabel(client: KubeClient, key: string, c: Component, adopt: boolean, signal: AbortSignal): Promise<boolean> {
  if ((c.obj.metadata.labels?.[key] !== undefined) === adopt) return false;
  const ref = objectRef({ ...c.obj, apiVersion: c.apiVersion, kind: c.kind });
  return (await ignoreNotFound(client.patch(ref, 'merge', { metadata: { labels: { [key]: adopt ? '' : null } } }, { signal }))) !== undefined;
}

/** Runs every write, then fails with all their errors as upstream's utilerrors.NewAggregate: `[a, b]`. */
async function all(writes: readonly (() => Promise<unknown>)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const w of writes) {
    try {
      await w();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new Error(aggregateMessages(errors.map(errorMessage)), { cause: errors[0] });
}

export interface AdoptionReconcilerOptions {
  readonly client: KubeClient;
  readonly subscriptions: CacheReader<Subscription>;
  /** CSVs that are not copies. */
  readonly csvs: CacheReader<ClusterServiceVersion>;
  readonly installPlans: CacheReader<InstallPlan>;
  readonly crds: CacheReader<KubeObject>;
  readonly sources: readonly ComponentSource[];
  readonly logger: Logger;
}

/** The phases an InstallPlan rests in. */
const RESTING_PLAN_PHASES: ReadonlySet<string> = new Set([InstallPlanPhaseRequiresApproval, InstallPlanPhaseComplete, InstallPlanPhaseFailed]);

/**
 * Ours: whether a Subscription rests — its latest InstallPlan rests (RequiresApproval, Complete, Failed), or, without
 * one, the Subscription controller has reported something that waits on the outside (a condition that is True:
 * ResolutionFailed, CatalogSourcesUnhealthy, …). Upstream labels at once; a label written while the Subscription or
 * its InstallPlan is being worked on makes their controllers' status writes conflict and the work (a resolution,
 * a plan's steps) run again. The InstallPlan's move to a resting phase brings the Subscription back, so the end
 * state is upstream's.
 */
export function subscriptionRests(sub: Subscription, installPlans: CacheReader<InstallPlan>): boolean {
  const ref = sub.status?.installPlanRef;
  if (ref?.name) return RESTING_PLAN_PHASES.has(installPlans.get(`${ref.namespace ?? ''}/${ref.name}`)?.status?.phase ?? '');
  return (sub.status?.conditions ?? []).some((c) => c.status === 'True');
}

/** The CSV phases a CSV rests in: the CSV controller writes it no more until something changes. */
const RESTING_CSV_PHASES: ReadonlySet<string> = new Set([CSVPhaseSucceeded, CSVPhaseFailed]);

/**
 * Subscription key → the Subscription, its installed CSV and its latest InstallPlan labelled as components of
 * `<package>.<namespace>`; every other InstallPlan of the namespace with that label loses it. Ours: the Subscription
 * and its CSV once the Subscription rests or its installed CSV does (Succeeded, Failed), the InstallPlan once the
 * Subscription rests. In a namespace of many Subscriptions a later resolution's InstallPlan repeats the steps of
 * every operator not yet installed and can still be executing when their CSVs have Succeeded; waiting for it kept
 * those operators without their Operator for as long as the plans ran.
 */
export function newSubscriptionAdoptionReconciler(o: AdoptionReconcilerOptions): Reconciler {
  return {
    async reconcile(key, signal) {
      const sub = o.subscriptions.get(key);
      const pkg = sub?.spec?.name ?? '';
      if (!sub || pkg === '') return;
      const namespace = sub.metadata.namespace ?? '';
      const installed = sub.status?.installedCSV ?? '';
      const csv = installed !== '' ? o.csvs.get(`${namespace}/${installed}`) : undefined;
      const rests = subscriptionRests(sub, o.installPlans);
      if (!rests && !RESTING_CSV_PHASES.has(csv?.status?.phase ?? '')) return;
      const label = componentLabelKey(packageOperatorName(pkg, namespace));
      const writes: (() => Promise<unknown>)[] = [() => relabel(o.client, label, { apiVersion: V1alpha1, kind: 'Subscription', obj: sub }, true, signal)];
      if (csv) writes.push(() => relabel(o.client, label, { apiVersion: V1alpha1, kind: ClusterServiceVersionKind, obj: csv }, true, signal));
      const ipRef = sub.status?.installPlanRef;
      if (rests && ipRef?.name) {
        const ipNamespace = ipRef.namespace ?? '';
        writes.push(async () => {
          const latest = o.installPlans.get(`${ipNamespace}/${ipRef.name}`);
          if (latest) await relabel(o.client, label, { apiVersion: V1alpha1, kind: 'InstallPlan', obj: latest }, true, signal);
          const older = o.installPlans.byIndex(NAMESPACE_INDEX, ipNamespace).filter((ip) => ip.metadata.name !== ipRef.name && ip.metadata.labels?.[label] !== undefined);
          await all(older.map((ip) => () => relabel(o.client, label, { apiVersion: V1alpha1, kind: 'InstallPlan', obj: ip }, false, signal)));
        });
      }
      await all(writes);
    },
  };
}

/**
 * CSV key → what the CSV owns (owner reference or OLM owner labels) and the CRDs it owns by name, labelled with each
 * of the CSV's component labels. Copies are never adopted: the CSV controller writes them without component labels.
 */
export function newCSVAdoptionReconciler(o: AdoptionReconcilerOptions): Reconciler {
  return {
    async reconcile(key, signal) {
      const csv = o.csvs.get(key);
      if (!csv) return;
      const names = componentIndex(csv);
      if (names.length === 0) return;
      const owned = [`uid:${csv.metadata.uid ?? ''}`, `csv:${key}`];
      const candidates = new Map<string, Component>();
      for (const s of o.sources) {
        for (const value of owned) {
          for (const obj of s.cache.byIndex(CSV_OWNER_INDEX, value)) candidates.set(`${s.apiVersion}/${s.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`, { apiVersion: s.apiVersion, kind: s.kind, obj });
        }
      }
      for (const d of csv.spec.customresourcedefinitions?.owned ?? []) {
        const crd = d.name ? o.crds.get(d.name) : undefined;
        if (crd) candidates.set(`crd/${d.name}`, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', obj: crd });
      }
      const writes: (() => Promise<unknown>)[] = [];
      for (const name of names) {
        const label = componentLabelKey(name);
        for (const c of candidates.values()) writes.push(() => relabel(o.client, label, c, true, signal));
      }
      await all(writes);
    },
  };
}

/** What the CSV-adoption controller is told by a component's event: the CSVs that own it. */
export function owningCSVKeys(obj: KubeObject): string[] {
  const ns = obj.metadata.namespace;
  if (!ns) {
    const l = obj.metadata.labels ?? {};
    return l[OwnerKindLabel] === ClusterServiceVersionKind && l[OwnerLabel] && l[OwnerNamespaceLabel] ? [`${l[OwnerNamespaceLabel]}/${l[OwnerLabel]}`] : [];
  }
  return (obj.metadata.ownerReferences ?? []).filter((r) => r.kind === ClusterServiceVersionKind).map((r) => `${ns}/${r.name}`);
}

export interface OperatorReconcilerOptions {
  readonly client: KubeClient;
  readonly operators: CacheReader<Operator>;
  readonly sources: readonly ComponentSource[];
  readonly logger: Logger;
}

interface OperatorPass {
  readonly operator: Operator;
  readonly name: string;
}

/**
 * Operator name → the Operator created while it has components (an Operator deleted with components left comes back,
 * a deleted one without stays gone), its status set to its components; one whose components were listed and are now
 * all gone is deleted (ours: upstream leaves it with no refs), so the Operators are the operators installed.
 */
export function newOperatorReconciler(o: OperatorReconcilerOptions): Reconciler {
  const steps: Step<OperatorPass>[] = [
    {
      name: 'updateComponents',
      run: ({ operator, name }) => {
        operator.status = operatorStatus(name, componentsOf(o.sources, name));
        return Promise.resolve(undefined);
      },
    },
  ];
  const objects = new ObjectReconciler<Operator, OperatorPass>({
    kind: OperatorKind,
    client: o.client,
    get: (k) => o.operators.get(k),
    // Components change in bursts during an install: a pass that runs before the informer has seen the last status
    // write starts from it instead of failing on a stale resourceVersion.
    readYourWrites: true,
    steps,
    logger: o.logger,
    state: ({ obj, key }) => ({ operator: obj, name: key }),
  });
  return {
    async reconcile(key, signal) {
      const { name } = splitKey(key);
      const have = o.operators.get(key);
      if (have && (have.status?.components?.refs?.length ?? 0) > 0 && componentsOf(o.sources, name).length === 0) {
        // Its last component went (an uninstall): the Operator goes too. One never given a component (made by
        // hand) is left alone; the uid makes sure it is the Operator just read.
        try {
          await o.client.delete({ apiVersion: V1, kind: OperatorKind, name }, { signal, ...(have.metadata.uid && { preconditions: { uid: have.metadata.uid } }) });
          o.logger.info('deleted Operator: its components are gone', { operator: name });
        } catch (err) {
          if (!isNotFound(err) && !isConflict(err)) throw new Error(`could not delete Operator ${name}: ${errorMessage(err)}`, { cause: err });
          if (isConflict(err)) return { requeue: true };
        }
        return;
      }
      if (have) return objects.reconcile(key, signal);
      if (componentsOf(o.sources, name).length === 0) return;
      try {
        await o.client.create<Operator>({ apiVersion: V1, kind: OperatorKind, metadata: { name } }, { signal });
        o.logger.info('created Operator', { operator: name });
      } catch (err) {
        if (!isAlreadyExists(err)) throw new Error(`could not create Operator ${name}: ${errorMessage(err)}`, { cause: err });
      }
    },
  };
}
