// The CSV state machine (upstream olm/operator.go syncClusterServiceVersion + transitionCSVState) as a list of
// small steps over one state: the finalizer, copies and no-retry failures left alone, the OperatorGroup
// pre-checks (membership, install modes, provided APIs), then one step per phase. Each step records the CSV's new
// status on the copy (SetPhase semantics, phase.ts) and lets the next run or ends the pass; the reconciler writes
// the status once, as upstream (only when lastUpdateTime, phase, reason or message changed).
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  CSVPhaseDeleting,
  CSVPhaseFailed,
  CSVPhaseInstallReady,
  CSVPhaseInstalling,
  CSVPhaseNone,
  CSVPhasePending,
  CSVPhaseReplacing,
  CSVPhaseSucceeded,
  CSVReasons,
  ClusterServiceVersionKind,
  OperatorGroupProvidedAPIsAnnotationKey,
  OperatorGroupTargetsAnnotationKey,
  OperatorGroupKind,
  UpgradeStrategyUnsafeFailForward,
  V1,
  V1alpha1,
  type ClusterServiceVersion,
  type OperatorGroup,
} from '../../../api/operators/index.ts';
import { ClusterObjectSetKind, GroupVersion as V1GroupVersion } from '../../../api/v1/index.ts';
import { errorMessage, formatTime, routine, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX, hasFinalizer, ignoreNotFound, isNotFound, isOwnedBy, nonBlockingOwnerReference, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { aggregateMessages } from '../../shared/toolkit/index.ts';
import type { DeploymentConfig } from '../../shared/registryv1/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import {
  aggregationLabel,
  apiSetString,
  groupAnnotationsDiffer,
  groupAnnotations,
  groupSurface,
  providedAPIsOfCSV,
  reconcileAPIIntersection,
  upgradeStrategy,
} from '../operatorgroup/index.ts';
import { operatorUpgradeable } from '../operatorcondition/index.ts';
import { StrategyErrReason, checkInstalled, csvOwnerLabels, installDeployments, isUnrecoverable, StrategyError } from './install.ts';
import { installModeSet, unsupportedTargets } from './installmodes.ts';
import type { CSVMetrics } from './metrics.ts';
import { isCopied, setPhaseWithEvent, setPhaseWithEventIfChanged, type PhaseEvents } from './phase.ts';
import { CRD_OWNER_CONFLICT, crdOwnerConflict, isBeingReplaced, lastInReplacementChain, replacedName } from './replace.ts';
import { requirementAndPermissionStatus, type RequirementSource } from './requirements.ts';
import { key } from './watch-keys.ts';
import { installCertRequirements, installWebhooks, installedSpecs, shouldRotateCerts, webhooksAvailable, webhooksOf } from './webhooks.ts';

export const CSV_FINALIZER = 'operators.coreos.com/csv-cleanup';
/** How soon a CSV waiting for its components looks again (their events usually bring it back sooner). */
export const WAITING_RECHECK_MS = 5_000;
/** Installing longer than this after the last phase change fails (upstream's 5 minutes). */
export const INSTALL_TIMEOUT_MS = 5 * 60_000;

export const ErrRequirementsNotMet = 'requirements were not met';

/** What one pass knows, built from the ObjectReconciler's pass; steps fill it in order. */
export interface CSVState {
  /** The CSV as cached (read-only; the pass's `cached`). */
  readonly cached: ClusterServiceVersion;
  /** The copy whose status the steps change (the pass's `obj`). */
  readonly out: ClusterServiceVersion;
  readonly log: Logger;
  operatorGroup?: OperatorGroup;
  /** Set when the pass must come back soon (upstream's csvQueueSet.Requeue of this CSV). */
  requeueAfterMs?: number;
}

/** The ports the steps use. */
export interface CSVStepPorts {
  /** The controller's own client (CSV, OperatorGroup, RBAC writes). */
  readonly client: KubeClient;
  readonly caches: OlmCaches;
  readonly requirements: RequirementSource;
  readonly events?: PhaseEvents;
  readonly metrics?: CSVMetrics;
  readonly now: () => Date;
  /** The client Deployments are written with: the OperatorGroup's service account when it names one. */
  installClient(og: OperatorGroup): KubeClient | undefined;
  /** A CSV read live (upstream's IsReplacing reads the API server, not the cache). */
  getCSV(namespace: string, name: string, signal: AbortSignal): Promise<ClusterServiceVersion | undefined>;
  /** Reconcile another CSV (upstream's csvQueueSet.Requeue). */
  enqueue(key: string): void;
}

export type CSVStep = Step<CSVState>;

/** OLM v1 adopted the object in place (`kubectl olm migrate`): a ClusterObjectSet is its controller. */
const controlledByV1 = (o: KubeObject | undefined): boolean =>
  (o?.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.kind === ClusterObjectSetKind && r.apiVersion === V1GroupVersion);

const nowText = (p: Pick<CSVStepPorts, 'now'>): string => formatTime(p.now());
const inNamespace = (p: Pick<CSVStepPorts, 'caches'>, csv: ClusterServiceVersion): ClusterServiceVersion[] =>
  p.caches.csvs.byIndex(NAMESPACE_INDEX, csv.metadata.namespace ?? '');

/** The Subscription config of the Subscription that installed this CSV (upstream's deployment initializer). */
export function subscriptionConfig(p: Pick<CSVStepPorts, 'caches'>, csv: ClusterServiceVersion): DeploymentConfig | undefined {
  const sub = p.caches.subscriptions.byIndex(NAMESPACE_INDEX, csv.metadata.namespace ?? '').find((s) => s.status?.installedCSV === csv.metadata.name);
  return (sub?.spec?.config ?? undefined) as DeploymentConfig | undefined;
}

/** The default list, in upstream's order. */
export function csvSteps(p: CSVStepPorts): CSVStep[] {
  return [
    processFinalizer(p),
    skipCopied,
    skipAdoptedByV1(p),
    skipFailedNoRetry,
    operatorGroupMembership(p),
    installModes(p),
    providedAPIs(p),
    phaseNone(p),
    phasePending(p),
    phaseInstallReady(p),
    phaseInstalling(p),
    phaseSucceeded(p),
    phaseFailed(p),
    phaseReplacing(p),
    phaseDeleting(p),
  ];
}

/**
 * The `operators.coreos.com/csv-cleanup` finalizer: added to every CSV; on deletion the cluster-scoped objects
 * labelled as the CSV's (ClusterRoleBindings, ClusterRoles, webhook configurations) are deleted and the finalizer
 * stays until the ClusterRoles and ClusterRoleBindings are gone (namespaced objects go with their owner reference);
 * the conversion webhook is taken off the CSV's CRDs, except off a CRD OLM v1 adopted (ours: v1 keeps it as migrated).
 */
export function processFinalizer(p: Pick<CSVStepPorts, 'client' | 'caches'>): CSVStep {
  const RBAC = 'rbac.authorization.k8s.io/v1';
  return {
    name: 'processFinalizer',
    run: async ({ cached, log }, signal) => {
      const ref = { apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace: cached.metadata.namespace ?? '', name: cached.metadata.name ?? '' };
      if (!cached.metadata.deletionTimestamp) {
        if (hasFinalizer(cached, CSV_FINALIZER)) return undefined;
        // The update brings the CSV back.
        const patch = { metadata: { finalizers: [...(cached.metadata.finalizers ?? []), CSV_FINALIZER], resourceVersion: cached.metadata.resourceVersion } };
        return finalAfter(ignoreNotFound(p.client.patch(ref, 'merge', patch, { signal })));
      }
      if (!hasFinalizer(cached, CSV_FINALIZER)) return { final: true };
      log.info('Cleaning up resources after CSV deletion');
      const owner = csvOwnerLabels(cached);
      const mine = (o: KubeObject): boolean => Object.entries(owner).every(([k, v]) => o.metadata.labels?.[k] === v);
      const errs: string[] = [];
      const cleanups: [string, string, KubeObject[]][] = [
        [RBAC, 'ClusterRoleBinding', p.caches.clusterRoleBindings.list().filter(mine)],
        [RBAC, 'ClusterRole', p.caches.clusterRoles.list().filter(mine)],
      ];
      for (const [apiVersion, kind] of [
        ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'],
        ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'],
      ] as const) {
        try {
          const list = await p.client.list({ apiVersion, kind }, { labelSelector: { matchLabels: owner }, signal });
          cleanups.push([apiVersion, kind, list.items]);
        } catch (err) {
          if (!isNotFound(err)) errs.push(errorMessage(err));
        }
      }
      for (const [apiVersion, kind, objs] of cleanups) {
        for (const o of objs) {
          await ignoreNotFound(p.client.delete({ apiVersion, kind, name: o.metadata.name ?? '' }, { signal })).catch((err: unknown) => errs.push(errorMessage(err)));
        }
      }
      // A deleted CSV that nothing replaces leaves its CRDs without the conversion webhook it served (upstream's
      // deletion handler), so their custom resources stay readable.
      const replaced = p.caches.csvs.byIndex(NAMESPACE_INDEX, cached.metadata.namespace ?? '').some((c) => c.spec.replaces === cached.metadata.name);
      if (!replaced) {
        for (const w of cached.spec.webhookdefinitions ?? []) {
          if (w.type !== 'ConversionWebhook') continue;
          for (const name of w.conversionCRDs ?? []) {
            // a CRD OLM v1 adopted (a ClusterObjectSet controls it) keeps its conversion: it is v1's now
            if (controlledByV1(p.caches.crds.get(name))) continue;
            const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name };
            await ignoreNotFound(p.client.patch(crd, 'merge', { spec: { conversion: { strategy: 'None', webhook: null } } }, { signal })).catch((err: unknown) =>
              log.error(`error updating conversion strategy for CRD ${name}: ${errorMessage(err)}`),
            );
          }
        }
      }
      if (cleanups[0]![2].length > 0) errs.push('waiting for ClusterRoleBindings to delete');
      if (cleanups[1]![2].length > 0) errs.push('waiting for ClusterRoles to delete');
      if (errs.length > 0) return { final: true, err: routine(new Error(aggregateMessages(errs)), 'WaitingForDependents') };
      const patch = { metadata: { finalizers: (cached.metadata.finalizers ?? []).filter((f) => f !== CSV_FINALIZER), resourceVersion: cached.metadata.resourceVersion } };
      return finalAfter(ignoreNotFound(p.client.patch(ref, 'merge', patch, { signal })));
    },
  };
}

/** Copies are never transitioned. */
export const skipCopied: CSVStep = {
  name: 'skipCopied',
  run: async ({ cached, log }) => {
    if (!isCopied(cached)) return undefined;
    log.info('skipping copied csv transition');
    return { final: true };
  },
};

/**
 * Ours, not upstream's: a CSV whose Deployment OLM v1 adopted (a ClusterObjectSet is its controller — only
 * `kubectl olm migrate` hands a classic operator's objects to v1) is left as it is: no phase change, no install, no
 * health check, so the move never makes it flap (the adoption's annotations bump the Deployment's generation, which a
 * health check would read as a rollout) nor has olm-classic rewrite what v1 now owns. Deletion still runs its finalizer.
 */
export function skipAdoptedByV1(p: Pick<CSVStepPorts, 'caches'>): CSVStep {
  return {
    name: 'skipAdoptedByV1',
    run: async ({ cached, log }) => {
      // The first of the CSV's Deployments a ClusterObjectSet controls.
      const ns = cached.metadata.namespace ?? '';
      const deployment = (cached.spec.install?.spec?.deployments ?? []).find((d) => controlledByV1(p.caches.deployments.get(`${ns}/${d.name}`)))?.name;
      if (deployment === undefined) return undefined;
      log.info('skipping csv transition: OLM v1 adopted its deployment', { deployment });
      return { final: true };
    },
  };
}

/** A CSV that failed with InstallComponentFailedNoRetry waits for a cluster change to be brought back. */
export const skipFailedNoRetry: CSVStep = {
  name: 'skipFailedNoRetry',
  run: async ({ cached }) => (cached.status?.reason === CSVReasons.ComponentFailedNoRetry ? { final: true } : undefined),
};

/** upstream's operatorGroupForCSV: exactly one OperatorGroup in the namespace, its annotations on the CSV. */
export function operatorGroupMembership(p: Pick<CSVStepPorts, 'client' | 'caches' | 'events' | 'now'>): CSVStep {
  return {
    name: 'operatorGroupMembership',
    run: async (state, signal) => {
      const { out } = state;
      const now = nowText(p);
      const groups = p.caches.operatorGroups.byIndex(NAMESPACE_INDEX, out.metadata.namespace ?? '');
      if (groups.length === 0) {
        const msg = 'csv in namespace with no operatorgroups';
        setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.NoOperatorGroup, msg, now, p.events);
        return { err: routine(new Error(msg), CSVReasons.NoOperatorGroup) };
      }
      if (groups.length > 1) {
        const msg = "csv created in namespace with multiple operatorgroups, can't pick one automatically";
        if (out.status?.reason !== CSVReasons.TooManyOperatorGroups) setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.TooManyOperatorGroups, msg, now, p.events);
        return { err: new Error(msg) };
      }
      const og = groups[0]!;
      if (groupAnnotationsDiffer(out, og)) {
        // The annotated CSV comes back with the update.
        return finalAfter(
          p.client.patch(
            { apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace: out.metadata.namespace ?? '', name: out.metadata.name ?? '' },
            'merge',
            { metadata: { annotations: groupAnnotations(og), resourceVersion: out.metadata.resourceVersion } },
            { signal },
          ),
        );
      }
      state.operatorGroup = og;
      return undefined;
    },
  };
}

/** The CSV's install modes must support the group's target namespaces. */
export function installModes(p: Pick<CSVStepPorts, 'events' | 'now'>): CSVStep {
  return {
    name: 'installModes',
    run: async ({ out }) => {
      const now = nowText(p);
      let set;
      try {
        set = installModeSet(out.spec.installModes);
      } catch (err) {
        setPhaseWithEventIfChanged(out, CSVPhaseFailed, CSVReasons.InvalidInstallModes, errorMessage(err), now, p.events);
        return {};
      }
      const targets = out.metadata.annotations?.[OperatorGroupTargetsAnnotationKey];
      if (targets === undefined) {
        setPhaseWithEventIfChanged(out, CSVPhaseFailed, CSVReasons.NoTargetNamespaces, 'csv missing olm.targetNamespaces annotation', now, p.events);
        return {};
      }
      const why = unsupportedTargets(set, out.metadata.namespace ?? '', targets.split(','));
      if (why !== undefined) {
        setPhaseWithEventIfChanged(out, CSVPhaseFailed, CSVReasons.UnsupportedOperatorGroup, why, now, p.events);
        return {};
      }
      return undefined;
    },
  };
}

/** Deletes the strategy's deployments (a CSV whose APIs conflict with another group's must not run). */
async function cleanupDeployments(p: Pick<CSVStepPorts, 'client'>, csv: ClusterServiceVersion, log: Logger, signal: AbortSignal): Promise<void> {
  for (const d of csv.spec.install?.spec?.deployments ?? []) {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: csv.metadata.namespace ?? '', name: d.name };
    await ignoreNotFound(p.client.delete(ref, { signal })).catch((err: unknown) => log.warn('error cleaning up CSV deployment', { deployment: d.name, err }));
  }
}

/** The CSV's provided APIs against intersecting groups (`olm.providedAPIs`), upstream's apiReconciler. */
export function providedAPIs(p: Pick<CSVStepPorts, 'client' | 'caches' | 'events' | 'now'>): CSVStep {
  return {
    name: 'providedAPIs',
    run: async (state, signal) => {
      const { out, log } = state;
      const og = state.operatorGroup!;
      let provided: Set<string>;
      try {
        provided = providedAPIsOfCSV(out);
      } catch (err) {
        log.warn('Unable to retrieve operator information from CSV', { err });
        return {};
      }
      const now = nowText(p);
      const group = groupSurface(og);
      const others = p.caches.operatorGroups.list().filter((g) => !(g.metadata.name === og.metadata.name && g.metadata.namespace === og.metadata.namespace));
      const result = reconcileAPIIntersection(provided, group, others.map(groupSurface));
      const patchGroup = async (apis: ReadonlySet<string>): Promise<StepOutcome> => {
        try {
          await p.client.patch(
            { apiVersion: V1, kind: OperatorGroupKind, namespace: og.metadata.namespace ?? '', name: og.metadata.name ?? '' },
            'merge',
            { metadata: { annotations: { [OperatorGroupProvidedAPIsAnnotationKey]: apiSetString(apis) }, resourceVersion: og.metadata.resourceVersion } },
            { signal },
          );
        } catch (err) {
          if (!isNotFound(err)) return { err: new Error(`could not update operatorgroups ${OperatorGroupProvidedAPIsAnnotationKey} annotation: ${errorMessage(err)}`, { cause: err }) };
        }
        state.requeueAfterMs = 0;
        return {};
      };
      // The CSV cannot provide its APIs: failed with `reason` and its deployments removed, unless it already failed for a conflict.
      const refused = async (why: string, reason: string, message: string): Promise<StepOutcome> => {
        if (out.status?.reason !== CSVReasons.InterOperatorGroupOwnerConflict) {
          log.warn(why, { apis: [...provided] });
          setPhaseWithEvent(out, CSVPhaseFailed, reason, message, now, p.events);
          await cleanupDeployments(p, out, log, signal);
        }
        return {};
      };
      if (og.spec?.staticProvidedAPIs && (result === 'AddAPIs' || result === 'RemoveAPIs')) {
        return refused('cannot modify provided apis of static provided api operatorgroup', CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs, 'static provided api operatorgroup cannot be modified by these apis');
      }
      if (result === 'APIConflict') return refused('intersecting operatorgroups provide the same apis', CSVReasons.InterOperatorGroupOwnerConflict, 'intersecting operatorgroups provide the same apis');
      if (result === 'AddAPIs') {
        const union = new Set([...group.providedAPIs, ...provided]);
        if (og.metadata.annotations?.[OperatorGroupProvidedAPIsAnnotationKey] === apiSetString(union)) return undefined;
        return patchGroup(union);
      }
      if (result === 'RemoveAPIs') {
        if (!og.metadata.annotations) return {};
        return patchGroup(new Set([...group.providedAPIs].filter((api) => !provided.has(api))));
      }
      return undefined;
    },
  };
}

/** A step's end after a write that brings the object back: final either way, with the write's error if it failed. */
const finalAfter = (write: Promise<unknown>): Promise<StepOutcome> => write.then(() => ({ final: true }), (err: unknown) => ({ final: true, err }));

function onPhase(phase: string, name: string, run: CSVStep['run']): CSVStep {
  return { name, run: async (state, signal) => ((state.out.status?.phase ?? CSVPhaseNone) === phase ? ((await run(state, signal)) ?? {}) : undefined) };
}

export function phaseNone(p: Pick<CSVStepPorts, 'events' | 'now'>): CSVStep {
  return onPhase(CSVPhaseNone, 'phaseNone', async ({ out }) => {
    setPhaseWithEvent(out, CSVPhasePending, CSVReasons.RequirementsUnknown, 'requirements not yet checked', nowText(p), p.events);
    return {};
  });
}

/** The CSV `csv` replaces, read live (undefined when it names itself or is gone). */
async function replacing(p: Pick<CSVStepPorts, 'getCSV'>, csv: ClusterServiceVersion, signal: AbortSignal): Promise<ClusterServiceVersion | undefined> {
  const name = replacedName(csv);
  return name === undefined ? undefined : p.getCSV(csv.metadata.namespace ?? '', name, signal);
}

/** upstream's ValidWebhookRules. */
export function webhookRulesProblem(rules: readonly Record<string, unknown>[] | undefined): string | undefined {
  for (const rule of rules ?? []) {
    const groups = new Set((rule['apiGroups'] as string[] | undefined) ?? []);
    if (groups.has('*')) return 'webhook rules cannot include all groups';
    if (groups.has('operators.coreos.com')) return 'webhook rules cannot include the OLM group';
    if (groups.has('admissionregistration.k8s.io')) {
      const resources = new Set((rule['resources'] as string[] | undefined) ?? []);
      if (resources.has('*') || resources.has('MutatingWebhookConfiguration') || resources.has('ValidatingWebhookConfiguration')) {
        return 'webhook rules cannot include MutatingWebhookConfiguration or ValidatingWebhookConfiguration resources';
      }
    }
  }
  return undefined;
}

export function phasePending(p: Pick<CSVStepPorts, 'caches' | 'requirements' | 'events' | 'now' | 'getCSV' | 'enqueue'>): CSVStep {
  return onPhase(CSVPhasePending, 'phasePending', async ({ out, log }, signal) => {
    const now = nowText(p);
    const prev = await replacing(p, out, signal);
    if (prev) {
      const oc = p.caches.operatorConditions.get(key(prev));
      const { upgradeable, reason } = operatorUpgradeable(oc);
      if (!upgradeable) {
        setPhaseWithEventIfChanged(out, CSVPhasePending, CSVReasons.OperatorConditionNotUpgradeable, `operator is not upgradeable: ${reason}`, now, p.events);
        return {};
      }
    }
    let result;
    try {
      result = await requirementAndPermissionStatus(p.requirements, out);
    } catch (err) {
      log.info('invalid install strategy');
      setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.InvalidStrategy, `install strategy invalid: ${errorMessage(err)}`, now, p.events);
      return {};
    }
    (out.status ??= {}).requirementStatus = result.statuses;
    if (prev && prev.status?.phase === CSVPhaseSucceeded) p.enqueue(key(prev));
    if (!result.met) {
      log.info('requirements were not met');
      setPhaseWithEventIfChanged(out, CSVPhasePending, CSVReasons.RequirementsNotMet, "one or more requirements couldn't be found", now, p.events);
      return { err: routine(new Error(ErrRequirementsNotMet), CSVReasons.RequirementsNotMet) };
    }
    const names = new Set<string>();
    for (const desc of out.spec.webhookdefinitions ?? []) {
      const problem = names.has(desc.generateName) ? 'CSV contains repeated WebhookDescription name' : webhookRulesProblem(desc.rules);
      if (problem !== undefined) {
        setPhaseWithEventIfChanged(out, CSVPhaseFailed, CSVReasons.InvalidWebhookDescription, problem, now, p.events);
        return {};
      }
      names.add(desc.generateName);
    }
    if (crdOwnerConflict(out, inNamespace(p, out))) {
      setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.OwnerConflict, CRD_OWNER_CONFLICT, now, p.events);
      return { err: new Error(CRD_OWNER_CONFLICT) };
    }
    if (prev && prev.status?.phase !== CSVPhaseReplacing) {
      log.info('Unable to replace previous CSV', { reason: `CSV being replaced is in phase ${prev.status?.phase ?? ''} instead of ${CSVPhaseReplacing}` });
      return {};
    }
    log.info('scheduling ClusterServiceVersion for install');
    setPhaseWithEvent(out, CSVPhaseInstallReady, CSVReasons.RequirementsMet, 'all requirements found, attempting install', now, p.events);
    return {};
  });
}

type Specs = Map<string, Record<string, unknown>>;

/**
 * upstream's updateDeploymentSpecsWithAPIServiceData: the webhook deployments' specs as installed; undefined after
 * setting `Pending`/`NeedsReinstall`/`calculated deployment install is bad` when they cannot be worked out.
 */
async function specsAsInstalled(p: Pick<CSVStepPorts, 'client' | 'events' | 'now'>, state: CSVState, signal: AbortSignal): Promise<Specs | undefined> {
  if (webhooksOf(state.out).length === 0) return new Map();
  try {
    return await installedSpecs(p.client, state.out, signal);
  } catch (err) {
    state.log.debug('Unable to calculate expected deployment', { err: errorMessage(err) });
    setPhaseWithEvent(state.out, CSVPhasePending, CSVReasons.NeedsReinstall, 'calculated deployment install is bad', nowText(p), p.events);
    return undefined;
  }
}

/** upstream's parseStrategiesAndUpdateStatus, for the `deployment` strategy: false when the CSV was failed for it. */
function strategyUsable(p: Pick<CSVStepPorts, 'events' | 'now'>, csv: ClusterServiceVersion): boolean {
  if (csv.spec.install?.strategy === 'deployment') return true;
  setPhaseWithEvent(csv, CSVPhaseFailed, CSVReasons.InvalidStrategy, 'install strategy invalid: unrecognized install strategy', nowText(p), p.events);
  return false;
}

export function phaseInstallReady(p: CSVStepPorts): CSVStep {
  return onPhase(CSVPhaseInstallReady, 'phaseInstallReady', async (state, signal) => {
    const { out, log } = state;
    if (!strategyUsable(p, out)) return {};
    const prev = await replacing(p, out, signal);
    if (prev) p.enqueue(key(prev));
    const client = p.installClient(state.operatorGroup!);
    if (!client) {
      log.info('failed to get a client for operator deployment: the OperatorGroup service account is not synced yet');
      return {};
    }
    const now = nowText(p);
    let installErr: unknown;
    // What this OLM does not install.
    if ((out.spec.apiservicedefinitions?.owned ?? []).length > 0) {
      installErr = new StrategyError(StrategyErrReason.InvalidStrategy, 'owned APIServices (spec.apiservicedefinitions.owned) are not supported by this OLM: serve the API from a CustomResourceDefinition');
    } else {
      try {
        const existing = p.caches.deployments.byIndex(NAMESPACE_INDEX, out.metadata.namespace ?? '');
        const certs = await installCertRequirements(client, out, signal, p.now());
        await installDeployments(client, out, existing, subscriptionConfig(p, out), signal, certs.specs);
        await installWebhooks(client, out, state.operatorGroup!, certs.caPEM, signal);
        if (certs.rotateAt) {
          const status = (out.status ??= {});
          status.certsLastUpdated = now;
          status.certsRotateAt = formatTime(certs.rotateAt);
        }
      } catch (err) {
        installErr = err;
      }
    }
    if (installErr !== undefined) {
      const noRetry = isUnrecoverable(installErr);
      if (noRetry) log.info('Setting CSV reason to failed without retry', { err: installErr });
      setPhaseWithEvent(out, CSVPhaseFailed, noRetry ? CSVReasons.ComponentFailedNoRetry : CSVReasons.ComponentFailed, `install strategy failed: ${errorMessage(installErr)}`, now, p.events);
      return { err: installErr };
    }
    setPhaseWithEvent(out, CSVPhaseInstalling, CSVReasons.InstallSuccessful, 'waiting for install components to report healthy', now, p.events);
    state.requeueAfterMs = 0;
    return {};
  });
}

/**
 * upstream's updateInstallStatus: healthy (deployments and webhooks) → Succeeded; an unrecoverable strategy error →
 * Failed/InstallCheckFailed; webhooks failing → InstallReady `Webhook install failed: <err>`, missing →
 * `requeuePhase`/`reason` `webhooks not installed`; a changed or unannotated deployment → InstallReady (reinstall);
 * otherwise `requeuePhase`/`reason` with `installing: <why>`. Returns the error, if any.
 */
export async function updateInstallStatus(
  p: Pick<CSVStepPorts, 'client' | 'caches' | 'events' | 'now'>,
  state: CSVState,
  requeuePhase: string,
  reason: string,
  specs: Specs,
  signal: AbortSignal,
): Promise<Error | undefined> {
  const { out } = state;
  const now = nowText(p);
  let strategyErr: Error | undefined;
  try {
    checkInstalled(out, p.caches.deployments.byIndex(NAMESPACE_INDEX, out.metadata.namespace ?? ''), subscriptionConfig(p, out), specs);
  } catch (err) {
    strategyErr = err instanceof Error ? err : new Error(String(err));
  }
  let webhooksInstalled = true;
  let webhookErr: Error | undefined;
  if (webhooksOf(out).length > 0) {
    try {
      webhooksInstalled = await webhooksAvailable(p.client, out, signal);
    } catch (err) {
      webhooksInstalled = false;
      webhookErr = err instanceof Error ? err : new Error(String(err));
    }
  }
  if (!strategyErr && webhooksInstalled) {
    setPhaseWithEventIfChanged(out, CSVPhaseSucceeded, CSVReasons.InstallSuccessful, 'install strategy completed with no errors', now, p.events);
    return undefined;
  }
  if (strategyErr && isUnrecoverable(strategyErr)) {
    setPhaseWithEventIfChanged(out, CSVPhaseFailed, CSVReasons.InstallCheckFailed, `install failed: ${strategyErr.message}`, now, p.events);
    return strategyErr;
  }
  if (webhookErr) {
    setPhaseWithEventIfChanged(out, CSVPhaseInstallReady, reason, `Webhook install failed: ${webhookErr.message}`, now, p.events);
    return webhookErr;
  }
  if (!webhooksInstalled) {
    setPhaseWithEventIfChanged(out, requeuePhase, reason, 'webhooks not installed', now, p.events);
    state.requeueAfterMs = WAITING_RECHECK_MS;
    return new Error('webhooks not installed');
  }
  const e = strategyErr!;
  const r = e instanceof StrategyError ? e.reason : StrategyErrReason.Unknown;
  const phase = r === StrategyErrReason.DeploymentUpdated || r === StrategyErrReason.AnnotationsMissing ? CSVPhaseInstallReady : requeuePhase;
  setPhaseWithEventIfChanged(out, phase, reason, `installing: ${e.message}`, now, p.events);
  state.requeueAfterMs = WAITING_RECHECK_MS;
  return e;
}

export function phaseInstalling(p: CSVStepPorts): CSVStep {
  return onPhase(CSVPhaseInstalling, 'phaseInstalling', async (state, signal) => {
    const { out, log } = state;
    if (!strategyUsable(p, out)) return {};
    const prev = await replacing(p, out, signal);
    if (prev) p.enqueue(key(prev));
    const specs = await specsAsInstalled(p, state, signal);
    if (!specs) return {};
    const installErr = await updateInstallStatus(p, state, CSVPhaseInstalling, CSVReasons.Waiting, specs, signal);
    if (installErr) {
      const since = out.status?.lastTransitionTime ? Date.parse(out.status.lastTransitionTime) : undefined;
      if (since !== undefined && p.now().getTime() - since >= INSTALL_TIMEOUT_MS) {
        log.warn('install timed out');
        setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.InstallCheckFailed, 'install timeout', nowText(p), p.events);
        return {};
      }
      if (state.requeueAfterMs !== undefined) {
        // Come back before the timeout passes unnoticed.
        const left = since !== undefined ? since + INSTALL_TIMEOUT_MS - p.now().getTime() : WAITING_RECHECK_MS;
        state.requeueAfterMs = Math.max(0, Math.min(state.requeueAfterMs, left));
      }
    } else log.info('install strategy successful');
    return {};
  });
}

const VERBS_FOR_SUFFIX: readonly (readonly [string, readonly string[]])[] = [
  ['admin', ['*']],
  ['edit', ['create', 'update', 'patch', 'delete']],
  ['view', ['get', 'list', 'watch']],
];

/** upstream's ensureClusterRolesForCSV: admin/edit/view ClusterRoles per owned CRD, aggregated into the bootstrap roles. */
export async function ensureClusterRolesForCSV(p: Pick<CSVStepPorts, 'client' | 'caches'>, csv: ClusterServiceVersion, signal: AbortSignal): Promise<void> {
  for (const owned of csv.spec.customresourcedefinitions?.owned ?? []) {
    const crd = p.caches.crds.get(owned.name);
    if (!crd) throw new Error(`crd ${JSON.stringify(owned.name)} not found: customresourcedefinitions.apiextensions.k8s.io ${JSON.stringify(owned.name)} not found`);
    const dot = owned.name.indexOf('.');
    if (dot < 0) throw new Error(`invalid parsing of name '${owned.name}', got [${owned.name}]`);
    const plural = owned.name.slice(0, dot);
    const group = owned.name.slice(dot + 1);
    const prefix = `${owned.name}-${owned.version}-`;
    const api = `${owned.kind}.${owned.version}.${group}`;
    const ownerRef = nonBlockingOwnerReference('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd);
    const roles: [string, string, Record<string, unknown>][] = VERBS_FOR_SUFFIX.map(([suffix, verbs]) => [prefix + suffix, suffix, { verbs: [...verbs], apiGroups: [group], resources: [plural] }]);
    roles.push([`${prefix}crdview`, 'view', { verbs: ['get'], apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], resourceNames: [owned.name] }]);
    for (const [name, suffix, rule] of roles) {
      const labels = { [`rbac.authorization.k8s.io/aggregate-to-${suffix}`]: 'true', [aggregationLabel(api, suffix)]: 'true', 'olm.managed': 'true' };
      const desired: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels, ownerReferences: [ownerRef] }, rules: [rule] };
      const existing = p.caches.clusterRoles.get(name);
      if (!existing) {
        try {
          await p.client.create(desired, { signal });
        } catch (err) {
          if (!(err as { code?: number }).code || (err as { code?: number }).code !== 409) throw err;
        }
        continue;
      }
      const sameRules = JSON.stringify(existing.rules ?? []) === JSON.stringify([rule]);
      const owned = isOwnedBy(existing, crd);
      const sameLabels = JSON.stringify(Object.entries(existing.metadata.labels ?? {}).sort()) === JSON.stringify(Object.entries(labels).sort());
      if (sameRules && owned && sameLabels) continue;
      await p.client.update({ ...desired, metadata: { ...desired.metadata, resourceVersion: existing.metadata.resourceVersion } }, { signal });
    }
  }
}

/**
 * upstream's ShouldRotateCerts check of a Succeeded or Failed CSV: certificates due → `Pending`/`NeedsCertRotation`
 * with `message`. True when the pass ends here, also when the check itself failed (logged).
 */
async function certsDue(p: Pick<CSVStepPorts, 'client' | 'events' | 'now'>, state: CSVState, message: string, now: string, signal: AbortSignal): Promise<boolean> {
  try {
    if (!(await shouldRotateCerts(p.client, state.out, signal, p.now()))) return false;
    setPhaseWithEvent(state.out, CSVPhasePending, CSVReasons.NeedsCertRotation, message, now, p.events);
  } catch (err) {
    state.log.info('cert validity check', { err: errorMessage(err) });
  }
  return true;
}

export function phaseSucceeded(p: CSVStepPorts): CSVStep {
  return onPhase(CSVPhaseSucceeded, 'phaseSucceeded', async (state, signal) => {
    const { out, log } = state;
    const now = nowText(p);
    const replacement = isBeingReplaced(out, inNamespace(p, out));
    if (replacement) {
      log.info('newer csv replacing this one', { replacement: replacement.metadata.name });
      setPhaseWithEvent(out, CSVPhaseReplacing, CSVReasons.BeingReplaced, `being replaced by csv: ${replacement.metadata.name ?? ''}`, now, p.events);
      p.metrics?.upgrade();
      return {};
    }
    if (!strategyUsable(p, out)) return {};
    if (await certsDue(p, state, 'CSV owns resources that require a cert refresh', now, signal)) return {};
    let result;
    try {
      result = await requirementAndPermissionStatus(p.requirements, out);
    } catch (err) {
      setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.InvalidStrategy, `install strategy invalid: ${errorMessage(err)}`, now, p.events);
      return {};
    }
    if (!result.met) {
      (out.status ??= {}).requirementStatus = result.statuses;
      setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.RequirementsNotMet, 'requirements no longer met', now, p.events);
      return {};
    }
    const specs = await specsAsInstalled(p, state, signal);
    if (!specs) return {};
    const installErr = await updateInstallStatus(p, state, CSVPhaseFailed, CSVReasons.ComponentUnhealthy, specs, signal);
    if (installErr) {
      log.warn('unhealthy component', { err: installErr.message });
      return {};
    }
    try {
      await ensureClusterRolesForCSV(p, out, signal);
    } catch (err) {
      log.info("couldn't ensure clusterroles for provided api types", { err });
      return { err };
    }
    return {};
  });
}

const GROUP_FAILURES = new Set<string>([CSVReasons.NoTargetNamespaces, CSVReasons.NoOperatorGroup, CSVReasons.TooManyOperatorGroups, CSVReasons.UnsupportedOperatorGroup]);

/** The first wait before a CSV whose install failed is tried again, and the longest. */
export const INSTALL_RETRY_BASE_MS = 1_000;
export const INSTALL_RETRY_MAX_MS = 5 * 60_000;

/**
 * How long a CSV that is Failed/InstallComponentFailed stays so before it is tried again: 1 s after its first failed
 * install, doubling with each failed install its condition history (the newest 20 phase changes) holds since it last
 * succeeded, up to 5 minutes. Upstream goes on at once, and a component the API server refuses for good (an invalid
 * spec, a quota, a webhook) then cycles Failed → Pending → InstallReady → Failed several times a second; the history
 * is in status, so the backoff outlives a restart.
 */
export function installRetryInMs(csv: ClusterServiceVersion, now: Date): number {
  const s = csv.status;
  if (s?.phase !== CSVPhaseFailed || s.reason !== CSVReasons.ComponentFailed || !s.lastTransitionTime) return 0;
  let failures = 0;
  for (const c of [...(s.conditions ?? [])].reverse()) {
    if (c.phase === CSVPhaseSucceeded) break;
    if (c.phase === CSVPhaseFailed && c.reason === CSVReasons.ComponentFailed) failures++;
  }
  const backoff = Math.min(INSTALL_RETRY_BASE_MS * 2 ** Math.max(0, failures - 1), INSTALL_RETRY_MAX_MS);
  return Math.max(0, Date.parse(s.lastTransitionTime) + backoff - now.getTime());
}

export function phaseFailed(p: CSVStepPorts): CSVStep {
  return onPhase(CSVPhaseFailed, 'phaseFailed', async (state, signal) => {
    const { out } = state;
    const now = nowText(p);
    if (upgradeStrategy(state.operatorGroup!) === UpgradeStrategyUnsafeFailForward) {
      const replacement = isBeingReplaced(out, inNamespace(p, out));
      if (replacement) {
        const msg = `Fail Forward is enabled, allowing ${out.status?.phase ?? ''} csv to be replaced by csv: ${replacement.metadata.name ?? ''}`;
        setPhaseWithEvent(out, CSVPhaseReplacing, CSVReasons.BeingReplaced, msg, now, p.events);
        p.metrics?.upgrade();
        return {};
      }
    }
    const retryIn = installRetryInMs(out, p.now());
    if (retryIn > 0) {
      // The API server refused a component: the CSV stays Failed with its message until the backoff has passed.
      state.requeueAfterMs = retryIn;
      return {};
    }
    if (!strategyUsable(p, out)) return {};
    const reason = out.status?.reason ?? '';
    if (GROUP_FAILURES.has(reason)) {
      setPhaseWithEvent(out, CSVPhasePending, CSVReasons.RequirementsUnknown, 'InstallModes now support target namespaces', now, p.events);
      return {};
    }
    if (reason === CSVReasons.InterOperatorGroupOwnerConflict) {
      setPhaseWithEvent(out, CSVPhasePending, CSVReasons.RequirementsUnknown, 'OperatorGroup no longer intersecting with conflicting owner', now, p.events);
      return {};
    }
    if (reason === CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs) {
      setPhaseWithEvent(out, CSVPhasePending, CSVReasons.RequirementsUnknown, 'static OperatorGroup and intersecting groups now support providedAPIs', now, p.events);
      return {};
    }
    let met = false;
    let statuses: NonNullable<ClusterServiceVersion['status']>['requirementStatus'];
    try {
      ({ met, statuses } = await requirementAndPermissionStatus(p.requirements, out));
    } catch (err) {
      if (reason !== CSVReasons.InvalidStrategy) {
        setPhaseWithEvent(out, CSVPhaseFailed, CSVReasons.InvalidStrategy, `install strategy invalid: ${errorMessage(err)}`, now, p.events);
        return {};
      }
    }
    if (!met) {
      const status = (out.status ??= {});
      if (statuses) status.requirementStatus = statuses;
      else delete status.requirementStatus;
      setPhaseWithEvent(out, CSVPhasePending, CSVReasons.RequirementsNotMet, 'requirements not met', now, p.events);
      return {};
    }
    if (await certsDue(p, state, 'owned APIServices need cert refresh', now, signal)) return {};
    const specs = await specsAsInstalled(p, state, signal);
    if (!specs) return {};
    const installErr = await updateInstallStatus(p, state, CSVPhasePending, CSVReasons.NeedsReinstall, specs, signal);
    if (installErr) state.log.warn('needs reinstall', { err: installErr.message });
    return {};
  });
}

export function phaseReplacing(p: CSVStepPorts): CSVStep {
  return onPhase(CSVPhaseReplacing, 'phaseReplacing', async (state, signal) => {
    const { out, log } = state;
    if (await replacing(p, out, signal)) {
      log.debug('being replaced, but is not a leaf. skipping gc');
      return {};
    }
    const csvs = inNamespace(p, out);
    let next = isBeingReplaced(out, csvs);
    if (next && upgradeStrategy(state.operatorGroup!) === UpgradeStrategyUnsafeFailForward) {
      try {
        next = lastInReplacementChain(next, csvs);
      } catch (err) {
        return { err };
      }
    }
    if (!next) return { err: new Error('marked as replacement, but no replacement CSV found in cluster') };
    if (next.status?.phase === CSVPhaseSucceeded) {
      setPhaseWithEvent(out, CSVPhaseDeleting, CSVReasons.Replaced, 'has been replaced by a newer ClusterServiceVersion that has successfully installed.', nowText(p), p.events);
      return {};
    }
    // An active replacement: both come back.
    p.enqueue(key(next));
    state.requeueAfterMs = WAITING_RECHECK_MS;
    return {};
  });
}

export function phaseDeleting(p: Pick<CSVStepPorts, 'client'>): CSVStep {
  return onPhase(CSVPhaseDeleting, 'phaseDeleting', async ({ out }, signal) => {
    const ref = { apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace: out.metadata.namespace ?? '', name: out.metadata.name ?? '' };
    return ignoreNotFound(p.client.delete(ref, { signal })).then(() => ({}), (err: unknown) => ({ err }));
  });
}

