// A CSV in its OperatorGroup's target namespaces (upstream olm/operatorgroup.go ensureCSVsInNamespaces,
// copyToNamespace, ensureTenantRBAC, ensureSingletonRBAC; operator.go syncCopyCSV, removeDanglingChildCSVs):
// copies labelled `olm.copiedFrom=<namespace>` with status `reason: Copied`, the operator's Roles and RoleBindings
// copied where it lacks permissions, Roles lifted to ClusterRoles for a group targeting every namespace, and copies
// whose parent no longer targets their namespace deleted.
import { CopiedFromLabel } from '../../../api/operators/index.ts';
import type { Condition, KubeObject } from '../../../api/meta/v1.ts';
import { realClock, routine, setCondition } from '../../shared/controller/index.ts';
import {
  CSVPhaseFailed,
  CSVReasons,
  ClusterServiceVersionKind,
  OperatorGroupAnnotationKey,
  OperatorGroupNamespaceAnnotationKey,
  OperatorGroupTargetsAnnotationKey,
  V1alpha1,
  type ClusterServiceVersion,
  type OperatorGroup,
} from '../../../api/operators/index.ts';
import { NAMESPACE_INDEX, ignoreNotFound, isAlreadyExists, isOwnedBy, type EventRecorder, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { COPY_SPEC_HASH, COPY_STATUS_HASH, copyableCSVHash, isCopiedObject, type OlmCaches } from '../olmcache/index.ts';
import { buildTargetNamespaces, isAllNamespaces, namespaceSetContains, namespaceSetFromString } from '../operatorgroup/index.ts';
import { csvOwnerLabels, csvOwnerReference, ownedByCSVLabels } from './install.ts';
import { permissionStatus, type RequirementSource } from './requirements.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';
const NAMESPACES_VIEW = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] };
/** The reason and Event of a CSV whose copies are disabled (upstream's DisabledCopiedCSVsConditionType). */
export const DISABLED_COPIED_CSVS = 'DisabledCopiedCSVs';

export interface CopyPorts {
  readonly client: KubeClient;
  readonly caches: OlmCaches;
  readonly requirements: RequirementSource;
  readonly logger: Logger;
  readonly events?: EventRecorder;
  /** Namespaces that keep copies even when copied CSVs are disabled (upstream's --protectedCopiedCSVNamespaces). */
  readonly protectedNamespaces?: readonly string[];
  /** Wall time of the OLMConfig's conditions; default the toolkit's realClock. */
  readonly now?: () => Date;
  /** Reconcile a copied CSV (to check whether it still belongs). */
  enqueueCopied(key: string): void;
}

/**
 * The CSV's OperatorGroup when the CSV is an active member of it (upstream's operatorGroupFromAnnotations): the group
 * named in its annotations, in its own namespace, whose targets equal the CSV's `olm.targetNamespaces`.
 */
export function operatorGroupFromAnnotations(caches: OlmCaches, csv: ClusterServiceVersion): OperatorGroup | undefined {
  const a = csv.metadata.annotations;
  if (!a || a[OperatorGroupNamespaceAnnotationKey] !== csv.metadata.namespace) return undefined;
  const name = a[OperatorGroupAnnotationKey];
  if (name === undefined) return undefined;
  const og = caches.operatorGroups.get(`${csv.metadata.namespace ?? ''}/${name}`);
  if (!og) return undefined;
  const targets = a[OperatorGroupTargetsAnnotationKey];
  if (targets === undefined || targets !== buildTargetNamespaces(og)) return undefined;
  return og;
}

/** The copy of `csv` as upstream's csvCopyPrototype makes it (without namespace). */
export function copyPrototype(csv: ClusterServiceVersion): ClusterServiceVersion {
  const annotations = Object.fromEntries(
    Object.entries(csv.metadata.annotations ?? {}).filter(([k]) => k !== OperatorGroupTargetsAnnotationKey && k !== 'kubectl.kubernetes.io/last-applied-configuration'),
  );
  const labels = Object.fromEntries(Object.entries(csv.metadata.labels ?? {}).filter(([k]) => !k.startsWith('operators.coreos.com/')));
  labels[CopiedFromLabel] = csv.metadata.namespace ?? '';
  const status = structuredClone(csv.status ?? {});
  status.reason = CSVReasons.Copied;
  status.message = `The operator is running in ${csv.metadata.namespace ?? ''} but is managing this namespace`;
  return { apiVersion: V1alpha1, kind: ClusterServiceVersionKind, metadata: { name: csv.metadata.name ?? '', annotations, labels }, spec: structuredClone(csv.spec), status };
}

/** Creates or brings up to date the copy in `namespace`; resolves its name, namespace and uid. */
async function copyToNamespace(
  p: CopyPorts,
  prototype: ClusterServiceVersion,
  hashes: { spec: string; status: string },
  namespace: string,
  signal: AbortSignal,
): Promise<ClusterServiceVersion> {
  const existing = p.caches.copiedCSVs.get(`${namespace}/${prototype.metadata.name ?? ''}`);
  const body = { ...prototype, metadata: { ...prototype.metadata, namespace } };
  // the original's status in upstream's shape (Go writes `cleanup: {}` always; phase.ts withStatusCleanup)
  const copiedStatus = { cleanup: {}, ...prototype.status };
  if (!existing) {
    const created = await p.client.create<ClusterServiceVersion>(body, { signal });
    await p.client.updateStatus({ ...created, apiVersion: V1alpha1, kind: ClusterServiceVersionKind, status: copiedStatus }, { signal });
    return created;
  }
  let resourceVersion = existing.metadata.resourceVersion;
  let current: ClusterServiceVersion = existing;
  if (existing.metadata.annotations?.[COPY_SPEC_HASH] !== hashes.spec) {
    current = await p.client.update<ClusterServiceVersion>({ ...body, metadata: { ...body.metadata, resourceVersion } }, { signal });
    resourceVersion = current.metadata.resourceVersion;
  }
  if (existing.metadata.annotations?.[COPY_STATUS_HASH] !== hashes.status) {
    await p.client.updateStatus({ ...body, metadata: { ...body.metadata, uid: current.metadata.uid, resourceVersion }, status: copiedStatus }, { signal });
  }
  return current;
}

/** The operator's Roles and RoleBindings copied into a target namespace, owned by the copy there. */
async function ensureTenantRBAC(p: CopyPorts, operatorNamespace: string, targetNamespace: string, csv: ClusterServiceVersion, target: ClusterServiceVersion, signal: AbortSignal): Promise<void> {
  if (operatorNamespace === targetNamespace) return;
  const ownedRoles = p.caches.roles.byIndex(NAMESPACE_INDEX, operatorNamespace).filter((r) => ownedByCSVLabels(r, csv));
  if (ownedRoles.length === 0) throw new Error('owned roles not found in cache');
  const targetCSV = { ...target, metadata: { ...target.metadata, namespace: targetNamespace } } as ClusterServiceVersion;
  const targetRoles = new Map(p.caches.roles.byIndex(NAMESPACE_INDEX, targetNamespace).filter((r) => ownedByCSVLabels(r, targetCSV)).map((r) => [r.metadata.name ?? '', r]));
  const copyMeta = (o: KubeObject): KubeObject['metadata'] => ({
    name: o.metadata.name ?? '',
    namespace: targetNamespace,
    labels: { ...(o.metadata.labels ?? {}), ...csvOwnerLabels(targetCSV), [CopiedFromLabel]: operatorNamespace, 'olm.managed': 'true' },
    ...(o.metadata.annotations && { annotations: o.metadata.annotations }),
    ownerReferences: [csvOwnerReference(targetCSV)],
  });
  for (const role of ownedRoles) {
    if (!isOwnedBy(role, csv)) continue;
    const existing = targetRoles.get(role.metadata.name ?? '');
    if (existing) {
      await p.client.update({ ...existing, apiVersion: RBAC, kind: 'Role', rules: role.rules ?? [] }, { signal });
      continue;
    }
    await p.client.create({ apiVersion: RBAC, kind: 'Role', metadata: copyMeta(role), rules: role.rules ?? [] }, { signal });
  }
  const ownedBindings = p.caches.roleBindings.byIndex(NAMESPACE_INDEX, operatorNamespace).filter((b) => ownedByCSVLabels(b, csv));
  const targetBindings = new Set(p.caches.roleBindings.byIndex(NAMESPACE_INDEX, targetNamespace).filter((b) => ownedByCSVLabels(b, targetCSV)).map((b) => b.metadata.name ?? ''));
  for (const b of ownedBindings) {
    if (!isOwnedBy(b, csv) || targetBindings.has(b.metadata.name ?? '')) continue;
    await p.client.create({ apiVersion: RBAC, kind: 'RoleBinding', metadata: copyMeta(b), subjects: b.subjects ?? [], roleRef: b.roleRef }, { signal });
  }
}

/**
 * Creates a lifted ClusterRole or ClusterRoleBinding; one that already exists counts as made. The cache is what
 * upstream's lister is, and like it skips an existing object without comparing it; a create answered AlreadyExists
 * only means the cache has not seen it yet (an earlier pass made it a moment ago), which is no error to log or retry.
 */
async function createUnlessExists(p: CopyPorts, obj: KubeObject, signal: AbortSignal): Promise<void> {
  try {
    await p.client.create(obj, { signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    p.logger.debug('lifted RBAC already exists', { kind: obj.kind, name: obj.metadata.name });
  }
}

/** Roles and RoleBindings of the operator lifted to ClusterRoles and ClusterRoleBindings (a group of every namespace). */
async function ensureSingletonRBAC(p: CopyPorts, operatorNamespace: string, csv: ClusterServiceVersion, signal: AbortSignal): Promise<void> {
  const roles = p.caches.roles.byIndex(NAMESPACE_INDEX, operatorNamespace).filter((r) => ownedByCSVLabels(r, csv));
  // Routine: the operator's Roles and RoleBindings are created by its InstallPlan and reach the cache a moment later.
  if (roles.length === 0) throw routine(new Error('no owned roles found'), 'OwnedRolesNotCachedYet');
  for (const r of roles) {
    if (p.caches.clusterRoles.get(r.metadata.name ?? '')) continue;
    await createUnlessExists(
      p,
      { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: r.metadata.name ?? '', ...(r.metadata.labels && { labels: r.metadata.labels }) }, rules: [...(r.rules ?? []), NAMESPACES_VIEW] },
      signal,
    );
  }
  const bindings = p.caches.roleBindings.byIndex(NAMESPACE_INDEX, operatorNamespace).filter((b) => ownedByCSVLabels(b, csv));
  if (bindings.length === 0) throw routine(new Error('no owned rolebindings found'), 'OwnedRoleBindingsNotCachedYet');
  for (const b of bindings) {
    if (p.caches.clusterRoleBindings.get(b.metadata.name ?? '')) continue;
    await createUnlessExists(
      p,
      {
        apiVersion: RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: b.metadata.name ?? '', ...(b.metadata.labels && { labels: b.metadata.labels }) },
        subjects: b.subjects ?? [],
        roleRef: { apiGroup: b.roleRef?.apiGroup ?? 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: b.roleRef?.name ?? '' },
      },
      signal,
    );
  }
}

/**
 * upstream's ensureRBACInTargetNamespace, run after each CSV sync: for a group of every namespace, the operator's
 * permissions must hold cluster-wide, else its Roles are lifted to ClusterRoles.
 */
export async function ensureRBACInTargetNamespace(p: CopyPorts, csv: ClusterServiceVersion, og: OperatorGroup, signal: AbortSignal): Promise<void> {
  const targets = og.status?.namespaces;
  if (!targets || !(targets.length === 1 && targets[0] === '')) return;
  if (csv.spec.install?.strategy !== 'deployment') throw new Error('unrecognized install strategy');
  const spec = csv.spec.install.spec;
  const { met } = permissionStatus(p.requirements, csv, '', [], [...(spec?.clusterPermissions ?? []), ...(spec?.permissions ?? [])]);
  if (met) return;
  await ensureSingletonRBAC(p, og.metadata.namespace ?? '', csv, signal);
}

async function ensureCSVsInNamespaces(p: CopyPorts, csv: ClusterServiceVersion, og: OperatorGroup, targets: ReadonlySet<string>, signal: AbortSignal): Promise<void> {
  const prototype = copyPrototype(csv);
  const hashes = copyableCSVHash(prototype);
  const copies = new Map<string, ClusterServiceVersion>();
  for (const ns of p.caches.namespaces.list()) {
    const name = ns.metadata.name ?? '';
    if (name === og.metadata.namespace) continue;
    if (namespaceSetContains(targets, name)) {
      try {
        copies.set(name, await copyToNamespace(p, prototype, hashes, name, signal));
      } catch (err) {
        p.logger.debug('error copying to target', { namespace: name, err });
      }
    } else {
      for (const copy of p.caches.copiedCSVs.byIndex(NAMESPACE_INDEX, name)) {
        if (isCopiedObject(copy) && copy.metadata.annotations?.[OperatorGroupAnnotationKey] === og.metadata.name) p.enqueueCopied(`${name}/${copy.metadata.name ?? ''}`);
      }
    }
  }
  const namespaces = og.status?.namespaces;
  if (!namespaces || (namespaces.length === 1 && namespaces[0] === '')) return;
  const spec = csv.spec.install?.spec;
  for (const ns of namespaces) {
    const { met } = permissionStatus(p.requirements, csv, ns, spec?.permissions ?? [], spec?.clusterPermissions ?? []);
    if (met) continue;
    const target = copies.get(ns);
    if (!target) throw new Error(`bug: no target CSV for namespace ${ns}`);
    await ensureTenantRBAC(p, og.metadata.namespace ?? '', ns, csv, target, signal);
  }
}

/** The OLMConfig `name`, undefined when there is none. */
const getOLMConfig = (client: KubeClient, name: string, signal: AbortSignal): Promise<OLMConfig | undefined> =>
  ignoreNotFound(client.get<OLMConfig>({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', name }, { signal }));
/** Copied CSVs are on unless the OLMConfig turns them off (no OLMConfig: on). */
const copiesEnabled = (cfg: OLMConfig | undefined): boolean => cfg?.spec?.features?.disableCopiedCSVs !== true;

/** upstream's syncCopyCSV for the CSV `key` (not a copy). */
export async function syncCopy(p: CopyPorts, key: string, signal: AbortSignal): Promise<void> {
  const csv = p.caches.csvs.get(key);
  if (!csv) return;
  const og = operatorGroupFromAnnotations(p.caches, csv);
  // Routine: the OperatorGroup controller annotates the CSV (or the group is gone with its namespace).
  if (!og) throw routine(new Error(`operatorGroup for csv '${csv.metadata.name ?? ''}' should have annotations`), 'NoOperatorGroupAnnotations');
  const targets = new Set(og.status?.namespaces ?? []);
  const enabled = copiesEnabled(await getOLMConfig(p.client, 'cluster', signal));
  if (enabled || !isAllNamespaces(targets)) {
    await ensureCSVsInNamespaces(p, csv, og, targets, signal);
    return;
  }
  // Copies disabled for a group of every namespace: only protected namespaces keep one.
  const isProtected = new Set((p.protectedNamespaces ?? []).filter((n) => n !== csv.metadata.namespace));
  await ensureCSVsInNamespaces(p, csv, og, isProtected, signal);
  for (const copy of p.caches.copiedCSVs.list()) {
    if (copy.metadata.labels?.[CopiedFromLabel] !== csv.metadata.namespace || copy.metadata.name !== csv.metadata.name) continue;
    if (isProtected.has(copy.metadata.namespace ?? '')) continue;
    await ignoreNotFound(p.client.delete({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace: copy.metadata.namespace ?? '', name: copy.metadata.name ?? '' }, { signal }));
  }
  p.events?.warning({ ...csv, apiVersion: V1alpha1, kind: ClusterServiceVersionKind }, DISABLED_COPIED_CSVS, `CSV copying disabled for ${csv.metadata.namespace ?? ''}/${csv.metadata.name ?? ''}`);
}

/** upstream's removeDanglingChildCSVs for the copy `key`; resolves the parent's key when the copy stays. */
export async function syncCopied(p: CopyPorts, key: string, signal: AbortSignal): Promise<string | undefined> {
  const copy = p.caches.copiedCSVs.get(key);
  if (!copy || !isCopiedObject(copy)) return undefined;
  const namespace = copy.metadata.namespace ?? '';
  const name = copy.metadata.name ?? '';
  const remove = async (why: string): Promise<undefined> => {
    p.logger.debug(why, { copiedCSV: key });
    await ignoreNotFound(p.client.delete({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace, name }, { signal }));
    return undefined;
  };
  const operatorNamespace = copy.metadata.annotations?.[OperatorGroupNamespaceAnnotationKey];
  if (operatorNamespace === undefined) return remove('missing operator namespace annotation on copied CSV');
  const parent = p.caches.csvs.get(`${operatorNamespace}/${name}`);
  if (!parent) return remove('deleting copied CSV since parent is missing');
  if (parent.status?.phase === CSVPhaseFailed && parent.status.reason === CSVReasons.InterOperatorGroupOwnerConflict) {
    return remove('deleting copied CSV since parent has intersecting operatorgroup conflict');
  }
  if (parent.metadata.annotations && !namespaceSetContains(namespaceSetFromString(parent.metadata.annotations[OperatorGroupTargetsAnnotationKey] ?? ''), namespace)) {
    return remove('deleting copied CSV since parent no longer lists this as a target namespace');
  }
  if (parent.metadata.namespace === namespace) return remove('deleting copied CSV since it has incorrect parent annotations');
  return `${operatorNamespace}/${name}`;
}

interface OLMConfig extends KubeObject {
  spec?: { features?: { disableCopiedCSVs?: boolean } };
  status?: { conditions?: Condition[] };
}

/**
 * The `DisabledCopiedCSVs` condition of a copied-CSVs setting (upstream's getCopiedCSVsCondition); `requeued` says
 * whether some CSV's copies were not yet as the setting wants.
 */
export function copiedCSVsCondition(enabled: boolean, requeued: boolean): Omit<Condition, 'lastTransitionTime'> {
  if (enabled) {
    return {
      type: DISABLED_COPIED_CSVS,
      status: 'False',
      reason: 'CopiedCSVsEnabled',
      message: requeued ? 'Copied CSVs are enabled and at least one copied CSVs is missing' : 'Copied CSVs are enabled and present across the cluster',
    };
  }
  return requeued
    ? { type: DISABLED_COPIED_CSVS, status: 'False', reason: 'CopiedCSVsDisabled', message: 'Copied CSVs are disabled and at least one unexpected copied CSV was found for an operator installed in AllNamespace mode' }
    : { type: DISABLED_COPIED_CSVS, status: 'True', reason: 'CopiedCSVsDisabled', message: 'Copied CSVs are disabled and no unexpected copied CSVs were found for operators installed in AllNamespace mode' };
}

/**
 * upstream's syncOLMConfig: for every group of every namespace, a CSV whose copies are not where the setting wants
 * them (every other active namespace when enabled, the protected namespaces when disabled) is copied again; the
 * `DisabledCopiedCSVs` condition says how it stands.
 */
export async function syncOLMConfig(p: CopyPorts, name: string, enqueueCopy: (key: string) => void, signal: AbortSignal, now = p.now ? p.now() : realClock.date()): Promise<void> {
  const cfg = await getOLMConfig(p.client, name, signal);
  if (!cfg) return;
  const enabled = copiesEnabled(cfg);
  const active = p.caches.namespaces.list().filter((ns) => (ns['status'] as { phase?: string } | undefined)?.phase === 'Active').length;
  const isProtected = new Set(p.protectedNamespaces ?? []);
  const asWanted = (copiedTo: ReadonlySet<string>): boolean =>
    enabled ? copiedTo.size === active - 1 : copiedTo.size === isProtected.size && [...isProtected].every((ns) => copiedTo.has(ns));
  let requeued = false;
  for (const og of p.caches.operatorGroups.list()) {
    if (!isAllNamespaces(new Set(og.status?.namespaces ?? []))) continue;
    const ogNs = og.metadata.namespace ?? '';
    const copies = p.caches.copiedCSVs.list().filter((c) => c.metadata.labels?.[CopiedFromLabel] === ogNs);
    for (const csv of p.caches.csvs.byIndex(NAMESPACE_INDEX, ogNs)) {
      if (asWanted(new Set(copies.filter((c) => c.metadata.name === csv.metadata.name).map((c) => c.metadata.namespace ?? '')))) continue;
      enqueueCopy(`${ogNs}/${csv.metadata.name ?? ''}`);
      requeued = true;
    }
  }
  const want = copiedCSVsCondition(enabled, requeued);
  const conditions = [...(cfg.status?.conditions ?? [])];
  const have = conditions.find((c) => c.type === want.type);
  if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) return;
  setCondition(conditions, { ...want }, now);
  await p.client.updateStatus({ ...cfg, apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', status: { ...(cfg.status ?? {}), conditions } }, { signal });
}
