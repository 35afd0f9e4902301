// The package server of a local olm-classic (a process on this machine, not a Pod) registered with the test cluster's
// aggregation layer: a Service of type ExternalName `localhost` — the aggregator resolves such a Service to
// <externalName>:<APIService port> and dials it, with no Endpoints (which refuse loopback addresses) and no
// --enable-aggregator-routing — and the APIService v1.packages.operators.coreos.com without a caBundle: the package
// server's leader sets it to the CA of the certificate it keeps for the Service (its --package-server-service, here
// `<namespace>/packageserver-service`), and the aggregator verifies the certificate for `<service>.<namespace>.svc`.
// Used by make run and test/integration/classic/packageserver.test.ts; `frontProxyAgent` asks a package server directly
// as the aggregator does (packageserver.test.ts, replicas.test.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent } from 'undici';
import type { ControlPlaneInfo } from './control-plane.ts';
import type { TestKube } from './kube.ts';
import { waitFor } from './net.ts';

export const PACKAGES_APISERVICE = 'v1.packages.operators.coreos.com';
export const PACKAGES_SERVICE = 'packageserver-service';
const SERVICE = PACKAGES_SERVICE;

/**
 * An HTTPS agent that dials a package server directly as the API server's aggregator does: presenting the control
 * plane's front-proxy client certificate (`clientCert: false`: none), not verifying the server's (self-signed)
 * certificate. The caller sends the `x-remote-user` / `x-remote-group` headers and closes the agent.
 */
export async function frontProxyAgent(cp: Pick<ControlPlaneInfo, 'dir'>, { clientCert = true }: { clientCert?: boolean } = {}): Promise<Agent> {
  const certs = join(cp.dir, 'certs');
  return new Agent({
    connect: {
      rejectUnauthorized: false,
      ...(clientCert && { cert: await readFile(join(certs, 'front-proxy-client.crt'), 'utf8'), key: await readFile(join(certs, 'front-proxy-client.key'), 'utf8') }),
    },
  });
}

/**
 * Creates (or replaces) the Service in `namespace` and the APIService, then waits until the APIService is Available
 * (the package server has set its caBundle and serves the certificate it names).
 */
export async function registerPackageServer(kube: TestKube, namespace: string, port: number): Promise<void> {
  await kube.request('DELETE', `/api/v1/namespaces/${namespace}/services/${SERVICE}`);
  await kube.must(
    kube.request('POST', `/api/v1/namespaces/${namespace}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: SERVICE },
      spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port }] },
    }),
  );
  await kube.request('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${PACKAGES_APISERVICE}`);
  await kube.must(
    kube.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: PACKAGES_APISERVICE },
      spec: {
        group: 'packages.operators.coreos.com',
        version: 'v1',
        groupPriorityMinimum: 2000,
        versionPriority: 15,
        service: { namespace, name: SERVICE, port },
      },
    }),
  );
  await waitFor(`APIService ${PACKAGES_APISERVICE} Available`, async () => {
    const svc = await kube.must<{ status?: { conditions?: { type: string; status: string }[] } }>(kube.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${PACKAGES_APISERVICE}`));
    return (svc.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True');
  });
}

/** Removes the APIService (first: an APIService without its server makes discovery partial and stalls namespace deletion). */
export async function unregisterPackageServer(kube: TestKube): Promise<void> {
  await kube.request('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${PACKAGES_APISERVICE}`);
}
