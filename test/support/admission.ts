// Installs the admission policies from config/admission (MutatingAdmissionPolicy and
// ValidatingAdmissionPolicy objects and their bindings) and waits until the API server enforces
// them: the ClusterCatalog metadata-name label shows up on a dry-run create, and a dry-run create of
// a ClusterExtension setting spec.serviceAccount is answered with the deprecation warning. And a test's own denying
// ValidatingAdmissionPolicy bound to one namespace (`createDenyPolicy`).
import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import { yamlFiles } from './crds.ts';
import type { KubeObject, TestKube } from './kube.ts';
import { waitFor } from './net.ts';

const PLURALS: Readonly<Record<string, string>> = {
  MutatingAdmissionPolicy: 'mutatingadmissionpolicies',
  MutatingAdmissionPolicyBinding: 'mutatingadmissionpolicybindings',
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
};

export const METADATA_NAME_LABEL = 'olm.operatorframework.io/metadata.name';

/** The ValidatingAdmissionPolicy (and its binding) that warns about ClusterExtension spec.serviceAccount. */
export const SERVICE_ACCOUNT_DEPRECATED_POLICY = 'clusterextension-serviceaccount-deprecated';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

/** The paths of the ValidatingAdmissionPolicy `name` and of its binding, the binding first (the order to delete them in). */
export const denyPolicyPaths = (name: string): string[] => [`${ADMISSION}/validatingadmissionpolicybindings/${name}`, `${ADMISSION}/validatingadmissionpolicies/${name}`];

/**
 * Creates the ValidatingAdmissionPolicy `name` (failurePolicy Fail) with `validations` on `resourceRules`, and its
 * binding (of the same name, validationActions Deny) to the namespace `ns`. The API server enforces it once it has
 * loaded it: the caller waits for a dry-run to be refused.
 */
export async function createDenyPolicy(kube: TestKube, name: string, ns: string, spec: { resourceRules: object[]; validations: object[] }): Promise<void> {
  await kube.must(
    kube.request('POST', `${ADMISSION}/validatingadmissionpolicies`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: spec.resourceRules }, validations: spec.validations },
    }),
  );
  await kube.must(
    kube.request('POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } } },
    }),
  );
}

/** Applies every policy and binding in `dir`'s YAML files; returns `Kind/name` of each. */
export async function installAdmissionPolicies(kube: TestKube, dir: string): Promise<string[]> {
  const installed: string[] = [];
  for (const file of await yamlFiles(dir)) {
    for (const doc of yaml.loadAll(await readFile(file, 'utf8'))) {
      const obj = doc as KubeObject | null;
      const plural = obj && PLURALS[obj.kind];
      if (!obj || !plural) continue;
      await kube.must(kube.apply(obj, plural));
      installed.push(`${obj.kind}/${obj.metadata.name}`);
    }
  }
  await waitFor('the ClusterCatalog metadata-name label policy to take effect', async () => {
    const probe = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: 'admission-probe' },
      spec: { source: { type: 'Image', image: { ref: 'registry.invalid/probe:latest' } } },
    };
    const r = await kube.request<{ metadata?: { labels?: Record<string, string> } }>(
      'POST',
      '/apis/olm.operatorframework.io/v1/clustercatalogs?dryRun=All',
      probe,
    );
    return r.body.metadata?.labels?.[METADATA_NAME_LABEL] === 'admission-probe';
  });
  if (installed.includes(`ValidatingAdmissionPolicyBinding/${SERVICE_ACCOUNT_DEPRECATED_POLICY}`)) {
    await waitFor('the ClusterExtension serviceAccount deprecation policy to take effect', async () => {
      const probe = {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterExtension',
        metadata: { name: 'admission-probe' },
        spec: { namespace: 'default', serviceAccount: { name: 'probe' }, source: { sourceType: 'Catalog', catalog: { packageName: 'probe' } } },
      };
      const r = await kube.request('POST', '/apis/olm.operatorframework.io/v1/clusterextensions?dryRun=All', probe);
      return (r.warnings ?? []).some((w) => w.includes(`'${SERVICE_ACCOUNT_DEPRECATED_POLICY}'`));
    });
  }
  return installed;
}
