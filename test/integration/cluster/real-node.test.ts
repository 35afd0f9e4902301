// A cluster of its own with one real node (test/support/real-node.ts): kubelet, containerd + runc, CNI and kube-proxy
// in a network namespace of this machine, CoreDNS as the cluster's DNS, every image from the local registry. A
// Deployment's Pod runs as a container and turns Ready from its real readiness probe; from inside it, the cluster's DNS
// names its Service and the Service's address reaches it through kube-proxy; the API server reaches the Pod (service
// proxy, logs); a failing probe takes it out of Ready; an image that is nowhere fails to pull; and the node has no way
// off the machine.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushClusterImages, type ClusterImages } from '../../support/cluster-images.ts';
import { ControlPlane } from '../../support/control-plane.ts';
import { TestKube } from '../../support/kube.ts';
import { processAlive, waitFor, waitForValue } from '../../support/net.ts';
import { NodeNetwork, REAL_NODE_LABEL, realNodesUnavailable } from '../../support/real-node.ts';
import { Registry } from '../../support/registry.ts';

const unavailable = realNodesUnavailable();
const NS = 'real-node-test';

type Pod = {
  metadata: { name: string };
  spec: { nodeName?: string };
  status?: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { ready: boolean; state?: { waiting?: { reason?: string; message?: string }; running?: object } }[];
  };
};

describe.skipIf(unavailable)(`a real node${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let network: NodeNetwork;
  let registry: Registry;
  let cp: ControlPlane;
  let kube: TestKube;
  let images: ClusterImages;

  beforeAll(async () => {
    network = await NodeNetwork.create();
    registry = new Registry({ address: network.gateway });
    await registry.start();
    cp = new ControlPlane({ nodes: 0, realNodes: { network, registryHost: registry.details.host } });
    kube = new TestKube(await cp.start());
    images = await pushClusterImages(registry.details.host);
    await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
  }, 600_000);

  afterAll(async () => {
    const pids = cp?.pids ?? [];
    await cp?.stop();
    await registry?.stop();
    await network?.destroy();
    expect(pids.filter(processAlive)).toEqual([]);
  }, 120_000);

  const pods = async (selector: string): Promise<Pod[]> =>
    (await kube.must<{ items: Pod[] }>(kube.request('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(selector)}`))).items;
  /** GET through the API server's proxy to the Pod's port 8080 (the API server dials the Pod's address). */
  const viaPod = async (pod: string, path: string): Promise<{ status: number; text: string }> => {
    const res = await kube.raw('GET', `/api/v1/namespaces/${NS}/pods/${pod}:8080/proxy${path}`);
    return { status: res.status, text: res.text };
  };

  it('registers as a Node with the real-node label, its own Pod range and address', async () => {
    const node = await kube.must<{ metadata: { labels: Record<string, string> }; status: { addresses: { type: string; address: string }[]; nodeInfo: { containerRuntimeVersion: string; kubeletVersion: string } } }>(
      kube.request('GET', '/api/v1/nodes/real-node-0'),
    );
    expect(node.metadata.labels[REAL_NODE_LABEL]).toBe('true');
    expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: network.nodeIp(0) });
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    expect(node.status.nodeInfo.kubeletVersion).toMatch(/^v1\.\d+\.\d+$/);
  });

  it('runs a Deployment as containers: Ready from its probe, named by the cluster DNS, reached through its Service', async () => {
    const labels = { app: 'web' };
    await kube.must(
      kube.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [
                {
                  name: 'web',
                  image: images.workload,
                  ports: [{ containerPort: 8080 }],
                  readinessProbe: { httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 1 },
                  livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
                  securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
                },
              ],
            },
          },
        },
      }),
    );
    await kube.must(
      kube.request('POST', `/api/v1/namespaces/${NS}/services`, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
      }),
    );
    const [pod] = await waitForValue(
      'the web Pod Ready',
      () => pods('app=web'),
      (ps) => ps.length === 1 && (ps[0]!.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    expect(pod!.spec.nodeName).toBe('real-node-0');
    expect(pod!.status!.podIP).toMatch(new RegExp(`^${network.podCidr(0).split('.').slice(0, 3).join('\\.')}\\.`));
    const svc = await kube.must<{ spec: { clusterIP: string } }>(kube.request('GET', `/api/v1/namespaces/${NS}/services/web`));

    // The cluster's DNS answers the Service's name with its address, from inside the Pod.
    expect(await viaPod(pod!.metadata.name, `/lookup?name=web.${NS}.svc.cluster.local`)).toEqual({ status: 200, text: svc.spec.clusterIP });
    // The Service's address reaches the Pod (kube-proxy's rules; the Pod reaches itself, hairpin).
    await waitFor('the Service answering from inside the Pod', async () => {
      const r = await viaPod(pod!.metadata.name, `/get?url=${encodeURIComponent(`http://web.${NS}.svc/healthz`)}`);
      return r.status === 200 && r.text === '200\nok';
    });
    // The API server's Service: its address from inside the Pod, by name.
    expect((await viaPod(pod!.metadata.name, '/lookup?name=kubernetes.default.svc.cluster.local')).text).toBe(`${network.serviceCidr.split('.').slice(0, 3).join('.')}.1`);
    // A name outside the cluster has no answer: the DNS asks no one beyond it.
    expect((await viaPod(pod!.metadata.name, '/lookup?name=example.com')).status).toBe(502);
    // The kubelet serves the container's log to the API server.
    const logs = await kube.raw('GET', `/api/v1/namespaces/${NS}/pods/${pod!.metadata.name}/log`);
    expect(logs.text).toContain('workload: serving on :8080');

    // A failing readiness probe takes the Pod out of Ready (and out of the Service).
    await viaPod(pod!.metadata.name, '/fail-readiness');
    await waitForValue(
      'the web Pod not Ready',
      () => pods('app=web'),
      (ps) => (ps[0]?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'False'),
    );
  });

  it('fails to pull an image that exists nowhere', async () => {
    for (const [name, image] of [
      ['missing', `${registry.details.host}/olm-test/missing:v1`],
      ['wrong', 'wrong/image'],
    ]) {
      await kube.must(
        kube.request('POST', `/api/v1/namespaces/${NS}/pods`, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, labels: { pull: name } },
          spec: { containers: [{ name: 'c', image }] },
        }),
      );
      const [pod] = await waitForValue(
        `Pod ${name} failing to pull ${image}`,
        () => pods(`pull=${name}`),
        (ps) => ['ErrImagePull', 'ImagePullBackOff'].includes(ps[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? ''),
      );
      expect(pod!.status!.containerStatuses![0]!.ready).toBe(false);
    }
  });

  it('gives the node no route off this machine', () => {
    const routes = execFileSync('ip', ['-n', network.netns(0), 'route', 'show'], { encoding: 'utf8' });
    expect(routes).not.toMatch(/^default/m);
    expect(routes).toContain(`${network.serviceCidr} via ${network.gateway}`);
  });
});
