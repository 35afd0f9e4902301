// Per-scenario catalogs from upstream's `| package | version | channel | replaces | contents |` tables, built as
// upstream's test/internal/catalog builds them: every name carries the scenario id, each bundle is its own
// registry+v1 image (`bundles/<package>-<id>:v<version>`), the catalog image holds one FBC file
// (`e2e/<catalog>-catalog-<id>:<tag>`, configs/catalog.yaml). Contents:
//   CRD               a cluster-scoped CRD e2e-<id>tests.e2e-<id>.e2e.operatorframework.io, owned by the CSV
//   Deployment        a CSV with Deployment test-operator-<id> (busybox httpd with startup/liveness/readiness
//                     probes), its permissions, the script ConfigMap httpd-script-<id> and a NetworkPolicy
//   ConfigMap         ConfigMap test-configmap-<id> (data: version, name)
//   BadImage          CRD and Deployment whose container image is `wrong/image` (never pulls)
//   Property(k=v)     metadata/properties.yaml property of type k, value "v"
//   InstallMode(m)    the CSV supports install mode m only (default: AllNamespaces and SingleNamespace)
//   LargeCRD(n)       the CRD with n string fields, each with a ~4 KB description
//   ClusterRegistry(h) the catalog names the bundle image at host h instead of the registry's own
//   StaticBundleDir(d) the bundle's files are the directory d (under test/e2e/), unchanged
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump } from 'js-yaml';
import { registry } from '../../support/env.ts';
import { MEDIA, pushBundleImage, pushCatalogImage, putManifest } from '../../support/images.ts';

const E2E_DIR = fileURLToPath(new URL('../', import.meta.url));

interface BundleConfig {
  crd: boolean;
  deployment: boolean;
  configMap: boolean;
  badImage: boolean;
  properties: { type: string; value: string }[];
  installModes: string[];
  largeCrdFields: number;
  staticDir?: string;
  clusterRegistry?: string;
}

interface PackageDef {
  readonly name: string;
  readonly bundles: { version: string; config: BundleConfig }[];
  readonly channels: Map<string, { version: string; replaces: string }[]>;
}

/** The table's rows (header first) as packages; a repeated package/version row only adds a channel entry. */
export function parseCatalogTable(rows: readonly (readonly string[])[]): PackageDef[] {
  const packages = new Map<string, PackageDef>();
  for (const row of rows.slice(1)) {
    const [pkg = '', version = '', channel = '', replaces = '', contents = ''] = row;
    let p = packages.get(pkg);
    if (!p) {
      p = { name: pkg, bundles: [], channels: new Map() };
      packages.set(pkg, p);
    }
    if (p.bundles.some((b) => b.version === version)) {
      if (contents.trim() !== '') throw new Error(`duplicate bundle ${pkg}/${version}: contents must be empty for repeated versions`);
    } else {
      p.bundles.push({ version, config: parseContents(contents) });
    }
    const entries = p.channels.get(channel) ?? [];
    entries.push({ version, replaces });
    p.channels.set(channel, entries);
  }
  return [...packages.values()];
}

function parseContents(contents: string): BundleConfig {
  const c: BundleConfig = { crd: false, deployment: false, configMap: false, badImage: false, properties: [], installModes: [], largeCrdFields: 0 };
  const text = contents.trim();
  if (text === '') return c;
  if (text.toLowerCase() === 'badimage') return { ...c, crd: true, deployment: true, badImage: true };
  const inner = (part: string, fn: string): string | undefined => (part.startsWith(`${fn}(`) && part.endsWith(')') ? part.slice(fn.length + 1, -1) : undefined);
  for (const raw of text.split(',')) {
    const part = raw.trim();
    let v: string | undefined;
    if (part === 'CRD') c.crd = true;
    else if (part === 'Deployment') c.deployment = true;
    else if (part === 'ConfigMap') c.configMap = true;
    else if ((v = inner(part, 'Property')) !== undefined) {
      const eq = v.indexOf('=');
      if (eq >= 0) c.properties.push({ type: v.slice(0, eq), value: v.slice(eq + 1) });
    } else if ((v = inner(part, 'InstallMode')) !== undefined) c.installModes.push(v);
    else if ((v = inner(part, 'LargeCRD')) !== undefined) {
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`invalid LargeCRD field count ${JSON.stringify(v)}: must be a positive integer`);
      c.crd = true;
      c.largeCrdFields = n;
    } else if ((v = inner(part, 'ClusterRegistry')) !== undefined) c.clusterRegistry = v;
    else if ((v = inner(part, 'StaticBundleDir')) !== undefined) c.staticDir = join(E2E_DIR, v);
  }
  return c;
}

const ALL_MODES = ['AllNamespaces', 'SingleNamespace', 'MultiNamespace', 'OwnNamespace'];

/** The files of one generated bundle (`manifests/`, `metadata/`). */
function bundleFiles(id: string, pkg: string, version: string, c: BundleConfig): Record<string, string> {
  const crdGroup = `e2e-${id}.e2e.operatorframework.io`;
  const crdPlural = `e2e-${id}tests`;
  const crdKind = 'E2ETest';
  const crdName = `${crdPlural}.${crdGroup}`;
  const deploymentName = `test-operator-${id}`;
  const saName = `bundle-manager-${id}`;
  const scriptCm = `httpd-script-${id}`;
  const image = c.badImage ? 'wrong/image' : 'busybox:1.36';
  const modes = c.installModes.length > 0 ? c.installModes : ['AllNamespaces', 'SingleNamespace'];
  const strategySpec: Record<string, unknown> = {};
  if (c.deployment) {
    const probe = (path: string, extra: object): object => ({ httpGet: { path, port: 8080 }, ...extra });
    strategySpec.deployments = [
      {
        name: deploymentName,
        label: { 'app.kubernetes.io/name': deploymentName, 'app.kubernetes.io/version': version, 'app.kubernetes.io/component': 'controller' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: id } },
          template: {
            metadata: { labels: { app: id } },
            spec: {
              serviceAccountName: saName,
              terminationGracePeriodSeconds: 0,
              volumes: [{ name: 'scripts', configMap: { name: scriptCm, defaultMode: 0o755 } }],
              containers: [
                {
                  name: 'busybox-httpd-container',
                  image,
                  command: ['/scripts/httpd.sh'],
                  ports: [{ containerPort: 8080 }],
                  volumeMounts: [{ name: 'scripts', mountPath: '/scripts', readOnly: true }],
                  startupProbe: probe('/started', { failureThreshold: 30, periodSeconds: 10 }),
                  livenessProbe: probe('/live', { failureThreshold: 1, periodSeconds: 2 }),
                  readinessProbe: probe('/ready', { initialDelaySeconds: 1, periodSeconds: 1 }),
                },
              ],
            },
          },
        },
      },
    ];
    const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
    strategySpec.permissions = [
      {
        serviceAccountName: saName,
        rules: [
          { apiGroups: [''], resources: ['configmaps', 'serviceaccounts'], verbs },
          { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['get', 'list', 'create', 'update', 'delete'] },
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs },
          { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        ],
      },
    ];
    strategySpec.clusterPermissions = [
      {
        serviceAccountName: saName,
        rules: [
          { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
          { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
        ],
      },
    ];
  }
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: `${pkg}.v${version}` },
    spec: {
      ...(c.crd && {
        customresourcedefinitions: { owned: [{ name: crdName, kind: crdKind, version: 'v1', displayName: crdKind, description: 'E2E Test Resource' }] },
      }),
      install: { strategy: '', spec: strategySpec },
      installModes: ALL_MODES.map((type) => ({ type, supported: modes.includes(type) })),
    },
  };
  const files: Record<string, string> = {
    'manifests/csv.yaml': dump(csv),
    'metadata/annotations.yaml': dump({
      annotations: {
        'operators.operatorframework.io.bundle.package.v1': pkg,
        'operators.operatorframework.io.bundle.channels.v1': '',
        'operators.operatorframework.io.bundle.channel.default.v1': '',
      },
    }),
  };
  if (c.deployment) {
    files['manifests/script-configmap.yaml'] = dump({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: scriptCm },
      data: { 'httpd.sh': '#!/bin/sh\nmkdir -p /tmp/www\necho true > /tmp/www/started\necho true > /tmp/www/ready\necho true > /tmp/www/live\nexec httpd -f -h /tmp/www -p 8080\n' },
    });
    files['manifests/networkpolicy.yaml'] = dump({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: `${deploymentName}-network-policy` },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    });
  }
  if (c.configMap) {
    const name = `test-configmap-${id}`;
    files['manifests/bundle-configmap.yaml'] = dump({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { version, name } });
  }
  if (c.crd) {
    const fields: Record<string, object> = { testField: { type: 'string' } };
    const longDesc =
      'This field provides configuration for the large CRD test operator. It is used to validate that the OLM installation pipeline correctly handles bundles containing large Custom Resource Definitions. '.repeat(
        20,
      );
    for (let i = 0; i < c.largeCrdFields; i++) fields[`field${String(i).padStart(4, '0')}`] = { type: 'string', description: longDesc };
    files['manifests/crd.yaml'] = dump(
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crdName },
        spec: {
          group: crdGroup,
          names: { kind: crdKind, listKind: `${crdKind}List`, plural: crdPlural, singular: `e2e-${id}test` },
          scope: 'Cluster',
          versions: [
            { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: fields } } } } },
          ],
        },
      },
      { lineWidth: -1 },
    );
  }
  if (c.properties.length > 0) files['metadata/properties.yaml'] = dump({ properties: c.properties.map((p) => ({ type: p.type, value: p.value })) });
  return files;
}

export interface BuiltCatalog {
  /** The ClusterCatalog's spec.source.image.ref (the registry the in-process catalogd pulls from). */
  readonly imageRef: string;
  /** The ClusterCatalog's name: `<catalog>-catalog-<id>`. */
  readonly catalogName: string;
  /** Table package name → the scenario's package name (`<package>-<id>`). */
  readonly packageNames: ReadonlyMap<string, string>;
}

/** Catalog image repository of a scenario's catalog (without tag). */
export const catalogRepo = (catalog: string, id: string): string => `e2e/${catalog}-catalog-${id}`;

/** Pushes every bundle of `packages` and the catalog image listing them, tagged `tag`. */
export async function buildCatalog(catalog: string, id: string, packages: readonly PackageDef[], tag: string): Promise<BuiltCatalog> {
  const reg = registry();
  const packageNames = new Map<string, string>();
  const docs: string[] = [];
  for (const p of packages) {
    const pkg = `${p.name}-${id}`;
    packageNames.set(p.name, pkg);
    const refs = new Map<string, string>();
    for (const b of p.bundles) {
      const repoTag = `bundles/${pkg}:v${b.version}`;
      const content = b.config.staticDir ? { dir: b.config.staticDir } : { files: bundleFiles(id, pkg, b.version, b.config) };
      await pushBundleImage(reg, repoTag, content, { packageName: pkg, channels: ['default'] });
      refs.set(b.version, `${b.config.clusterRegistry ?? reg.host}/${repoTag}`);
    }
    if (p.channels.size === 0) throw new Error(`package ${JSON.stringify(p.name)} must define at least one channel`);
    docs.push(dump({ schema: 'olm.package', name: pkg }));
    for (const [channel, entries] of p.channels) {
      docs.push(
        dump({
          schema: 'olm.channel',
          name: channel,
          package: pkg,
          entries: entries.map((e) => ({ name: `${pkg}.${e.version}`, ...(e.replaces !== '' && { replaces: `${pkg}.${e.replaces}` }) })),
        }),
      );
    }
    for (const b of p.bundles) {
      docs.push(
        dump({
          schema: 'olm.bundle',
          name: `${pkg}.${b.version}`,
          package: pkg,
          image: refs.get(b.version),
          properties: [{ type: 'olm.package', value: { packageName: pkg, version: b.version } }],
        }),
      );
    }
  }
  const repo = catalogRepo(catalog, id);
  await pushCatalogImage(reg, `${repo}:${tag}`, { files: { 'catalog.yaml': docs.join('---\n') } });
  return { imageRef: `${reg.host}/${repo}:${tag}`, catalogName: `${catalog}-catalog-${id}`, packageNames };
}

/** Tags the image `repo:from` also as `repo:to` (the manifest PUT under the new tag, as `crane tag` does). */
export async function tagImage(repo: string, from: string, to: string): Promise<void> {
  const reg = registry();
  const accept = [MEDIA.ociManifest, MEDIA.ociIndex, MEDIA.dockerManifest, MEDIA.dockerList].join(', ');
  const res = await fetch(`${reg.url}/v2/${repo}/manifests/${from}`, { headers: { accept } });
  if (res.status !== 200) throw new Error(`GET manifest ${repo}:${from}: ${res.status} ${await res.text()}`);
  const mediaType = res.headers.get('content-type') ?? MEDIA.ociManifest;
  await putManifest(reg, repo, to, mediaType, new Uint8Array(await res.arrayBuffer()));
}
