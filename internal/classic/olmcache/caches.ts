// olmCaches: the shared informers of the olm-operator side of classic, their transforms and the copy hashes.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  ClusterServiceVersionKind,
  OperatorConditionKind,
  OperatorGroupAnnotationKey,
  CopiedFromLabel,
  OperatorGroupKind,
  OwnerKindLabel,
  OperatorGroupNamespaceAnnotationKey,
  SubscriptionKind,
  V1,
  V1alpha1,
  V2,
  type ClusterServiceVersion,
  type OperatorCondition,
  type OperatorGroup,
  type Subscription,
} from '../../../api/operators/index.ts';
import type { Informer} from '../../shared/kube/index.ts';
import { informers, type KubeClient } from '../../shared/kube/index.ts';
import type { Cache } from '../../shared/manager/index.ts';
import type { Logger } from '../../shared/observability/index.ts';

/** In-memory annotations on cached copied CSVs: hashes of what was copied (upstream's `$copyhash-*`). */
export const COPY_SPEC_HASH = '$copyhash-spec';
export const COPY_STATUS_HASH = '$copyhash-status';

/** A CRD's condition as the cache keeps it (the Operator API lists it whole). */
export interface CachedCRDCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** What the requirement check keeps of a CRD: identity, labels, annotations, group, kind, versions served, conditions. */
export interface CachedCRD extends KubeObject {
  spec: { group: string; names: { kind: string; plural?: string }; versions: { name: string; served: boolean }[] };
  status?: { conditions?: CachedCRDCondition[] };
}

export interface RbacObject extends KubeObject {
  rules?: Record<string, unknown>[] | null;
  subjects?: { kind?: string; name?: string; namespace?: string }[] | null;
  roleRef?: { kind?: string; name?: string; apiGroup?: string };
  aggregationRule?: unknown;
}

export interface OlmCaches {
  /** Every CSV that is not a copy (label selector `!olm.copiedFrom`, as upstream's CSV informer). */
  readonly csvs: Informer<ClusterServiceVersion>;
  /** Copied CSVs, metadata only plus the hashes of their spec and status. */
  readonly copiedCSVs: Informer<ClusterServiceVersion>;
  readonly operatorGroups: Informer<OperatorGroup>;
  readonly operatorConditions: Informer<OperatorCondition>;
  /** Deployments labelled as owned by a CSV (`olm.owner.kind=ClusterServiceVersion`). */
  readonly deployments: Informer<KubeObject>;
  readonly namespaces: Informer<KubeObject>;
  readonly serviceAccounts: Informer<KubeObject>;
  readonly roles: Informer<RbacObject>;
  readonly roleBindings: Informer<RbacObject>;
  readonly clusterRoles: Informer<RbacObject>;
  readonly clusterRoleBindings: Informer<RbacObject>;
  readonly crds: Informer<CachedCRD>;
  readonly subscriptions: Informer<Subscription>;
  /** OLMConfigs (the `cluster` one switches copied CSVs off). */
  readonly olmConfigs: Informer<KubeObject>;
  /** All of the above, for the manager. */
  readonly informers: readonly Cache[];
}

/** JSON with every object's keys sorted (as the API server hands back custom resources), so equal content hashes equal. */
export function stableJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableJSON(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJSON(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** sha224 of key-sorted JSON plus newline, base 62 (upstream's DeepHashObject shape; not its exact value). */
export function deepHash(value: unknown): string {
  let n = BigInt(`0x${createHash('sha224').update(`${stableJSON(value)}\n`).digest('hex')}`);
  const digits = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let out = '';
  do {
    out = digits[Number(n % 62n)]! + out;
    n /= 62n;
  } while (n > 0n);
  return out;
}

/** The hashes of a copied CSV as upstream's copyableCSVHash computes them: name, labels, annotations + spec; status. */
export function copyableCSVHash(csv: ClusterServiceVersion): { spec: string; status: string } {
  const shallow = { metadata: { name: csv.metadata.name, labels: csv.metadata.labels ?? {}, annotations: csv.metadata.annotations ?? {} }, spec: csv.spec };
  return { spec: deepHash(shallow), status: deepHash(csv.status ?? {}) };
}

function copiedTransform(csv: ClusterServiceVersion): ClusterServiceVersion {
  const hashes = copyableCSVHash(csv);
  const pick = (from: Record<string, string> | undefined, keys: string[]): Record<string, string> =>
    Object.fromEntries(keys.flatMap((k) => (from?.[k] === undefined ? [] : [[k, from[k]]])));
  const labels = pick(csv.metadata.labels, [CopiedFromLabel, 'olm.managed']);
  const annotations = {
    ...pick(csv.metadata.annotations, [OperatorGroupAnnotationKey, OperatorGroupNamespaceAnnotationKey]),
    [COPY_SPEC_HASH]: hashes.spec,
    [COPY_STATUS_HASH]: hashes.status,
  };
  const { managedFields: _m, ...metadata } = csv.metadata;
  return { apiVersion: csv.apiVersion, kind: csv.kind, metadata: { ...metadata, labels, annotations }, spec: {} as ClusterServiceVersion['spec'] };
}

function crdTransform(crd: KubeObject): CachedCRD {
  const spec = (crd['spec'] ?? {}) as { group?: string; names?: { kind?: string; plural?: string }; versions?: { name: string; served: boolean }[] };
  const status = (crd['status'] ?? {}) as { conditions?: CachedCRDCondition[] };
  const { managedFields: _m, ...metadata } = crd.metadata;
  return {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata,
    spec: {
      group: spec.group ?? '',
      names: { kind: spec.names?.kind ?? '', ...(spec.names?.plural !== undefined && { plural: spec.names.plural }) },
      versions: (spec.versions ?? []).map((v) => ({ name: v.name, served: v.served })),
    },
    status: {
      conditions: (status.conditions ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        ...(c.reason !== undefined && { reason: c.reason }),
        ...(c.message !== undefined && { message: c.message }),
        ...(c.lastTransitionTime !== undefined && { lastTransitionTime: c.lastTransitionTime }),
      })),
    },
  };
}

/** Creates (does not start) the shared informers. */
export function olmCaches({ client, logger }: { readonly client: KubeClient; readonly logger: Logger }): OlmCaches {
  const informer = informers(client, logger);
  const rbac = 'rbac.authorization.k8s.io/v1';
  const caches = {
    csvs: informer<ClusterServiceVersion>(V1alpha1, ClusterServiceVersionKind, { labelSelector: `!${CopiedFromLabel}` }),
    copiedCSVs: informer<ClusterServiceVersion>(V1alpha1, ClusterServiceVersionKind, { labelSelector: CopiedFromLabel, transform: copiedTransform }),
    operatorGroups: informer<OperatorGroup>(V1, OperatorGroupKind),
    operatorConditions: informer<OperatorCondition>(V2, OperatorConditionKind),
    deployments: informer<KubeObject>('apps/v1', 'Deployment', { labelSelector: `${OwnerKindLabel}=${ClusterServiceVersionKind}` }),
    namespaces: informer<KubeObject>('v1', 'Namespace'),
    serviceAccounts: informer<KubeObject>('v1', 'ServiceAccount'),
    roles: informer<RbacObject>(rbac, 'Role'),
    roleBindings: informer<RbacObject>(rbac, 'RoleBinding'),
    clusterRoles: informer<RbacObject>(rbac, 'ClusterRole'),
    clusterRoleBindings: informer<RbacObject>(rbac, 'ClusterRoleBinding'),
    crds: informer<CachedCRD>('apiextensions.k8s.io/v1', 'CustomResourceDefinition', { transform: crdTransform as (o: CachedCRD) => CachedCRD }),
    subscriptions: informer<Subscription>(V1alpha1, SubscriptionKind),
    olmConfigs: informer<KubeObject>(V1, 'OLMConfig'),
  };
  return { ...caches, informers: Object.values(caches) };
}
