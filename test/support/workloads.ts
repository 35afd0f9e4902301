// Workload helpers for tests on the real cluster. Deployments roll out through the real
// kube-controller-manager and Pods run on KWOK's simulated nodes; a test that needs Pods not ready
// asks KWOK for it (the annotation its pod-not-ready stage selects), as a failing readiness probe
// would leave them. Nothing here writes the status of an object a Kubernetes controller owns.
//
// cert-manager is not part of Kubernetes, so `simulateCertManager` stands in for it: owned
// Issuers and Certificates become Ready as cert-manager would report them.
import { sleep } from '../../internal/shared/toolkit/index.ts';
import { NOT_READY_ANNOTATION } from './control-plane.ts';
import { adminKube } from './env.ts';
import { waitFor } from './net.ts';

const OWNER_LABEL = 'olm.operatorframework.io/owner-kind';

interface PodLike {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

const podReady = (p: PodLike): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The Pods of a Deployment (by its selector's matchLabels). */
export async function deploymentPods(namespace: string, name: string): Promise<PodLike[]> {
  const kube = adminKube();
  const d = await kube.must<{ spec: { selector: { matchLabels?: Record<string, string> } } }>(
    kube.request('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`),
  );
  const selector = Object.entries(d.spec.selector.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const pods = await kube.must<{ items: PodLike[] }>(kube.request('GET', `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`));
  return pods.items;
}

/**
 * Makes every Pod of a Deployment not ready (KWOK reports Running with Ready=False), or ready again,
 * and waits until the Pods say so. The Deployment controller then updates the Deployment's own
 * status.
 */
export async function setDeploymentPodsReady(namespace: string, name: string, ready: boolean): Promise<void> {
  const kube = adminKube();
  const pods = await deploymentPods(namespace, name);
  if (pods.length === 0) throw new Error(`deployment ${namespace}/${name} has no pods`);
  for (const p of pods) {
    await kube.must(
      kube.request(
        'PATCH',
        `/api/v1/namespaces/${namespace}/pods/${p.metadata.name}`,
        { metadata: { annotations: { [NOT_READY_ANNOTATION]: ready ? null : 'true' } } },
        'application/merge-patch+json',
      ),
    );
  }
  await waitFor(`pods of ${namespace}/${name} ${ready ? 'ready' : 'not ready'}`, async () => {
    const now = await deploymentPods(namespace, name);
    return now.length > 0 && now.every((p) => podReady(p) === ready);
  });
}

interface ReadyLike {
  metadata: { name: string; namespace: string; generation?: number };
  status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] };
}

const isReady = (o: ReadyLike): boolean =>
  o.status?.observedGeneration === (o.metadata.generation ?? 1) && (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** cert-manager's part: owned Issuers and Certificates become Ready (a 404 means its CRDs are not installed). */
async function markCertManagerReady(): Promise<void> {
  const kube = adminKube();
  for (const plural of ['issuers', 'certificates']) {
    const res = await kube.request<{ items?: ReadyLike[] }>('GET', `/apis/cert-manager.io/v1/${plural}?labelSelector=${encodeURIComponent(OWNER_LABEL)}`);
    for (const o of res.status === 200 ? (res.body.items ?? []) : []) {
      if (isReady(o)) continue;
      const now = new Date().toISOString();
      const status = { observedGeneration: o.metadata.generation ?? 1, conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: 'ready', lastTransitionTime: now }] };
      await kube.request('PATCH', `/apis/cert-manager.io/v1/namespaces/${o.metadata.namespace}/${plural}/${o.metadata.name}/status`, { status }, 'application/merge-patch+json');
    }
  }
}

/** Starts doing cert-manager's part for owned Issuers and Certificates; call the returned function to stop. */
export function simulateCertManager(intervalMs = 200): () => Promise<void> {
  const stop = new AbortController();
  const loop = (async () => {
    while (!stop.signal.aborted) {
      try {
        await markCertManagerReady();
      } catch {
        // The API server is away (a test restarting it): cert-manager would wait too.
      }
      await sleep(intervalMs, stop.signal);
    }
  })();
  return async () => {
    stop.abort();
    await loop;
  };
}
