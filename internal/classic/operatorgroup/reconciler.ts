// The OperatorGroup controller (upstream olm/operatorgroup.go syncOperatorGroups): the MultipleOperatorGroup
// condition, the service account in status, the target namespaces in status, the group annotations on its CSVs,
// the `olm.og.<group>.<admin|edit|view>-<hash>` ClusterRoles aggregating the provided APIs' roles, and the
// `olm.providedAPIs` annotation pruned to what the group's CSVs still provide. A deleted group's ClusterRoles go.
// Namespaces get the `olm.operatorgroup.uid/<uid>` label of the groups that target them (syncNamespace).
import { OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel } from '../../../api/operators/index.ts';
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
  V1,
  V1alpha1,
  type ClusterServiceVersion,
  type OperatorGroup,
  type OperatorGroupStatus,
} from '../../../api/operators/index.ts';
import { formatTime, removeCondition, setCondition, splitKey, type Reconciler } from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX, isNotFound, labelSelectorAsSelector, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { isCopied, type OlmCaches } from '../olmcache/index.ts';
import { aggregationLabel, apiSetString, buildTargetNamespaces, groupSurface, operatorGroupClusterRoleName, providedAPIsOfCSV } from './groups.ts';

const FIELD_MANAGER = 'operator-lifecycle-manager';
export const ROLE_SUFFIXES = ['admin', 'edit', 'view'] as const;

/** The namespaces a group targets (upstream's getOperatorGroupTargets), sorted; `[""]` for all. */
export function targetNamespaces(og: OperatorGroup, namespaces: readonly KubeObject[]): string[] {
  const listed = og.spec?.targetNamespaces ?? [];
  if (listed.length > 0) {
    if (listed.includes('')) throw new Error(`TargetNamespaces cannot contain NamespaceAll: [${listed.join(' ')}]`);
    return [...new Set(listed)].sort();
  }
  const selector = labelSelectorAsSelector(og.spec?.selector);
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

export interface OperatorGroupReconcilerOptions {
  readonly client: KubeClient;
  readonly caches: OlmCaches;
  readonly logger: Logger;
  readonly now?: () => Date;
}

const ownerLabels = (og: { metadata: { name?: string; namespace?: string } }): Record<string, string> => ({
  [OwnerLabel]: og.metadata.name ?? '',
  [OwnerNamespaceLabel]: og.metadata.namespace ?? '',
  [OwnerKindLabel]: OperatorGroupKind,
});

export function operatorGroupReconciler(o: OperatorGroupReconcilerOptions): Reconciler {
  const { client, caches, logger } = o;
  const now = (): Date => (o.now ? o.now() : new Date());

  const writeStatus = async (og: OperatorGroup, status: OperatorGroupStatus, signal: AbortSignal): Promise<OperatorGroup> => {
    const body = { ...og, apiVersion: V1, kind: OperatorGroupKind, status: { ...status, lastUpdated: status.lastUpdated ?? formatTime(now()) } };
    return client.updateStatus<OperatorGroup>(body, { signal });
  };

  const ownedClusterRoles = (namespace: string, name: string): KubeObject[] =>
    caches.clusterRoles.list().filter((cr) => {
      const l = cr.metadata.labels ?? {};
      return l[OwnerKindLabel] === OperatorGroupKind && l[OwnerLabel] === name && l[OwnerNamespaceLabel] === namespace;
    });

  /** Multiple groups in one namespace: every one says so; a lone group loses the condition. */
  const syncMultiple = async (og: OperatorGroup, signal: AbortSignal): Promise<OperatorGroup> => {
    const groups = caches.operatorGroups.byIndex(NAMESPACE_INDEX, og.metadata.namespace ?? '');
    let self = og;
    if (groups.length === 1) {
      const conditions = [...(og.status?.conditions ?? [])];
      if (removeCondition(conditions, MultipleOperatorGroupCondition)) {
        self = await writeStatus(og, { ...(og.status ?? { lastUpdated: formatTime(now()) }), conditions }, signal);
      }
    } else if (groups.length > 1) {
      for (const g of groups) {
        if ((g.status?.conditions ?? []).some((c) => c.type === MultipleOperatorGroupCondition)) continue;
        const conditions: Condition[] = [...(g.status?.conditions ?? [])];
        setCondition(conditions, { type: MultipleOperatorGroupCondition, status: 'True', reason: MultipleOperatorGroupsReason, message: 'Multiple OperatorGroup found in the same namespace' }, now());
        try {
          const written = await writeStatus(g, { ...(g.status ?? { lastUpdated: formatTime(now()) }), conditions }, signal);
          if (g.metadata.name === og.metadata.name) self = written;
        } catch (err) {
          logger.warn('could not set the MultipleOperatorGroup condition', { operatorGroup: `${g.metadata.namespace}/${g.metadata.name}`, err });
        }
      }
    }
    return self;
  };

  /** `spec.serviceAccountName` → `status.serviceAccountRef` (upstream's UserDefinedServiceAccountSyncer). */
  const syncServiceAccount = async (og: OperatorGroup, signal: AbortSignal): Promise<OperatorGroup> => {
    const namespace = og.metadata.namespace ?? '';
    const saName = og.spec?.serviceAccountName ?? '';
    const status: OperatorGroupStatus = structuredClone(og.status ?? { lastUpdated: formatTime(now()) });
    const conditions = (status.conditions ??= []);
    if (saName === '') {
      if (!og.status?.serviceAccountRef) return og;
      removeCondition(conditions, OperatorGroupServiceAccountCondition);
      delete status.serviceAccountRef;
      return writeStatus(og, { ...status, lastUpdated: formatTime(now()) }, signal);
    }
    const sa = caches.serviceAccounts.get(`${namespace}/${saName}`);
    if (!sa) {
      setCondition(conditions, { type: OperatorGroupServiceAccountCondition, status: 'True', reason: OperatorGroupServiceAccountReason, message: `ServiceAccount ${saName} not found` }, now());
      if (!isDeepStrictEqual(conditions, og.status?.conditions ?? [])) {
        try {
          await writeStatus(og, status, signal);
        } catch (err) {
          logger.warn('could not set the service account condition', { err });
        }
      }
      throw new Error(`failed to get service account, sa=${saName} serviceaccounts "${saName}" not found`);
    }
    if (sa.metadata.labels?.['olm.managed'] !== 'true') {
      await client.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: saName, namespace, labels: { 'olm.managed': 'true' } } }, { fieldManager: FIELD_MANAGER, signal });
    }
    const ref = { kind: 'ServiceAccount', namespace, name: saName, uid: sa.metadata.uid ?? '', apiVersion: 'v1', resourceVersion: sa.metadata.resourceVersion ?? '' };
    if (isDeepStrictEqual(og.status?.serviceAccountRef, ref)) return og;
    removeCondition(conditions, OperatorGroupServiceAccountCondition);
    const written = await writeStatus(og, { ...status, serviceAccountRef: ref, lastUpdated: formatTime(now()) }, signal);
    // A CSV that failed without retry may now install with the group's service account.
    for (const csv of caches.csvs.list()) {
      if (csv.metadata.annotations?.[OperatorGroupAnnotationKey] !== og.metadata.name) continue;
      if (csv.status?.reason !== CSVReasons.ComponentFailedNoRetry) continue;
      const at = formatTime(now());
      const s = structuredClone(csv.status);
      s.lastUpdateTime = at;
      if (s.phase !== CSVPhasePending) {
        s.phase = CSVPhasePending;
        s.lastTransitionTime = at;
      }
      s.reason = CSVReasons.DetectedClusterChange;
      s.message = 'Cluster resources changed state';
      (s.conditions ??= []).push({ phase: CSVPhasePending, reason: CSVReasons.DetectedClusterChange, message: s.message, lastUpdateTime: at, lastTransitionTime: s.lastTransitionTime ?? at });
      await client.updateStatus({ ...csv, apiVersion: V1alpha1, kind: ClusterServiceVersionKind, status: s }, { signal });
    }
    return written;
  };

  const ensureClusterRoles = async (og: OperatorGroup, apis: ReadonlySet<string>, signal: AbortSignal): Promise<void> => {
    const selectors = [...new Set([...apis].map((api) => api))].sort();
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

  return {
    async reconcile(key, signal) {
      const { namespace = '', name } = splitKey(key);
      const cached = caches.operatorGroups.get(key);
      if (!cached) {
        // Deleted (or only its ClusterRoles are left): they go with it.
        for (const cr of ownedClusterRoles(namespace, name)) {
          try {
            await client.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: cr.metadata.name ?? '' }, { signal });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        return;
      }
      let og = await syncMultiple(cached, signal);
      og = await syncServiceAccount(og, signal);

      const targets = targetNamespaces(og, caches.namespaces.list());
      if (!sameSet(targets, og.status?.namespaces ?? [])) {
        const status: OperatorGroupStatus = { ...(og.status ?? { lastUpdated: formatTime(now()) }), lastUpdated: formatTime(now()) };
        if (targets.length > 0) status.namespaces = targets;
        else delete status.namespaces; // Go's omitempty
        await writeStatus(og, status, signal);
        // The status update brings the group back for its CSVs.
        return;
      }

      for (const csv of caches.csvs.byIndex(NAMESPACE_INDEX, namespace)) {
        if (isCopied(csv) || !groupAnnotationsDiffer(csv, og)) continue;
        try {
          await client.patch(
            { apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace, name: csv.metadata.name ?? '' },
            'merge',
            { metadata: { annotations: groupAnnotations(og), resourceVersion: csv.metadata.resourceVersion } },
            { signal },
          );
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }

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

      // Prune olm.providedAPIs down to what the CSVs still provide (not for static groups; not while a CSV that
      // provides something new is still on its way in).
      if (og.spec?.staticProvidedAPIs) return;
      const intersection = new Set<string>();
      for (const [api, csv] of fromCSVs) {
        if (surface.providedAPIs.has(api)) intersection.add(api);
        else if (!csv.metadata.deletionTimestamp && (!csv.status?.phase || csv.status.phase === CSVPhasePending)) return;
      }
      if (intersection.size < surface.providedAPIs.size) {
        await client.patch(
          { apiVersion: V1, kind: OperatorGroupKind, namespace, name },
          'merge',
          { metadata: { annotations: { [OperatorGroupProvidedAPIsAnnotationKey]: apiSetString(intersection) }, resourceVersion: og.metadata.resourceVersion } },
          { signal },
        );
      }
    },
  };
}

/** Namespace name → the `olm.operatorgroup.uid/<uid>` labels of the groups that target it (not all-namespace ones). */
export function namespaceLabelReconciler(o: OperatorGroupReconcilerOptions): Reconciler {
  return {
    async reconcile(name, signal) {
      const ns = o.caches.namespaces.get(name);
      if (!ns) return;
      const desired: Record<string, string> = {};
      for (const og of o.caches.operatorGroups.list()) {
        const targets = og.status?.namespaces ?? [];
        const all = targets.length === 1 && targets[0] === '';
        if (!all && targets.includes(name) && og.metadata.uid) desired[`${OperatorGroupLabelPrefix}${og.metadata.uid}`] = '';
      }
      const labels = ns.metadata.labels ?? {};
      const patch: Record<string, string | null> = {};
      for (const k of Object.keys(labels)) if (k.startsWith(OperatorGroupLabelPrefix) && !(k in desired)) patch[k] = null;
      for (const [k, v] of Object.entries(desired)) if (labels[k] !== v) patch[k] = v;
      if (Object.keys(patch).length === 0) return;
      await o.client.patch({ apiVersion: 'v1', kind: 'Namespace', name }, 'merge', { metadata: { labels: patch, resourceVersion: ns.metadata.resourceVersion } }, { signal });
    },
  };
}
