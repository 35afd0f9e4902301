// Our package server's PackageManifests field for field against what upstream's own package server served for the
// same catalogs (testdata/upstream/operator-lifecycle-manager/packagemanifests.tar.zst, made by
// hack/upstream-packagemanifests.ts with upstream's code: the demo catalog, the real community-operators-v4.21 and the
// demo catalog with package and channel deprecations, each behind `opm serve` as a CatalogSource of spec.address in
// the global catalog namespace `olm`). Our provider is fed the same catalogs both
// ways olm-classic loads them: over the registry API from the same `opm serve` (spec.address), and as the FBC itself
// (spec.image: upstream serves an image's FBC with `opm serve` in a Pod, so the expected data is the same).
// Normalised as the data is: items sorted by package name, creationTimestamp null (relatedImages: ours are sorted,
// upstream's, in Go map order, were sorted when the data was written).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { contentFromFbc, contentFromRegistry, type CatalogContent } from '../../../internal/classic/catalogsource/index.ts';
import { listItem, packageProvider, type PackageManifest } from '../../../internal/classic/packageserver/index.ts';
import { RegistryClient } from '../../../internal/classic/registryclient/index.ts';
import { loadCatalog } from '../../../internal/shared/fbc/index.ts';
import { OpmServe } from '../../support/opm.ts';
import { UPSTREAM_PACKAGEMANIFEST_SOURCES, upstreamPackageManifestsDir, upstreamPackageManifestCatalog, type UpstreamPackageManifestSource } from '../../support/testdata.ts';

type Item = Omit<PackageManifest, 'apiVersion' | 'kind'>;
const NS = 'olm';
const expected = (name: string): Item[] => JSON.parse(readFileSync(join(upstreamPackageManifestsDir(), `${name}.json`), 'utf8')) as Item[];

const catalogSource = (s: UpstreamPackageManifestSource): ops.CatalogSource => ({
  apiVersion: ops.V1alpha1,
  kind: ops.CatalogSourceKind,
  metadata: { name: s.metadata.name, namespace: NS, labels: { ...s.metadata.labels }, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { ...s.spec },
});

/** Our provider's list of the namespace for one CatalogSource with `content`, its items serialized as the server sends them, normalised. */
function ours(s: UpstreamPackageManifestSource, content: CatalogContent): Item[] {
  const source = catalogSource(s);
  const provider = packageProvider({ catalogSources: { list: () => [source] }, contents: { get: (ns, n) => (ns === NS && n === s.metadata.name ? content : undefined) }, globalCatalogNamespace: NS });
  const items = JSON.parse(JSON.stringify(provider.list(NS).map(listItem))) as Item[];
  return items.map((i) => ({ ...i, metadata: { ...i.metadata, creationTimestamp: null } })).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}

const servers = new Map<string, OpmServe>();
beforeAll(async () => {
  for (const s of UPSTREAM_PACKAGEMANIFEST_SOURCES) {
    const opm = new OpmServe(upstreamPackageManifestCatalog(s.metadata.name));
    servers.set(s.metadata.name, opm);
    await opm.start();
  }
}, 180_000);
afterAll(async () => {
  for (const opm of servers.values()) await opm.stop();
});

describe.each(UPSTREAM_PACKAGEMANIFEST_SOURCES.map((s) => [s.metadata.name, s] as const))('PackageManifests of the %s catalog equal upstream’s', (name, s) => {
  it('the expected data is upstream’s list of that catalog', () => {
    expect(expected(name).length).toBeGreaterThan(0);
    expect(expected(name).every((pm) => pm.status.catalogSource === name)).toBe(true);
  });

  it('spec.address: the content read over the registry API from the same opm serve', async () => {
    const client = new RegistryClient(servers.get(name)!.details.address);
    try {
      const content = await contentFromRegistry(client, servers.get(name)!.details.address, new Date());
      expect(ours(s, content)).toEqual(expected(name));
    } finally {
      client.close();
    }
  });

  it('spec.image: the same catalog loaded as FBC', async () => {
    const content = contentFromFbc(await loadCatalog(upstreamPackageManifestCatalog(name)), name, new Date());
    expect(ours(s, content)).toEqual(expected(name));
  });
});

describe('get, in the global catalog namespace and in another namespace (the three catalogs, as FBC)', () => {
  it('equal to upstream’s get (apiVersion and kind set; the namespace asked for)', async () => {
    const want = JSON.parse(readFileSync(join(upstreamPackageManifestsDir(), 'get.json'), 'utf8')) as PackageManifest[];
    const sources = UPSTREAM_PACKAGEMANIFEST_SOURCES.map(catalogSource);
    const contents = new Map<string, CatalogContent>();
    for (const s of UPSTREAM_PACKAGEMANIFEST_SOURCES) contents.set(s.metadata.name, contentFromFbc(await loadCatalog(upstreamPackageManifestCatalog(s.metadata.name)), s.metadata.name, new Date()));
    const provider = packageProvider({ catalogSources: { list: () => sources }, contents: { get: (ns, n) => (ns === NS ? contents.get(n) : undefined) }, globalCatalogNamespace: NS });
    expect(want.length).toBeGreaterThan(1);
    for (const w of want) {
      const got = JSON.parse(JSON.stringify(provider.get(w.metadata.namespace, w.metadata.name))) as PackageManifest;
      expect({ ...got, metadata: { ...got.metadata, creationTimestamp: null } }).toEqual(w);
    }
  });
});
