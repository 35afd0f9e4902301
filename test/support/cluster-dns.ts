// The cluster's DNS on the real nodes, as kubeadm installs it: CoreDNS (test/envtest/coredns, in an image of the local
// registry) as the Deployment `coredns` in kube-system with its ServiceAccount and RBAC, its Corefile in a ConfigMap,
// and the Service `kube-dns` at the address every kubelet names as clusterDNS. The Corefile answers cluster.local
// only — no `forward` — so no query leaves this machine.
import type { TestKube } from './kube.ts';
import { waitFor } from './net.ts';
import { REAL_NODE_LABEL } from './real-node.ts';

const NS = 'kube-system';

const COREFILE = `.:53 {
    errors
    health {
        lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    cache 30
    loadbalance
}
`;

/** Creates (idempotently) CoreDNS and the kube-dns Service at `serviceIp`, and waits until a replica is available. */
export async function deployClusterDns(kube: TestKube, { image, serviceIp }: { image: string; serviceIp: string }): Promise<void> {
  const labels = { 'k8s-app': 'kube-dns' };
  const objects: [string, object][] = [
    ['/api/v1/namespaces/kube-system/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: NS } }],
    [
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'system:coredns' },
        rules: [
          { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
          { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
        ],
      },
    ],
    [
      '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'system:coredns' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
        subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: NS }],
      },
    ],
    ['/api/v1/namespaces/kube-system/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: NS }, data: { Corefile: COREFILE } }],
    [
      '/apis/apps/v1/namespaces/kube-system/deployments',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'coredns', namespace: NS, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              serviceAccountName: 'coredns',
              priorityClassName: 'system-cluster-critical',
              dnsPolicy: 'Default',
              nodeSelector: { [REAL_NODE_LABEL]: 'true' },
              containers: [
                {
                  name: 'coredns',
                  image,
                  args: ['-conf', '/etc/coredns/Corefile'],
                  ports: [
                    { name: 'dns', containerPort: 53, protocol: 'UDP' },
                    { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
                  ],
                  livenessProbe: { httpGet: { path: '/health', port: 8080 }, periodSeconds: 10, failureThreshold: 5 },
                  readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 1 },
                  securityContext: {
                    allowPrivilegeEscalation: false,
                    readOnlyRootFilesystem: true,
                    runAsNonRoot: true,
                    runAsUser: 65532,
                    capabilities: { drop: ['ALL'] },
                  },
                  volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
                },
              ],
              volumes: [{ name: 'config', configMap: { name: 'coredns' } }],
            },
          },
        },
      },
    ],
    [
      '/api/v1/namespaces/kube-system/services',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kube-dns', namespace: NS, labels },
        spec: {
          selector: labels,
          clusterIP: serviceIp,
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
            { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
          ],
        },
      },
    ],
  ];
  for (const [path, body] of objects) {
    const res = await kube.request('POST', path, body);
    if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await waitFor(
    'the cluster DNS (Deployment kube-system/coredns) available',
    async () => {
      const d = await kube.must<{ status?: { availableReplicas?: number } }>(kube.request('GET', '/apis/apps/v1/namespaces/kube-system/deployments/coredns'));
      return (d.status?.availableReplicas ?? 0) > 0;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
}
