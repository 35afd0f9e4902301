// A CatalogContentClient over catalogs already held in memory, keyed by catalog name: the offline
// CLI and tests index catalog directories with the content client's `indexFromDirectory` /
// `indexFromCatalog` (../contentclient) and resolve against them without catalogd.
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import type { CatalogContentClient, PackageContent } from '../contentclient/index.ts';

/** What the client needs of one catalog: a content client CatalogIndex has this shape. */
export interface PackageSource {
  getPackage(packageName: string): PackageContent;
}

/**
 * Serves each catalog's packages from its PackageSource; an unknown catalog fails like
 * operator-controller's client for a catalog it has not cached.
 */
export class StaticContentClient implements CatalogContentClient {
  readonly #catalogs: ReadonlyMap<string, PackageSource>;
  constructor(catalogs: ReadonlyMap<string, PackageSource>) {
    this.#catalogs = catalogs;
  }
  getPackage(catalog: ClusterCatalog, packageName: string): Promise<PackageContent> {
    const name = catalog.metadata.name ?? '';
    const source = this.#catalogs.get(name);
    if (source === undefined) return Promise.reject(new Error(`cache for catalog ${JSON.stringify(name)} not found`));
    return Promise.resolve(source.getPackage(packageName));
  }
}
