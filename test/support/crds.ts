// Installs CustomResourceDefinitions from YAML files and waits until each is Established.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { waitFor } from './net.ts';
import { UPSTREAM_CRDS } from './testdata.ts';
import type { KubeObject, TestKube } from './kube.ts';

export async function installCrds(kube: TestKube, files: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  for (const file of files) {
    for (const doc of yaml.loadAll(await readFile(file, 'utf8'))) {
      const crd = doc as KubeObject | null;
      if (!crd || crd.kind !== 'CustomResourceDefinition') continue;
      await kube.must(kube.apply(crd, 'customresourcedefinitions'));
      names.push(crd.metadata.name);
    }
  }
  for (const name of names) {
    await waitFor(`CRD ${name} Established`, async () => {
      const r = await kube.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
      return !!r.body.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
  return names;
}

/** Every *.yaml file directly in `dir`. */
export async function yamlFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort().map((f) => join(dir, f));
}

const classicDir = new URL('../../config/crd/classic/', import.meta.url);

/**
 * Installs the OLM classic CRDs (config/crd/classic, operators.coreos.com) into the test cluster and
 * waits until each is Established; safe to call from several test files (apply is idempotent).
 * The global setup does not install them: only the classic tests need them.
 */
export async function installClassicCRDs(kube: TestKube): Promise<string[]> {
  return installCrds(kube, await yamlFiles(classicDir.pathname));
}

/** openshift/api's ClusterOperator and ClusterVersion CRDs (config.openshift.io/v1), unmodified copies in testdata. */
export const OPENSHIFT_CRD_FILES: readonly string[] = [
  '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml',
  '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
].map((f) => join(UPSTREAM_CRDS.openshift, f));

/**
 * Installs OpenShift's ClusterOperator and ClusterVersion CRDs into the test cluster and waits until they are
 * Established; safe to call from several test files (apply is idempotent). Like the classic CRDs, only the files
 * that need them install them, so the other tests run on a plain Kubernetes API.
 */
export async function installOpenShiftCRDs(kube: TestKube): Promise<string[]> {
  return installCrds(kube, OPENSHIFT_CRD_FILES);
}

/** The experimental feature set's OLM v1 CRDs (config/crd/experimental: ClusterObjectSet, the experimental ClusterExtension fields). */
export async function installExperimentalCRDs(kube: TestKube): Promise<string[]> {
  return installCrds(kube, await yamlFiles(new URL('../../config/crd/experimental/', import.meta.url).pathname));
}

/** The standard feature set's OLM v1 CRDs (config/crd/bases), as the global setup installs them. */
export async function installStandardCRDs(kube: TestKube): Promise<string[]> {
  return installCrds(kube, await yamlFiles(new URL('../../config/crd/bases/', import.meta.url).pathname));
}

/**
 * cert-manager's Certificate and Issuer CRDs as a cert-manager installation serves them (cert-manager.io/v1, schema
 * left open): the kinds of the default webhook certificate provider and of the deploy guide's cert-manager component.
 */
export function certManagerCrds(): KubeObject[] {
  return (
    [
      ['Certificate', 'certificates'],
      ['Issuer', 'issuers'],
    ] as const
  ).map(([kind, plural]) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.cert-manager.io` },
    spec: {
      group: 'cert-manager.io',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  }));
}
