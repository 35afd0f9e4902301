// Scraping catalogd's and operator-controller's secure metrics as upstream's e2e does: HTTPS (the controller's own
// serving certificate, not verified), the bearer token of a ServiceAccount bound to the metrics-reader ClusterRole
// upstream ships (config/rbac: nonResourceURLs /metrics, get).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'node:https';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import type { TestKube } from './kube.ts';

/** A self-signed ECDSA P-256 pair for localhost / 127.0.0.1 in `dir` (as the e2e certificate upstream's cert-manager issues). */
export function selfSignedPair(dir: string, name = 'metrics'): { certFile: string; keyFile: string } {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}

/** The token of ServiceAccount `name` in `namespace`, bound (when `bound`) to a ClusterRole allowing GET /metrics. */
export async function metricsReaderToken(kube: TestKube, namespace: string, name: string, bound = true): Promise<string> {
  const token = await kube.serviceAccountToken(namespace, name);
  if (!bound) return token;
  const role = `${namespace}-${name}-metrics-reader`;
  await kube.must(
    kube.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    }),
  );
  await kube.must(
    kube.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    }),
  );
  return token;
}

export interface Scraped {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  /** The negotiated protocol and suite (IANA name). */
  readonly protocol: string;
  readonly cipher: string;
}

/** GET `url` over HTTPS (certificate not verified) with `token` as the bearer token; `tls` narrows the client's offer. */
export function scrapeMetrics(url: string, token?: string, tls: ConnectionOptions = {}): Promise<Scraped> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', rejectUnauthorized: false, agent: false, ...tls, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      const socket = res.socket as TLSSocket;
      const protocol = socket.getProtocol() ?? '';
      const cipher = socket.getCipher().standardName;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body, protocol, cipher }));
    });
    req.on('error', reject);
    req.end();
  });
}
