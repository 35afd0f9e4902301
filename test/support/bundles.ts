// Builds small registry+v1 operator bundles and the file-based catalogs that list them, for the
// operator-controller tests: a CSV with one Deployment, namespaced and cluster permissions and one
// owned CRD (`widgets.<group>`), optionally extra manifests and a padded CRD of any size.
//
//   const b = await pushTestBundle(registry(), { packageName: 'p', version: '1.0.0' });
//   await pushCatalogImage(registry(), 'catalogs/p:latest', { files: catalogFiles('p', [{ bundle: b }]) });
import { dump, load } from 'js-yaml';
import { pushBundleImage, type RegistryLike } from './images.ts';

export interface TestBundleSpec {
  readonly packageName: string;
  readonly version: string;
  /** Group of the owned CRD; default `<package>.example.com`. */
  readonly group?: string;
  /** Properties of the CRD's `spec` (string fields); default `['size']`. */
  readonly crdFields?: readonly string[];
  /** Pads the CRD's description to about this many bytes (a large CRD). */
  readonly crdPadBytes?: number;
  /** Install modes the CSV supports; default all four. */
  readonly installModes?: Partial<Record<'AllNamespaces' | 'OwnNamespace' | 'SingleNamespace' | 'MultiNamespace', boolean>>;
  /** More manifests, file name → object. */
  readonly extraManifests?: Readonly<Record<string, object>>;
  /** Replaces the generated CSV's `spec` fields given here. */
  readonly csvSpec?: Readonly<Record<string, unknown>>;
}

export interface TestBundle {
  readonly packageName: string;
  readonly name: string;
  readonly version: string;
  readonly group: string;
  readonly crdName: string;
  readonly deploymentName: string;
  readonly serviceAccountName: string;
  /** Digest reference of the pushed image. */
  readonly image: string;
}

export const bundleName = (pkg: string, version: string): string => `${pkg}.v${version}`;

/**
 * A CSV webhook definition for a test bundle of package `pkg` (default group): a ValidatingAdmissionWebhook on CREATE
 * of its widgets, served by its Deployment at /validate, failurePolicy Ignore (the simulated pods serve nothing).
 */
export function widgetValidatingWebhook(pkg: string): Record<string, unknown> {
  return {
    type: 'ValidatingAdmissionWebhook',
    generateName: `v${pkg}.example.com`,
    deploymentName: `${pkg}-controller`,
    containerPort: 443,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Ignore',
    webhookPath: '/validate',
    rules: [{ apiGroups: [`${pkg}.example.com`], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }],
  };
}

/** A namespaced CRD `widgets.<group>` (kind `Widget`, version v1) with the given schema. */
export function widgetCrdWithSchema(group: string, openAPIV3Schema: object) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}

export function crdManifest(group: string, fields: readonly string[], padBytes = 0): object {
  return widgetCrdWithSchema(group, {
    type: 'object',
    description: padBytes > 0 ? 'x'.repeat(padBytes) : 'A widget.',
    properties: { spec: { type: 'object', properties: Object.fromEntries(fields.map((f) => [f, { type: 'string' }])) } },
  });
}

/** The files of a bundle image (`manifests/`, `metadata/`). */
export function bundleFiles(spec: TestBundleSpec): Record<string, string> {
  const pkg = spec.packageName;
  const group = spec.group ?? `${pkg}.example.com`;
  const name = bundleName(pkg, spec.version);
  const sa = `${pkg}-controller`;
  const modes = { AllNamespaces: true, OwnNamespace: true, SingleNamespace: true, MultiNamespace: false, ...spec.installModes };
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name },
    spec: {
      displayName: pkg,
      version: spec.version,
      installModes: Object.entries(modes).map(([type, supported]) => ({ type, supported })),
      customresourcedefinitions: { owned: [{ name: `widgets.${group}`, version: 'v1', kind: 'Widget' }] },
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [{ serviceAccountName: sa, rules: [{ apiGroups: [group], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }] }],
          permissions: [{ serviceAccountName: sa, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create'] }] }],
          deployments: [
            {
              name: `${pkg}-controller`,
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: `${pkg}-controller` } },
                template: {
                  metadata: { labels: { app: `${pkg}-controller` } },
                  spec: { serviceAccountName: sa, containers: [{ name: 'manager', image: `registry.test/${pkg}:v${spec.version}` }] },
                },
              },
            },
          ],
        },
      },
      ...spec.csvSpec,
    },
  };
  const files: Record<string, string> = {
    'manifests/csv.yaml': dump(csv),
    'manifests/crd.yaml': dump(crdManifest(group, spec.crdFields ?? ['size'], spec.crdPadBytes)),
    'metadata/annotations.yaml': dump({
      annotations: {
        'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
        'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
        'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
        'operators.operatorframework.io.bundle.package.v1': pkg,
        'operators.operatorframework.io.bundle.channels.v1': 'stable',
      },
    }),
  };
  for (const [file, obj] of Object.entries(spec.extraManifests ?? {})) files[`manifests/${file}`] = dump(obj);
  return files;
}

export async function pushTestBundle(reg: RegistryLike, spec: TestBundleSpec): Promise<TestBundle> {
  const pkg = spec.packageName;
  const group = spec.group ?? `${pkg}.example.com`;
  const pushed = await pushBundleImage(reg, `bundles/${pkg}:v${spec.version}`, { files: bundleFiles(spec) }, { packageName: pkg });
  return {
    packageName: pkg,
    name: bundleName(pkg, spec.version),
    version: spec.version,
    group,
    crdName: `widgets.${group}`,
    deploymentName: `${pkg}-controller`,
    serviceAccountName: `${pkg}-controller`,
    image: pushed.digestRef,
  };
}

export interface CatalogEntry {
  readonly bundle: Pick<TestBundle, 'name' | 'version' | 'image'>;
  /** Channels listing it; default `['stable']`. */
  readonly channels?: readonly string[];
  readonly replaces?: string;
  readonly skips?: readonly string[];
  readonly skipRange?: string;
  /** More bundle properties (olm.gvk, olm.gvk.required, olm.constraint, …), values as objects. */
  readonly properties?: readonly { readonly type: string; readonly value: unknown }[];
}

/** An FBC directory's files: the package, its channels (entries in the given order) and bundles. */
export function catalogFiles(pkg: string, entries: readonly CatalogEntry[], defaultChannel = 'stable'): Record<string, object> {
  const channels = new Map<string, object[]>();
  for (const e of entries) {
    for (const ch of e.channels ?? ['stable']) {
      const list = channels.get(ch) ?? [];
      list.push({
        name: e.bundle.name,
        ...(e.replaces && { replaces: e.replaces }),
        ...(e.skips && { skips: e.skips }),
        ...(e.skipRange && { skipRange: e.skipRange }),
      });
      channels.set(ch, list);
    }
  }
  const files: Record<string, object> = {
    [`${pkg}/package.json`]: { schema: 'olm.package', name: pkg, defaultChannel },
  };
  for (const [ch, list] of channels) files[`${pkg}/channel-${ch}.json`] = { schema: 'olm.channel', name: ch, package: pkg, entries: list };
  entries.forEach((e, i) => {
    files[`${pkg}/bundle-${i}.json`] = {
      schema: 'olm.bundle',
      name: e.bundle.name,
      package: pkg,
      image: e.bundle.image,
      properties: [{ type: 'olm.package', value: { packageName: pkg, version: e.bundle.version } }, ...(e.properties ?? [])],
    };
  });
  return files;
}

/**
 * A bundle blob as `opm render` writes one for a registry+v1 bundle (operator-registry's alpha/action/render.go over
 * registry.NewBundleFromFiles): every manifest an `olm.bundle.object` (its JSON, base64), the owned CRD's `olm.gvk`
 * and `olm.package`, properties sorted by type; `image` only when given (a catalog whose bundles are installed from
 * these objects has none). `extraObjects`: manifests only the catalog has (not in any image).
 */
export function renderedBundleBlob(spec: TestBundleSpec, o: { readonly image?: string; readonly extraObjects?: readonly object[] } = {}): Record<string, unknown> {
  const pkg = spec.packageName;
  const group = spec.group ?? `${pkg}.example.com`;
  const manifests = Object.entries(bundleFiles(spec))
    .filter(([file]) => file.startsWith('manifests/'))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, text]) => load(text) as object);
  const objects = [...manifests, ...(o.extraObjects ?? [])].map((obj) => ({ type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(obj)).toString('base64') } }));
  return {
    schema: 'olm.bundle',
    name: bundleName(pkg, spec.version),
    package: pkg,
    ...(o.image && { image: o.image }),
    properties: [...objects, { type: 'olm.gvk', value: { group, kind: 'Widget', version: 'v1' } }, { type: 'olm.package', value: { packageName: pkg, version: spec.version } }],
  };
}
