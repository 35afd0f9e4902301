// A registry+v1 bundle directory as upstream's bundle source reads it (rukpak/bundle/source):
// manifests/ (flat; every file multi-document YAML or JSON) sorted by kind into the CSV, CRDs and
// other objects, and the package name from metadata/annotations.yaml. metadata/properties.yaml is
// merged into the CSV's `olm.properties` annotation. v1's renderer, classic's Subscription sync and the
// publisher read bundles with it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { KubeObject } from '../../../api/meta/v1.ts';
// decodeDocuments: apimachinery's YAMLOrJSONDecoder, which the bundle source uses too.
import { canonicalJSON, decodeDocuments, GO_YAML_SCHEMA } from '../fbc/index.ts';
import { goJSONString, goJSONValue } from '../gocompat/index.ts';
import type { ClusterServiceVersion } from './csv.ts';
import { isObject } from '../toolkit/index.ts';

export const PACKAGE_ANNOTATION = 'operators.operatorframework.io.bundle.package.v1';

/** What a registry+v1 bundle image holds that rendering reads. */
export const BUNDLE_PATHS: readonly string[] = ['/manifests', '/metadata'];

export interface RegistryV1 {
  readonly packageName: string;
  readonly csv: ClusterServiceVersion;
  readonly crds: readonly KubeObject[];
  readonly others: readonly KubeObject[];
}

/** A bundle directory that cannot be read as registry+v1 (upstream's wording). */
export class BundleLoadError extends Error {
  override readonly name = 'BundleLoadError';
}

/** metadata/annotations.yaml's string annotations. Throws BundleLoadError when the file is missing, js-yaml's error when it does not parse. */
export async function readBundleAnnotations(dir: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(join(dir, 'metadata', 'annotations.yaml'), 'utf8');
  } catch {
    throw new BundleLoadError('open metadata/annotations.yaml: no such file or directory');
  }
  const doc = load(text, { schema: GO_YAML_SCHEMA });
  const annotations = isObject(doc) && isObject(doc['annotations']) ? doc['annotations'] : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** metadata/properties.yaml: undefined when absent or empty (upstream then keeps the CSV's annotation as is). */
async function readProperties(dir: string): Promise<unknown[] | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, 'metadata', 'properties.yaml'), 'utf8');
  } catch {
    return undefined;
  }
  if (text.length === 0) return undefined;
  let doc: unknown;
  try {
    doc = load(text, { schema: GO_YAML_SCHEMA });
  } catch (err) {
    throw new BundleLoadError(`failed to unmarshal metadata/properties.yaml: ${(err as Error).message.split('\n')[0]!}`);
  }
  return isObject(doc) && Array.isArray(doc['properties']) ? doc['properties'] : [];
}

/** Reads a registry+v1 bundle directory. Throws BundleLoadError. */
export async function loadRegistryV1(dir: string): Promise<RegistryV1> {
  const annotations = await readBundleAnnotations(dir);
  const manifestsDir = join(dir, 'manifests');
  let entries;
  try {
    entries = await readdir(manifestsDir, { withFileTypes: true });
  } catch {
    throw new BundleLoadError('stat manifests: no such file or directory');
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let csv: ClusterServiceVersion | undefined;
  const crds: KubeObject[] = [];
  const others: KubeObject[] = [];
  for (const e of entries) {
    const path = `manifests/${e.name}`;
    if (e.isDirectory()) {
      throw new BundleLoadError(`subdirectories are not allowed within the "manifests" directory of the bundle image filesystem: found "${path}"`);
    }
    for (const obj of await readObjects(join(manifestsDir, e.name), path)) {
      if (obj.kind === 'ClusterServiceVersion') csv = obj as ClusterServiceVersion;
      else if (obj.kind === 'CustomResourceDefinition') crds.push(obj);
      else others.push(obj);
    }
  }
  if (!csv) throw new BundleLoadError('no ClusterServiceVersion found in "manifests"');
  const props = await readProperties(dir);
  if (props !== undefined) mergeProperties(csv, props);
  return { packageName: annotations[PACKAGE_ANNOTATION] ?? '', csv, crds, others };
}

/**
 * The objects of one manifest file as kubectl's resource builder yields them (`Flatten()`):
 * every non-empty document, the items of a `*List`; a document without `kind` is an error.
 */
async function readObjects(file: string, path: string): Promise<KubeObject[]> {
  const text = await readFile(file, 'utf8');
  const fail = (why: string): never => {
    throw new BundleLoadError(`error parsing objects in ${JSON.stringify(path)}: ${why}`);
  };
  let docs;
  try {
    docs = [...decodeDocuments(text)];
  } catch (err) {
    return fail((err as Error).message);
  }
  const out: KubeObject[] = [];
  const add = (v: unknown): void => {
    if (v === undefined || v === null) return;
    if (!isObject(v) || typeof v['kind'] !== 'string' || v['kind'] === '') fail(`Object 'Kind' is missing in '${canonicalJSON(v)}'`);
    const obj = v as KubeObject;
    if (obj.kind!.endsWith('List') && Array.isArray(obj['items'])) {
      for (const item of obj['items'] as unknown[]) add(item);
      return;
    }
    obj.metadata ??= {};
    out.push(obj);
  };
  for (const d of docs) add(d.value);
  return out;
}

/**
 * properties.yaml entries appended to the CSV's `olm.properties` annotation, re-encoded as Go's
 * json.Marshal of []property.Property writes it (`null` when there are none at all).
 */
function mergeProperties(csv: ClusterServiceVersion, props: unknown[]): void {
  const annotations = (csv.metadata.annotations ??= {});
  let existing: unknown[] = [];
  const raw = annotations['olm.properties'];
  if (raw !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new BundleLoadError(`failed to unmarshal csv.metadata.annotations['olm.properties']: ${(err as Error).message}`);
    }
    if (Array.isArray(parsed)) existing = parsed;
  }
  const encode = (p: unknown, fromYAML: boolean): string => {
    const rec = isObject(p) ? p : {};
    const type = typeof rec['type'] === 'string' ? rec['type'] : '';
    return `{"type":${goJSONString(type)},"value":${goJSONValue(rec['value'] ?? null, fromYAML)}}`;
  };
  const all = [...existing.map((p) => encode(p, false)), ...props.map((p) => encode(p, true))];
  annotations['olm.properties'] = all.length === 0 && raw === undefined ? 'null' : `[${all.join(',')}]`;
}
