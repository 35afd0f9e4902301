// The image users deploy, running: cmd/image.ts builds it without a container engine on the base assembled here
// (Node.js from the npm registry and the Debian libraries it links), pushes it to a registry, and `config/install` —
// the guide's installation, its `olmv1` image named to that registry as docs/deploy.md's `images:` does — is applied on
// a cluster whose node is real (test/support/real-node.ts). containerd pulls the image; catalogd, operator-controller
// and olm-classic run as Pods with their Deployments' securityContext (non-root, read-only root filesystem, no
// privilege escalation), turn Ready from their real probes, reach the API server through the `kubernetes` Service, and
// elect one leader among two replicas. catalogd's certificate comes from the Secret the cert-manager component names
// (this test plays cert-manager's part, as guide.test.ts does). Then the guide's checks, all done by the Pods: the
// ClusterCatalog sample served over HTTPS, the ClusterExtension sample installed from it and the demo operator's Pod
// Running on the real node and answering a Greeting; the CatalogSource sample READY and a Subscription's CSV
// Succeeded; and, with the package-server component, the PackageManifest APIService Available and listing the demo.
// The overlay adds `--insecure-registries` (the registry speaks plain HTTP), as a user's overlay would.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleControllers } from '../../../cmd/bundle.ts';
import { buildAndPush } from '../../../cmd/image.ts';
import { RegistryClient } from '../../../internal/shared/image/index.ts';
import type { KubeObject } from '../../support/kube.ts';
import { realNodesUnavailable } from '../../support/real-node.ts';
import { readFile } from 'node:fs/promises';
import { waitFor } from '../../support/net.ts';
import { PACKAGES_APISERVICE } from '../../support/package-server.ts';
import { DEMO_REGISTRY, DeployCluster, NAMESPACE, root } from './cluster.ts';

const unavailable = realNodesUnavailable();
const DEPLOYMENTS = ['catalogd', 'operator-controller', 'olm-classic'] as const;

type Pod = KubeObject & {
  spec: { nodeName?: string; containers: { securityContext?: Record<string, unknown> }[] };
  status?: { phase?: string; containerStatuses?: { ready: boolean; restartCount: number; imageID?: string }[] };
};

describe.skipIf(unavailable)(`config/install on a real node${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let cluster: DeployCluster;
  let image: string;
  const dist = join(root, '.cache', 'test-bundles', `image-dist-${process.pid}`);

  beforeAll(async () => {
    cluster = await DeployCluster.start({ realNodes: 1 });
    await bundleControllers(dist);
    const client = new RegistryClient({ insecureRegistries: [cluster.registry.host] });
    try {
      image = (await buildAndPush({ target: `${cluster.registry.host}/olm/olmv1:dev`, dist, client })).digestRef;
    } finally {
      await client.close();
    }
  }, 600_000);

  afterAll(async () => {
    await cluster?.stop();
    await rm(dist, { recursive: true, force: true });
  }, 120_000);

  it('runs catalogd, operator-controller and olm-classic as Pods of the image, Ready, non-root on a read-only root, one leader each', { timeout: 420_000 }, async () => {
    // The guide's installation with its image named to the registry (docs/deploy.md, `images:` in the kustomization).
    const overlay = join(cluster.work, 'install');
    await mkdir(overlay, { recursive: true });
    const [name, digest] = image.split('@') as [string, string];
    const insecure = DEPLOYMENTS.map((d) => ({
      target: { group: 'apps', version: 'v1', kind: 'Deployment', name: d },
      patch: yaml.dump([{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: `--insecure-registries=${cluster.registry.host}` }]),
    }));
    await writeFile(
      join(overlay, 'kustomization.yaml'),
      yaml.dump({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [relative(overlay, join(root, 'config', 'install'))],
        components: [relative(overlay, join(root, 'config', 'components', 'package-server'))],
        images: [{ name: 'olmv1', newName: name, digest }],
        patches: insecure,
      }),
    );
    const objects = yaml.loadAll(await cluster.kubectl(['kustomize', overlay])).filter((o): o is KubeObject => !!o);
    await cluster.serveCertManagerKinds();
    await cluster.kubectl(['apply', '--server-side', '-k', overlay]);
    const certificate = objects.find((o) => o.kind === 'Certificate' && o.metadata.name === 'catalogd-service-cert') as KubeObject & { spec: { dnsNames: string[]; secretName: string } };
    await cluster.issueCatalogdCertificate(certificate);
    await cluster.kubectl(['-n', NAMESPACE, 'rollout', 'status', '--timeout=300s', ...DEPLOYMENTS.map((d) => `deployment/${d}`)]);

    const pods = (await cluster.kube.must<{ items: Pod[] }>(cluster.kube.request('GET', `/api/v1/namespaces/${NAMESPACE}/pods`))).items;
    for (const deployment of DEPLOYMENTS) {
      const own = pods.filter((p) => p.metadata.name.startsWith(`${deployment}-`) && p.status?.phase === 'Running');
      expect(own.length, `${deployment}'s running Pods`).toBeGreaterThanOrEqual(1);
      for (const pod of own) {
        expect(pod.spec.nodeName).toBe('real-node-0');
        expect(pod.status!.containerStatuses![0]!.ready).toBe(true);
        expect(pod.status!.containerStatuses![0]!.imageID).toContain(digest);
        expect(pod.spec.containers[0]!.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
        // Inside the container: the process's user is 65532, and the root filesystem refuses a write.
        const uid = await cluster.kubectl(['-n', NAMESPACE, 'exec', pod.metadata.name, '--', 'sh', '-c', 'while read k v rest; do [ "$k" = Uid: ] && echo "$v"; done < /proc/1/status; true']);
        expect(uid.trim()).toBe('65532');
        const write = await cluster
          .kubectl(['-n', NAMESPACE, 'exec', pod.metadata.name, '--', 'sh', '-c', 'echo x > /app/probe 2>&1 || echo refused'])
          .catch((err: Error) => err.message);
        expect(write).toContain('refused');
      }
      // Two replicas of catalogd and operator-controller elect one leader: the Lease names a running Pod.
      const replicas = (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment) as KubeObject & { spec: { replicas?: number } }).spec.replicas ?? 1;
      if (replicas > 1) expect(own.length).toBe(replicas);
    }
    const leases = (await cluster.kube.must<{ items: { metadata: { name: string }; spec: { holderIdentity?: string } }[] }>(cluster.kube.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases`))).items;
    const holders = leases.map((l) => l.spec.holderIdentity ?? '');
    for (const deployment of DEPLOYMENTS) expect(holders.some((h) => h.startsWith(`${deployment}-`)), `a Lease held by a ${deployment} Pod (${holders.join(', ')})`).toBe(true);
  });

  it("passes the guide's checks with every controller in its Pod: OLM v1, OLM classic and the package server", { timeout: 420_000 }, async () => {
    const host = cluster.registry.host;
    await cluster.publishDemo(host);
    // OLM v1: the ClusterCatalog served over HTTPS by catalogd's Pods, the ClusterExtension installed from it by
    // operator-controller's, the demo operator's own Pod pulled and Running on the real node.
    await cluster.applySample('clustercatalog.yaml', host);
    await cluster.kubectl(['apply', '--server-side', '-f', join(root, 'config', 'samples', 'clusterextension.yaml')]);
    await cluster.waitForCondition('/apis/olm.operatorframework.io/v1/clustercatalogs/olm-demo', 'Serving', 120_000);
    const catalog = await cluster.kube.must<{ status: { urls: { base: string } } }>(cluster.kube.request('GET', '/apis/olm.operatorframework.io/v1/clustercatalogs/olm-demo'));
    expect(catalog.status.urls.base).toBe(`https://catalogd-service.${NAMESPACE}.svc/catalogs/olm-demo`);
    await cluster.demoInstalled();
    const operatorPods = (await cluster.kube.must<{ items: Pod[] }>(cluster.kube.request('GET', '/api/v1/namespaces/demo/pods?labelSelector=app.kubernetes.io%2Fname%3Ddemo-operator'))).items;
    expect(operatorPods.map((p) => [p.spec.nodeName, p.status?.phase, p.status?.containerStatuses?.[0]?.ready])).toEqual([['real-node-0', 'Running', true]]);
    // The operator itself answers: a Greeting gets its message from the running manager.
    await cluster.kube.must(
      cluster.kube.request('POST', '/apis/demo.olm.dev/v1alpha1/namespaces/demo/greetings', {
        apiVersion: 'demo.olm.dev/v1alpha1',
        kind: 'Greeting',
        metadata: { name: 'hello' },
        spec: { recipient: 'cluster admin', style: 'Formal' },
      }),
    );
    await waitFor('the Greeting answered by the demo operator', async () => {
      const g = await cluster.kube.must<{ status?: { message?: string } }>(cluster.kube.request('GET', '/apis/demo.olm.dev/v1alpha1/namespaces/demo/greetings/hello'));
      return g.status?.message === 'Good day, cluster admin.';
    });

    // OLM classic: the CatalogSource sample READY, the guide's Subscription's CSV Succeeded, its Deployment's Pod Running.
    const sourceSample = (await readFile(join(root, 'config', 'samples', 'catalogsource.yaml'), 'utf8')).replaceAll(DEMO_REGISTRY, host);
    await cluster.kubectl(['apply', '--server-side', '-f', '-'], sourceSample);
    await cluster.kubectl(['-n', 'olm', 'wait', '--for=jsonpath={.status.connectionState.lastObservedState}=READY', '--timeout=120s', 'catalogsource/olm-demo']);
    const guide = await readFile(join(root, 'docs', 'deploy.md'), 'utf8');
    await cluster.kubectl(['apply', '--server-side', '-f', '-'], /```yaml\n(# OLM classic: a Subscription[\s\S]*?)```/.exec(guide)![1]!);
    await waitFor('the Subscription at the channel head', async () => {
      const out = await cluster.kubectl(['-n', 'demo-classic', 'get', 'subscription', 'demo-operator', '-o', 'jsonpath={.status.state} {.status.installedCSV}']);
      return out === 'AtLatestKnown demo-operator.v0.3.0';
    }, { timeoutMs: 180_000 });
    await cluster.kubectl(['-n', 'demo-classic', 'wait', '--for=jsonpath={.status.phase}=Succeeded', '--timeout=180s', 'csv/demo-operator.v0.3.0']);

    // The package server in olm-classic's Pods behind the APIService: Available, and listing the demo.
    await cluster.kubectl(['wait', '--for=condition=Available', '--timeout=120s', `apiservice/${PACKAGES_APISERVICE}`]);
    await waitFor('the demo in PackageManifests', async () => (await cluster.kubectl(['-n', 'olm', 'get', 'packagemanifests', '-o', 'name'])).includes('packagemanifest.packages.operators.coreos.com/demo-operator'));
  });
});
