// The test control plane has no kube-controller-manager and no nodes, so a Deployment never
// reports progress by itself. `simulateRollouts` stands in for both: it marks every Deployment
// carrying the operator-controller owner label as rolled out and Available for its current
// generation (what the Deployment controller writes once the pods are ready), and does what
// cert-manager would for owned Issuers and Certificates (Ready=True), polling until stopped.
// Tests that want a Deployment to stay unavailable leave the simulator off.
import { adminKube } from './env.ts';

interface DeploymentLike {
  metadata: { name: string; namespace: string; generation?: number };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] };
}

const OWNER_LABEL = 'olm.operatorframework.io/owner-kind';

async function markAvailable(d: DeploymentLike, available = true): Promise<void> {
  const replicas = d.spec?.replicas ?? 1;
  const ready = available ? replicas : 0;
  const now = new Date().toISOString();
  const status = {
    observedGeneration: d.metadata.generation ?? 1,
    replicas,
    updatedReplicas: replicas,
    readyReplicas: ready,
    availableReplicas: ready,
    unavailableReplicas: replicas - ready,
    conditions: [
      available
        ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.', lastUpdateTime: now, lastTransitionTime: now }
        : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.', lastUpdateTime: now, lastTransitionTime: now },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet has successfully progressed.', lastUpdateTime: now, lastTransitionTime: now },
    ],
  };
  await adminKube().request(
    'PATCH',
    `/apis/apps/v1/namespaces/${d.metadata.namespace}/deployments/${d.metadata.name}/status`,
    { status },
    'application/merge-patch+json',
  );
}

const rolledOut = (d: DeploymentLike): boolean =>
  d.status?.observedGeneration === (d.metadata.generation ?? 1) && (d.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True');

interface ReadyLike {
  metadata: { name: string; namespace: string; generation?: number };
  status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] };
}

const isReady = (o: ReadyLike): boolean =>
  o.status?.observedGeneration === (o.metadata.generation ?? 1) && (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** cert-manager's part: owned Issuers and Certificates become Ready (a 404 means its CRDs are not installed). */
async function markCertManagerReady(): Promise<void> {
  for (const plural of ['issuers', 'certificates']) {
    const res = await adminKube().request<{ items?: ReadyLike[] }>('GET', `/apis/cert-manager.io/v1/${plural}?labelSelector=${encodeURIComponent(OWNER_LABEL)}`);
    for (const o of res.status === 200 ? (res.body.items ?? []) : []) {
      if (isReady(o)) continue;
      const now = new Date().toISOString();
      const status = { observedGeneration: o.metadata.generation ?? 1, conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: 'ready', lastTransitionTime: now }] };
      await adminKube().request('PATCH', `/apis/cert-manager.io/v1/namespaces/${o.metadata.namespace}/${plural}/${o.metadata.name}/status`, { status }, 'application/merge-patch+json');
    }
  }
}

/** Writes a Deployment's status as the Deployment controller would once its pods are (or stop being) available. */
export async function setDeploymentAvailable(namespace: string, name: string, available: boolean): Promise<void> {
  const d = await adminKube().must<DeploymentLike>(adminKube().request('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`));
  await markAvailable(d, available);
}

/** Starts marking owned Deployments Available; call the returned function to stop. */
export function simulateRollouts(intervalMs = 200): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await adminKube().request<{ items?: DeploymentLike[] }>('GET', `/apis/apps/v1/deployments?labelSelector=${encodeURIComponent(OWNER_LABEL)}`);
        for (const d of res.body.items ?? []) if (!rolledOut(d)) await markAvailable(d);
        await markCertManagerReady();
      } catch {
        // The API server is away (a test restarting it): the real controllers would wait too.
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
