// `kubectl olm migrate <subscription>`'s plan (issue 33): what the OLM v0→v1 migration of one Subscription writes,
// changes and deletes. Pure: the caller reads the cluster, this module decides. The installed CSV's objects become
// revision 1 of the new ClusterExtension — a ClusterObjectSet annotated migrated-from-subscription, with the bundle
// annotations operator-controller's adoption rule compares, listing exactly the objects the CSV owns today (same
// names, in operator-controller's phases, collision protection None so the runtime adopts them in place); their
// classic ownership (owner references to the CSV, olm.owner labels) is removed so that neither the garbage collector
// nor olm-classic's CSV finalizer deletes them; the ClusterExtension pins the installed version; then the classic
// objects go.
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion, InstallPlan, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import { ClusterServiceVersionKind, CopiedFromLabel, OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel, SubscriptionKind } from '../../../api/operators/index.ts';
import {
  BundleVersionKey,
  ClusterExtensionKind,
  ClusterObjectSetKind,
  GroupVersion,
  ManagedByLabel,
  MigratedFromSubscriptionKey,
  ObjectRevisionAnnotation,
  OwnerKindKey,
  OwnerNameKey,
  PackageNameKey,
  type ClusterExtension,
  type ClusterObjectSet,
} from '../../../api/v1/index.ts';
import { bundleAnnotations, sanitize, sortIntoPhases } from '../../operator-controller/applier/index.ts';
import { DEFAULT_PROGRESSION_PROBES } from '../../operator-controller/objectset/index.ts';
import { objectRef, type ObjectRef } from '../../shared/kube/index.ts';
import type { CatalogBundle } from './migration.ts';

/** The label ClusterCatalogs carry their name in (the extension's catalog selector). */
export const CatalogNameLabel = 'olm.operatorframework.io/metadata.name';
/** Labels the backup Secret: the Subscription it keeps (`<namespace>.<name>` does not fit a label value's rules everywhere, so the name). */
export const BackupLabel = 'olm.operatorframework.io/migration-backup';
export const BackupKey = 'backup.json.gz';

const OWNER_LABELS = [OwnerLabel, OwnerKindLabel, OwnerNamespaceLabel] as const;
/** Annotations another writer keeps (the Deployment controller, kubectl): never part of the revision. */
const FOREIGN_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'deployment.kubernetes.io/revision'];

/** `Kind ns/name` (or `Kind name` when cluster-scoped), for messages. */
export const describeRef = (r: ObjectRef): string => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

/** Whether the CSV owns an object: namespaced by an owner reference, cluster-scoped by OLM's olm.owner labels. */
export function ownedByCSV(o: KubeObject, csv: ClusterServiceVersion): boolean {
  if (o.metadata.namespace) {
    if (o.metadata.namespace !== csv.metadata.namespace) return false;
    return (o.metadata.ownerReferences ?? []).some((r) => r.kind === ClusterServiceVersionKind && (r.uid === csv.metadata.uid || r.name === csv.metadata.name));
  }
  return hasOwnerLabels(o, csv);
}

function hasOwnerLabels(o: KubeObject, csv: ClusterServiceVersion): boolean {
  const l = o.metadata.labels ?? {};
  return l[OwnerLabel] === csv.metadata.name && l[OwnerNamespaceLabel] === csv.metadata.namespace && l[OwnerKindLabel] === ClusterServiceVersionKind;
}

/** The objects the CSV owns among `candidates`, plus the CRDs it owns (by name), sorted by kind, namespace, name. */
export function ownedObjects(csv: ClusterServiceVersion, candidates: readonly KubeObject[], crds: readonly KubeObject[]): KubeObject[] {
  const owned = new Set((csv.spec.customresourcedefinitions?.owned ?? []).map((c) => c.name));
  const out = [...candidates.filter((o) => ownedByCSV(o, csv)), ...crds.filter((c) => owned.has(c.metadata.name ?? ''))];
  const key = (o: KubeObject): string => `${o.kind ?? ''}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  const seen = new Set<string>();
  return out.filter((o) => (seen.has(key(o)) ? false : (seen.add(key(o)), true))).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The InstallPlans that belong to the Subscription: owned by it, or installing its CSV. */
export function subscriptionPlans(sub: Subscription, csvName: string, plans: readonly InstallPlan[]): InstallPlan[] {
  return plans.filter(
    (p) =>
      p.metadata.namespace === sub.metadata.namespace &&
      ((p.metadata.ownerReferences ?? []).some((r) => r.kind === SubscriptionKind && (r.uid === sub.metadata.uid || r.name === sub.metadata.name)) ||
        (p.spec.clusterServiceVersionNames ?? []).includes(csvName)),
  );
}

/** An owned object as revision 1 lists it: its content, without what the API server, OLM classic or other writers keep. */
export function revisionObject(o: KubeObject, extension: string, bundle: { package: string; version: string }): KubeObject {
  const copy = structuredClone(o) as KubeObject & Record<string, unknown>;
  const labels = { ...(copy.metadata.labels ?? {}) };
  for (const k of [...OWNER_LABELS, CopiedFromLabel]) delete labels[k];
  const annotations = { ...(copy.metadata.annotations ?? {}) };
  for (const k of FOREIGN_ANNOTATIONS) delete annotations[k];
  copy.metadata = {
    name: copy.metadata.name,
    ...(copy.metadata.namespace && { namespace: copy.metadata.namespace }),
    ...(Object.keys(labels).length > 0 && { labels }),
    ...(Object.keys(annotations).length > 0 && { annotations }),
  };
  // the token controller's list of a ServiceAccount's Secrets is not content
  if (copy.kind === 'ServiceAccount' && copy.apiVersion === 'v1') delete copy['secrets'];
  // a Service's cluster IPs are the API server's allocation, not content: a revision that names them cannot create the
  // Service (the runtime tries a create first when its cache does not hold it yet, and the taken IP fails validation)
  if (copy.kind === 'Service' && copy.apiVersion === 'v1' && copy['spec'] && typeof copy['spec'] === 'object') {
    const { clusterIP: _ip, clusterIPs: _ips, ...spec } = copy['spec'] as Record<string, unknown>;
    copy['spec'] = spec;
  }
  const s = sanitize(copy, extension);
  s.metadata.annotations = { ...(s.metadata.annotations ?? {}), [BundleVersionKey]: bundle.version, [PackageNameKey]: bundle.package };
  return s;
}

export interface MigrationInput {
  readonly sub: Subscription;
  readonly csv: ClusterServiceVersion;
  /** The CSV's copies in other namespaces (olm.copiedFrom). */
  readonly copies: readonly ClusterServiceVersion[];
  readonly plans: readonly InstallPlan[];
  readonly operatorGroup?: OperatorGroup | undefined;
  /** Whether the OperatorGroup serves nothing else once this operator is gone (no other Subscription or CSV in the namespace). */
  readonly operatorGroupEmptyAfter: boolean;
  /** The objects the CSV owns (ownedObjects). */
  readonly owned: readonly KubeObject[];
  readonly bundle: CatalogBundle;
  readonly installMode?: string | undefined;
  /** The ClusterExtension's name. */
  readonly extension: string;
}

export interface OwnershipChange {
  readonly ref: ObjectRef;
  /** A merge patch: owner references to the CSV removed (namespaced) or OLM's owner labels removed. */
  readonly patch: { metadata: { labels?: Record<string, string | null>; annotations?: Record<string, null>; ownerReferences?: OwnerReference[] } };
  readonly what: string;
}

export interface Deletion {
  readonly ref: ObjectRef;
  /** Orphan: the object's dependents stay (the CSV: what v1 now owns). */
  readonly orphan?: boolean;
}

export interface MigrationPlan {
  /** Everything the migration touches, as it was: the Subscription, CSV and its copies, InstallPlans, OperatorGroup, the owned objects. */
  readonly backup: KubeObject[];
  readonly objectSet: ClusterObjectSet;
  readonly extension: ClusterExtension;
  /** Classic ownership moved before the classic objects are deleted (keeps what olm-classic still reads while the CSV exists). */
  readonly ownership: (o: KubeObject) => OwnershipChange | undefined;
  /** After the CSV is gone: OLM's owner labels left on namespaced objects. */
  readonly leftoverLabels: (o: KubeObject) => OwnershipChange | undefined;
  /** In order: Subscription, InstallPlans, CSV (orphan), its copies, the OperatorGroup when it serves nothing else. */
  readonly deletions: Deletion[];
}

const withKind = <T extends KubeObject>(o: T, apiVersion: string, kind: string): T => ({ ...o, apiVersion: o.apiVersion ?? apiVersion, kind: o.kind ?? kind });

/** The objects' classic ownership to remove now: a namespaced object's owner references to the CSV, a cluster-scoped one's olm.owner labels. */
export function ownershipChange(o: KubeObject, csv: ClusterServiceVersion, phase: 'now' | 'after'): OwnershipChange | undefined {
  const ref = objectRef(o);
  if (o.metadata.namespace && phase === 'now') {
    const refs = o.metadata.ownerReferences ?? [];
    const kept = refs.filter((r) => !(r.kind === ClusterServiceVersionKind && (r.uid === csv.metadata.uid || r.name === csv.metadata.name)));
    if (kept.length === refs.length) return undefined;
    return { ref, patch: { metadata: { ownerReferences: kept } }, what: `remove owner reference to ClusterServiceVersion ${csv.metadata.name ?? ''}` };
  }
  // cluster-scoped now (the CSV finalizer deletes what carries them); namespaced after the CSV is gone (olm-classic
  // finds the Deployments it checks by them while the CSV exists)
  if ((o.metadata.namespace ? phase === 'after' : phase === 'now') && hasOwnerLabels(o, csv)) {
    return { ref, patch: { metadata: { labels: Object.fromEntries(OWNER_LABELS.map((k) => [k, null])) } }, what: 'remove labels olm.owner, olm.owner.kind, olm.owner.namespace' };
  }
  return undefined;
}

/** The whole migration of one Subscription. */
export function planMigration(m: MigrationInput): MigrationPlan {
  const ns = m.sub.metadata.namespace ?? '';
  const pkg = m.sub.spec.name;
  const bundle = { package: pkg, name: m.bundle.name, version: m.bundle.version, image: m.bundle.image ?? '' };
  const phases = sortIntoPhases(m.owned.map((o) => revisionObject(o, m.extension, bundle)));
  const objectSet: ClusterObjectSet = {
    apiVersion: GroupVersion,
    kind: ClusterObjectSetKind,
    metadata: {
      name: `${m.extension}-1`,
      labels: { 'olm.operatorframework.io/owner-kind': ClusterExtensionKind, 'olm.operatorframework.io/owner-name': m.extension },
      annotations: { ...bundleAnnotations(bundle), [MigratedFromSubscriptionKey]: `${ns}/${m.sub.metadata.name ?? ''}` },
    },
    spec: {
      lifecycleState: 'Active',
      revision: 1,
      collisionProtection: 'None',
      phases: phases.map((p) => ({ name: p.name, objects: p.objects.map((object) => ({ object: object as KubeObject })) })),
      progressionProbes: structuredClone([...DEFAULT_PROGRESSION_PROBES]),
    },
  };
  const targets = (m.operatorGroup?.status?.namespaces ?? m.operatorGroup?.spec?.targetNamespaces ?? []).filter((n) => n !== '');
  const watchNamespace = m.installMode === 'OwnNamespace' || m.installMode === 'SingleNamespace' ? targets[0] : undefined;
  const extension: ClusterExtension = {
    apiVersion: GroupVersion,
    kind: ClusterExtensionKind,
    metadata: { name: m.extension, annotations: { [MigratedFromSubscriptionKey]: `${ns}/${m.sub.metadata.name ?? ''}` } },
    spec: {
      namespace: ns,
      source: {
        sourceType: 'Catalog',
        catalog: {
          packageName: pkg,
          version: m.bundle.version,
          ...(m.sub.spec.channel && { channels: [m.sub.spec.channel] }),
          selector: { matchLabels: { [CatalogNameLabel]: m.bundle.catalog } },
        },
      },
      ...(watchNamespace !== undefined && { config: { configType: 'Inline', inline: { watchNamespace } } }),
    },
  } as ClusterExtension;
  const deletions: Deletion[] = [
    { ref: objectRef(withKind(m.sub, 'operators.coreos.com/v1alpha1', SubscriptionKind)) },
    ...m.plans.map((p) => ({ ref: objectRef(withKind(p, 'operators.coreos.com/v1alpha1', 'InstallPlan')) })),
    { ref: objectRef(withKind(m.csv, 'operators.coreos.com/v1alpha1', ClusterServiceVersionKind)), orphan: true },
    ...m.copies.map((c) => ({ ref: objectRef(withKind(c, 'operators.coreos.com/v1alpha1', ClusterServiceVersionKind)), orphan: true })),
    ...(m.operatorGroup && m.operatorGroupEmptyAfter ? [{ ref: objectRef(withKind(m.operatorGroup, 'operators.coreos.com/v1', 'OperatorGroup')) }] : []),
  ];
  return {
    backup: [m.sub, m.csv, ...m.copies, ...m.plans, ...(m.operatorGroup ? [m.operatorGroup] : []), ...m.owned],
    objectSet,
    extension,
    ownership: (o) => ownershipChange(o, m.csv, 'now'),
    leftoverLabels: (o) => ownershipChange(o, m.csv, 'after'),
    deletions,
  };
}

/**
 * After a rollback: what revision 1 left on an object once it was orphaned (the runtime's label and revision
 * annotation, the owner and bundle marks), so that a later migration's revision adopts it again (the runtime does not
 * adopt an object that carries a revision annotation).
 */
export function revisionMarks(o: KubeObject): OwnershipChange | undefined {
  const labels = [ManagedByLabel, OwnerKindKey, OwnerNameKey].filter((k) => o.metadata.labels?.[k] !== undefined);
  const annotations = [ObjectRevisionAnnotation, BundleVersionKey, PackageNameKey].filter((k) => o.metadata.annotations?.[k] !== undefined);
  if (labels.length === 0 && annotations.length === 0) return undefined;
  const nulls = (keys: string[]): Record<string, null> => Object.fromEntries(keys.map((k) => [k, null]));
  return {
    ref: objectRef(o),
    patch: { metadata: { ...(labels.length > 0 && { labels: nulls(labels) }), ...(annotations.length > 0 && { annotations: nulls(annotations) }) } },
    what: `remove ClusterObjectSet marks ${[...labels, ...annotations].join(', ')}`,
  };
}

/**
 * After a rollback: OLM classic's owner labels (olm.owner, olm.owner.kind, olm.owner.namespace) an object carried when
 * it was backed up, put back — the CSV comes back under the same name, and olm-classic finds the webhook
 * configurations it owns by them (without them it would make second ones). Owner references are not restored: the
 * CSV comes back with a new uid.
 */
export function classicLabels(backedUp: KubeObject): (o: KubeObject) => OwnershipChange | undefined {
  const want = OWNER_LABELS.flatMap((k) => (backedUp.metadata.labels?.[k] !== undefined ? [[k, backedUp.metadata.labels[k]!] as const] : []));
  return (o) => {
    const missing = want.filter(([k, v]) => o.metadata.labels?.[k] !== v);
    if (missing.length === 0) return undefined;
    return { ref: objectRef(o), patch: { metadata: { labels: Object.fromEntries(missing) } }, what: `restore labels ${missing.map(([k]) => k).join(', ')}` };
  };
}
