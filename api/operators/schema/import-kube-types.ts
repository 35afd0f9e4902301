// Refreshes kube-types.json from upstream's classic CRDs (operator-framework/api's, copied in
// testdata/upstream/operator-framework-api/crds): takes the subtree at every site listed in kube-sites.ts, drops the root description
// (use sites write their own), checks that every site of one type agrees, and writes the types
// with sorted keys.   node --import tsx api/operators/schema/import-kube-types.ts [crd-dir]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import type { CustomResourceDefinition, JSONSchemaProps } from '../../v1/schema/types.ts';
import { kubeSites } from './kube-sites.ts';

const crdDir = process.argv[2] ?? fileURLToPath(new URL('../../../testdata/upstream/operator-framework-api/crds/', import.meta.url));

/** The schema node at a kube-sites path, or undefined. */
export function nodeAt(root: JSONSchemaProps, path: string): JSONSchemaProps | undefined {
  let node: JSONSchemaProps | undefined = root;
  for (const step of path.split('.')) {
    const items = step.endsWith('[]');
    node = node?.properties?.[items ? step.slice(0, -2) : step];
    if (items) node = node?.items;
  }
  return node;
}

const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]))
      : v;

if (import.meta.url === `file://${process.argv[1]}`) {
  const types: Record<string, JSONSchemaProps> = {};
  for (const [file, sites] of Object.entries(kubeSites)) {
    const crd = yaml.load(readFileSync(`${crdDir}/${file}`, 'utf8')) as CustomResourceDefinition;
    for (const version of crd.spec.versions) {
      for (const [path, type] of Object.entries(sites)) {
        const node = nodeAt(version.schema.openAPIV3Schema, path);
        if (!node) continue; // not every version has every field
        const copy = structuredClone(node);
        delete copy.description;
        const seen = types[type];
        if (seen && JSON.stringify(sorted(seen)) !== JSON.stringify(sorted(copy))) {
          throw new Error(`${file} ${version.name} ${path}: ${type} differs from another site of it`);
        }
        types[type] = copy;
      }
    }
  }
  const out = fileURLToPath(new URL('./kube-types.json', import.meta.url));
  writeFileSync(out, `${JSON.stringify(sorted(types), null, 1)}\n`);
  console.log(`wrote ${Object.keys(types).length} types to ${out}`);
}
