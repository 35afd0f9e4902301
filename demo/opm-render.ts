// What `opm render <bundle> --migrate-level bundle-object-to-csv-metadata` writes for a demo bundle
// directory, as far as the demo bundles need it (fbc.md §4.2): olm.package from the package
// annotation and the CSV version, one olm.gvk per CRD version, metadata/properties.yaml, one
// olm.csv.metadata from the CSV, and relatedImages (the bundle image and every container image).
// The demo catalog's olm.bundle blobs were written with it, and demo.test.ts checks they still match
// the bundle directories. It knows nothing of what the demo bundles do not use (owned API services,
// dependencies.yaml, the CSV's olm.properties annotation, spec.relatedImages, release).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { GO_YAML_SCHEMA } from '../internal/shared/fbc/index.ts';

type Obj = Record<string, unknown>;

export interface Property {
  readonly type: string;
  readonly value: unknown;
}

export interface BundleBlob {
  readonly schema: 'olm.bundle';
  readonly name: string;
  readonly package: string;
  readonly image: string;
  readonly properties: Property[];
  readonly relatedImages: { name: string; image: string }[];
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

async function readYaml(path: string): Promise<Obj> {
  const doc = load(await readFile(path, 'utf8'), { schema: GO_YAML_SCHEMA });
  if (!isObj(doc)) throw new Error(`${path}: not a YAML mapping`);
  return doc;
}

/** The CSV fields opm's CSVMetadata keeps, with Go's omitempty (the two struct fields are always written). */
function csvMetadata(csv: Obj): Obj {
  const meta = isObj(csv['metadata']) ? csv['metadata'] : {};
  const spec = isObj(csv['spec']) ? csv['spec'] : {};
  const out: Obj = {
    annotations: meta['annotations'],
    apiServiceDefinitions: spec['apiservicedefinitions'] ?? {},
    crdDescriptions: spec['customresourcedefinitions'] ?? {},
    description: spec['description'],
    displayName: spec['displayName'],
    installModes: spec['installModes'],
    keywords: spec['keywords'],
    labels: meta['labels'],
    links: spec['links'],
    maintainers: spec['maintainers'],
    maturity: spec['maturity'],
    minKubeVersion: spec['minKubeVersion'],
    nativeAPIs: spec['nativeAPIs'],
    provider: spec['provider'] ?? {},
  };
  for (const [k, v] of Object.entries(out)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) delete out[k];
    else if (k !== 'apiServiceDefinitions' && k !== 'crdDescriptions' && k !== 'provider' && isObj(v) && Object.keys(v).length === 0) delete out[k];
  }
  return out;
}

/** The olm.bundle blob of the bundle directory `dir`, pushed as `image`. */
export async function renderBundleBlob(dir: string, image: string): Promise<BundleBlob> {
  const annotations = (await readYaml(join(dir, 'metadata', 'annotations.yaml')))['annotations'] as Obj;
  const pkg = String(annotations['operators.operatorframework.io.bundle.package.v1']);
  let csv: Obj | undefined;
  const crds: Obj[] = [];
  for (const f of (await readdir(join(dir, 'manifests'))).sort()) {
    const o = await readYaml(join(dir, 'manifests', f));
    if (o['kind'] === 'ClusterServiceVersion') csv ??= o;
    if (o['kind'] === 'CustomResourceDefinition') crds.push(o);
  }
  if (!csv) throw new Error(`${dir}: no ClusterServiceVersion in manifests/`);
  const csvSpec = csv['spec'] as Obj;

  const properties: Property[] = [{ type: 'olm.package', value: { packageName: pkg, version: String(csvSpec['version']) } }];
  for (const crd of crds) {
    const spec = crd['spec'] as { group: string; names: { kind: string }; versions: { name: string }[] };
    for (const v of spec.versions) properties.push({ type: 'olm.gvk', value: { group: spec.group, kind: spec.names.kind, version: v.name } });
  }
  const extra = await readYaml(join(dir, 'metadata', 'properties.yaml')).catch(() => ({}) as Obj);
  for (const p of (extra['properties'] as Property[] | undefined) ?? []) properties.push({ type: p.type, value: p.value });
  // opm sorts by type, then by the value's JSON, and puts olm.csv.metadata last.
  const key = (p: Property): string => `${p.type}\u0000${JSON.stringify(p.value)}`;
  properties.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  properties.push({ type: 'olm.csv.metadata', value: csvMetadata(csv) });

  const images = new Set<string>([image]);
  const install = csvSpec['install'] as { spec: { deployments: { spec: { template: { spec: { containers?: Obj[]; initContainers?: Obj[] } } } }[] } };
  for (const d of install.spec.deployments) {
    const pod = d.spec.template.spec;
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) images.add(String(c['image']));
  }
  return {
    schema: 'olm.bundle',
    name: String((csv['metadata'] as Obj)['name']),
    package: pkg,
    image,
    properties,
    relatedImages: [...images].sort().map((i) => ({ name: '', image: i })),
  };
}
