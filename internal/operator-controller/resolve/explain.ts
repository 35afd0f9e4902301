// Explain mode (beyond upstream): for each catalog and each bundle of the package, what
// resolution did with it — which filter removed it, what it lost to, or that it was chosen.
// Data first (for the CLI and, later, status messages); `formatExplanation` renders lines.
import { goQuote, goStringSlice as goList } from '../../shared/gocompat/index.ts';
import type { SuccessorReason } from './successors.ts';

/** One filter that refused a bundle, in the order the resolver applies them. */
export type FilterRejection =
  | { readonly filter: 'channel'; readonly channels: readonly string[] }
  | { readonly filter: 'version'; readonly range: string }
  | {
      readonly filter: 'successor';
      readonly installedName: string;
      readonly installedVersion: string;
      /** The channels whose edges were searched when spec.source.catalog.channels restricts them. */
      readonly channels?: readonly string[] | undefined;
    }
  | { readonly filter: 'unreadable-version'; readonly error: string };

/** What happened to one bundle of the package in one catalog. */
export type BundleOutcome =
  /** Refused by one or more filters (all are listed, not only the first). */
  | { readonly kind: 'filtered'; readonly rejections: readonly FilterRejection[] }
  /** Passed every filter but the catalog's best candidate is another bundle. */
  | { readonly kind: 'outranked'; readonly by: string; readonly deprecated: boolean; readonly byDeprecated: boolean }
  /** The catalog's best candidate (it may still lose across catalogs, see CatalogExplanation.dropped). */
  | { readonly kind: 'candidate' };

export interface BundleExplanation {
  readonly name: string;
  /** `1.0.0` or `1.0.0 (release 2)`; `(no version)` when unreadable. */
  readonly version: string;
  readonly deprecated: boolean;
  /** Why it is allowed from the installed bundle (replaces/skips/skipRange/installed), when checked. */
  readonly successor?: SuccessorReason | undefined;
  readonly outcome: BundleOutcome;
}

/** Why a catalog's best candidate did not win. */
export type CatalogDrop =
  | { readonly kind: 'deprecated'; readonly nonDeprecatedIn: readonly string[] }
  | { readonly kind: 'lower-priority'; readonly winner: string; readonly winnerPriority: number }
  | { readonly kind: 'ambiguous'; readonly with: readonly string[] };

export interface CatalogExplanation {
  readonly catalog: string;
  readonly priority: number;
  readonly status:
    | 'not-selected'
    | 'unavailable'
    | 'error'
    | 'package-absent'
    | 'no-match'
    | 'candidate';
  /** The content client's error text (status `error`). */
  readonly error?: string | undefined;
  /** Status `error` of a selected catalog catalogd does not report Serving: it blocks resolution until it serves. */
  readonly notServed?: boolean | undefined;
  readonly bundles: readonly BundleExplanation[];
  /** The catalog's best candidate (status `candidate`). */
  readonly candidate?: string | undefined;
  readonly dropped?: CatalogDrop | undefined;
}

export interface Explanation {
  readonly packageName: string;
  /** Catalogs in the order they were walked; unselected and unavailable ones included. */
  readonly catalogs: readonly CatalogExplanation[];
  /** The chosen bundle and catalog on success. */
  readonly chosen?: { readonly bundle: string; readonly catalog: string } | undefined;
}

function rejectionText(r: FilterRejection, version: string): string {
  switch (r.filter) {
    case 'channel':
      return `not in channels ${goList(r.channels)}`;
    case 'version':
      return `version ${version} does not satisfy range ${goQuote(r.range)}`;
    case 'successor':
      return `not a successor of installed ${r.installedName} (${r.installedVersion}): no replaces, skips or skipRange edge${
        r.channels ? ` in channels ${goList(r.channels)}` : ''
      }`;
    case 'unreadable-version':
      return `version unreadable: ${r.error}`;
  }
}

function successorText(s: SuccessorReason | undefined): string {
  if (s === undefined) return '';
  switch (s.kind) {
    case 'installed':
      return ' [installed version]';
    case 'replaces':
      return ` [replaces installed, channel ${s.channel}]`;
    case 'skips':
      return ` [skips installed, channel ${s.channel}]`;
    case 'skipRange':
      return ` [skipRange ${goQuote(s.skipRange)} includes installed, channel ${s.channel}]`;
  }
}

function bundleLine(b: BundleExplanation): string {
  const head = `  ${b.name} ${b.version}${b.deprecated ? ' (deprecated)' : ''}`;
  switch (b.outcome.kind) {
    case 'filtered':
      return `${head}: ${b.outcome.rejections.map((r) => rejectionText(r, b.version)).join('; ')}`;
    case 'outranked': {
      const why = b.outcome.deprecated && !b.outcome.byDeprecated ? 'deprecated, lost to non-deprecated' : 'lower than';
      return `${head}: ${why} ${b.outcome.by}${successorText(b.successor)}`;
    }
    case 'candidate':
      return `${head}: best in catalog${successorText(b.successor)}`;
  }
}

function dropText(d: CatalogDrop): string {
  switch (d.kind) {
    case 'deprecated':
      return `its best bundle is deprecated and non-deprecated bundles exist in ${goList(d.nonDeprecatedIn)}`;
    case 'lower-priority':
      return `lower priority than catalog ${goQuote(d.winner)} (priority ${d.winnerPriority})`;
    case 'ambiguous':
      return `same priority as ${goList(d.with)}: ambiguous`;
  }
}

/** The way out of a selected catalog that is not served (said by `kubectl olm explain` and `kubectl olm status`). */
export function notServedAdvice(catalog: string): string {
  return `a selected catalog that is not served blocks resolution, so a lower-priority catalog cannot win by accident: fix its source (kubectl get clustercatalog ${catalog} -o yaml), or set spec.availabilityMode: Unavailable on it to leave it out`;
}

/** The selected catalog that is not served and stopped resolution, when that is why it failed. */
export function notServedCatalog(e: Explanation | undefined): CatalogExplanation | undefined {
  return e?.catalogs.find((c) => c.status === 'error' && c.notServed === true);
}

/** The explanation as lines (no trailing newline), one header per catalog and one line per bundle. */
export function formatExplanation(e: Explanation): string[] {
  const lines: string[] = [];
  for (const c of e.catalogs) {
    const head = `catalog ${goQuote(c.catalog)} (priority ${c.priority})`;
    switch (c.status) {
      case 'not-selected':
        lines.push(`${head}: not selected by spec.source.catalog.selector`);
        continue;
      case 'unavailable':
        lines.push(`${head}: skipped, availabilityMode is Unavailable`);
        continue;
      case 'error':
        lines.push(`${head}: error: ${c.error ?? ''}`);
        if (c.notServed) lines.push(`  ${notServedAdvice(c.catalog)}`);
        continue;
      case 'package-absent':
        lines.push(`${head}: package ${goQuote(e.packageName)} not found`);
        continue;
      case 'no-match':
        lines.push(`${head}: no bundle passed the filters`);
        break;
      case 'candidate': {
        const chosen = e.chosen?.catalog === c.catalog;
        lines.push(`${head}: ${chosen ? 'chosen' : 'candidate'} ${c.candidate ?? ''}${c.dropped ? `, dropped: ${dropText(c.dropped)}` : ''}`);
        break;
      }
    }
    for (const b of c.bundles) lines.push(bundleLine(b));
  }
  if (e.catalogs.length === 0) lines.push('no ClusterCatalogs to search');
  return lines;
}
