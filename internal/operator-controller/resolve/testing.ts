// Test fixtures shared by this folder's tests (upstream catalog_test.go's helpers): genPackage,
// a ClusterExtension builder and a content client over named catalogs. Not exported by index.ts.
import type { ClusterCatalog, ClusterCatalogSpec, ClusterExtension, UpgradeConstraintPolicy } from '../../../api/v1/index.ts';
import type { DeclDeprecation } from '../../shared/fbc/index.ts';
import type { CatalogContentClient, PackageBundle, PackageContent } from '../contentclient/index.ts';
import { CatalogResolver, type CatalogResolverOptions } from './resolver.ts';

export const bundleName = (pkg: string, version: string): string => `${pkg}.v${version}`;

export function genBundle(pkg: string, version: string, extra: PackageBundle['properties'] = []): PackageBundle {
  return {
    name: bundleName(pkg, version),
    package: pkg,
    image: `quay.io/test/${pkg}:v${version}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version } }, ...extra],
  };
}

export function packageDeprecation(pkg: string): DeclDeprecation {
  return {
    package: pkg,
    entries: ['1.0.0', '1.0.1'].map((v) => ({
      reference: { schema: 'olm.bundle', name: bundleName(pkg, v) },
      message: `bundle ${bundleName(pkg, v)} is deprecated`,
    })),
  };
}

const entry = (name: string, skipRange = '') => ({ name, replaces: '', skips: [], skipRange });

/** upstream genPackage: channels alpha, beta, gamma over bundles 0.1.0 … 3.0.0; 1.0.0 and 1.0.1 deprecated. */
export function genPackage(pkg: string): PackageContent {
  const b = (v: string) => bundleName(pkg, v);
  return {
    packages: [{ name: pkg, defaultChannel: '' }],
    channels: [
      {
        package: pkg,
        name: 'alpha',
        entries: [entry(b('0.1.0')), entry(b('1.0.0'), '<1.0.0'), entry(b('1.0.1'), '<1.0.1'), entry(b('1.0.2'), '<1.0.2'), entry(b('2.0.0'), '>=1.0.0 <2.0.0')],
      },
      { package: pkg, name: 'beta', entries: [entry(b('0.1.0')), entry(b('1.0.2'), '<1.0.2')] },
      { package: pkg, name: 'gamma', entries: [entry(b('3.0.0'), '>=2.0.0 <3.0.0')] },
    ],
    bundles: ['0.1.0', '1.0.0', '1.0.1', '1.0.2', '2.0.0', '3.0.0'].map((v) => genBundle(pkg, v)),
    deprecations: [packageDeprecation(pkg)],
  };
}

export const EMPTY: PackageContent = { packages: [], channels: [], bundles: [], deprecations: [] };

export interface FakeCatalog {
  readonly content?: PackageContent;
  readonly error?: string;
  readonly spec?: Partial<ClusterCatalogSpec>;
  /** Whether catalogd reports it Serving (default true). */
  readonly served?: boolean;
}

export function catalogObject(name: string, spec: Partial<ClusterCatalogSpec> = {}, served = true): ClusterCatalog {
  return {
    metadata: { name, labels: { 'olm.operatorframework.io/metadata.name': name } },
    spec: { source: { type: 'Image', image: { ref: `quay.io/catalogs/${name}:latest` } }, ...spec },
    ...(served && { status: { conditions: [{ type: 'Serving', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }),
  };
}

/** A resolver over named fake catalogs, walked in the order given. */
export function fakeResolver(catalogs: Record<string, FakeCatalog>, options: Partial<CatalogResolverOptions> = {}): CatalogResolver {
  const content: CatalogContentClient = {
    getPackage(cat, packageName) {
      const c = catalogs[cat.metadata.name ?? ''];
      if (c === undefined) throw new Error(`getPackage called for unknown catalog ${String(cat.metadata.name)}`);
      if (c.error !== undefined) return Promise.reject(new Error(c.error));
      const holds = c.content?.packages.some((p) => p.name === packageName) ?? false;
      return Promise.resolve(holds ? (c.content as PackageContent) : EMPTY);
    },
  };
  const list = Object.entries(catalogs).map(([name, c]) => catalogObject(name, c.spec, c.served ?? true));
  return new CatalogResolver({ listCatalogs: () => list, content, ...options });
}

export function buildExtension(pkg: string, channels: string[], version: string, policy: UpgradeConstraintPolicy = 'CatalogProvided'): ClusterExtension {
  return {
    metadata: { name: pkg },
    spec: {
      namespace: 'default',
      source: { sourceType: 'Catalog', catalog: { packageName: pkg, version, channels, upgradeConstraintPolicy: policy } },
    },
  };
}
