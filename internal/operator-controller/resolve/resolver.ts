// The ClusterExtension resolver (upstream internal/operator-controller/resolve/catalog.go,
// olmv1.md §3.2): pick one bundle of spec.source.catalog.packageName from the selected,
// available ClusterCatalogs — channel, version range and upgrade-edge filters, non-deprecated
// before deprecated, highest version/release, catalog priority — or fail with upstream's message.
// Every run also records what happened to each bundle (explain mode).
import { performance } from 'node:perf_hooks';
import type { ClusterCatalog, ClusterExtension } from '../../../api/v1/index.ts';
import { AvailabilityModeUnavailable, TypeServing, UpgradeConstraintPolicySelfCertified } from '../../../api/v1/index.ts';
import type { DeclChannel, DeclDeprecation } from '../../shared/fbc/index.ts';
import { routine } from '../../shared/controller/index.ts';
import { labelSelectorAsSelector, labelsEverything } from '../../shared/kube/index.ts';
import { tryOrThrow } from '../../shared/toolkit/index.ts';
import type { CatalogContentClient, PackageBundle, PackageContent } from '../contentclient/index.ts';
import type { BundleRef, BundleResolver, Resolution } from '../controller/index.ts';
import { byVersionAndRelease, deprecatedBundleNames, newVersionRange, type VersionRange } from './compare.ts';
import type { BundleExplanation, CatalogExplanation, Explanation, FilterRejection } from './explain.ts';
import { msg, resolutionMessage } from './messages.ts';
import { noopResolutionMetrics, type ResolutionMetrics } from './metrics.ts';
import { successorsOf, type InstalledBundleMetadata, type SuccessorReason } from './successors.ts';
import {
  bundleMetadataVersion,
  describeVersionRelease,
  tryVersionAndRelease,
  type VersionOptions,
  type VersionRelease,
} from './version-release.ts';

/** A check run on the chosen bundle only (upstream ValidationFunc); throw to refuse it. */
export type BundleValidation = (bundle: PackageBundle) => void;

const DEPENDENCY_PROPERTIES = ['olm.package.required', 'olm.gvk.required', 'olm.constraint'];

/** NoDependencyValidation: OLM v1 installs no dependencies, so bundles declaring any are refused. */
export const noDependencyValidation: BundleValidation = (bundle) => {
  for (const p of bundle.properties) {
    if (DEPENDENCY_PROPERTIES.includes(p.type)) throw new Error(msg.unsupportedDependency(bundle.name, p.type));
  }
};

/** The chosen bundle with everything the pipeline and status need. */
export interface ResolvedBundle {
  readonly name: string;
  readonly package: string;
  readonly image: string;
  readonly versionRelease: VersionRelease;
  /** status.install.bundle.version (release folded into build metadata without BundleReleaseSupport). */
  readonly version: string;
  /** status.install.bundle.release (only with BundleReleaseSupport and a release). */
  readonly release?: string | undefined;
  readonly properties: PackageBundle['properties'];
}

export interface ResolveResult {
  readonly bundle: ResolvedBundle;
  readonly catalog: string;
  /**
   * The first `olm.deprecations` blob of the package in the chosen catalog, if any. (Upstream
   * returns the blob of the catalog walked last among the candidates, which differs when a
   * lower-priority catalog is walked after the winner; here it is always the winner's.)
   */
  readonly deprecation?: DeclDeprecation | undefined;
  readonly explanation: Explanation;
}

/** A failed resolution: `message` is upstream's text; `explanation` says why, bundle by bundle. */
export class ResolutionError extends Error {
  override readonly name = 'ResolutionError';
  readonly explanation: Explanation | undefined;
  constructor(message: string, explanation: Explanation | undefined, options?: ErrorOptions) {
    super(message, options);
    this.explanation = explanation;
  }
}

export interface CatalogResolverOptions {
  /** The ClusterCatalogs (an informer cache list); the resolver filters by selector and availability. */
  readonly listCatalogs: () => readonly ClusterCatalog[];
  readonly content: CatalogContentClient;
  /** Run on the chosen bundle; default `[noDependencyValidation]`. */
  readonly validations?: readonly BundleValidation[];
  readonly metrics?: ResolutionMetrics;
  /** The BundleReleaseSupport feature gate (explicit `release` in olm.package and status). */
  readonly bundleReleaseSupport?: boolean;
}

interface Scored {
  readonly bundle: PackageBundle;
  readonly versionRelease: VersionRelease | Error;
  readonly deprecated: boolean;
  readonly successor?: SuccessorReason | undefined;
  readonly rejections: FilterRejection[];
}

/** A catalog's best bundle. */
interface Found extends Scored {
  readonly catalog: string;
  readonly priority: number;
  readonly deprecation: DeclDeprecation | undefined;
}

const catalogName = (c: ClusterCatalog): string => c.metadata.name ?? '';
const catalogPriority = (c: ClusterCatalog): number => c.spec.priority ?? 0;
const isEmpty = (p: PackageContent | undefined): boolean =>
  p === undefined || (p.packages.length === 0 && p.channels.length === 0 && p.bundles.length === 0 && p.deprecations.length === 0);

/** What resolution needs of the extension; a ClusterExtension's spec.source.catalog. */
interface Wanted {
  readonly packageName: string;
  readonly version: string;
  readonly channels: readonly string[];
  readonly selfCertified: boolean;
}

function wantedOf(ext: ClusterExtension): Wanted {
  const c = ext.spec?.source.catalog;
  return {
    packageName: c?.packageName ?? '',
    version: c?.version ?? '',
    channels: c?.channels ?? [],
    selfCertified: c?.upgradeConstraintPolicy === UpgradeConstraintPolicySelfCertified,
  };
}

/** Upstream's CatalogResolver, with explain data and a duration metric. */
export class CatalogResolver implements BundleResolver {
  readonly #o: CatalogResolverOptions;
  readonly #validations: readonly BundleValidation[];
  readonly #metrics: ResolutionMetrics;
  readonly #versionOptions: VersionOptions;
  // Parsed versions per bundle object: a warm content cache hands out the same objects, so each
  // bundle's olm.package property is read once, and forgotten with the catalog content.
  readonly #versions = new WeakMap<PackageBundle, VersionRelease | Error>();

  constructor(options: CatalogResolverOptions) {
    this.#o = options;
    this.#validations = options.validations ?? [noDependencyValidation];
    this.#metrics = options.metrics ?? noopResolutionMetrics;
    this.#versionOptions = { bundleReleaseSupport: options.bundleReleaseSupport ?? false };
  }

  /** The BundleResolver seam: throws ResolutionError (or the error of a step) on failure. */
  async resolve(ext: ClusterExtension, installed: BundleRef | undefined, signal?: AbortSignal): Promise<Resolution> {
    const r = await this.resolveBundle(ext, installed, signal);
    const bundle: BundleRef = {
      package: r.bundle.package,
      name: r.bundle.name,
      version: r.bundle.version,
      image: r.bundle.image,
      ...(r.bundle.release === undefined ? {} : { release: r.bundle.release }),
    };
    return {
      bundle,
      catalog: r.catalog,
      deprecations: (r.deprecation?.entries ?? []).map((e) => ({ reference: { schema: e.reference.schema, name: e.reference.name }, message: e.message })),
    };
  }

  /**
   * Whether any ClusterCatalog matches the extension's selector. An invalid selector throws (upstream's
   * CheckCatalogsExist fails the check, so the extension retries rather than falling back to its installed bundle).
   */
  catalogsExist(ext: ClusterExtension): boolean {
    const matcher = tryOrThrow(() => selectorOf(ext), (err) => new Error(`invalid catalog selector: ${err.message}`, { cause: err }));
    return this.#o.listCatalogs().some((c) => matcher.matches(c.metadata.labels));
  }

  /** Resolution with the full result; records olmv1_resolution_duration_seconds. */
  async resolveBundle(ext: ClusterExtension, installed: InstalledBundleMetadata | undefined, signal?: AbortSignal): Promise<ResolveResult> {
    const start = performance.now();
    try {
      const r = await this.#run(ext, installed, signal);
      this.#metrics.observe('success', (performance.now() - start) / 1000);
      return r;
    } catch (err) {
      this.#metrics.observe('failure', (performance.now() - start) / 1000);
      throw err;
    }
  }

  async #run(ext: ClusterExtension, installed: InstalledBundleMetadata | undefined, signal?: AbortSignal): Promise<ResolveResult> {
    const want = wantedOf(ext);
    const selector = tryOrThrow(() => selectorOf(ext), (err) => new ResolutionError(msg.selectorInvalid(err.message), undefined, { cause: err }));
    const range = tryOrThrow(
      () => (want.version === '' ? undefined : newVersionRange(want.version)),
      (err) => new ResolutionError(msg.versionRangeInvalid(want.version, err.message), undefined, { cause: err }),
    );

    const explained: CatalogExplanation[] = [];
    const found: Found[] = [];
    const catalogs = tryOrThrow(() => this.#o.listCatalogs(), (err) => new ResolutionError(msg.walkingCatalogs(msg.listingCatalogs(err.message)), undefined, { cause: err }));
    for (const cat of catalogs) {
      const name = catalogName(cat);
      const priority = catalogPriority(cat);
      if (!selector.matches(cat.metadata.labels)) {
        explained.push({ catalog: name, priority, status: 'not-selected', bundles: [] });
        continue;
      }
      if (cat.spec.availabilityMode === AvailabilityModeUnavailable) {
        explained.push({ catalog: name, priority, status: 'unavailable', bundles: [] });
        continue;
      }
      let content: PackageContent;
      try {
        content = await this.#o.content.getPackage(cat, want.packageName, signal);
      } catch (err) {
        const served = cat.status?.conditions?.some((c) => c.type === TypeServing && c.status === 'True') ?? false;
        explained.push({ catalog: name, priority, status: 'error', error: (err as Error).message, notServed: !served, bundles: [] });
        throw new ResolutionError(msg.walkingCatalogs(msg.gettingPackage(want.packageName, name, (err as Error).message)), explainOf(want, explained), {
          cause: err,
        });
      }
      if (isEmpty(content)) {
        explained.push({ catalog: name, priority, status: 'package-absent', bundles: [] });
        continue;
      }
      const scored = tryOrThrow(
        () => this.#score(content, want, range, installed),
        (err) => new ResolutionError(msg.walkingCatalogs(msg.upgradeEdges(err.message)), explainOf(want, explained), { cause: err }),
      );
      const deprecation = content.deprecations[0];
      const passed = scored.filter((s) => s.rejections.length === 0);
      // Non-deprecated first, then highest version/release; Array.sort is stable like SortStableFunc.
      passed.sort((a, b) => (a.deprecated === b.deprecated ? byVersionAndRelease(a.versionRelease, b.versionRelease) : a.deprecated ? 1 : -1));
      const best = passed[0];
      explained.push({
        catalog: name,
        priority,
        status: best ? 'candidate' : 'no-match',
        candidate: best?.bundle.name,
        bundles: scored.map((s) => bundleExplanation(s, best)),
      });
      if (!best) continue;
      found.push({ ...best, catalog: name, priority, deprecation });
    }

    // Across catalogs: non-deprecated candidates win over deprecated ones.
    let candidates = found.some((f) => !f.deprecated) ? found.filter((f) => !f.deprecated) : found;
    const dropped = new Map<string, CatalogExplanation['dropped']>();
    for (const f of found) {
      if (!candidates.includes(f)) dropped.set(f.catalog, { kind: 'deprecated', nonDeprecatedIn: candidates.map((c) => c.catalog) });
    }
    // Priority: when the top two differ, the top one alone stays; on a tie every candidate stays.
    if (candidates.length > 1) {
      const byPriority = [...candidates].sort((a, b) => b.priority - a.priority);
      const [top, second] = byPriority as [Found, Found];
      if (top.priority !== second.priority) {
        for (const f of byPriority.slice(1)) dropped.set(f.catalog, { kind: 'lower-priority', winner: top.catalog, winnerPriority: top.priority });
        candidates = [top];
      } else {
        for (const f of candidates) dropped.set(f.catalog, { kind: 'ambiguous', with: candidates.filter((o) => o !== f).map((o) => o.catalog) });
      }
    }
    const finalExplained = explained.map((c) => (dropped.has(c.catalog) ? { ...c, dropped: dropped.get(c.catalog) } : c));

    if (candidates.length !== 1) {
      const message = resolutionMessage({
        packageName: want.packageName,
        version: want.version,
        channels: want.channels,
        installedVersion: installed?.version,
        catalogs: candidates.map((c) => c.catalog),
      });
      // A refusal by design (nothing in the catalogs matches, or may replace the installed bundle): Progressing says
      // it; the controller logs it at info, not as a Reconciler error.
      throw routine(new ResolutionError(message, { packageName: want.packageName, catalogs: finalExplained }), 'NoMatchingBundle', 'info');
    }

    const chosen = candidates[0] as Found;
    const explanation: Explanation = {
      packageName: want.packageName,
      catalogs: finalExplained,
      chosen: { bundle: chosen.bundle.name, catalog: chosen.catalog },
    };
    if (chosen.versionRelease instanceof Error) {
      throw new ResolutionError(msg.resolvedBundleVersion(chosen.bundle.name, chosen.versionRelease.message), explanation, { cause: chosen.versionRelease });
    }
    for (const validate of this.#validations) {
      tryOrThrow(() => validate(chosen.bundle), (err) => new ResolutionError(msg.validatingBundle(chosen.bundle.name, err.message), explanation, { cause: err }));
    }
    const status = bundleMetadataVersion(chosen.versionRelease, this.#versionOptions);
    return {
      bundle: {
        name: chosen.bundle.name,
        package: chosen.bundle.package,
        image: chosen.bundle.image,
        versionRelease: chosen.versionRelease,
        version: status.version,
        release: status.release,
        properties: chosen.bundle.properties,
      },
      catalog: chosen.catalog,
      deprecation: chosen.deprecation,
      explanation,
    };
  }

  /** Every bundle with its version, deprecation and the filters it fails (all of them, in order). */
  #score(content: PackageContent, want: Wanted, range: VersionRange | undefined, installed: InstalledBundleMetadata | undefined): Scored[] {
    let channels: readonly DeclChannel[] = content.channels;
    let inChannels: ReadonlySet<string> | undefined;
    if (want.channels.length > 0) {
      const wanted = new Set(want.channels);
      channels = content.channels.filter((c) => wanted.has(c.name));
      inChannels = new Set(channels.flatMap((c) => c.entries.map((e) => e.name)));
    }
    // Upgrade edges come from the channel-filtered list, as upstream passes it on.
    const successors = !want.selfCertified && installed !== undefined ? successorsOf(installed, channels) : undefined;
    const deprecated = deprecatedBundleNames(content.deprecations[0]);
    return content.bundles.map((bundle) => {
      let versionRelease = this.#versions.get(bundle);
      if (versionRelease === undefined) this.#versions.set(bundle, (versionRelease = tryVersionAndRelease(bundle, this.#versionOptions)));
      const rejections: FilterRejection[] = [];
      if (inChannels !== undefined && !inChannels.has(bundle.name)) rejections.push({ filter: 'channel', channels: want.channels });
      if (range !== undefined) {
        if (versionRelease instanceof Error) rejections.push({ filter: 'unreadable-version', error: versionRelease.message });
        else if (!range(versionRelease.version)) rejections.push({ filter: 'version', range: want.version });
      }
      let successor: SuccessorReason | undefined;
      if (successors !== undefined && installed !== undefined) {
        successor = successors({ name: bundle.name, versionRelease });
        if (successor === undefined) rejections.push({
            filter: 'successor',
            installedName: installed.name,
            installedVersion: installed.version,
            channels: want.channels.length > 0 ? want.channels : undefined,
          });
      }
      return { bundle, versionRelease, deprecated: deprecated.has(bundle.name), successor, rejections };
    });
  }
}

function selectorOf(ext: ClusterExtension) {
  const catalog = ext.spec?.source.catalog;
  if (catalog === undefined) return labelsEverything;
  const m = labelSelectorAsSelector(catalog.selector);
  // LabelSelectorAsSelector(nil) is labels.Nothing(), which the resolver turns into Everything.
  return m.empty || catalog.selector === undefined || catalog.selector === null ? labelsEverything : m;
}

function explainOf(want: Wanted, catalogs: readonly CatalogExplanation[]): Explanation {
  return { packageName: want.packageName, catalogs: [...catalogs] };
}

function bundleExplanation(s: Scored, best: Scored | undefined): BundleExplanation {
  const version = s.versionRelease instanceof Error ? '(no version)' : describeVersionRelease(s.versionRelease);
  const base = { name: s.bundle.name, version, deprecated: s.deprecated, successor: s.successor };
  if (s.rejections.length > 0) return { ...base, outcome: { kind: 'filtered', rejections: s.rejections } };
  if (best === undefined || best === s) return { ...base, outcome: { kind: 'candidate' } };
  return { ...base, outcome: { kind: 'outranked', by: best.bundle.name, deprecated: s.deprecated, byDeprecated: best.deprecated } };
}
