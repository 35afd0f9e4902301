// The two OperatorCondition controllers of upstream's olm-operator:
// - the generator (operatorconditiongenerator_controller.go): every CSV that is not a copy gets an OperatorCondition
//   of its name, owned by it (controller), listing its deployments and service accounts;
// - the reconciler (operatorcondition_controller.go): a Role and RoleBinding that let those service accounts read
//   and update their OperatorCondition, `OPERATOR_CONDITION_NAME` on the CSV's deployments, and `spec.conditions`
//   copied to `status.conditions` with `observedGeneration`.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import {
  ClusterServiceVersionKind,
  OperatorConditionKind,
  V1alpha1,
  V2,
  type ClusterServiceVersion,
  type OperatorCondition,
} from '../../../api/operators/index.ts';
import { setCondition, splitKey, type Reconciler } from '../../shared/controller/index.ts';
import { isAlreadyExists, type CacheReader, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';

export const OPERATOR_CONDITION_ENV = 'OPERATOR_CONDITION_NAME';
const MANAGED = { 'olm.managed': 'true' } as const;
const RBAC = 'rbac.authorization.k8s.io';

/** A controller owner reference that does not block the owner's deletion (upstream's AddOwner(…, false, true)). */
export const controllerRef = (apiVersion: string, kind: string, owner: KubeObject): OwnerReference => ({
  apiVersion,
  kind,
  name: owner.metadata.name ?? '',
  uid: owner.metadata.uid ?? '',
  blockOwnerDeletion: false,
  controller: true,
});

/** Service accounts of the strategy (cluster permissions first, as upstream), `default` when none. */
export function serviceAccountNames(csv: ClusterServiceVersion): string[] {
  const spec = csv.spec.install?.spec;
  const out = [...(spec?.clusterPermissions ?? []), ...(spec?.permissions ?? [])].map((p) => p.serviceAccountName).filter((n) => !!n);
  return out.length > 0 ? out : ['default'];
}

export const deploymentNames = (csv: ClusterServiceVersion): string[] => (csv.spec.install?.spec?.deployments ?? []).map((d) => d.name).filter((n) => !!n);

const key = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;

export interface GeneratorOptions {
  readonly client: KubeClient;
  readonly csvs: CacheReader<ClusterServiceVersion>;
  readonly operatorConditions: CacheReader<OperatorCondition>;
  readonly logger: Logger;
}

/** CSV key → its OperatorCondition, created or brought back to the CSV's deployments and service accounts. */
export function generatorReconciler(o: GeneratorOptions): Reconciler {
  return {
    async reconcile(k, signal) {
      const csv = o.csvs.get(k);
      if (!csv) return;
      const { namespace, name } = splitKey(k);
      const ownerReferences = [controllerRef(V1alpha1, ClusterServiceVersionKind, csv)];
      const spec = { serviceAccounts: serviceAccountNames(csv), deployments: deploymentNames(csv) };
      const existing = o.operatorConditions.get(k);
      if (!existing) {
        const oc: OperatorCondition = { apiVersion: V2, kind: OperatorConditionKind, metadata: { name, namespace: namespace!, ownerReferences }, spec };
        try {
          await o.client.create(oc, { signal });
          o.logger.info('created OperatorCondition', { operatorCondition: k });
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
        return;
      }
      if (
        isDeepStrictEqual(existing.metadata.ownerReferences ?? [], ownerReferences) &&
        isDeepStrictEqual(existing.spec?.deployments ?? [], spec.deployments) &&
        isDeepStrictEqual(existing.spec?.serviceAccounts ?? [], spec.serviceAccounts)
      ) {
        return;
      }
      const updated = structuredClone(existing);
      updated.apiVersion = V2;
      updated.kind = OperatorConditionKind;
      updated.metadata.ownerReferences = ownerReferences;
      updated.spec = { ...(updated.spec ?? {}), ...spec };
      await o.client.update(updated, { signal });
    },
  };
}

export interface ConditionReconcilerOptions {
  readonly client: KubeClient;
  readonly operatorConditions: CacheReader<OperatorCondition>;
  readonly roles: CacheReader<KubeObject>;
  readonly roleBindings: CacheReader<KubeObject>;
  readonly deployments: CacheReader<KubeObject>;
  readonly logger: Logger;
  readonly now?: () => Date;
}

const ownedBy = (obj: KubeObject, owner: KubeObject): boolean => (obj.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid);

/** OperatorCondition key → its Role, RoleBinding, the deployments' env and its status. */
export function conditionReconciler(o: ConditionReconcilerOptions): Reconciler {
  const now = o.now ?? ((): Date => new Date());

  const ensure = async (owner: KubeObject, cached: KubeObject | undefined, desired: KubeObject, same: (existing: KubeObject) => boolean, signal: AbortSignal): Promise<void> => {
    if (!cached) {
      try {
        await o.client.create(desired, { signal });
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        const fresh = await o.client.get(refOf(desired), { signal });
        await o.client.update({ ...desired, metadata: { ...desired.metadata, resourceVersion: fresh.metadata.resourceVersion } }, { signal });
        return;
      }
    }
    if (ownedBy(cached, owner) && same(cached)) return;
    const updated = structuredClone(cached);
    updated.apiVersion = desired.apiVersion;
    updated.kind = desired.kind;
    updated.metadata.ownerReferences = desired.metadata.ownerReferences;
    for (const k of ['rules', 'subjects', 'roleRef']) if (desired[k] !== undefined) updated[k] = desired[k];
    await o.client.update(updated, { signal });
  };

  return {
    async reconcile(k, signal) {
      const oc = o.operatorConditions.get(k);
      if (!oc) return;
      const name = oc.metadata.name ?? '';
      const namespace = oc.metadata.namespace ?? '';
      const ownerReferences = [controllerRef(V2, OperatorConditionKind, oc)];
      const role: KubeObject = {
        apiVersion: `${RBAC}/v1`,
        kind: 'Role',
        metadata: { name, namespace, labels: { ...MANAGED }, ownerReferences },
        rules: [{ verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions'], resourceNames: [name] }],
      };
      await ensure(oc, o.roles.get(k), role, (r) => isDeepStrictEqual(r['rules'], role['rules']), signal);
      const binding: KubeObject = {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name, namespace, labels: { ...MANAGED }, ownerReferences },
        subjects: (oc.spec?.serviceAccounts ?? []).map((sa) => ({ kind: 'ServiceAccount', name: sa })),
        roleRef: { apiGroup: RBAC, kind: 'Role', name },
      };
      await ensure(
        oc,
        o.roleBindings.get(k),
        binding,
        (b) => isDeepStrictEqual(b['roleRef'], binding['roleRef']) && isDeepStrictEqual(b['subjects'] ?? [], binding['subjects']),
        signal,
      );

      for (const d of oc.spec?.deployments ?? []) {
        const dep = o.deployments.get(key(namespace, d));
        // Not there yet (the CSV installs it later): its creation brings this OperatorCondition back.
        if (!dep) continue;
        const owner = (dep.metadata.ownerReferences ?? []).find((r) => r.kind === ClusterServiceVersionKind);
        if (!owner || owner.name !== name) continue;
        const updated = structuredClone(dep);
        let changed = false;
        const podSpec = ((updated['spec'] as Record<string, unknown>)?.['template'] as Record<string, unknown>)?.['spec'] as { containers?: { env?: { name: string; value?: string }[] }[] };
        for (const c of podSpec?.containers ?? []) {
          const env = (c.env ??= []);
          const found = env.find((e) => e.name === OPERATOR_CONDITION_ENV);
          if (found?.value === name) continue;
          changed = true;
          if (found) found.value = name;
          else env.push({ name: OPERATOR_CONDITION_ENV, value: name });
        }
        if (!changed) continue;
        updated.apiVersion = 'apps/v1';
        updated.kind = 'Deployment';
        await o.client.update(updated, { signal });
      }

      const generation = oc.metadata.generation ?? 0;
      const status = structuredClone(oc.status ?? {});
      const conditions = (status.conditions ??= []);
      let changed = false;
      for (const c of oc.spec?.conditions ?? []) {
        const current = conditions.find((x) => x.type === c.type);
        if (current && current.status === c.status && (current.observedGeneration ?? 0) === generation) continue;
        setCondition(conditions, { type: c.type, status: c.status, reason: c.reason, message: c.message, observedGeneration: generation, ...(c.lastTransitionTime && { lastTransitionTime: c.lastTransitionTime }) }, now());
        changed = true;
      }
      if (changed) {
        await o.client.updateStatus({ ...oc, apiVersion: V2, kind: OperatorConditionKind, status }, { signal });
      }
    },
  };
}

function refOf(obj: KubeObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  return { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '', name: obj.metadata.name ?? '', ...(obj.metadata.namespace && { namespace: obj.metadata.namespace }) };
}
