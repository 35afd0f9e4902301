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
import { ObjectReconciler, realClock, setCondition, splitKey, type Clock, type Reconciler, type Step } from '../../shared/controller/index.ts';
import { isAlreadyExists, isOwnedBy, nonBlockingOwnerReference, objectRef, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';

export const OPERATOR_CONDITION_ENV = 'OPERATOR_CONDITION_NAME';
const MANAGED = { 'olm.managed': 'true' } as const;
const RBAC = 'rbac.authorization.k8s.io';

/** A controller owner reference that does not block the owner's deletion (upstream's AddOwner(…, false, true)). */
export const controllerRef = (apiVersion: string, kind: string, owner: KubeObject): OwnerReference => nonBlockingOwnerReference(apiVersion, kind, owner, true);

/** Service accounts of the strategy (cluster permissions first, as upstream), `default` when none. */
export function serviceAccountNames(csv: ClusterServiceVersion): string[] {
  const spec = csv.spec.install?.spec;
  const out = [...(spec?.clusterPermissions ?? []), ...(spec?.permissions ?? [])].map((p) => p.serviceAccountName).filter((n) => !!n);
  return out.length > 0 ? out : ['default'];
}

export const deploymentNames = (csv: ClusterServiceVersion): string[] => (csv.spec.install?.spec?.deployments ?? []).map((d) => d.name).filter((n) => !!n);

/** CSV key → its OperatorCondition, created or brought back to the CSV's deployments and service accounts. */
export interface OperatorConditionGeneratorReconcilerOptions {
  readonly client: KubeClient;
  readonly caches: OlmCaches;
  readonly logger: Logger;
}

export function newOperatorConditionGeneratorReconciler({ client, caches, logger }: OperatorConditionGeneratorReconcilerOptions): Reconciler {
  return {
    async reconcile(k, signal) {
      const csv = caches.csvs.get(k);
      if (!csv) return;
      const { namespace, name } = splitKey(k);
      const ownerReferences = [controllerRef(V1alpha1, ClusterServiceVersionKind, csv)];
      const spec = { serviceAccounts: serviceAccountNames(csv), deployments: deploymentNames(csv) };
      const existing = caches.operatorConditions.get(k);
      if (!existing) {
        const oc: OperatorCondition = { apiVersion: V2, kind: OperatorConditionKind, metadata: { name, namespace: namespace!, ownerReferences }, spec };
        try {
          await client.create(oc, { signal });
          logger.info('created OperatorCondition', { operatorCondition: k });
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
      await client.update(updated, { signal });
    },
  };
}

/** What one pass knows. */
interface ConditionPass {
  readonly oc: OperatorCondition;
  readonly key: string;
  readonly name: string;
  readonly namespace: string;
  readonly ownerReferences: OwnerReference[];
}

/** OperatorCondition key → its Role, RoleBinding, the deployments' env and its status (steps on the ObjectReconciler). */
export interface OperatorConditionReconcilerOptions {
  readonly client: KubeClient;
  readonly caches: OlmCaches;
  readonly logger: Logger;
  /** Wall time of the mirrored conditions' transitions; default the toolkit's realClock. */
  readonly clock?: Clock;
}

export function newOperatorConditionReconciler({ client, caches, logger, clock = realClock }: OperatorConditionReconcilerOptions): Reconciler {
  const ensure = async (owner: KubeObject, cached: KubeObject | undefined, desired: KubeObject, same: (existing: KubeObject) => boolean, signal: AbortSignal): Promise<void> => {
    if (!cached) {
      try {
        await client.create(desired, { signal });
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        const fresh = await client.get(objectRef(desired), { signal });
        await client.update({ ...desired, metadata: { ...desired.metadata, resourceVersion: fresh.metadata.resourceVersion } }, { signal });
        return;
      }
    }
    if (isOwnedBy(cached, owner) && same(cached)) return;
    const updated = structuredClone(cached);
    updated.apiVersion = desired.apiVersion;
    updated.kind = desired.kind;
    updated.metadata.ownerReferences = desired.metadata.ownerReferences;
    for (const k of ['rules', 'subjects', 'roleRef']) if (desired[k] !== undefined) updated[k] = desired[k];
    await client.update(updated, { signal });
  };

  const steps: Step<ConditionPass>[] = [
    {
      name: 'ensureRole',
      run: async (s, signal) => {
        const role: KubeObject = {
          apiVersion: `${RBAC}/v1`,
          kind: 'Role',
          metadata: { name: s.name, namespace: s.namespace, labels: { ...MANAGED }, ownerReferences: s.ownerReferences },
          rules: [{ verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions'], resourceNames: [s.name] }],
        };
        await ensure(s.oc, caches.roles.get(s.key), role, (r) => isDeepStrictEqual(r['rules'], role['rules']), signal);
        return undefined;
      },
    },
    {
      name: 'ensureRoleBinding',
      run: async (s, signal) => {
        const binding: KubeObject = {
          apiVersion: `${RBAC}/v1`,
          kind: 'RoleBinding',
          metadata: { name: s.name, namespace: s.namespace, labels: { ...MANAGED }, ownerReferences: s.ownerReferences },
          subjects: (s.oc.spec?.serviceAccounts ?? []).map((sa) => ({ kind: 'ServiceAccount', name: sa })),
          roleRef: { apiGroup: RBAC, kind: 'Role', name: s.name },
        };
        await ensure(
          s.oc,
          caches.roleBindings.get(s.key),
          binding,
          (b) => isDeepStrictEqual(b['roleRef'], binding['roleRef']) && isDeepStrictEqual(b['subjects'] ?? [], binding['subjects']),
          signal,
        );
        return undefined;
      },
    },
    {
      name: 'setDeploymentsEnv',
      run: async (s, signal) => {
        for (const d of s.oc.spec?.deployments ?? []) {
          const dep = caches.deployments.get(`${s.namespace}/${d}`);
          // Not there yet (the CSV installs it later): its creation brings this OperatorCondition back.
          if (!dep) continue;
          const owner = (dep.metadata.ownerReferences ?? []).find((r) => r.kind === ClusterServiceVersionKind);
          if (!owner || owner.name !== s.name) continue;
          const updated = structuredClone(dep);
          let changed = false;
          const podSpec = ((updated['spec'] as Record<string, unknown>)?.['template'] as Record<string, unknown>)?.['spec'] as { containers?: { env?: { name: string; value?: string }[] }[] };
          for (const c of podSpec?.containers ?? []) {
            const env = (c.env ??= []);
            const found = env.find((e) => e.name === OPERATOR_CONDITION_ENV);
            if (found?.value === s.name) continue;
            changed = true;
            if (found) found.value = s.name;
            else env.push({ name: OPERATOR_CONDITION_ENV, value: s.name });
          }
          if (!changed) continue;
          updated.apiVersion = 'apps/v1';
          updated.kind = 'Deployment';
          await client.update(updated, { signal });
        }
        return undefined;
      },
    },
    {
      // spec.conditions → status.conditions with observedGeneration; a condition whose status and generation are
      // already there is left as it is.
      name: 'copyConditions',
      run: async ({ oc }) => {
        const generation = oc.metadata.generation ?? 0;
        for (const c of oc.spec?.conditions ?? []) {
          const current = oc.status?.conditions?.find((x) => x.type === c.type);
          if (current && current.status === c.status && (current.observedGeneration ?? 0) === generation) continue;
          const conditions = ((oc.status ??= {}).conditions ??= []);
          setCondition(conditions, { type: c.type, status: c.status, reason: c.reason, message: c.message, observedGeneration: generation, ...(c.lastTransitionTime && { lastTransitionTime: c.lastTransitionTime }) }, clock.date());
        }
        return undefined;
      },
    },
  ];

  return new ObjectReconciler<OperatorCondition, ConditionPass>({
    kind: OperatorConditionKind,
    client,
    get: (k) => caches.operatorConditions.get(k),
    steps,
    logger,
    state: ({ obj: oc, key: k }) => ({
      oc,
      key: k,
      name: oc.metadata.name ?? '',
      namespace: oc.metadata.namespace ?? '',
      ownerReferences: [controllerRef(V2, OperatorConditionKind, oc)],
    }),
  });
}
