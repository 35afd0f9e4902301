// The 13 registry+v1 bundle checks, in upstream's order (render/registryv1/registryv1.go), with
// upstream's messages and per-check ordering of messages. Every check runs; all messages are kept.
import { dns1123SubdomainErrors, goStringSlice as goList } from '../../shared/gocompat/index.ts';
import { deploymentsOf, supportedInstallModes, webhooksOf, type RegistryV1, type WebhookDescription } from '../../shared/registryv1/index.ts';

export type BundleCheck = (rv1: RegistryV1) => string[];

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const sorted = (items: Iterable<string>): string[] => [...items].sort(byString);

function duplicates(names: readonly string[]): string[] {
  return sorted(new Set(names.filter((n, i) => names.indexOf(n) !== i)));
}

export const checkDeploymentSpecUniqueness: BundleCheck = (rv1) =>
  duplicates(deploymentsOf(rv1.csv).map((d) => d.name ?? '')).map(
    (d) => `cluster service version contains duplicate strategy deployment spec '${d}'`,
  );

export const checkDeploymentNameIsDNS1123SubDomain: BundleCheck = (rv1) => {
  const bad = new Map<string, string[]>();
  for (const d of deploymentsOf(rv1.csv)) {
    const errs = dns1123SubdomainErrors(d.name ?? '');
    if (errs.length > 0) bad.set(d.name ?? '', errs.sort(byString));
  }
  return sorted(bad.keys()).map((n) => `invalid cluster service version strategy deployment name '${n}': ${bad.get(n)!.join(', ')}`);
};

export const checkCRDResourceUniqueness: BundleCheck = (rv1) =>
  duplicates(rv1.crds.map((c) => c.metadata.name ?? '')).map((n) => `bundle contains duplicate custom resource definition '${n}'`);

export const checkOwnedCRDExistence: BundleCheck = (rv1) => {
  const present = new Set(rv1.crds.map((c) => c.metadata.name ?? ''));
  const missing = new Set<string>();
  for (const o of rv1.csv.spec?.customresourcedefinitions?.owned ?? []) if (!present.has(o.name ?? '')) missing.add(o.name ?? '');
  return sorted(missing).map((n) => `cluster service definition references owned custom resource definition '${n}' not found in bundle`);
};

export const checkPackageNameNotEmpty: BundleCheck = (rv1) => (rv1.packageName === '' ? ['package name is empty'] : []);

const conversionWebhooks = (rv1: RegistryV1): WebhookDescription[] => webhooksOf(rv1.csv).filter((w) => w.type === 'ConversionWebhook');

export const checkConversionWebhookSupport: BundleCheck = (rv1) => {
  const names = conversionWebhooks(rv1).map((w) => w.generateName ?? '');
  if (names.length === 0) return [];
  const modes = supportedInstallModes(rv1.csv);
  if (modes.length === 1 && modes[0] === 'AllNamespaces') return [];
  return names.map(
    (n) =>
      `bundle contains conversion webhook ${JSON.stringify(n)} and supports install modes ${goList(modes)} - conversion webhooks are only supported for bundles that only support AllNamespaces install mode`,
  );
};

const compareWebhooks = (a: WebhookDescription, b: WebhookDescription): number =>
  byString(a.type ?? '', b.type ?? '') || byString(a.generateName ?? '', b.generateName ?? '');

export const checkWebhookDeploymentReferentialIntegrity: BundleCheck = (rv1) => {
  const deployments = new Set(deploymentsOf(rv1.csv).map((d) => d.name ?? ''));
  const byDeployment = new Map<string, WebhookDescription[]>();
  for (const w of webhooksOf(rv1.csv)) {
    const d = w.deploymentName ?? '';
    if (deployments.has(d)) continue;
    byDeployment.set(d, [...(byDeployment.get(d) ?? []), w]);
  }
  return sorted(byDeployment.keys()).flatMap((d) =>
    byDeployment
      .get(d)!
      .sort(compareWebhooks)
      .map((w) => `webhook of type '${w.type ?? ''}' with name '${w.generateName ?? ''}' references non-existent deployment '${d}'`),
  );
};

function groupByType<T>(rv1: RegistryV1, value: (w: WebhookDescription) => T): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const w of webhooksOf(rv1.csv)) out.set(w.type ?? '', [...(out.get(w.type ?? '') ?? []), value(w)]);
  return out;
}

export const checkWebhookNameUniqueness: BundleCheck = (rv1) => {
  const byType = groupByType(rv1, (w) => w.generateName ?? '');
  return sorted(byType.keys()).flatMap((t) => duplicates(byType.get(t)!).map((n) => `duplicate webhook '${n}' of type '${t}'`));
};

export const checkWebhookNameIsDNS1123SubDomain: BundleCheck = (rv1) => {
  const byType = groupByType(rv1, (w) => w.generateName ?? '');
  return sorted(byType.keys()).flatMap((t) => {
    const bad = new Map<string, string[]>();
    for (const n of byType.get(t)!) {
      const errs = dns1123SubdomainErrors(n);
      if (errs.length > 0) bad.set(n, errs.sort(byString));
    }
    return sorted(bad.keys()).map((n) => `webhook of type '${t}' has invalid name '${n}': ${bad.get(n)!.join(',')}`);
  });
};

export const checkConversionWebhookCRDReferenceUniqueness: BundleCheck = (rv1) => {
  const byCRD = new Map<string, string[]>();
  for (const w of conversionWebhooks(rv1)) {
    for (const crd of w.conversionCRDs ?? []) byCRD.set(crd, [...(byCRD.get(crd) ?? []), w.generateName ?? '']);
  }
  return sorted([...byCRD.keys()].filter((c) => byCRD.get(c)!.length > 1)).map(
    (crd) => `conversion webhooks [${sorted(byCRD.get(crd)!).join(',')}] reference same custom resource definition '${crd}'`,
  );
};

export const checkConversionWebhooksReferenceOwnedCRDs: BundleCheck = (rv1) => {
  const hooks = conversionWebhooks(rv1);
  if (hooks.length === 0) return [];
  const owned = new Set((rv1.csv.spec?.customresourcedefinitions?.owned ?? []).map((o) => o.name ?? ''));
  return [...hooks]
    .sort((a, b) => byString(a.generateName ?? '', b.generateName ?? ''))
    .flatMap((w) =>
      sorted(w.conversionCRDs ?? [])
        .filter((crd) => !owned.has(crd))
        .map((crd) => `conversion webhook '${w.generateName ?? ''}' references custom resource definition '${crd}' not owned bundle`),
    );
};

const FORBIDDEN_GROUPS = new Set(['olm.operatorframework.io', '*']);
const FORBIDDEN_ADMISSION_RESOURCES = new Set([
  '*',
  'mutatingwebhookconfiguration',
  'mutatingwebhookconfigurations',
  'validatingwebhookconfiguration',
  'validatingwebhookconfigurations',
]);

export const checkWebhookRules: BundleCheck = (rv1) => {
  const errs: string[] = [];
  for (const w of webhooksOf(rv1.csv)) {
    if (w.type === 'ConversionWebhook') continue;
    const name = JSON.stringify(w.generateName ?? '');
    for (const rule of w.rules ?? []) {
      for (const group of rule.apiGroups ?? []) {
        if (FORBIDDEN_GROUPS.has(group)) {
          errs.push(`webhook ${name} contains forbidden rule: admission webhook rules cannot reference API group ${JSON.stringify(group)}`);
        }
        if (group !== 'admissionregistration.k8s.io') continue;
        for (const resource of rule.resources ?? []) {
          if (FORBIDDEN_ADMISSION_RESOURCES.has(resource.toLowerCase())) {
            errs.push(
              `webhook ${name} contains forbidden rule: admission webhook rules cannot reference resource ${JSON.stringify(resource)} for API group ${JSON.stringify(group)}`,
            );
          }
        }
      }
    }
  }
  return errs;
};

/**
 * operator-registry pkg/lib/bundle/supported_resources.go at v1.73.0 (the version upstream operator-controller v1.11
 * pins): kind → namespaced.
 */
export const SUPPORTED_KINDS: ReadonlyMap<string, boolean> = new Map([
  ['ClusterServiceVersion', true],
  ['CustomResourceDefinition', false],
  ['ClusterRole', false],
  ['ClusterRoleBinding', false],
  ['Service', true],
  ['ServiceAccount', true],
  ['Role', true],
  ['RoleBinding', true],
  ['PrometheusRule', true],
  ['ServiceMonitor', true],
  ['Secret', true],
  ['ConfigMap', true],
  ['PodDisruptionBudget', true],
  ['PriorityClass', false],
  ['VerticalPodAutoscaler', false],
  ['ConsoleYAMLSample', false],
  ['ConsoleQuickStart', false],
  ['ConsoleCLIDownload', false],
  ['ConsoleLink', false],
  ['ConsolePlugin', false],
  ['NetworkPolicy', true],
  ['PodMonitor', true],
]);

export const checkObjectSupport: BundleCheck = (rv1) =>
  rv1.others
    .filter((o) => !SUPPORTED_KINDS.has(o.kind ?? ''))
    .map((o) => `unsupported resource ${JSON.stringify(o.metadata.name ?? '')} with kind ${JSON.stringify(o.kind ?? '')}`);

/** Upstream's BundleValidator list, in order. */
export const BUNDLE_CHECKS: readonly BundleCheck[] = [
  checkDeploymentSpecUniqueness,
  checkDeploymentNameIsDNS1123SubDomain,
  checkCRDResourceUniqueness,
  checkOwnedCRDExistence,
  checkPackageNameNotEmpty,
  checkConversionWebhookSupport,
  checkWebhookDeploymentReferentialIntegrity,
  checkWebhookNameUniqueness,
  checkWebhookNameIsDNS1123SubDomain,
  checkConversionWebhookCRDReferenceUniqueness,
  checkConversionWebhooksReferenceOwnedCRDs,
  checkWebhookRules,
  checkObjectSupport,
];

/** Every check's messages, in order (upstream joins them with newlines). */
export function validateBundle(rv1: RegistryV1): string[] {
  return BUNDLE_CHECKS.flatMap((check) => check(rv1));
}
