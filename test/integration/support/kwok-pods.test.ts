// What the simulated nodes report for Pods (test/envtest/kwok/stages.yaml), as a kubelet would: a container whose
// image cannot be pulled waits in ImagePullBackOff and its Deployment never becomes Available; a Pod is first
// Ready only after its readiness probes' initialDelaySeconds.
import { beforeAll, describe, expect, it } from 'vitest';
import { adminKube, testNamespaces } from '../../support/env.ts';
import { waitFor } from '../../support/net.ts';

interface PodLike {
  metadata: { name: string; creationTimestamp: string };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    containerStatuses?: { name: string; ready: boolean; state?: { waiting?: { reason?: string; message?: string } } }[];
  };
}

const namespaces = testNamespaces();
let ns = '';

beforeAll(async () => {
  ns = await namespaces.create('kwok-pods');
});

function deployment(name: string, container: Record<string, unknown>): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', ...container }] } },
    },
  };
}

async function podsOf(app: string): Promise<PodLike[]> {
  const kube = adminKube();
  return (await kube.must<{ items: PodLike[] }>(kube.request('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`))).items;
}

describe('KWOK pod stages', () => {
  for (const image of ['wrong/image', 'does-not-exist:latest']) {
    it(`a container of image ${image} waits in ImagePullBackOff, its Pod Pending, its Deployment not Available`, async () => {
      const kube = adminKube();
      const name = `bad-${image.replace(/[^a-z]/g, '')}`;
      await kube.must(kube.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment(name, { image })));
      let pod: PodLike | undefined;
      await waitFor(`pod of ${name} in ImagePullBackOff`, async () => {
        pod = (await podsOf(name))[0];
        return pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff';
      });
      expect(pod?.status?.phase).toBe('Pending');
      expect(pod?.status?.containerStatuses?.[0]).toMatchObject({ name: 'main', ready: false, state: { waiting: { message: `Back-off pulling image "${image}"` } } });
      expect(pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
      await waitFor(`deployment ${name} reports its replica unavailable`, async () => {
        const d = await kube.must<{ status?: { unavailableReplicas?: number; conditions?: { type: string; status: string }[] } }>(
          kube.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`),
        );
        return d.status?.unavailableReplicas === 1 && d.status.conditions?.find((c) => c.type === 'Available')?.status === 'False';
      });
    });
  }

  it('a Pod is first Ready no earlier than its readiness probe initialDelaySeconds', async () => {
    const kube = adminKube();
    const name = 'delayed';
    await kube.must(
      kube.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment(name, { image: 'busybox:1.36', readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 3 } })),
    );
    let pod: PodLike | undefined;
    await waitFor(`pod of ${name} Ready`, async () => {
      pod = (await podsOf(name))[0];
      return pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    });
    const ready = Date.parse(pod!.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime!);
    // Both timestamps have second resolution; the delay runs from scheduling, which is not before creation.
    expect(ready - Date.parse(pod!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(3000);
  });
});
