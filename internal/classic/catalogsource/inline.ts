// A bundle's manifests as the registry API carries them (operator-registry's api.Bundle `csvJson` and `object`): what
// upstream's catalog operator installs straight from, without unpacking an image, when the bundle has no image
// (resolver/source_registry.go newOperatorFromBundle: `BundlePath == ""` → the entry keeps the api.Bundle; steps.go
// NewStepResourceFromBundle). For a file-based catalog's bundle they are computed as `opm serve` does
// (declcfg/load.go readBundleObjects + pkg/api/model_to_api.go ConvertModelBundleToAPIBundle); a bundle read from a
// registry server keeps the server's own. The registry serves a bundle's properties without its
// `olm.bundle.object` and `olm.csv.metadata` ones (convertModelPropertiesToAPIProperties).
import { load } from 'js-yaml';
import { GO_YAML_SCHEMA } from '../../shared/fbc/index.ts';
import { isObject } from '../../shared/toolkit/index.ts';
import type { ContentBundle, ContentPackage, ContentProperty } from './content.ts';

const BUNDLE_OBJECT = 'olm.bundle.object';
const CSV_METADATA = 'olm.csv.metadata';

export interface BundleManifests {
  /** The CSV as JSON text ('' when the bundle has none). */
  readonly csvJson: string;
  /** Every manifest as JSON text, in property order (the CSV among them). */
  readonly objects: readonly string[];
}

/** The properties as the registry API serves them: without `olm.bundle.object` and `olm.csv.metadata`. */
export function servedProperties(properties: readonly ContentProperty[]): ContentProperty[] {
  return properties.filter((p) => p.type !== BUNDLE_OBJECT && p.type !== CSV_METADATA);
}

/** yaml.ToJSON of one `olm.bundle.object`'s data (base64 of a YAML or JSON manifest). */
function objectJSON(data: string): string {
  const text = Buffer.from(data, 'base64').toString('utf8');
  if (text.trimStart().startsWith('{')) return JSON.stringify(JSON.parse(text));
  return JSON.stringify(load(text, { schema: GO_YAML_SCHEMA, json: true }) ?? null);
}

/**
 * The CSV operator-registry builds from a bundle's single `olm.csv.metadata` (csvMetadataToCsv and the fields
 * ConvertModelBundleToAPIBundle sets: name, icon from the package, install strategy `deployment` with no spec, version,
 * related images, the package's description when the CSV has none).
 */
function csvFromMetadata(bundle: ContentBundle, pkg: ContentPackage | undefined, value: string): Record<string, unknown> {
  const m = JSON.parse(value) as Record<string, unknown>;
  const description = typeof m.description === 'string' && m.description !== '' ? m.description : (pkg?.description ?? '');
  return {
    kind: 'ClusterServiceVersion',
    apiVersion: 'operators.coreos.com/v1alpha1',
    metadata: {
      name: bundle.name,
      ...(isObject(m.annotations) && { annotations: m.annotations }),
      ...(isObject(m.labels) && { labels: m.labels }),
    },
    spec: {
      apiservicedefinitions: m.apiServiceDefinitions,
      customresourcedefinitions: m.crdDescriptions,
      description,
      displayName: m.displayName,
      installModes: m.installModes,
      keywords: m.keywords,
      links: m.links,
      maintainers: m.maintainers,
      maturity: m.maturity,
      minKubeVersion: m.minKubeVersion,
      nativeAPIs: m.nativeAPIs,
      provider: m.provider,
      icon: pkg?.icon ? [{ base64data: pkg.icon.base64data, mediatype: pkg.icon.mediatype }] : [],
      install: { strategy: 'deployment' },
      version: bundle.version,
      relatedImages: (bundle.relatedImages ?? []).map((image) => ({ image })),
    },
  };
}

const isCSV = (json: string): boolean => {
  const obj = JSON.parse(json) as unknown;
  return isObject(obj) && obj.kind === 'ClusterServiceVersion';
};

/** Each `olm.bundle.object` of a file-based catalog's bundle as JSON, in property order, converted as it is read. */
function* objectsOf(bundle: ContentBundle): Generator<string> {
  for (const p of bundle.properties) {
    if (p.type !== BUNDLE_OBJECT) continue;
    const value = JSON.parse(p.value) as { data?: unknown };
    yield objectJSON(typeof value.data === 'string' ? value.data : '');
  }
}

/** The CSV built from a single `olm.csv.metadata`, as JSON ('' when there is not exactly one). */
function metadataCSV(bundle: ContentBundle, pkg: ContentPackage | undefined): string {
  const metas = bundle.properties.filter((p) => p.type === CSV_METADATA);
  return metas.length === 1 ? JSON.stringify(csvFromMetadata(bundle, pkg, metas[0]!.value)) : '';
}

/**
 * The bundle's `csvJson` and `object` as the registry API serves them. A bundle read from a registry server: the
 * server's. A file-based catalog's: each `olm.bundle.object` converted to JSON, in order; the CSV the first of them
 * whose kind is ClusterServiceVersion, else the one built from a single `olm.csv.metadata` (then also the only object
 * when there are none). Throws when an object or the metadata cannot be read (content `opm validate` refuses).
 */
export function bundleManifests(bundle: ContentBundle, pkg: ContentPackage | undefined): BundleManifests {
  if (bundle.csvJson !== undefined || bundle.objects !== undefined) return { csvJson: bundle.csvJson ?? '', objects: bundle.objects ?? [] };
  const objects = [...objectsOf(bundle)];
  const csvJson = objects.find(isCSV) ?? metadataCSV(bundle, pkg);
  if (objects.length === 0 && csvJson !== '') objects.push(csvJson);
  return { csvJson, objects };
}

/** Only the `csvJson` of bundleManifests, reading the bundle's objects no further than its CSV. */
export function bundleCsvJson(bundle: ContentBundle, pkg: ContentPackage | undefined): string {
  if (bundle.csvJson !== undefined || bundle.objects !== undefined) return bundle.csvJson ?? '';
  for (const json of objectsOf(bundle)) if (isCSV(json)) return json;
  return metadataCSV(bundle, pkg);
}
