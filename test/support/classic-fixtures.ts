// CSV fixtures for the classic tests and benches: what an InstallPlan would create, without any cluster access.
import * as ops from '../../api/operators/index.ts';

export interface CSVFixture {
  readonly name: string;
  readonly version?: string;
  readonly replaces?: string;
  readonly deployment?: string;
  readonly serviceAccount?: string;
  readonly installModes?: Partial<Record<'OwnNamespace' | 'SingleNamespace' | 'MultiNamespace' | 'AllNamespaces', boolean>>;
  readonly permissions?: object[];
  readonly clusterPermissions?: object[];
  readonly ownedCRDs?: { name: string; version: string; kind: string }[];
  readonly requiredCRDs?: { name: string; version: string; kind: string }[];
  readonly minKubeVersion?: string;
  readonly image?: string;
  /** Annotations of the pod template (e.g. KWOK's not-ready one). */
  readonly podAnnotations?: Record<string, string>;
  readonly progressDeadlineSeconds?: number;
}

/** A CSV with one Deployment of one replica (Pods run on KWOK nodes) and the given install modes and permissions. */
export function csvFor(f: CSVFixture): ops.ClusterServiceVersion {
  const deployment = f.deployment ?? `${f.name.split('.')[0]}-controller`;
  const sa = f.serviceAccount ?? 'operator';
  const modes = { OwnNamespace: true, SingleNamespace: true, MultiNamespace: true, AllNamespaces: true, ...(f.installModes ?? {}) };
  const app = deployment;
  return {
    apiVersion: ops.V1alpha1,
    kind: ops.ClusterServiceVersionKind,
    metadata: { name: f.name, annotations: { 'alm-examples': '[]' } },
    spec: {
      displayName: `Test operator ${f.name}`,
      version: f.version ?? '1.0.0',
      ...(f.replaces && { replaces: f.replaces }),
      ...(f.minKubeVersion && { minKubeVersion: f.minKubeVersion }),
      installModes: Object.entries(modes).map(([type, supported]) => ({ type, supported })),
      customresourcedefinitions: {
        ...(f.ownedCRDs && { owned: f.ownedCRDs.map((c) => ({ ...c, displayName: c.kind, description: c.kind })) }),
        ...(f.requiredCRDs && { required: f.requiredCRDs.map((c) => ({ ...c, displayName: c.kind, description: c.kind })) }),
      },
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: deployment,
              spec: {
                replicas: 1,
                ...(f.progressDeadlineSeconds !== undefined && { progressDeadlineSeconds: f.progressDeadlineSeconds }),
                selector: { matchLabels: { app } },
                template: {
                  metadata: { labels: { app }, ...(f.podAnnotations && { annotations: f.podAnnotations }) },
                  spec: { serviceAccountName: sa, containers: [{ name: 'manager', image: f.image ?? 'quay.example/test/operator:v1' }] },
                },
              },
            },
          ],
          ...(f.permissions && { permissions: [{ serviceAccountName: sa, rules: f.permissions as ops.KubeValue[] }] }),
          ...(f.clusterPermissions && { clusterPermissions: [{ serviceAccountName: sa, rules: f.clusterPermissions as ops.KubeValue[] }] }),
        },
      },
    },
  };
}

