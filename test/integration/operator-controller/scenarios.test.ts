// operator-controller end to end, the scenarios beyond the happy path: a CRD
// upgrade that removes a field (blocked by the crdify check; `enforcement: None` lets it
// through), bundles with a 2 MiB CRD file and 2.8 MiB of CRDs, an existing Deployment nobody owns (never taken over),
// the real bundle in testdata/bundles in AllNamespaces mode, and invalid bundles (upstream's
// message in Progressing, nothing applied).
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { dump } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminKube, registry } from '../../support/env.ts';
import { bundleFiles, catalogFiles, crdManifest, pushTestBundle, widgetCrdWithSchema, type CatalogEntry, type TestBundle, type TestBundleSpec } from '../../support/bundles.ts';
import { pushBundleImage, pushCatalogImage } from '../../support/images.ts';
import { applyExtension, extCondition, installCertManagerCrds, installedBundle, operatorControllerSuite, progressingWith, waitForExtension } from './harness.ts';
import { RABBITMQ_BUNDLE } from '../../support/testdata.ts';

const suite = operatorControllerSuite('oc-scenarios', { certManager: true });
const { install } = suite;
let namespace = '';
beforeAll(() => {
  namespace = suite.namespace();
});

async function serveCatalog(pkg: string, entries: readonly CatalogEntry[], tag?: string, poll = false): Promise<string> {
  return (await suite.serveCatalog(pkg, entries, { ...(tag && { tag }), poll })).catalog;
}

const exists = async (path: string): Promise<boolean> => (await adminKube().request('GET', path)).status === 200;
const crdPath = (name: string): string => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;

describe('CRD upgrade safety', () => {
  it('blocks an upgrade that removes a field with the crdify message; enforcement None lets it through', async () => {
    const pkg = 'crdsafe';
    const v1 = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0', crdFields: ['size', 'color'] });
    const tag = `catalogs/${pkg}:latest`;
    const catalog = await serveCatalog(pkg, [{ bundle: v1 }], tag, true);
    await install(pkg, { namespace, packageName: pkg, catalogName: catalog });
    await waitForExtension(pkg, 'installed 1.0.0', installedBundle(v1.name));

    const v2 = await pushTestBundle(registry(), { packageName: pkg, version: '1.1.0', crdFields: ['size'] });
    await pushCatalogImage(registry(), tag, { files: catalogFiles(pkg, [{ bundle: v1 }, { bundle: v2, replaces: v1.name }]) });
    const blocked = await waitForExtension(pkg, 'blocked by CRD upgrade safety', progressingWith('Retrying', `validating upgrade for CRD "${v1.crdName}"`), 60_000);
    const message = extCondition(blocked, 'Progressing')!.message;
    expect(message).toContain('existingFieldRemoval: removed field : v1.^.spec.color');
    expect(blocked.status?.install?.bundle.name).toBe(v1.name);

    await applyExtension(pkg, { namespace, packageName: pkg, catalogName: catalog, crdUpgradeSafety: 'None' });
    await waitForExtension(pkg, 'upgraded with enforcement None', installedBundle(v2.name), 60_000);
  });
});

describe('big and contested objects', () => {
  // No single object can exceed what etcd accepts in one request (1.5 MiB with etcd's default
  // --max-request-bytes: a 2 MiB CRD is refused with "etcdserver: request is too large" by any
  // default cluster). So the bundle carries 2.8 MiB of CRDs in two 1.4 MiB CRDs: the revision
  // record holding them is far over a Secret's 1 MiB and must be split.
  it('installs a bundle with 2.8 MiB of CRDs (two of 1.4 MiB)', async () => {
    const pad = Math.round(1.4 * 1024 * 1024);
    const b = await pushTestBundle(registry(), {
      packageName: 'bigcrd',
      version: '1.0.0',
      crdPadBytes: pad,
      extraManifests: { 'crd2.yaml': { ...(crdManifest('second.bigcrd.example.com', ['size'], pad) as object) } },
      csvSpec: {
        customresourcedefinitions: {
          owned: [
            { name: 'widgets.bigcrd.example.com', version: 'v1', kind: 'Widget' },
            { name: 'widgets.second.bigcrd.example.com', version: 'v1', kind: 'Widget' },
          ],
        },
      },
    });
    const catalog = await serveCatalog('bigcrd', [{ bundle: b }]);
    await install('bigcrd', { namespace, packageName: 'bigcrd', catalogName: catalog });
    await waitForExtension('bigcrd', 'installed', installedBundle(b.name), 90_000);
    expect(await exists(crdPath(b.crdName))).toBe(true);
    expect(await exists(crdPath('widgets.second.bigcrd.example.com'))).toBe(true);
  });

  // What a bundle ships is YAML: a big CRD as controller-gen writes it (deep schema, wrapped
  // descriptions) is a 2 MiB file that the API server stores as about 1.2 MiB of JSON.
  it('installs a bundle whose CRD manifest is a 2 MiB file', async () => {
    const pkg = 'bigyaml';
    const crd = wideCrd(`${pkg}.example.com`, 4, 300, 4000);
    const file = dump(crd);
    expect(file.length).toBeGreaterThan(2 * 1024 * 1024);
    const b = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0', extraManifests: { 'crd.yaml': crd } });
    const catalog = await serveCatalog(pkg, [{ bundle: b }]);
    await install(pkg, { namespace, packageName: pkg, catalogName: catalog });
    await waitForExtension(pkg, 'installed', installedBundle(b.name), 90_000);
    const stored = await adminKube().must<{ spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } }>(adminKube().request('GET', crdPath(b.crdName)));
    expect(stored.spec.versions[0]!.schema.openAPIV3Schema).toEqual(crd.spec.versions[0]!.schema.openAPIV3Schema);
  });

  it('never takes over an existing Deployment that nobody owns', async () => {
    const pkg = 'taken';
    const b = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0' });
    const catalog = await serveCatalog(pkg, [{ bundle: b }]);
    const kube = adminKube();
    const theirs = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: b.deploymentName, namespace, labels: { owner: 'someone-else' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'theirs' } },
        template: { metadata: { labels: { app: 'theirs' } }, spec: { containers: [{ name: 'c', image: 'registry.test/theirs:v1' }] } },
      },
    };
    await kube.must(kube.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, theirs));
    await install(pkg, { namespace, packageName: pkg, catalogName: catalog });
    await waitForExtension(
      pkg,
      'refusing the collision',
      progressingWith('Retrying', `Deployment '${b.deploymentName}' already exists in namespace '${namespace}' and cannot be managed by operator-controller`),
    );
    const still = await kube.must<{ metadata: { labels: Record<string, string> }; spec: { selector: { matchLabels: Record<string, string> } } }>(
      kube.request('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${b.deploymentName}`),
    );
    expect(still.metadata.labels).toEqual({ owner: 'someone-else' });
    expect(still.spec.selector.matchLabels).toEqual({ app: 'theirs' });
  });
});

/** A CRD `Widget` whose spec nests `depth` objects around `fields` string fields with `descriptionChars` of prose each. */
function wideCrd(group: string, depth: number, fields: number, descriptionChars: number) {
  const words = 'the operator reconciles this field when it observes a change in the desired state and reports progress through status conditions'.split(' ');
  const prose = (n: number, seed: number): string => {
    const out: string[] = [];
    for (let i = seed, len = 0; len < n; i++) {
      const w = words[i % words.length]!;
      out.push(w);
      len += w.length + 1;
    }
    return out.join(' ');
  };
  let node: object = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: fields }, (_, i) => [`field${i}`, { type: 'string', description: prose(descriptionChars, i) }])),
  };
  for (let d = depth; d > 0; d--) node = { type: 'object', description: prose(200, d), properties: { [`level${d}`]: node } };
  return widgetCrdWithSchema(group, { type: 'object', properties: { spec: node } });
}

async function filesOf(dir: string): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const abs = join(e.parentPath, e.name);
    out[relative(dir, abs)] = await readFile(abs);
  }
  return out;
}

describe('a real bundle', () => {
  it('installs rabbitmq-messaging-topology-operator 1.19.3 in AllNamespaces mode from an image built by the test helper', async () => {
    const pkg = 'rabbitmq-messaging-topology-operator';
    const pushed = await pushBundleImage(registry(), `bundles/${pkg}:v1.19.3`, { files: await filesOf(RABBITMQ_BUNDLE) }, { packageName: pkg });
    const bundle = { name: `${pkg}.v1.19.3`, version: '1.19.3', image: pushed.digestRef };
    const catalog = await serveCatalog(pkg, [{ bundle }]);
    // Its webhooks need cert-manager's Certificate and Issuer kinds (upstream's default provider).
    await installCertManagerCrds();
    const ns = await adminKube().namespace('rabbitmq');
    await install('rabbitmq', { namespace: ns, packageName: pkg, catalogName: catalog });
    await waitForExtension('rabbitmq', 'installed', installedBundle(bundle.name), 120_000);
    const dep = await adminKube().must<{ spec: { template: { metadata: { annotations: Record<string, string> } } } }>(
      adminKube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/messaging-topology-operator`),
    );
    expect(dep.spec.template.metadata.annotations['olm.targetNamespaces']).toBe('');
    expect(await exists(crdPath('queues.rabbitmq.com'))).toBe(true);
  });
});


describe('invalid bundles', () => {
  const cases: { name: string; spec: Omit<TestBundleSpec, 'packageName' | 'version'>; message: RegExp }[] = [
    {
      name: 'badkind',
      spec: { extraManifests: { 'pod.yaml': { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } } } },
      message: /unsupported resource "p" with kind "Pod"/,
    },
    {
      name: 'dupdeploy',
      spec: {
        csvSpec: {
          install: {
            strategy: 'deployment',
            spec: {
              deployments: [
                { name: 'same', spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } },
                { name: 'same', spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } },
              ],
            },
          },
        },
      },
      message: /cluster service version contains duplicate strategy deployment spec 'same'/,
    },
    {
      name: 'missingcrd',
      spec: { csvSpec: { customresourcedefinitions: { owned: [{ name: 'gadgets.missingcrd.example.com', version: 'v1', kind: 'Gadget' }] } } },
      message: /cluster service definition references owned custom resource definition 'gadgets\.missingcrd\.example\.com' not found in bundle/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: upstream's message in Progressing and nothing applied`, async () => {
      const spec: TestBundleSpec = { packageName: c.name, version: '1.0.0', ...c.spec };
      const b: TestBundle = await pushTestBundle(registry(), spec);
      expect(bundleFiles(spec)['manifests/csv.yaml']).toBeDefined();
      const catalog = await serveCatalog(c.name, [{ bundle: b }]);
      await install(c.name, { namespace, packageName: c.name, catalogName: catalog });
      const ext = await waitForExtension(c.name, 'failing with the validation message', (e) => c.message.test(extCondition(e, 'Progressing')?.message ?? ''));
      expect(extCondition(ext, 'Installed')?.status).toBe('False');
      expect(await exists(crdPath(b.crdName))).toBe(false);
    });
  }
});
