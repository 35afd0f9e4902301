import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CatalogSource } from '../../../api/operators/index.ts';
import { loadCatalog } from '../../shared/fbc/index.ts';
import { contentFromFbc, type CatalogContent, type ContentBundle } from '../catalogsource/index.ts';
import { bundleCSV, contentManifest, contentManifests, csvDescription, packageIcon, packageManifest, setDefaultOsArchLabels } from './manifest.ts';
import { packageProvider } from './provider.ts';

const demo = fileURLToPath(new URL('../../../demo/catalog', import.meta.url));

const source = (namespace: string, name: string, extra: Partial<CatalogSource['spec']> = {}, labels?: Record<string, string>): CatalogSource => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'CatalogSource',
  metadata: { name, namespace, creationTimestamp: '2026-11-01T00:00:00Z', ...(labels && { labels }) },
  spec: { sourceType: 'grpc', ...extra },
});

const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64');
const bundle = (name: string, version: string, extra: Partial<ContentBundle> = {}, csv?: object): ContentBundle => ({
  name,
  package: 'pkg',
  image: `example.com/pkg:${version}`,
  version,
  properties: [
    { type: 'olm.package', value: JSON.stringify({ packageName: 'pkg', version }) },
    ...(csv ? [{ type: 'olm.bundle.object', value: JSON.stringify({ data: b64(csv) }) }] : []),
  ],
  ...extra,
});
const csvObject = (name: string, version: string, provider: string, labels: Record<string, string> = {}): object => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name, labels, annotations: { capabilities: 'Basic Install' } },
  spec: {
    displayName: 'Pkg',
    version,
    provider: { name: provider, url: 'https://example.com' },
    icon: [{ base64data: 'aWNvbg==', mediatype: 'image/png' }],
    install: {
      strategy: 'deployment',
      spec: { deployments: [{ name: 'd', spec: { template: { spec: { containers: [{ image: 'example.com/op:1' }], initContainers: [{ image: 'example.com/init:1' }] } } } }] },
    },
    relatedImages: [{ name: 'x', image: 'example.com/related:1' }],
    customresourcedefinitions: { owned: [{ name: 'as.example.com', version: 'v1', kind: 'A', displayName: 'A', description: 'an A', specDescriptors: [{ path: 'x' }] }] },
  },
});

describe('PackageManifest from catalog content (upstream’s newPackageManifest)', () => {
  it('the demo catalog: channels sorted, heads, csv-metadata descriptions, entries newest first with deprecations', async () => {
    const content = contentFromFbc(await loadCatalog(demo), 'example.com/demo@sha256:x', new Date());
    const [m] = contentManifests(content);
    expect(m).toBeDefined();
    expect(m!.packageName).toBe('demo-operator');
    expect(m!.defaultChannel).toBe('stable');
    expect(m!.channels.map((c) => [c.name, c.currentCSV])).toEqual([
      ['candidate', 'demo-operator.v0.4.0'],
      ['stable', 'demo-operator.v0.3.0'],
    ]);
    const stable = m!.channels[1]!;
    expect(stable.entries?.map((e) => [e.name, e.version, e.deprecation !== undefined])).toEqual([
      ['demo-operator.v0.3.0', '0.3.0', false],
      ['demo-operator.v0.2.0', '0.2.0', true],
      ['demo-operator.v0.1.0', '0.1.0', false],
    ]);
    expect(stable.currentCSVDesc).toMatchObject({
      displayName: 'Demo Operator',
      version: '0.3.0',
      provider: { name: 'OLM demo' },
      maturity: 'stable',
      keywords: ['demo', 'greeting'],
      maintainers: [{ name: 'OLM demo maintainers', email: 'demo@example.com' }],
      customresourcedefinitions: { owned: [{ name: 'greetings.demo.olm.dev', version: 'v1alpha1', kind: 'Greeting', displayName: 'Greeting', description: 'Someone to greet.' }] },
      apiservicedefinitions: {},
    });
    // the csv-metadata CSV's related images are the blob's
    expect(stable.currentCSVDesc.relatedImages).toEqual(['localhost:5001/olm-demo/demo-operator-bundle:v0.3.0', 'registry.example.com/olm-demo/demo-operator:v0.3.0']);
    expect(m!.provider).toEqual({ name: 'OLM demo' });
    // no icon in the package: none for the subresource (upstream then serves its default)
    expect(m!.icons.size).toBe(0);
    // computed once per loaded content
    expect(contentManifests(content)[0]).toBe(m);
  });

  it('a csv-metadata CSV takes the package’s icon and description', () => {
    const b: ContentBundle = {
      ...bundle('pkg.v1.0.0', '1.0.0'),
      properties: [{ type: 'olm.csv.metadata', value: JSON.stringify({ displayName: 'Pkg', provider: { name: 'Acme' } }) }],
    };
    const csv = bundleCSV(b, { name: 'pkg', defaultChannel: 'a', channels: [], description: 'from the package', icon: { base64data: 'aWNvbg==', mediatype: 'image/png' } })!;
    expect(csv.spec).toMatchObject({ description: 'from the package', icon: [{ base64data: 'aWNvbg==', mediatype: 'image/png' }], version: '1.0.0' });
    expect(csvDescription(csv)).toMatchObject({ displayName: 'Pkg', description: 'from the package', version: '1.0.0' });
  });

  it('a real CSV (olm.bundle.object): its description fields, images of its deployments and related images, no icon', () => {
    const csv = csvObject('pkg.v1.0.0', '1.0.0', 'Acme');
    const d = csvDescription(bundleCSV(bundle('pkg.v1.0.0', '1.0.0', {}, csv), undefined)!);
    expect(d).toEqual({
      displayName: 'Pkg',
      version: '1.0.0',
      provider: { name: 'Acme', url: 'https://example.com' },
      annotations: { capabilities: 'Basic Install' },
      customresourcedefinitions: { owned: [{ name: 'as.example.com', version: 'v1', kind: 'A', displayName: 'A', description: 'an A' }] },
      apiservicedefinitions: {},
      relatedImages: ['example.com/init:1', 'example.com/op:1', 'example.com/related:1'],
    });
  });

  it('the registry API’s csvJson wins; an unreadable CSV elides the channel and the first channel left becomes the default', () => {
    const content: CatalogContent = {
      origin: 'x',
      loadedAt: '',
      packages: [
        {
          name: 'pkg',
          defaultChannel: 'broken',
          channels: [
            { name: 'broken', entries: [{ name: 'pkg.v0.1.0', replaces: '', skips: [], skipRange: '' }] },
            { name: 'fast', entries: [{ name: 'pkg.v1.0.0', replaces: '', skips: [], skipRange: '' }], deprecation: 'fast is gone' },
          ],
          deprecation: 'pkg is old',
        },
      ],
      bundles: [bundle('pkg.v0.1.0', '0.1.0'), bundle('pkg.v1.0.0', '1.0.0', { csvJson: JSON.stringify(csvObject('pkg.v1.0.0', '1.0.0', 'Acme', { 'operatorframework.io/arch.arm64': 'supported' })) })],
    };
    const m = contentManifest(content, content.packages[0]!)!;
    expect(m.defaultChannel).toBe('fast');
    expect(m.channels.map((c) => c.name)).toEqual(['fast']);
    expect(m.channels[0]!.deprecation).toEqual({ message: 'fast is gone' });
    expect(m.deprecation).toEqual({ message: 'pkg is old' });
    const pm = packageManifest(source('ns1', 'cat', { displayName: 'Cat', publisher: 'Pub' }, { team: 'a' }), m, 'ns2');
    expect(pm.metadata).toEqual({
      name: 'pkg',
      namespace: 'ns2',
      creationTimestamp: '2026-11-01T00:00:00Z',
      labels: {
        team: 'a',
        catalog: 'cat',
        'catalog-namespace': 'ns1',
        provider: 'Acme',
        'provider-url': 'https://example.com',
        'operatorframework.io/arch.arm64': 'supported',
        'operatorframework.io/os.linux': 'supported',
      },
    });
    expect(pm.status).toMatchObject({ catalogSource: 'cat', catalogSourceDisplayName: 'Cat', catalogSourcePublisher: 'Pub', catalogSourceNamespace: 'ns1', packageName: 'pkg' });
    // the icon subresource's: the default channel's head CSV's first icon, etag <package>.<channel>.<csv>
    expect(packageIcon(pm, m.icons)).toEqual({ data: Buffer.from('icon'), mediatype: 'image/png', etag: '"pkg.fast.pkg.v1.0.0"' });
  });

  it('no channel left: no PackageManifest; bundles with olm.deprecated are left out of the entries', () => {
    const content: CatalogContent = {
      origin: 'x',
      loadedAt: '',
      packages: [{ name: 'pkg', defaultChannel: 'a', channels: [{ name: 'a', entries: [{ name: 'pkg.v0.1.0', replaces: '', skips: [], skipRange: '' }] }] }],
      bundles: [bundle('pkg.v0.1.0', '0.1.0')],
    };
    expect(contentManifest(content, content.packages[0]!)).toBeUndefined();
    const csv = csvObject('pkg.v0.2.0', '0.2.0', 'Acme');
    const withDeprecated: CatalogContent = {
      ...content,
      packages: [
        {
          name: 'pkg',
          defaultChannel: 'a',
          channels: [{ name: 'a', entries: [{ name: 'pkg.v0.1.0', replaces: '', skips: [], skipRange: '' }, { name: 'pkg.v0.2.0', replaces: 'pkg.v0.1.0', skips: [], skipRange: '' }] }],
        },
      ],
      bundles: [
        { ...bundle('pkg.v0.1.0', '0.1.0'), properties: [{ type: 'olm.deprecated', value: '{}' }] },
        bundle('pkg.v0.2.0', '0.2.0', {}, csv),
      ],
    };
    expect(contentManifest(withDeprecated, withDeprecated.packages[0]!)!.channels[0]!.entries).toEqual([{ name: 'pkg.v0.2.0', version: '0.2.0' }]);
  });

  it('default os/arch labels only when the CSV names none', () => {
    const a: Record<string, string> = {};
    setDefaultOsArchLabels(a);
    expect(a).toEqual({ 'operatorframework.io/os.linux': 'supported', 'operatorframework.io/arch.amd64': 'supported' });
    const b: Record<string, string> = { 'operatorframework.io/os.windows': 'supported' };
    setDefaultOsArchLabels(b);
    expect(b).toEqual({ 'operatorframework.io/os.windows': 'supported', 'operatorframework.io/arch.amd64': 'supported' });
  });

  it('the provider lists a namespace’s catalogs then the global namespace’s, in the namespace asked for', async () => {
    const content = contentFromFbc(await loadCatalog(demo), 'x', new Date());
    const sources = [source('olm', 'global'), source('ns', 'local'), source('other', 'theirs')];
    const provider = packageProvider({ catalogSources: { list: () => sources }, contents: { get: () => content }, globalCatalogNamespace: 'olm' });
    expect(provider.list('ns').map((p) => [p.metadata.namespace, p.status.catalogSource])).toEqual([
      ['ns', 'local'],
      ['ns', 'global'],
    ]);
    expect(provider.list('olm').map((p) => p.status.catalogSource)).toEqual(['global']);
    expect(provider.list('').map((p) => [p.metadata.namespace, p.status.catalogSource])).toEqual([
      ['ns', 'local'],
      ['olm', 'global'],
      ['other', 'theirs'],
    ]);
    expect(provider.get('ns', 'demo-operator')?.status.catalogSource).toBe('local');
    expect(provider.get('ns', 'absent')).toBeUndefined();
  });
});
