// The `deployment` install strategy (upstream's install/deployment.go StrategyDeploymentInstaller and
// status_viewer.go): a CSV's Deployments built with the registry+v1 rules both OLMs share, carrying the CSV's
// annotations on the pod template, its owner labels and reference, `OPERATOR_CONDITION_NAME` and a hash of the
// spec; written with create-or-update (so the Deployment of a replaced CSV with the same name is taken over), and
// checked for health the way upstream reads a Deployment's status.
import { OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel } from '../../../api/operators/index.ts';
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import { ClusterServiceVersionKind, V1alpha1, type ClusterServiceVersion } from '../../../api/operators/index.ts';
import { errorMessage } from '../../shared/controller/index.ts';
import { isForbidden, ignoreNotFound, isOwnedBy, nonBlockingOwnerReference, retryOnConflict, type KubeClient } from '../../shared/kube/index.ts';
import { strategyDeployment, type DeploymentConfig } from '../../shared/registryv1/index.ts';
import { deepHash } from '../olmcache/index.ts';
import { OPERATOR_CONDITION_ENV } from '../operatorcondition/index.ts';

export const DEPLOYMENT_SPEC_HASH_LABEL = 'olm.deployment-spec-hash';
export const OLM_MANAGED_LABEL = 'olm.managed';

/** upstream's StrategyError reasons. */
export const StrategyErrReason = {
  ComponentMissing: 'ComponentMissing',
  AnnotationsMissing: 'AnnotationsMissing',
  Waiting: 'Waiting',
  InvalidStrategy: 'InvalidStrategy',
  Timeout: 'Timeout',
  Unknown: 'Unknown',
  BadPatch: 'PatchUnsuccessful',
  DeploymentUpdated: 'DeploymentUpdated',
  InsufficientPermissions: 'InsufficentPermissions',
} as const;

const UNRECOVERABLE = new Set<string>([StrategyErrReason.InvalidStrategy, StrategyErrReason.Timeout, StrategyErrReason.BadPatch, StrategyErrReason.InsufficientPermissions]);

export class StrategyError extends Error {
  override readonly name = 'StrategyError';
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** An install or health error upstream will not retry (IsErrorUnrecoverable). */
export const isUnrecoverable = (err: unknown): boolean => err instanceof StrategyError && UNRECOVERABLE.has(err.reason);

/** The labels naming the CSV that owns an object (upstream's OwnerLabel for kind ClusterServiceVersion). */
export const csvOwnerLabels = (csv: ClusterServiceVersion): Record<string, string> => ({
  [OwnerLabel]: csv.metadata.name ?? '',
  [OwnerNamespaceLabel]: csv.metadata.namespace ?? '',
  [OwnerKindLabel]: ClusterServiceVersionKind,
});

export const ownedByCSVLabels = (obj: KubeObject, csv: ClusterServiceVersion): boolean => {
  const l = obj.metadata.labels ?? {};
  return l[OwnerLabel] === csv.metadata.name && l[OwnerNamespaceLabel] === csv.metadata.namespace && l[OwnerKindLabel] === ClusterServiceVersionKind;
};

/** A non-blocking, non-controller owner reference to the CSV (upstream's NonBlockingOwner). */
export const csvOwnerReference = (csv: ClusterServiceVersion): OwnerReference => nonBlockingOwnerReference(V1alpha1, ClusterServiceVersionKind, csv);

type Obj = Record<string, unknown>;

/** Env merged into every container: existing names keep their place with the new value, new ones are appended. */
function injectEnv(deployment: KubeObject, env: readonly { name: string; value: string }[]): void {
  const podSpec = ((deployment['spec'] as Obj)['template'] as Obj)['spec'] as Obj;
  const byName = new Map(env.map((e) => [e.name, e]));
  for (const c of (podSpec['containers'] ?? []) as Obj[]) {
    const current = (c['env'] ?? []) as { name: string }[];
    c['env'] = [...current.map((e) => byName.get(e.name) ?? e), ...env.filter((e) => !current.some((x) => x.name === e.name))];
  }
}

export interface BuiltDeployment {
  readonly deployment: KubeObject;
  readonly hash: string;
}

/**
 * The Deployment of one strategy deployment (upstream's deploymentForSpec): the template's annotations under the
 * CSV's, the strategy's labels plus `olm.managed` and the owner labels, the CSV as owner, the Subscription's config,
 * `OPERATOR_CONDITION_NAME`, revisionHistoryLimit 1, and `olm.deployment-spec-hash` of the resulting spec.
 */
export function buildDeployment(csv: ClusterServiceVersion, d: { name: string; spec: Obj; label?: Record<string, string> }, config?: DeploymentConfig): BuiltDeployment {
  const csvAnnotations = csv.metadata.annotations ?? {};
  const labels = { ...(d.label ?? {}), [OLM_MANAGED_LABEL]: 'true', ...csvOwnerLabels(csv) };
  const deployment = strategyDeployment(d, {
    namespace: csv.metadata.namespace ?? '',
    templateAnnotations: (template) => ({ ...template, ...csvAnnotations }),
    labels,
    ...(config && { config }),
  });
  deployment.metadata.ownerReferences = [csvOwnerReference(csv)];
  injectEnv(deployment, [{ name: OPERATOR_CONDITION_ENV, value: csv.metadata.name ?? '' }]);
  delete deployment['status'];
  const hash = deepHash(deployment['spec']);
  deployment.metadata.labels = { ...deployment.metadata.labels, [DEPLOYMENT_SPEC_HASH_LABEL]: hash };
  return { deployment, hash };
}

/** The strategy's deployments; `specs` replaces some specs (webhook deployments with their certificate mounted). */
const strategyDeployments = (csv: ClusterServiceVersion, specs?: ReadonlyMap<string, Obj>): { name: string; spec: Obj; label?: Record<string, string> }[] =>
  (csv.spec.install?.spec?.deployments ?? []).map((d) => ({ name: d.name, spec: specs?.get(d.name) ?? d.spec, ...(d.label && { label: d.label }) }));

/**
 * Creates or replaces every Deployment of the strategy, then deletes Deployments labelled as this CSV's that the
 * strategy no longer has. A Forbidden write is upstream's InsufficientPermissions (not retried).
 */
export async function installDeployments(
  client: KubeClient,
  csv: ClusterServiceVersion,
  existing: readonly KubeObject[],
  config: DeploymentConfig | undefined,
  signal: AbortSignal,
  specs?: ReadonlyMap<string, Obj>,
): Promise<void> {
  const namespace = csv.metadata.namespace ?? '';
  const wanted = new Set<string>();
  try {
    for (const d of strategyDeployments(csv, specs)) {
      wanted.add(d.name);
      const { deployment } = buildDeployment(csv, d, config);
      const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: d.name };
      // Create or replace (upstream's CreateOrUpdateDeployment); the deployment controller writing its status in
      // between is a conflict tried again on a fresh read.
      await retryOnConflict(
        async () => {
          const current: KubeObject | undefined = await ignoreNotFound(client.get(ref, { signal }));
          if (!current) await client.create(deployment, { signal });
          else await client.update({ ...deployment, metadata: { ...deployment.metadata, resourceVersion: current.metadata.resourceVersion } }, { signal });
        },
        { signal },
      );
    }
  } catch (err) {
    if (isForbidden(err)) throw new StrategyError(StrategyErrReason.InsufficientPermissions, `install strategy failed: ${errorMessage(err)}`);
    throw err;
  }
  for (const d of existing) {
    const name = d.metadata.name ?? '';
    if (wanted.has(name) || !ownedByCSVLabels(d, csv)) continue;
    if (!isOwnedBy(d, csv)) continue;
    await ignoreNotFound(client.delete({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name }, { propagationPolicy: 'Foreground', gracePeriodSeconds: 1, signal }));
  }
}

interface DeploymentCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** upstream's DeploymentStatus: a message, whether it is done, and an error when the progress deadline passed. */
export function deploymentStatus(dep: KubeObject): { message: string; ready: boolean; error?: string } {
  const name = JSON.stringify(dep.metadata.name ?? '');
  const status = (dep['status'] ?? {}) as { observedGeneration?: number; replicas?: number; updatedReplicas?: number; conditions?: DeploymentCondition[] };
  if ((dep.metadata.generation ?? 0) <= (status.observedGeneration ?? 0)) {
    const cond = (type: string): DeploymentCondition | undefined => (status.conditions ?? []).find((c) => c.type === type);
    if (cond('Progressing')?.reason === 'ProgressDeadlineExceeded') return { message: '', ready: false, error: `deployment ${name} exceeded its progress deadline` };
    const replicas = status.replicas ?? 0;
    const updated = status.updatedReplicas ?? 0;
    if (replicas > updated) return { message: `deployment ${name} waiting for ${replicas - updated} outdated replica(s) to be terminated`, ready: false };
    const available = cond('Available');
    if (!available || available.status !== 'True') {
      const msg = available ? (available.message ?? '') : 'missing condition "Available"';
      return { message: `deployment ${name} not available: ${msg}`, ready: false };
    }
    return { message: `deployment ${name} is up-to-date and available`, ready: true };
  }
  return { message: `waiting for spec update of deployment ${name} to be observed...`, ready: false };
}

/**
 * upstream's CheckInstalled for the deployment strategy: every strategy deployment exists among `existing` (the
 * CSV's, by owner labels), is ready, carries the CSV's annotations on its template and the spec hash of what this
 * CSV would write. Throws the StrategyError that says what is missing.
 */
export function checkInstalled(csv: ClusterServiceVersion, existing: readonly KubeObject[], config: DeploymentConfig | undefined, specs?: ReadonlyMap<string, Obj>): void {
  const byName = new Map(existing.filter((d) => ownedByCSVLabels(d, csv)).map((d) => [d.metadata.name ?? '', d]));
  const annotations = csv.metadata.annotations ?? {};
  for (const spec of strategyDeployments(csv, specs)) {
    const dep = byName.get(spec.name);
    if (!dep) throw new StrategyError(StrategyErrReason.ComponentMissing, `missing deployment with name=${spec.name}`);
    const { message, ready, error } = deploymentStatus(dep);
    if (error !== undefined) throw new StrategyError(StrategyErrReason.Timeout, `deployment ${dep.metadata.name ?? ''} not ready before timeout: ${error}`);
    if (!ready) throw new StrategyError(StrategyErrReason.Waiting, `waiting for deployment ${dep.metadata.name ?? ''} to become ready: ${message}`);
    const template = ((dep['spec'] as Obj | undefined)?.['template'] as Obj | undefined)?.['metadata'] as { annotations?: Record<string, string> } | undefined;
    const actual = template?.annotations;
    if (Object.keys(annotations).length > 0 && !actual) throw new StrategyError(StrategyErrReason.AnnotationsMissing, 'no annotations found on deployment');
    for (const [k, v] of Object.entries(annotations)) {
      if (!(k in (actual ?? {}))) throw new StrategyError(StrategyErrReason.AnnotationsMissing, `annotations on deployment does not contain expected key: ${k}`);
      if (actual![k] !== v) throw new StrategyError(StrategyErrReason.AnnotationsMissing, `unexpected annotation on deployment. Expected ${k}:${v}, found ${k}:${actual![k]}`);
    }
    const existingHash = dep.metadata.labels?.[DEPLOYMENT_SPEC_HASH_LABEL];
    if (existingHash === undefined) throw new StrategyError(StrategyErrReason.DeploymentUpdated, `deployment ${dep.metadata.name ?? ''} doesn't have a spec hash, update it`);
    const { hash } = buildDeployment(csv, spec, config);
    if (existingHash !== hash) throw new StrategyError(StrategyErrReason.DeploymentUpdated, `deployment changed old hash=${existingHash}, new hash=${hash}`);
  }
}
