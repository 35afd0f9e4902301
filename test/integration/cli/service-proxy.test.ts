// catalogd's default status.urls.base names an in-cluster Service
// (`https://catalogd-service.olmv1-system.svc/catalogs/<name>`), which a user's machine cannot
// resolve. `kubectl olm search` / `list-available` then read the content through the API server's
// service proxy. Here catalogd runs in this process on the host's non-loopback address, announced
// as `cli-catalogd.<ns>.svc:<port>`, and the cluster gets what a real deployment has: a Service
// selecting a host-network Pod that runs on a (KWOK) Node whose address is this machine's, so the
// endpoints controller lists that address with the Pod as its target and the API server's proxy,
// which only dials addresses backed by a Pod, reaches catalogd. The name does not resolve on this
// machine, so only the proxy can answer.
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../../../internal/cli/index.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { catalogFiles } from '../../support/bundles.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { freePort, waitFor } from '../../support/net.ts';
import { createCatalog, deleteCatalogs, releaseFinalizers, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { startCatalogd, stopAll } from '../catalogd/harness.ts';

// Endpoints refuse loopback and link-local addresses; the API server dials this one.
const hostIp = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.'))?.address;
if (!hostIp) console.warn('[cli service-proxy] SKIPPED: this machine has no non-loopback IPv4 address for an Endpoints object');

const catalog = uniqueName('cli-proxied');
const node = uniqueName('cli-proxy-node');
let namespace = '';

beforeAll(async () => {
  if (!hostIp) return;
  namespace = await adminKube().namespace('cli-proxy');
  const port = await freePort();
  const service = 'cli-catalogd';
  await startCatalogd({ options: { catalogsServerAddr: `${hostIp}:${port}`, externalAddress: `${service}.${namespace}.svc:${port}` } });
  const kube = adminKube();
  // A node of its own (tainted: no other Pod lands there) whose address is this machine's.
  await kube.must(
    kube.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: node, annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' }, labels: { 'kubernetes.io/hostname': node, type: 'kwok' } },
      spec: { taints: [{ key: 'olmv1.test/cli-proxy', effect: 'NoSchedule' }] },
      status: { addresses: [{ type: 'InternalIP', address: hostIp }, { type: 'Hostname', address: node }], allocatable: { cpu: '4', memory: '8Gi', pods: '10' }, capacity: { cpu: '4', memory: '8Gi', pods: '10' } },
    }),
  );
  const labels = { app: service };
  await kube.must(kube.request('POST', `/api/v1/namespaces/${namespace}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: service }, spec: { selector: labels, ports: [{ name: 'http', port, targetPort: port }] } }));
  await kube.must(
    kube.request('POST', `/api/v1/namespaces/${namespace}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: service, labels },
      spec: {
        hostNetwork: true,
        nodeSelector: { 'kubernetes.io/hostname': node },
        tolerations: [{ key: 'olmv1.test/cli-proxy', operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'catalogd', image: 'registry.example.com/olm/catalogd:none', ports: [{ containerPort: port }] }],
      },
    }),
  );
  await waitFor(
    'the endpoints controller to list the catalogd Pod',
    async () => {
      const eps = await kube.request<{ subsets?: { addresses?: { ip: string; targetRef?: { name: string } }[] }[] }>('GET', `/api/v1/namespaces/${namespace}/endpoints/${service}`);
      return eps.status === 200 && (eps.body.subsets ?? []).some((s) => (s.addresses ?? []).some((a) => a.ip === hostIp && a.targetRef?.name === service));
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  ).catch(async (err: Error) => {
    const pod = await kube.request('GET', `/api/v1/namespaces/${namespace}/pods/${service}`);
    const n = await kube.request('GET', `/api/v1/nodes/${node}`);
    const eps = await kube.request('GET', `/api/v1/namespaces/${namespace}/endpoints/${service}`);
    throw new Error(`${err.message}\npod status: ${JSON.stringify(pod.body['status'])}\nnode status: ${JSON.stringify(n.body['status'])}\nendpoints: ${JSON.stringify(eps.body)}`);
  });
  const pushed = await pushCatalogImage(registry(), 'cli/proxied-catalog:latest', {
    files: catalogFiles('cli-proxied', [{ bundle: { name: 'cli-proxied.v2.0.0', version: '2.0.0', image: `${registry().host}/cli/proxied-bundle:v2.0.0` } }]),
  });
  await createCatalog(catalog, { ref: pushed.ref });
  await waitForCatalog(catalog, 'Serving', serving);
}, 180_000);

afterAll(async () => {
  if (!hostIp) return;
  await deleteCatalogs([catalog]).catch(() => undefined);
  await stopAll();
  await releaseFinalizers();
  if (namespace) await adminKube().request('DELETE', `/api/v1/namespaces/${namespace}`);
  await adminKube().request('DELETE', `/api/v1/nodes/${node}`);
}, 60_000);

describe.skipIf(!hostIp)('catalog content through the API server’s service proxy', () => {
  it('search and list-available read a catalog whose URL is an in-cluster Service', async () => {
    const env = { KUBECONFIG: controlPlane().kubeconfigPath };
    const c = await adminKube().must<{ status: { urls: { base: string } } }>(adminKube().request('GET', `/apis/olm.operatorframework.io/v1/clustercatalogs/${catalog}`));
    expect(c.status.urls.base).toMatch(new RegExp(`^http://cli-catalogd\\.${namespace}\\.svc:\\d+/catalogs/${catalog}$`));

    const s = await runCaptured(['search', '--catalog', catalog, '-o', 'json'], { env });
    expect(s.stderr).toBe('');
    expect(s.code).toBe(0);
    expect((JSON.parse(s.stdout) as { packages: { package: string; latest: string }[] }).packages).toEqual([expect.objectContaining({ package: 'cli-proxied', latest: '2.0.0' })]);

    const l = await runCaptured(['list-available', 'cli-proxied', '--catalog', catalog], { env });
    expect(l.code).toBe(0);
    expect(l.stdout).toMatch(new RegExp(`^${catalog} +stable \\(default\\) +2\\.0\\.0 +cli-proxied\\.v2\\.0\\.0 +head$`, 'm'));
  });
});
