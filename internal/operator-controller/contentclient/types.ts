// The seam between catalogd's content and resolution: what one catalog holds for one package.
// The content client (this folder) fills it from catalogd's HTTP API; resolvers and the CLI
// (which loads catalog directories offline) only read it.
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import type { DeclChannel, DeclDeprecation, DeclPackage } from '../../shared/fbc/index.ts';

/** A bundle property as written in the catalog (`value` is the decoded JSON). */
export interface BundleProperty {
  readonly type: string;
  readonly value: unknown;
}

/** An `olm.bundle` blob with its properties kept (resolution reads `olm.package`, dependencies, …). */
export interface PackageBundle {
  readonly name: string;
  readonly package: string;
  readonly image: string;
  readonly properties: readonly BundleProperty[];
}

/** Everything one catalog says about one package; all lists empty when the catalog lacks it. */
export interface PackageContent {
  /** The `olm.package` blob (0 or 1). */
  readonly packages: readonly DeclPackage[];
  readonly channels: readonly DeclChannel[];
  readonly bundles: readonly PackageBundle[];
  readonly deprecations: readonly DeclDeprecation[];
}

/** operator-controller's view of catalogd: upstream's catalogmetadata client `GetPackage`. */
export interface CatalogContentClient {
  /**
   * The package's content in `catalog` as served at its resolved digest. Rejects with upstream's
   * messages (`catalog "<n>" is not being served`, `cache for catalog "<n>" not found`, …).
   */
  getPackage(catalog: ClusterCatalog, packageName: string, signal?: AbortSignal): Promise<PackageContent>;
}
