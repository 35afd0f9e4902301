// The generated classic CRDs (operators.coreos.com): no drift from the schema data, structurally
// identical to upstream's CRDs (printer columns included; descriptions aside), embedded Kubernetes
// types exactly as upstream has them, and every classic field described in our own words.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { crdFileName } from '../v1/schema/index.ts';
import type { CustomResourceDefinition, JSONSchemaProps } from '../v1/schema/index.ts';
import { classicCrds, kube, kubeTypeNames, renderClassic } from './schema/index.ts';
import { kubeSites } from './schema/kube-sites.ts';

const classicDir = fileURLToPath(new URL('../../config/crd/classic/', import.meta.url));
// Byte-for-byte copies of operator-framework/api's CRDs (testdata/SOURCES.md).
const upstreamDir = fileURLToPath(new URL('../../testdata/upstream/operator-framework-api/crds/', import.meta.url));

/** Deliberate differences from upstream: the controller-gen version annotation (controller-gen does not make these files). */
const droppedAnnotations = ['controller-gen.kubebuilder.io/version'];

function loadYaml(file: string): CustomResourceDefinition {
  const docs = yaml.loadAll(readFileSync(file, 'utf8')).filter((d) => d != null);
  expect(docs).toHaveLength(1);
  return docs[0] as CustomResourceDefinition;
}
const upstream = (crd: CustomResourceDefinition): CustomResourceDefinition => loadYaml(upstreamDir + crdFileName(crd));

function withoutDescriptions(node: unknown, inPropertiesMap = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutDescriptions(n));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description' && !inPropertiesMap) continue;
    out[k] = withoutDescriptions(v, k === 'properties' && !inPropertiesMap);
  }
  return out;
}

/** path → description of every schema node, descending into embedded Kubernetes types unless `stopAt` names them. */
function descriptions(schema: JSONSchemaProps, stopAt: Readonly<Record<string, string>> = {}, path = '', out = new Map<string, string>()): Map<string, string> {
  if (schema.description !== undefined) out.set(path || '.', schema.description);
  if (stopAt[path]) return out;
  const join = (name: string): string => (path ? `${path}.${name}` : name);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) descriptions(prop, stopAt, join(name), out);
  if (schema.items) descriptions(schema.items, stopAt, `${path}[]`, out);
  if (typeof schema.additionalProperties === 'object') descriptions(schema.additionalProperties, stopAt, `${path}{}`, out);
  return out;
}

function nodeAt(root: JSONSchemaProps, path: string): JSONSchemaProps | undefined {
  let node: JSONSchemaProps | undefined = root;
  for (const step of path.split('.')) {
    const items = step.endsWith('[]');
    node = node?.properties?.[items ? step.slice(0, -2) : step];
    if (items) node = node?.items;
  }
  return node;
}

describe('generated classic manifests', () => {
  it('match the schema data (run `npm run crd:generate` after changing api/operators/schema)', () => {
    for (const [name, content] of renderClassic()) {
      expect(readFileSync(classicDir + name, 'utf8'), `config/crd/classic/${name} is stale`).toBe(content);
    }
  });

  it('are the only manifests in config/crd/classic, and its kustomization lists them all', () => {
    const onDisk = readdirSync(classicDir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect(onDisk.sort()).toEqual([...renderClassic().keys()].sort());
    const k = yaml.load(readFileSync(`${classicDir}kustomization.yaml`, 'utf8')) as { resources: string[] };
    expect(k.resources).toEqual([...renderClassic().keys()]);
  });

  it('cover every operators.coreos.com CRD upstream ships', () => {
    const theirs = readdirSync(upstreamDir).filter((f) => f.startsWith('operators.coreos.com_'));
    expect([...renderClassic().keys()].sort()).toEqual(theirs.sort());
  });

  it('parse back to the schema data', () => {
    for (const crd of classicCrds) expect(loadYaml(classicDir + crdFileName(crd))).toEqual(crd);
  });
});

describe.each(classicCrds.map((crd) => [crd.spec.names.kind, crd] as const))('%s CRD against upstream', (_kind, crd) => {
  const theirs = upstream(crd);
  const sites = kubeSites[crdFileName(crd)] ?? {};

  it('is identical once descriptions are removed (names, versions, printer columns, every field and rule)', () => {
    const expected = structuredClone(theirs);
    for (const a of droppedAnnotations) delete expected.metadata.annotations?.[a];
    if (expected.metadata.annotations && Object.keys(expected.metadata.annotations).length === 0) delete expected.metadata.annotations;
    expect(withoutDescriptions(crd)).toEqual(withoutDescriptions(expected));
  });

  it('has the same printer columns, descriptions aside', () => {
    const cols = (c: CustomResourceDefinition): unknown => c.spec.versions.map((v) => [v.name, withoutDescriptions(v.additionalPrinterColumns)]);
    expect(cols(crd)).toEqual(cols(theirs));
  });

  it('documents every schema node upstream documents, and no other', () => {
    crd.spec.versions.forEach((v, i) => {
      const upstreamVersion = theirs.spec.versions[i]!;
      expect([...descriptions(v.schema.openAPIV3Schema).keys()].sort()).toEqual(
        [...descriptions(upstreamVersion.schema.openAPIV3Schema).keys()].sort(),
      );
    });
  });

  it('embeds the Kubernetes types exactly as upstream, their descriptions included', () => {
    for (const v of crd.spec.versions) {
      const upstreamRoot = theirs.spec.versions.find((u) => u.name === v.name)!.schema.openAPIV3Schema;
      for (const [path, type] of Object.entries(sites)) {
        const ours = nodeAt(v.schema.openAPIV3Schema, path);
        const their = nodeAt(upstreamRoot, path);
        expect(!!ours, `${v.name} ${path}`).toBe(!!their);
        if (!ours || !their) continue;
        expect({ ...ours, description: undefined }, `${v.name} ${path}`).toEqual({ ...their, description: undefined });
        expect({ ...kube(type), description: undefined }).toEqual({ ...their, description: undefined });
      }
    }
  });

  it('describes the classic fields in its own words', () => {
    const line = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();
    const theirLines = new Set(
      theirs.spec.versions.flatMap((v) => [...descriptions(v.schema.openAPIV3Schema, sites).values()]).flatMap((d) => d.split('\n').map(line)),
    );
    const shared: string[] = [];
    for (const v of crd.spec.versions) {
      for (const [path, text] of descriptions(v.schema.openAPIV3Schema, sites)) {
        for (const l of text.split('\n').map(line)) if (l.length >= 30 && theirLines.has(l)) shared.push(`${v.name} ${path}: ${l}`);
      }
      for (const c of v.additionalPrinterColumns ?? []) {
        const u = theirs.spec.versions.find((x) => x.name === v.name)?.additionalPrinterColumns?.find((x) => x.name === c.name);
        if (c.description !== undefined && c.description === u?.description) shared.push(`${v.name} column ${c.name}`);
      }
    }
    expect(shared).toEqual([]);
  });
});

describe('kube-types.json', () => {
  it('holds exactly the types some site uses', () => {
    const used = new Set(Object.values(kubeSites).flatMap((s) => Object.values(s)));
    expect([...kubeTypeNames].sort()).toEqual([...used].sort());
  });
});
