// One Deployment of a CSV's install strategy (spec.install.spec.deployments[i]) as both OLMs build it: the spec
// as Go's typed appsv1.DeploymentSpec marshals it, the pod template's annotations as the caller merged them,
// revisionHistoryLimit 1 (neither OLM supports rollbacks), the webhook/APIService certificate volumes when a
// certificate secret is given, the deployment configuration (v1's deploymentConfig, classic's Subscription
// spec.config: the same injection rules) and resource quantities in Go's canonical form.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { StrategyDeploymentSpec } from './csv.ts';
import { applyDeploymentConfig, type DeploymentConfig } from './deployment-config.ts';
import { canonicalizeResources, canonicalQuantity } from './quantity.ts';

type Obj = Record<string, unknown>;

/** Where the serving certificate of a webhook or APIService deployment lives. */
export interface CertSecret {
  readonly secretName: string;
  readonly certificateKey: string;
  readonly privateKeyKey: string;
}

export interface StrategyDeploymentOptions {
  readonly namespace: string;
  /** The pod template's annotations, already merged as the caller's OLM merges them (replaces the template's). */
  readonly templateAnnotations: (templateAnnotations: Readonly<Record<string, string>>) => Record<string, string>;
  /** Labels of the Deployment; default the strategy's `label`. */
  readonly labels?: Record<string, string>;
  readonly certSecret?: CertSecret;
  readonly config?: DeploymentConfig;
}

const CERT_VOLUMES = [
  { name: 'webhook-cert', path: '/tmp/k8s-webhook-server/serving-certs', cert: 'tls.crt', key: 'tls.key' },
  { name: 'apiservice-cert', path: '/apiserver.local.config/certificates', cert: 'apiserver.crt', key: 'apiserver.key' },
] as const;

/** Mounts the certificate secret at both OLMs' well-known paths, replacing volumes already mounted there. */
export function ensureCertVolumes(podSpec: Obj, secret: CertSecret): void {
  const remove = new Set<unknown>(CERT_VOLUMES.map((c) => c.name));
  const paths = new Set<unknown>(CERT_VOLUMES.map((c) => c.path));
  const containers = (podSpec['containers'] ?? []) as Obj[];
  for (const c of containers) for (const m of (c['volumeMounts'] ?? []) as Obj[]) if (paths.has(m['mountPath'])) remove.add(m['name']);
  podSpec['volumes'] = [
    ...((podSpec['volumes'] ?? []) as Obj[]).filter((v) => !remove.has(v['name'])),
    ...CERT_VOLUMES.map((c) => ({
      name: c.name,
      secret: {
        secretName: secret.secretName,
        items: [
          { key: secret.certificateKey, path: c.cert },
          { key: secret.privateKeyKey, path: c.key },
        ],
      },
    })),
  ];
  for (const c of containers) {
    c['volumeMounts'] = [
      ...((c['volumeMounts'] ?? []) as Obj[]).filter((m) => !remove.has(m['name'])),
      ...CERT_VOLUMES.map((v) => ({ name: v.name, mountPath: v.path })),
    ];
  }
}

/** appsv1.DeploymentSpec fields Go always writes: `strategy`, a container's `resources`. */
export function typedDeploymentSpec(spec: Obj): Obj {
  spec['strategy'] ??= {};
  const template = (spec['template'] ??= {}) as Obj;
  const meta = (template['metadata'] ??= {}) as Obj;
  if (meta['creationTimestamp'] === null) delete meta['creationTimestamp'];
  const podSpec = (template['spec'] ??= {}) as Obj;
  podSpec['containers'] ??= null;
  for (const key of ['containers', 'initContainers']) {
    for (const c of (podSpec[key] ?? []) as Obj[]) c['resources'] ??= {};
  }
  return spec;
}

/** resource.Quantity fields of a pod spec in Go's canonical form (container resources, emptyDir sizeLimit). */
export function canonicalQuantities(podSpec: Obj): void {
  for (const key of ['containers', 'initContainers']) {
    for (const c of (podSpec[key] ?? []) as Obj[]) canonicalizeResources(c['resources']);
  }
  for (const v of (podSpec['volumes'] ?? []) as Obj[]) {
    const emptyDir = v['emptyDir'] as Obj | undefined;
    const limit = canonicalQuantity(emptyDir?.['sizeLimit']);
    if (emptyDir && limit !== undefined) emptyDir['sizeLimit'] = limit;
  }
}

/** The Deployment for one strategy deployment (a new object; the input is not changed). */
export function strategyDeployment(d: StrategyDeploymentSpec, opts: StrategyDeploymentOptions): KubeObject {
  const spec = typedDeploymentSpec(structuredClone(d.spec ?? {}));
  const template = spec['template'] as Obj;
  const tmeta = template['metadata'] as Obj;
  tmeta['annotations'] = opts.templateAnnotations({ ...((tmeta['annotations'] ?? {}) as Record<string, string>) });
  spec['revisionHistoryLimit'] = 1;
  const metadata: Obj = { name: d.name ?? '', namespace: opts.namespace };
  const labels = opts.labels ?? d.label;
  if (labels && Object.keys(labels).length > 0) metadata['labels'] = { ...labels };
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec, status: {} } as KubeObject;
  if (opts.certSecret) ensureCertVolumes(template['spec'] as Obj, opts.certSecret);
  applyDeploymentConfig(deployment, opts.config);
  canonicalQuantities(template['spec'] as Obj);
  return deployment;
}
