// The OperatorGroup controller (upstream olm/operatorgroup.go syncOperatorGroups): the MultipleOperatorGroup
// condition, the service account in status, the target namespaces in status, the group annotations on its CSVs,
// the `olm.og.<group>.<admin|edit|view>-<hash>` ClusterRoles aggregating the provided APIs' roles, and the
// `olm.providedAPIs` annotation pruned to what the group's CSVs still provide. A deleted group's ClusterRoles go.
// Namespaces get the `olm.operatorgroup.uid/<uid>` label of the groups that target them (syncNamespace).
import { isDeepStrictEqual } from 'node:util';
import type { Condition, KubeObject } from '../../../api/meta/v1.ts';
import {
  CSVPhasePending,
  CSVReasons,
  ClusterServiceVersionKind,
  MultipleOperatorGroupCondition,
  MultipleOperatorGroupsReason,
  OperatorGroupAnnotationKey,
  OperatorGroupKind,
  OperatorGroupLabelPrefix,
  OperatorGroupNamespaceAnnotationKey,
  OperatorGroupProvidedAPIsAnnotationKey,
  OperatorGroupServiceAccountCondition,
  OperatorGroupServiceAccountReason,
  OperatorGroupTargetsAnnotationKey,
  OwnerKindLabel,
  OwnerLabel,
  OwnerNamespaceLabel,
  setPhase,
  V1,
  V1alpha1,
  type ClusterServiceVersion,
  type OperatorGroup,
  type OperatorGroupStatus,
} from '../../../api/operators/index.ts';
import {
  ObjectReconciler,
  formatTime,
  realClock,
  removeCondition,
  setCondition,
  splitKey,
  type Clock,
  type Pass,
  type Reconciler,
  type Step,
  type StepOutcome,
} from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX, ignoreNotFound, labelSelectorAsSelector, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { isCopied, type OlmCaches } from '../olmcache/index.ts';
import { aggregationLabel, apiSetString, buildTargetNamespaces, groupSurface, operatorGroupClusterRoleName, providedAPIsOfCSV } from './groups.ts';

const FIELD_MANAGER = 'operator-lifecycle-manager';
export const ROLE_SUFFIXES = ['admin', 'edit', 'view'] as const;

/** The namespaces a group targets (upstream's getOperatorGroupTargets), sorted; `[""]` for all. */
export function targetNamespaces(og: OperatorGroup, namespaces: readonly KubeObject[]): string[] {
  // As upstream, the selector is parsed first: an unparsable one fails the group even when it lists its targets.
  const selector = labelSelectorAsSelector(og.spec?.selector);
  const listed = og.spec?.targetNamespaces ?? [];
  if (listed.length > 0) {
    if (listed.includes('')) throw new Error(`TargetNamespaces cannot contain NamespaceAll: [${listed.join(' ')}]`);
    return [...new Set(listed)].sort();
  }
  if (!og.spec?.selector || selector.empty) return [''];
  return namespaces
    .filter((ns) => selector.matches(ns.metadata.labels))
    .map((ns) => ns.metadata.name ?? '')
    .sort();
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

/** Whether a CSV's group annotations differ from the group's (upstream's operatorGroupAnnotationsDiffer). */
export function groupAnnotationsDiffer(csv: ClusterServiceVersion, og: OperatorGroup): boolean {
  const a = csv.metadata.annotations;
  if (!a) return true;
  return (
    a[OperatorGroupNamespaceAnnotationKey] !== og.metadata.namespace ||
    a[OperatorGroupAnnotationKey] !== og.metadata.name ||
    a[OperatorGroupTargetsAnnotationKey] !== buildTargetNamespaces(og)
  );
}

/** The annotations a member CSV carries (upstream's setOperatorGroupAnnotations with targets). */
export function groupAnnotations(og: OperatorGroup): Record<string, string> {
  return {
    [OperatorGroupNamespaceAnnotationKey]: og.metadata.namespace ?? '',
    [OperatorGroupAnnotationKey]: og.metadata.name ?? '',
    ...(og.status?.namespaces !== undefined && { [OperatorGroupTargetsAnnotationKey]: buildTargetNamespaces(og) }),
  };
}

const ownerLabels = (og: { metadata: { name?: string; namespace?: string } }): Record<string, string> => ({
  [OwnerLabel]: og.metadata.name ?? '',
  [OwnerNamespaceLabel]: og.metadata.namespace ?? '',
  [OwnerKindLabel]: OperatorGroupKind,
});

/** What one pass knows. */
interface GroupPass {
  readonly pass: Pass<OperatorGroup>;
  readonly og: OperatorGroup;
  readonly namespace: string;
}

/**
 * upstream's syncOperatorGroups as named steps on the shared ObjectReconciler: the group's own status is computed on
 * the pass's copy and written once, at the end (before the CSVs it unblocks are reset, when the service account
 * changed); other groups' MultipleOperatorGroup condition, member CSVs, ClusterRoles and the provided-APIs
 * annotation are written by the steps that own them.
 */
export interface OperatorGroupReconcilerOptions {
  readonly client: KubeClient;
  readonly caches: OlmCaches;
  readonly logger: Logger;
  /** The wall time of lastUpdated and conditions; default the toolkit's realClock. */
  readonly clock?: Clock;
}

export function newOperatorGroupReconciler({ client, caches, logger, clock = realClock }: OperatorGroupReconcilerOptions): Reconciler {
  const now = (): Date => clock.date();
  /** The copy's status for a step that changes it: created when missing, and never without lastUpdated. */
  const statusOf = (og: OperatorGroup): OperatorGroupStatus => {
    const status = (og.status ??= { lastUpdated: formatTime(now()) });
    status.lastUpdated ??= formatTime(now());
    return status;
  };

  /** Deleted (or only its ClusterRoles are left): they go with it. */
  const deleteClusterRoles = async (key: string, signal: AbortSignal): Promise<void> => {
    const { namespace = '', name } = splitKey(key);
    const owned = caches.clusterRoles.list().filter((cr) => {
      const l = cr.metadata.labels ?? {};
      return l[OwnerKindLabel] === OperatorGroupKind && l[OwnerLabel] === name && l[OwnerNamespaceLabel] === namespace;
    });
    for (const cr of owned) {
      await ignoreNotFound(client.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: cr.metadata.name ?? '' }, { signal }));
    }
  };

  /** Multiple groups in one namespace: every one says so; a lone group loses the condition. */
  const syncMultiple = async (s: GroupPass, signal: AbortSignal): Promise<undefined> => {
    const { og } = s;
    const groups = caches.operatorGroups.byIndex(NAMESPACE_INDEX, s.namespace);
    if (groups.length === 1) {
      if (og.status?.conditions && removeCondition(og.status.conditions, MultipleOperatorGroupCondition)) statusOf(og);
      return undefined;
    }
    if (groups.length < 2) return undefined;
    const condition = { type: MultipleOperatorGroupCondition, status: 'True', reason: MultipleOperatorGroupsReason, message: 'Multiple OperatorGroup found in the same namespace' } as const;
    for (const g of groups) {
      if ((g.status?.conditions ?? []).some((c) => c.type === MultipleOperatorGroupCondition)) continue;
      if (g.metadata.name === og.metadata.name) {
        setCondition((statusOf(og).conditions ??= []), condition, now());
        continue;
      }
      const conditions: Condition[] = [...(g.status?.conditions ?? [])];
      setCondition(conditions, condition, now());
      const status = { ...(g.status ?? {}), conditions, lastUpdated: g.status?.lastUpdated ?? formatTime(now()) };
      try {
        await client.updateStatus<OperatorGroup>({ ...g, apiVersion: V1, kind: OperatorGroupKind, status }, { signal });
      } catch (err) {
        logger.warn('could not set the MultipleOperatorGroup condition', { operatorGroup: `${g.metadata.namespace}/${g.metadata.name}`, err });
      }
    }
    return undefined;
  };

  /** `spec.serviceAccountName` → `status.serviceAccountRef` (upstream's UserDefinedServiceAccountSyncer). */
  const syncServiceAccount = async (s: GroupPass, signal: AbortSignal): Promise<StepOutcome | undefined> => {
    const { og, namespace } = s;
    const saName = og.spec?.serviceAccountName ?? '';
    if (saName === '') {
      if (!og.status?.serviceAccountRef) return undefined;
      const status = statusOf(og);
      if (status.conditions) removeCondition(status.conditions, OperatorGroupServiceAccountCondition);
      delete status.serviceAccountRef;
      status.lastUpdated = formatTime(now());
      return undefined;
    }
    const sa = caches.serviceAccounts.get(`${namespace}/${saName}`);
    if (!sa) {
      setCondition(
        (statusOf(og).conditions ??= []),
        { type: OperatorGroupServiceAccountCondition, status: 'True', reason: OperatorGroupServiceAccountReason, message: `ServiceAccount ${saName} not found` },
        now(),
      );
      return { err: new Error(`failed to get service account, sa=${saName} serviceaccounts "${saName}" not found`) };
    }
    if (sa.metadata.labels?.['olm.managed'] !== 'true') {
      await client.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: saName, namespace, labels: { 'olm.managed': 'true' } } }, { fieldManager: FIELD_MANAGER, signal });
    }
    const ref = { kind: 'ServiceAccount', namespace, name: saName, uid: sa.metadata.uid ?? '', apiVersion: 'v1', resourceVersion: sa.metadata.resourceVersion ?? '' };
    if (isDeepStrictEqual(og.status?.serviceAccountRef, ref)) return undefined;
    const status = statusOf(og);
    if (status.conditions) removeCondition(status.conditions, OperatorGroupServiceAccountCondition);
    status.serviceAccountRef = ref;
    status.lastUpdated = formatTime(now());
    // The group's new service account is stored before the CSVs that may now install with it are reset.
    await s.pass.writeStatus(signal);
    for (const csv of caches.csvs.list()) {
      if (csv.metadata.annotations?.[OperatorGroupAnnotationKey] !== og.metadata.name) continue;
      if (csv.status?.reason !== CSVReasons.ComponentFailedNoRetry) continue;
      const out = structuredClone(csv);
      setPhase(out, CSVPhasePending, CSVReasons.DetectedClusterChange, 'Cluster resources changed state', formatTime(now()));
      await client.updateStatus({ ...out, apiVersion: V1alpha1, kind: ClusterServiceVersionKind }, { signal });
    }
    return undefined;
  };

  /** The target namespaces in status; a change ends the pass (the status update brings the group back for its CSVs). */
  const syncTargets = (s: GroupPass): StepOutcome | undefined => {
    const { og } = s;
    const targets = targetNamespaces(og, caches.namespaces.list());
    if (sameSet(targets, og.status?.namespaces ?? [])) return undefined;
    const status = statusOf(og);
    status.lastUpdated = formatTime(now());
    if (targets.length > 0) status.namespaces = targets;
    else delete status.namespaces; // Go's omitempty
    return {};
  };

  /** The group annotations on its member CSVs. */
  const annotateCSVs = async (s: GroupPass, signal: AbortSignal): Promise<undefined> => {
    const { og, namespace } = s;
    for (const csv of caches.csvs.byIndex(NAMESPACE_INDEX, namespace)) {
      if (isCopied(csv) || !groupAnnotationsDiffer(csv, og)) continue;
      await ignoreNotFound(
        client.patch(
          { apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace, name: csv.metadata.name ?? '' },
          'merge',
          { metadata: { annotations: groupAnnotations(og), resourceVersion: csv.metadata.resourceVersion } },
          { signal },
        ),
      );
    }
    return undefined;
  };

  /**
   * The group's ClusterRoles for every API its CSVs or its annotation provide; then `olm.providedAPIs` pruned down to
   * what the CSVs still provide (not for static groups; not while a CSV that provides something new is on its way in).
   */
  const syncClusterRolesAndAPIs = async (s: GroupPass, signal: AbortSignal): Promise<undefined> => {
    const { og, namespace } = s;
    const surface = groupSurface(og);
    const fromCSVs = new Map<string, ClusterServiceVersion>();
    for (const csv of caches.csvs.byIndex(NAMESPACE_INDEX, namespace)) {
      if (isCopied(csv)) continue;
      try {
        for (const api of providedAPIsOfCSV(csv)) fromCSVs.set(api, csv);
      } catch {
        // A CSV whose CRD names cannot be parsed provides nothing (upstream logs and skips it).
      }
    }
    await ensureClusterRoles(og, new Set([...fromCSVs.keys(), ...surface.providedAPIs]), signal);

    if (og.spec?.staticProvidedAPIs) return undefined;
    const intersection = new Set<string>();
    for (const [api, csv] of fromCSVs) {
      if (surface.providedAPIs.has(api)) intersection.add(api);
      else if (!csv.metadata.deletionTimestamp && (!csv.status?.phase || csv.status.phase === CSVPhasePending)) return undefined;
    }
    if (intersection.size < surface.providedAPIs.size) {
      await client.patch(
        { apiVersion: V1, kind: OperatorGroupKind, namespace, name: og.metadata.name ?? '' },
        'merge',
        { metadata: { annotations: { [OperatorGroupProvidedAPIsAnnotationKey]: apiSetString(intersection) }, resourceVersion: og.metadata.resourceVersion } },
        { signal },
      );
    }
    return undefined;
  };

  const ensureClusterRoles = async (og: OperatorGroup, apis: ReadonlySet<string>, signal: AbortSignal): Promise<void> => {
    const selectors = [...apis].sort();
    for (const suffix of ROLE_SUFFIXES) {
      const name = operatorGroupClusterRoleName(og, suffix);
      const labels = [...new Set(selectors.map((api) => aggregationLabel(api, suffix)))].sort();
      const aggregationRule = labels.length > 0 ? { clusterRoleSelectors: labels.map((l) => ({ matchLabels: { [l]: 'true' } })) } : undefined;
      const existing = caches.clusterRoles.get(name);
      if (existing) {
        const wantLabels = { ...(existing.metadata.labels ?? {}), ...ownerLabels(og) };
        if (isDeepStrictEqual(existing.metadata.labels ?? {}, wantLabels) && isDeepStrictEqual(existing.aggregationRule ?? undefined, aggregationRule)) continue;
        const updated = structuredClone(existing);
        updated.apiVersion = 'rbac.authorization.k8s.io/v1';
        updated.kind = 'ClusterRole';
        updated.metadata.labels = wantLabels;
        if (aggregationRule) updated.aggregationRule = aggregationRule;
        else delete updated.aggregationRule;
        await client.update(updated, { signal });
        continue;
      }
      logger.info('creating cluster role', { clusterRole: name, operatorGroup: `${og.metadata.namespace}/${og.metadata.name}` });
      await client.create(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name, labels: { ...ownerLabels(og), 'olm.managed': 'true' } },
          ...(aggregationRule && { aggregationRule }),
        },
        { signal },
      );
    }
  };

  const steps: Step<GroupPass>[] = [
    { name: 'syncMultiple', run: syncMultiple },
    { name: 'syncServiceAccount', run: syncServiceAccount },
    { name: 'syncTargets', run: async (s) => syncTargets(s) },
    { name: 'annotateCSVs', run: annotateCSVs },
    { name: 'syncClusterRolesAndAPIs', run: syncClusterRolesAndAPIs },
  ];
  return new ObjectReconciler<OperatorGroup, GroupPass>({
    kind: OperatorGroupKind,
    client,
    get: (key) => caches.operatorGroups.get(key),
    steps,
    logger,
    state: (pass) => ({ pass, og: pass.obj, namespace: pass.obj.metadata.namespace ?? '' }),
    forget: deleteClusterRoles,
  });
}

/** Namespace name → the `olm.operatorgroup.uid/<uid>` labels of the groups that target it (not all-namespace ones). */
export interface NamespaceLabelReconcilerOptions {
  readonly client: KubeClient;
  readonly caches: OlmCaches;
}

export function newNamespaceLabelReconciler({ client, caches }: NamespaceLabelReconcilerOptions): Reconciler {
  return {
    async reconcile(name, signal) {
      const ns = caches.namespaces.get(name);
      if (!ns) return;
      const desired: Record<string, string> = {};
      for (const og of caches.operatorGroups.list()) {
        const targets = og.status?.namespaces ?? [];
        const all = targets.length === 1 && targets[0] === '';
        if (!all && targets.includes(name) && og.metadata.uid) desired[`${OperatorGroupLabelPrefix}${og.metadata.uid}`] = '';
      }
      const labels = ns.metadata.labels ?? {};
      const patch: Record<string, string | null> = {};
      for (const k of Object.keys(labels)) if (k.startsWith(OperatorGroupLabelPrefix) && !(k in desired)) patch[k] = null;
      for (const [k, v] of Object.entries(desired)) if (labels[k] !== v) patch[k] = v;
      if (Object.keys(patch).length === 0) return;
      await client.patch({ apiVersion: 'v1', kind: 'Namespace', name }, 'merge', { metadata: { labels: patch, resourceVersion: ns.metadata.resourceVersion } }, { signal });
    },
  };
}
