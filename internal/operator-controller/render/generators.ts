// The generators, in upstream's order (render/registryv1/registryv1.go); output order is
// generator order. Objects have the shape Go's typed structs marshal to (non-omitempty fields
// present, e.g. a Deployment's `status: {}`), so they equal upstream's golden files.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { certConfigFor, type CertificateProvider } from './certproviders.ts';
import {
  clusterPermissionsOf,
  deploymentsOf,
  permissionsOf,
  strategyDeployment,
  webhooksOf,
  type DeploymentConfig,
  type PolicyRule,
  type RegistryV1,
  type StrategyDeploymentPermissions,
  type WebhookDescription,
} from '../../shared/registryv1/index.ts';
import { uniqueName } from './names.ts';
import { SUPPORTED_KINDS } from './validators.ts';

export interface GenerateOptions {
  readonly installNamespace: string;
  readonly targetNamespaces: readonly string[];
  readonly certProvider?: CertificateProvider;
  readonly deploymentConfig?: DeploymentConfig;
}

export type Generator = (rv1: RegistryV1, opts: GenerateOptions) => KubeObject[];

/** A generator failing on bundle content (upstream returns these from Render). */
export class GenerateError extends Error {
  override readonly name = 'GenerateError';
}

type Obj = Record<string, unknown>;
const isAllNamespaces = (targets: readonly string[]): boolean => targets.length === 1 && targets[0] === '';
const saNameOrDefault = (name: string | undefined): string => (name === undefined || name === '' ? 'default' : name);
const RBAC = 'rbac.authorization.k8s.io';

/** rbacv1.PolicyRule as Go marshals it: verbs always, the rest only when non-empty. */
function typedRule(r: PolicyRule): Obj {
  const out: Obj = { verbs: r.verbs ?? null };
  for (const k of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
    const v = r[k];
    if (v && v.length > 0) out[k] = [...v];
  }
  return out;
}
const typedRules = (rules: PolicyRule[] | null | undefined): Obj[] | null => (rules == null ? null : rules.map(typedRule));

export const serviceAccountGenerator: Generator = (rv1, opts) => {
  const names = new Set([...permissionsOf(rv1.csv), ...clusterPermissionsOf(rv1.csv)].map((p) => saNameOrDefault(p.serviceAccountName)));
  return [...names]
    .filter((n) => n !== 'default')
    .sort()
    .map((name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: opts.installNamespace } }));
};

/** One permission entry's rules: a Role and RoleBinding in `namespace`, or without one a ClusterRole and ClusterRoleBinding. */
function rbacFor(rv1: RegistryV1, p: StrategyDeploymentPermissions, installNamespace: string, namespace?: string): KubeObject[] {
  const sa = saNameOrDefault(p.serviceAccountName);
  const name = uniqueName(`${rv1.csv.metadata.name ?? ''}-${sa}`, p);
  const kind = namespace === undefined ? 'ClusterRole' : 'Role';
  const metadata = (): KubeObject['metadata'] => (namespace === undefined ? { name } : { name, namespace });
  return [
    { apiVersion: `${RBAC}/v1`, kind, metadata: metadata(), rules: typedRules(p.rules) },
    { apiVersion: `${RBAC}/v1`, kind: `${kind}Binding`, metadata: metadata(), roleRef: { apiGroup: RBAC, kind, name }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace: installNamespace }] },
  ];
}

export const permissionsGenerator: Generator = (rv1, opts) => {
  if (isAllNamespaces(opts.targetNamespaces)) return [];
  return opts.targetNamespaces.flatMap((ns) => permissionsOf(rv1.csv).flatMap((p) => rbacFor(rv1, p, opts.installNamespace, ns)));
};

const NAMESPACES_RULE: PolicyRule = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] };

export const clusterPermissionsGenerator: Generator = (rv1, opts) => {
  const all: StrategyDeploymentPermissions[] = [...clusterPermissionsOf(rv1.csv)];
  if (isAllNamespaces(opts.targetNamespaces)) {
    for (const p of permissionsOf(rv1.csv)) all.push({ ...p, rules: [...(p.rules ?? []), NAMESPACES_RULE] });
  }
  return all.flatMap((p) => rbacFor(rv1, p, opts.installNamespace));
};

/** apiextensions/v1 CustomResourceDefinition as Go marshals it after a typed decode. */
function typedCRD(crd: KubeObject): KubeObject {
  const out = structuredClone(crd);
  const meta = out.metadata;
  if (meta.creationTimestamp === null) delete meta.creationTimestamp;
  const spec = (out['spec'] ?? {}) as Obj;
  if (spec['preserveUnknownFields'] === false) delete spec['preserveUnknownFields'];
  out['spec'] = spec;
  const status = (out['status'] ?? {}) as Obj;
  const accepted = (status['acceptedNames'] ?? {}) as Obj;
  out['status'] = {
    ...status,
    acceptedNames: { ...accepted, kind: accepted['kind'] ?? '', plural: accepted['plural'] ?? '' },
    conditions: status['conditions'] ?? null,
    storedVersions: status['storedVersions'] ?? null,
  };
  return out;
}

export const crdGenerator: Generator = (rv1, opts) => {
  const conversionFor = new Map<string, WebhookDescription>();
  for (const w of webhooksOf(rv1.csv)) {
    if (w.type !== 'ConversionWebhook') continue;
    for (const crd of w.conversionCRDs ?? []) {
      if (conversionFor.has(crd)) throw new GenerateError(`custom resource definition '${crd}' is referenced by multiple conversion webhook definitions`);
      conversionFor.set(crd, w);
    }
  }
  return rv1.crds.map((crd) => {
    const out = typedCRD(crd);
    const name = crd.metadata.name ?? '';
    const w = conversionFor.get(name);
    if (!w) return out;
    const spec = out['spec'] as Obj;
    if ((crd['spec'] as Obj | undefined)?.['preserveUnknownFields'] === true) {
      throw new GenerateError(
        `custom resource definition '${name}' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion`,
      );
    }
    const cfg = certConfigFor(w.deploymentName ?? '', opts.installNamespace);
    spec['conversion'] = {
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          service: { namespace: opts.installNamespace, name: cfg.serviceName, path: w.webhookPath ?? '/', port: w.containerPort ?? 0 },
        },
        conversionReviewVersions: w.admissionReviewVersions ?? null,
      },
    };
    opts.certProvider?.injectCABundle(out, cfg);
    return out;
  });
};

export const additionalResourcesGenerator: Generator = (rv1, opts) =>
  rv1.others.map((o) => {
    const namespaced = SUPPORTED_KINDS.get(o.kind ?? '');
    if (namespaced === undefined) {
      throw new GenerateError(`bundle contains unsupported resource: Name: ${o.metadata.name ?? ''}, Kind: ${o.kind ?? ''}`);
    }
    const out = structuredClone(o);
    if (namespaced) out.metadata.namespace = opts.installNamespace;
    return out;
  });

export const deploymentGenerator: Generator = (rv1, opts) => {
  const webhookDeployments = new Set(webhooksOf(rv1.csv).map((w) => w.deploymentName ?? ''));
  const csvAnnotations = rv1.csv.metadata.annotations ?? {};
  return deploymentsOf(rv1.csv).map((d) => {
    const certSecret =
      opts.certProvider && webhookDeployments.has(d.name ?? '') ? opts.certProvider.certSecretInfo(certConfigFor(d.name ?? '', opts.installNamespace)) : undefined;
    // v1: the CSV's annotations under the template's, then the target-namespace annotations.
    return strategyDeployment(d, {
      namespace: opts.installNamespace,
      templateAnnotations: (template) => ({
        ...csvAnnotations,
        ...template,
        'olm.targetNamespaces': opts.targetNamespaces.join(','),
        'olm.operatorNamespace': opts.installNamespace,
      }),
      ...(certSecret && { certSecret }),
      ...(opts.deploymentConfig && { config: opts.deploymentConfig }),
    });
  });
};

function namespaceSelector(targets: readonly string[]): Obj | undefined {
  if (targets.length === 0 || targets.includes('')) return undefined;
  return { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...targets] }] };
}

function webhookConfigGenerator(type: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook'): Generator {
  const kind = type === 'ValidatingAdmissionWebhook' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
  return (rv1, opts) =>
    webhooksOf(rv1.csv)
      .filter((w) => w.type === type)
      .map((w) => {
        const cfg = certConfigFor(w.deploymentName ?? '', opts.installNamespace);
        const name = (w.generateName ?? '').replace(/-$/, '');
        const service: Obj = { namespace: opts.installNamespace, name: cfg.serviceName };
        if (w.webhookPath !== undefined) service['path'] = w.webhookPath;
        service['port'] = w.containerPort ?? 0;
        const hook: Obj = { name, clientConfig: { service } };
        if (w.rules && w.rules.length > 0) hook['rules'] = structuredClone(w.rules);
        if (w.failurePolicy !== undefined) hook['failurePolicy'] = w.failurePolicy;
        if (w.matchPolicy !== undefined) hook['matchPolicy'] = w.matchPolicy;
        const nsSelector = namespaceSelector(opts.targetNamespaces);
        if (nsSelector) hook['namespaceSelector'] = nsSelector;
        if (w.objectSelector != null) hook['objectSelector'] = structuredClone(w.objectSelector);
        hook['sideEffects'] = w.sideEffects ?? null;
        if (w.timeoutSeconds != null) hook['timeoutSeconds'] = w.timeoutSeconds;
        hook['admissionReviewVersions'] = w.admissionReviewVersions ?? null;
        if (type === 'MutatingAdmissionWebhook' && w.reinvocationPolicy !== undefined) hook['reinvocationPolicy'] = w.reinvocationPolicy;
        const obj: KubeObject = {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind,
          metadata: { name, namespace: opts.installNamespace },
          webhooks: [hook],
        };
        opts.certProvider?.injectCABundle(obj, cfg);
        return obj;
      });
}

export const validatingWebhookGenerator: Generator = webhookConfigGenerator('ValidatingAdmissionWebhook');
export const mutatingWebhookGenerator: Generator = webhookConfigGenerator('MutatingAdmissionWebhook');

interface ServicePort {
  name: string;
  port: number;
  targetPort: number | string;
}

function webhookServicePort(w: WebhookDescription): ServicePort {
  const port = w.containerPort && w.containerPort > 0 ? w.containerPort : 443;
  return { name: String(port), port, targetPort: w.targetPort ?? port };
}

/** intstr.IntValue: an int, or a string parsed as an int (0 when it is not one). */
const intValue = (v: number | string): number => (typeof v === 'number' ? v : /^-?\d+$/.test(v) ? Number(v) : 0);

export const serviceGenerator: Generator = (rv1, opts) => {
  const portsByDeployment = new Map<string, Map<string, ServicePort>>();
  for (const w of webhooksOf(rv1.csv)) {
    const d = w.deploymentName ?? '';
    const ports = portsByDeployment.get(d) ?? new Map<string, ServicePort>();
    const p = webhookServicePort(w);
    ports.set(JSON.stringify(p), p);
    portsByDeployment.set(d, ports);
  }
  const objs: KubeObject[] = [];
  for (const d of deploymentsOf(rv1.csv)) {
    const ports = portsByDeployment.get(d.name ?? '');
    if (!ports) continue;
    const sortedPorts = [...ports.values()].sort((a, b) => a.port - b.port || intValue(a.targetPort) - intValue(b.targetPort));
    const cfg = certConfigFor(d.name ?? '', opts.installNamespace);
    const spec: Obj = { ports: sortedPorts };
    const matchLabels = (d.spec?.['selector'] as Obj | undefined)?.['matchLabels'];
    if (matchLabels && Object.keys(matchLabels).length > 0) spec['selector'] = structuredClone(matchLabels);
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: cfg.serviceName, namespace: opts.installNamespace },
      spec,
      status: { loadBalancer: {} },
    };
    opts.certProvider?.injectCABundle(svc, cfg);
    objs.push(svc);
  }
  return objs;
};

export const certProviderObjectsGenerator: Generator = (rv1, opts) => {
  if (!opts.certProvider) return [];
  const deployments = [...new Set(webhooksOf(rv1.csv).map((w) => w.deploymentName ?? ''))].sort();
  return deployments.flatMap((d) => opts.certProvider!.additionalObjects(certConfigFor(d, opts.installNamespace)));
};

/** Upstream's ResourceGenerators list, in order. */
export const GENERATORS: readonly Generator[] = [
  serviceAccountGenerator,
  permissionsGenerator,
  clusterPermissionsGenerator,
  crdGenerator,
  additionalResourcesGenerator,
  deploymentGenerator,
  validatingWebhookGenerator,
  mutatingWebhookGenerator,
  serviceGenerator,
  certProviderObjectsGenerator,
];
