// The generated CRDs: no drift from the schema data, structurally identical to upstream's standard
// CRDs (descriptions aside), described in our own words, and in step with the TypeScript types.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { Condition, LabelSelector } from '../meta/v1.ts';
import type {
  Assertion,
  BundleMetadata,
  CatalogFilter,
  ClusterObjectSetObject,
  ClusterObjectSetPhase,
  ClusterObjectSetSpec,
  ClusterObjectSetStatus,
  ObjectSelector,
  ObjectSourceRef,
  ObservedPhase,
  ProgressionProbe,
  RevisionStatus,
  CatalogSource,
  ClusterCatalogSpec,
  ClusterCatalogStatus,
  ClusterCatalogURLs,
  ClusterExtensionConfig,
  ClusterExtensionInstallConfig,
  ClusterExtensionInstallStatus,
  ClusterExtensionSpec,
  ClusterExtensionStatus,
  CRDUpgradeSafetyPreflightConfig,
  ImageSource,
  PreflightConfig,
  ResolvedCatalogSource,
  ResolvedImageSource,
  ServiceAccountReference,
  SourceConfig,
} from './index.ts';
import {
  clusterCatalogCRD,
  clusterExtensionCRD,
  clusterExtensionExperimentalCRD,
  clusterObjectSetCRD,
  crdFileName,
  crds,
  experimentalCrds,
  renderAll,
  renderExperimental,
} from './schema/index.ts';
import type { CustomResourceDefinition, JSONSchemaProps } from './schema/index.ts';

const basesDir = fileURLToPath(new URL('../../config/crd/bases/', import.meta.url));
const experimentalDir = fileURLToPath(new URL('../../config/crd/experimental/', import.meta.url));
// Byte-for-byte copies of upstream's standard and experimental CRDs (testdata/SOURCES.md).
const upstreamDirs = {
  standard: fileURLToPath(new URL('../../testdata/upstream/operator-controller/crds/standard/', import.meta.url)),
  experimental: fileURLToPath(new URL('../../testdata/upstream/operator-controller/crds/experimental/', import.meta.url)),
} as const;
type FeatureSet = keyof typeof upstreamDirs;

/**
 * Deliberate differences from upstream, each with its reason. Everything not listed here must be
 * identical once descriptions are removed.
 */
const deliberateDifferences = {
  /**
   * `controller-gen.kubebuilder.io/version` is dropped: controller-gen does not generate our CRDs,
   * and nothing reads the annotation. `olm.operatorframework.io/generator: standard` is kept: it
   * names the feature set (standard vs experimental), which is still true of our manifests.
   */
  droppedAnnotations: ['controller-gen.kubebuilder.io/version'],
} as const;

function loadYaml(file: string): CustomResourceDefinition {
  const docs = yaml.loadAll(readFileSync(file, 'utf8')).filter((d) => d != null);
  expect(docs).toHaveLength(1);
  return docs[0] as CustomResourceDefinition;
}

const featureSet = (crd: CustomResourceDefinition): FeatureSet =>
  crd.metadata.annotations?.['olm.operatorframework.io/generator'] === 'experimental' ? 'experimental' : 'standard';
const upstream = (crd: CustomResourceDefinition): CustomResourceDefinition => loadYaml(upstreamDirs[featureSet(crd)] + crdFileName(crd));
const generated = (crd: CustomResourceDefinition): CustomResourceDefinition => loadYaml(basesDir + crdFileName(crd));
const rootSchema = (crd: CustomResourceDefinition): JSONSchemaProps => {
  const v = crd.spec.versions[0];
  if (!v) throw new Error(`${crd.metadata.name} has no versions`);
  return v.schema.openAPIV3Schema;
};

/** A deep copy without `description` on schema nodes (property names called "description" survive). */
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

function withoutDroppedAnnotations(crd: CustomResourceDefinition): CustomResourceDefinition {
  const copy = structuredClone(crd);
  for (const a of deliberateDifferences.droppedAnnotations) delete copy.metadata.annotations?.[a];
  return copy;
}

/** path → description of every schema node. */
function descriptions(schema: JSONSchemaProps, path = '', out = new Map<string, string>()): Map<string, string> {
  if (schema.description !== undefined) out.set(path || '.', schema.description);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) descriptions(prop, `${path}.${name}`, out);
  if (schema.items) descriptions(schema.items, `${path}[]`, out);
  if (typeof schema.additionalProperties === 'object') descriptions(schema.additionalProperties, `${path}{}`, out);
  return out;
}

/** The schema node at a dotted path of property names (`[]` steps into array items). */
function at(schema: JSONSchemaProps, path: string): JSONSchemaProps {
  let node = schema;
  for (const step of path.split('.').filter(Boolean)) {
    const items = step.endsWith('[]');
    const name = items ? step.slice(0, -2) : step;
    const next = node.properties?.[name];
    if (!next) throw new Error(`no property ${name} on the way to ${path}`);
    node = next;
    if (items) {
      if (!node.items) throw new Error(`${name} is not an array on the way to ${path}`);
      node = node.items;
    }
  }
  return node;
}

describe('generated manifests', () => {
  it('match the schema data (run `npm run crd:generate` after changing api/v1/schema)', () => {
    for (const [name, content] of renderAll()) {
      expect(readFileSync(basesDir + name, 'utf8'), `config/crd/bases/${name} is stale`).toBe(content);
    }
  });

  it('are the only manifests in config/crd/bases', () => {
    const onDisk = readdirSync(basesDir).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'));
    expect(onDisk.sort()).toEqual([...renderAll().keys()].sort());
  });

  it('render deterministically', () => {
    expect([...renderAll()]).toEqual([...renderAll()]);
  });

  it('experimental set: on disk, and the standard CRDs plus ClusterExtension spec.config, spec.progressDeadlineMinutes, status.activeRevisions, status.install.bundle.release and ClusterObjectSet', () => {
    for (const [name, content] of renderExperimental()) {
      expect(readFileSync(experimentalDir + name, 'utf8'), `config/crd/experimental/${name} is stale`).toBe(content);
    }
    const onDisk = readdirSync(experimentalDir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect(onDisk.sort()).toEqual([...renderExperimental().keys()].sort());
    const exp = structuredClone(clusterExtensionExperimentalCRD);
    expect(exp.metadata.annotations?.['olm.operatorframework.io/generator']).toBe('experimental');
    const spec = at(rootSchema(exp), 'spec');
    expect(Object.keys(spec.properties ?? {}).sort()).toEqual(['config', 'install', 'namespace', 'progressDeadlineMinutes', 'serviceAccount', 'source']);
    delete spec.properties!['config'];
    delete spec.properties!['progressDeadlineMinutes'];
    delete at(rootSchema(exp), 'status').properties!['activeRevisions'];
    delete at(rootSchema(exp), 'status.install.bundle').properties!['release'];
    exp.metadata.annotations!['olm.operatorframework.io/generator'] = 'standard';
    expect(exp).toEqual(clusterExtensionCRD);
  });

  it('parse back to the schema data', () => {
    for (const crd of crds) expect(generated(crd)).toEqual(crd);
  });
});

describe.each([...crds, ...experimentalCrds].map((crd) => [featureSet(crd), crd.spec.names.kind, crd] as const))('%s %s CRD against upstream', (_set, _kind, crd) => {
  it('is identical once descriptions are removed (apart from the deliberate differences)', () => {
    expect(withoutDescriptions(crd)).toEqual(withoutDescriptions(withoutDroppedAnnotations(upstream(crd))));
  });

  it('differs from upstream only in the annotations listed as deliberate', () => {
    const ours = crd.metadata.annotations ?? {};
    const theirs = upstream(crd).metadata.annotations ?? {};
    const dropped = Object.keys(theirs).filter((k) => !(k in ours));
    expect(dropped).toEqual([...deliberateDifferences.droppedAnnotations]);
    expect(Object.keys(ours).filter((k) => !(k in theirs))).toEqual([]);
  });

  it('documents every schema node upstream documents, and no other', () => {
    expect([...descriptions(rootSchema(crd)).keys()].sort()).toEqual(
      [...descriptions(rootSchema(upstream(crd))).keys()].sort(),
    );
  });

  it('documents them in its own words', () => {
    const line = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();
    const theirLines = new Set(
      [...descriptions(rootSchema(upstream(crd))).values()].flatMap((d) => d.split('\n').map(line)),
    );
    const shared: string[] = [];
    for (const [path, text] of descriptions(rootSchema(crd))) {
      for (const l of text.split('\n').map(line)) if (l.length >= 30 && theirLines.has(l)) shared.push(`${path}: ${l}`);
    }
    expect(shared).toEqual([]);
  });
});

// ---- The TypeScript types and the schema describe the same fields ------------------------------

/** T with every optional field made required, all the way down. */
type Complete<T> = T extends readonly (infer U)[]
  ? Complete<U>[]
  : T extends object
    ? { [K in keyof T]-?: Complete<T[K]> }
    : T;

/** Walks a sample and its schema together: same property names at every level, matching leaf types. */
function sameShape(sample: unknown, schema: JSONSchemaProps, path: string, problems: string[]): void {
  switch (schema.type) {
    case 'object':
      if (typeof sample !== 'object' || sample === null || Array.isArray(sample)) {
        problems.push(`${path}: schema says object`);
        return;
      }
      if (schema.additionalProperties !== undefined) return; // a map; its keys are data
      if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined) return; // free-form JSON
      {
        const want = Object.keys(schema.properties ?? {}).sort();
        const got = Object.keys(sample).sort();
        if (want.join() !== got.join()) problems.push(`${path}: type has [${got.join()}], schema has [${want.join()}]`);
        for (const [k, v] of Object.entries(sample)) {
          const prop = schema.properties?.[k];
          if (prop) sameShape(v, prop, `${path}.${k}`, problems);
        }
      }
      return;
    case 'array':
      if (!Array.isArray(sample) || sample.length === 0 || !schema.items) {
        problems.push(`${path}: schema says array (sample needs one item)`);
        return;
      }
      sameShape(sample[0], schema.items, `${path}[]`, problems);
      return;
    case 'integer':
    case 'number':
      if (typeof sample !== 'number') problems.push(`${path}: schema says ${schema.type}`);
      return;
    default:
      if (typeof sample !== schema.type) problems.push(`${path}: schema says ${String(schema.type)}`);
  }
}

const condition: Complete<Condition> = {
  type: 'Serving',
  status: 'True',
  observedGeneration: 1,
  lastTransitionTime: '2026-01-01T00:00:00Z',
  reason: 'Available',
  message: 'ok',
};
const selector: Complete<LabelSelector> = {
  matchLabels: { a: 'b' },
  matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }],
};

const fullCatalogSpec: Complete<ClusterCatalogSpec> = {
  source: { type: 'Image', image: { ref: 'quay.io/a/b:c', pollIntervalMinutes: 5 } },
  priority: 0,
  availabilityMode: 'Available',
};
const fullCatalogStatus: Complete<ClusterCatalogStatus> = {
  conditions: [condition],
  resolvedSource: { type: 'Image', image: { ref: 'quay.io/a/b@sha256:00' } },
  urls: { base: 'https://catalogd.svc/catalogs/x' },
  lastUnpacked: '2026-01-01T00:00:00Z',
};
const fullExtensionSpec: Complete<ClusterExtensionSpec> = {
  namespace: 'ns',
  serviceAccount: { name: 'sa' },
  source: {
    sourceType: 'Catalog',
    catalog: {
      packageName: 'p',
      version: '1.0.0',
      channels: ['stable'],
      selector,
      upgradeConstraintPolicy: 'CatalogProvided',
    },
  },
  install: { preflight: { crdUpgradeSafety: { enforcement: 'Strict' } } },
  config: { configType: 'Inline', inline: { watchNamespace: 'w' } },
  progressDeadlineMinutes: 10,
};
const fullExtensionStatus: Complete<ClusterExtensionStatus> = {
  conditions: [condition],
  install: { bundle: { name: 'p.v1.0.0', version: '1.0.0', release: '2' } },
  activeRevisions: [{ name: 'p-1', conditions: [condition] }],
};
const fullObjectSetSpec: Complete<ClusterObjectSetSpec> = {
  lifecycleState: 'Active',
  revision: 1,
  collisionProtection: 'Prevent',
  progressDeadlineMinutes: 10,
  phases: [
    {
      name: 'deploy',
      collisionProtection: 'None',
      objects: [
        {
          object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as never,
          ref: { name: 's', namespace: 'ns', key: 'k' },
          collisionProtection: 'IfNoController',
        },
      ],
    },
  ],
  progressionProbes: [
    {
      selector: { type: 'GroupKind', groupKind: { group: '', kind: 'ConfigMap' }, label: selector },
      assertions: [
        {
          type: 'FieldValue',
          conditionEqual: { type: 'Ready', status: 'True' },
          fieldsEqual: { fieldA: 'a', fieldB: 'b' },
          fieldValue: { fieldPath: 'data.x', value: 'y' },
        },
      ],
    },
  ],
};
const fullObjectSetStatus: Complete<ClusterObjectSetStatus> = {
  conditions: [condition],
  observedPhases: [{ name: 'deploy', digest: 'sha256:00' }],
};

// Compile-time: the listed keys are exactly the required keys of T; run-time: they are the schema's.
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T] & string;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function requiredOf<T>() {
  return <const K extends readonly string[]>(
    ...keys: K & (Same<K[number], RequiredKeys<T>> extends true ? unknown : { error: 'keys differ from T' })
  ): readonly string[] => keys;
}

const crdOf = (kind: 'ClusterCatalog' | 'ClusterExtension' | 'ClusterObjectSet'): CustomResourceDefinition =>
  kind === 'ClusterCatalog' ? clusterCatalogCRD : kind === 'ClusterExtension' ? clusterExtensionExperimentalCRD : clusterObjectSetCRD;

describe('TypeScript types', () => {
  it.each([
    ['ClusterCatalog', 'spec', fullCatalogSpec],
    ['ClusterCatalog', 'status', fullCatalogStatus],
    ['ClusterExtension', 'spec', fullExtensionSpec],
    ['ClusterExtension', 'status', fullExtensionStatus],
    ['ClusterObjectSet', 'spec', fullObjectSetSpec],
    ['ClusterObjectSet', 'status', fullObjectSetStatus],
  ] as const)('%s %s has the fields of the schema', (kind, part, sample) => {
    // The types cover the experimental ClusterExtension (the standard one and its experimental fields).
    const crd = crdOf(kind);
    const problems: string[] = [];
    sameShape(sample, at(rootSchema(crd), part), part, problems);
    expect(problems).toEqual([]);
  });

  it.each([
    ['ClusterCatalog', 'spec', requiredOf<ClusterCatalogSpec>()('source')],
    ['ClusterCatalog', 'spec.source', requiredOf<CatalogSource>()('type')],
    ['ClusterCatalog', 'spec.source.image', requiredOf<ImageSource>()('ref')],
    ['ClusterCatalog', 'status', requiredOf<ClusterCatalogStatus>()()],
    ['ClusterCatalog', 'status.resolvedSource', requiredOf<ResolvedCatalogSource>()('image', 'type')],
    ['ClusterCatalog', 'status.resolvedSource.image', requiredOf<ResolvedImageSource>()('ref')],
    ['ClusterCatalog', 'status.urls', requiredOf<ClusterCatalogURLs>()('base')],
    ['ClusterCatalog', 'status.conditions[]', requiredOf<Condition>()('lastTransitionTime', 'message', 'reason', 'status', 'type')],
    ['ClusterExtension', 'spec', requiredOf<ClusterExtensionSpec>()('namespace', 'source')],
    ['ClusterExtension', 'spec.serviceAccount', requiredOf<ServiceAccountReference>()()],
    ['ClusterExtension', 'spec.source', requiredOf<SourceConfig>()('sourceType')],
    ['ClusterExtension', 'spec.source.catalog', requiredOf<CatalogFilter>()('packageName')],
    ['ClusterExtension', 'spec.source.catalog.selector', requiredOf<LabelSelector>()()],
    ['ClusterExtension', 'spec.install', requiredOf<ClusterExtensionInstallConfig>()()],
    ['ClusterExtension', 'spec.config', requiredOf<ClusterExtensionConfig>()('configType')],
    ['ClusterExtension', 'spec.install.preflight', requiredOf<PreflightConfig>()('crdUpgradeSafety')],
    [
      'ClusterExtension',
      'spec.install.preflight.crdUpgradeSafety',
      requiredOf<CRDUpgradeSafetyPreflightConfig>()('enforcement'),
    ],
    ['ClusterExtension', 'status', requiredOf<ClusterExtensionStatus>()()],
    ['ClusterExtension', 'status.install', requiredOf<ClusterExtensionInstallStatus>()('bundle')],
    ['ClusterExtension', 'status.install.bundle', requiredOf<BundleMetadata>()('name', 'version')],
    ['ClusterExtension', 'status.activeRevisions[]', requiredOf<RevisionStatus>()('name')],
    ['ClusterObjectSet', 'spec', requiredOf<ClusterObjectSetSpec>()('collisionProtection', 'lifecycleState', 'revision')],
    ['ClusterObjectSet', 'spec.phases[]', requiredOf<ClusterObjectSetPhase>()('name', 'objects')],
    ['ClusterObjectSet', 'spec.phases[].objects[]', requiredOf<ClusterObjectSetObject>()()],
    ['ClusterObjectSet', 'spec.phases[].objects[].ref', requiredOf<ObjectSourceRef>()('key', 'name')],
    ['ClusterObjectSet', 'spec.progressionProbes[]', requiredOf<ProgressionProbe>()('assertions', 'selector')],
    ['ClusterObjectSet', 'spec.progressionProbes[].selector', requiredOf<ObjectSelector>()('type')],
    ['ClusterObjectSet', 'spec.progressionProbes[].assertions[]', requiredOf<Assertion>()('type')],
    ['ClusterObjectSet', 'status', requiredOf<ClusterObjectSetStatus>()()],
    ['ClusterObjectSet', 'status.observedPhases[]', requiredOf<ObservedPhase>()('digest', 'name')],
  ] as const)('%s %s has the required fields of the schema', (kind, path, keys) => {
    const crd = crdOf(kind);
    expect([...(at(rootSchema(crd), path).required ?? [])].sort()).toEqual([...keys].sort());
  });
});
