// Installs CustomResourceDefinitions from YAML files and waits until each is Established.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { waitFor } from './net.ts';
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
