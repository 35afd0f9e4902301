// The demo catalog and bundles as `make run` publishes them: the catalog passes `opm validate`'s
// checks, every bundle renders, the catalog's olm.bundle blobs are what opm would render from the
// bundle directories, and operator-controller's resolver walks the upgrade graph as the README
// tutorial says.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterCatalog, ClusterExtension } from '../api/v1/index.ts';
import { runCaptured, type CapturedRun } from '../internal/cli/index.ts';
import { indexFromDirectory } from '../internal/operator-controller/contentclient/index.ts';
import { renderBundle } from '../internal/operator-controller/render/index.ts';
import { CatalogResolver, StaticContentClient } from '../internal/operator-controller/resolve/index.ts';
import { loadCatalog } from '../internal/shared/fbc/index.ts';
import { renderBundleBlob } from './opm-render.ts';

const DEMO = import.meta.dirname;
const CATALOG = join(DEMO, 'catalog');
const PKG = 'demo-operator';
const VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.4.0'];
const bundleDir = (v: string): string => join(DEMO, 'bundles', `${PKG}.v${v}`);
const bundleImage = (v: string): string => `localhost:5001/olm-demo/demo-operator-bundle:v${v}`;

const cli = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd: DEMO });

describe('demo catalog and bundles', () => {
  it('passes `kubectl olm catalog validate`', async () => {
    expect(await cli('catalog', 'validate', 'catalog')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('has one bundle directory per version, each rendering for an AllNamespaces install', async () => {
    expect((await readdir(join(DEMO, 'bundles'))).sort()).toEqual(VERSIONS.map((v) => `${PKG}.v${v}`));
    for (const v of VERSIONS) {
      const r = await cli('bundle', 'render', bundleDir(v), '--install-namespace', 'demo');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const objects = await renderBundle(bundleDir(v), { installNamespace: 'demo' });
      const kinds = objects.map((o) => `${o.kind}/${o.metadata?.name ?? ''}`);
      expect(kinds).toContain('CustomResourceDefinition/greetings.demo.olm.dev');
      expect(kinds).toContain('ServiceAccount/demo-operator-controller');
      const deployment = objects.find((o) => o.kind === 'Deployment') as
        | { metadata: { name: string; namespace: string }; spec: { template: { spec: { containers: { image: string; readinessProbe?: unknown }[] } } } }
        | undefined;
      expect(deployment?.metadata).toMatchObject({ name: 'demo-operator-controller', namespace: 'demo' });
      const container = deployment!.spec.template.spec.containers[0]!;
      expect(container.image).toBe(`registry.example.com/olm-demo/demo-operator:v${v}`);
      expect(container.readinessProbe).toEqual({ httpGet: { path: '/readyz', port: 'health' }, initialDelaySeconds: 5, periodSeconds: 10 });
    }
  });

  it('lists each bundle as opm would render it from its directory, image on the make-run registry', async () => {
    const catalog = await loadCatalog(CATALOG);
    const blobs = catalog.metas.filter((m) => m.schema === 'olm.bundle').map((m) => JSON.parse(m.json.toString()) as { name: string });
    expect(blobs.map((b) => b.name)).toEqual(VERSIONS.map((v) => `${PKG}.v${v}`));
    for (const [i, v] of VERSIONS.entries()) {
      expect(blobs[i]).toEqual(await renderBundleBlob(bundleDir(v), bundleImage(v)));
    }
  });

  it('declares olm.maxOpenShiftVersion 4.22 on 0.1.0 only', async () => {
    const { bundles } = (await indexFromDirectory(CATALOG)).getPackage(PKG);
    const max = Object.fromEntries(bundles.map((b) => [b.name, b.properties.filter((p) => p.type === 'olm.maxOpenShiftVersion').map((p) => p.value)]));
    expect(max).toEqual({
      'demo-operator.v0.1.0': ['4.22'],
      'demo-operator.v0.2.0': [],
      'demo-operator.v0.3.0': [],
      'demo-operator.v0.4.0': [],
    });
  });
});

describe('resolution over the demo catalog', () => {
  const catalogs: ClusterCatalog[] = [
    {
      metadata: { name: 'olm-demo', labels: { 'olm.operatorframework.io/metadata.name': 'olm-demo' } },
      spec: { source: { type: 'Image', image: { ref: 'localhost:5001/olm-demo/catalog:latest' } }, priority: 0, availabilityMode: 'Available' },
    },
  ];
  const resolver = async (): Promise<CatalogResolver> =>
    new CatalogResolver({ listCatalogs: () => catalogs, content: new StaticContentClient(new Map([['olm-demo', await indexFromDirectory(CATALOG)]])) });

  interface Ask {
    readonly version?: string;
    readonly channels?: string[];
    readonly installed?: string;
    readonly selfCertified?: boolean;
  }
  const extension = (a: Ask): ClusterExtension => ({
    metadata: { name: PKG },
    spec: {
      namespace: 'demo',
      source: {
        sourceType: 'Catalog',
        catalog: {
          packageName: PKG,
          version: a.version ?? '',
          channels: a.channels ?? [],
          upgradeConstraintPolicy: a.selfCertified ? 'SelfCertified' : 'CatalogProvided',
        },
      },
    },
  });
  async function resolve(a: Ask) {
    const installed = a.installed === undefined ? undefined : { name: `${PKG}.v${a.installed}`, version: a.installed };
    return (await resolver()).resolveBundle(extension(a), installed);
  }
  const version = async (a: Ask): Promise<string> => (await resolve(a)).bundle.version;

  it('installs the head of a channel, or the highest version of any channel', async () => {
    expect(await version({ channels: ['stable'] })).toBe('0.3.0');
    expect(await version({ channels: ['candidate'] })).toBe('0.4.0');
    expect(await version({})).toBe('0.4.0');
  });

  it('installs the highest version in a range, a deprecated bundle only when nothing else fits', async () => {
    expect(await version({ channels: ['stable'], version: '0.1.x' })).toBe('0.1.0');
    expect(await version({ channels: ['stable'], version: '>=0.1.0 <1.0.0' })).toBe('0.3.0');
    expect(await version({ version: '>=0.1.0 <0.3.0' })).toBe('0.1.0');
    const r = await resolve({ version: '0.2.0' });
    expect(r.bundle.name).toBe('demo-operator.v0.2.0');
    expect(r.deprecation?.entries).toEqual([
      {
        reference: { schema: 'olm.bundle', name: 'demo-operator.v0.2.0' },
        message: 'demo-operator.v0.2.0 is deprecated: it greets everyone twice. Upgrade to 0.3.0 or later.\n',
      },
    ]);
  });

  it('upgrades from 0.1.0 along replaces and skipRange edges', async () => {
    // 0.2.0 replaces 0.1.0; 0.3.0's skipRange covers 0.1.0; 0.4.0 only replaces 0.3.0.
    expect(await version({ installed: '0.1.0', channels: ['stable'] })).toBe('0.3.0');
    expect(await version({ installed: '0.1.0', channels: ['stable'], version: '>=0.1.0 <1.0.0' })).toBe('0.3.0');
    expect(await version({ installed: '0.1.0', channels: ['candidate'] })).toBe('0.3.0');
    expect(await version({ installed: '0.1.0', version: '0.2.0' })).toBe('0.2.0');
    expect(await version({ installed: '0.3.0', channels: ['candidate'] })).toBe('0.4.0');
    await expect(resolve({ installed: '0.1.0', version: '0.4.0' })).rejects.toThrow(
      'error upgrading from currently installed version "0.1.0": no bundles found for package "demo-operator" matching version "0.4.0"',
    );
  });

  it('downgrades only when the policy is SelfCertified', async () => {
    await expect(resolve({ installed: '0.3.0', channels: ['stable'], version: '0.1.0' })).rejects.toThrow(
      'error upgrading from currently installed version "0.3.0": no bundles found for package "demo-operator" matching version "0.1.0" in channels [stable]',
    );
    expect(await version({ installed: '0.3.0', channels: ['stable'], version: '0.1.0', selfCertified: true })).toBe('0.1.0');
  });
});
