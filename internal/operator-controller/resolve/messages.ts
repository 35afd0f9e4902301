// Every message resolution produces, worded as upstream's (operator-controller
// internal/operator-controller/resolve/catalog.go and friends); users and alerts grep for them.
import { goQuote, goStringSlice as goList } from '../../shared/gocompat/index.ts';

export const msg = {
  selectorInvalid: (err: string): string => `desired catalog selector is invalid: ${err}`,
  versionRangeInvalid: (range: string, err: string): string => `desired version range ${goQuote(range)} is invalid: ${err}`,
  walkingCatalogs: (err: string): string => `error walking catalogs: ${err}`,
  listingCatalogs: (err: string): string => `error listing catalogs: ${err}`,
  gettingPackage: (pkg: string, catalog: string, err: string): string =>
    `error getting package ${goQuote(pkg)} from catalog ${goQuote(catalog)}: ${err}`,
  upgradeEdges: (err: string): string => `error finding upgrade edges: ${err}`,
  successorsPredicate: (err: string): string => `getting successorsPredicate: ${err}`,
  parsingInstalledVersion: (err: string): string => `error parsing installed bundle version: ${err}`,
  resolvedBundleVersion: (bundle: string, err: string): string => `error getting resolved bundle version for bundle ${goQuote(bundle)}: ${err}`,
  validatingBundle: (bundle: string, err: string): string => `validating bundle ${goQuote(bundle)}: ${err}`,
  unsupportedDependency: (bundle: string, property: string): string =>
    `bundle ${goQuote(bundle)} has a dependency declared via property ${goQuote(property)} which is currently not supported`,
  noPackageProperty: (bundle: string): string => `no package property found in bundle ${goQuote(bundle)}`,
} as const;

export interface ResolutionErrorInput {
  readonly packageName: string;
  readonly version: string;
  readonly channels: readonly string[];
  /** The installed bundle's version string as status records it, when something is installed. */
  readonly installedVersion?: string | undefined;
  /** Catalog names of the candidates left after the priority cut (0 = none, >1 = ambiguous). */
  readonly catalogs: readonly string[];
}

/** resolutionError.Error(): the message when zero or several candidates are left. */
export function resolutionMessage(e: ResolutionErrorInput): string {
  let s = '';
  if (e.installedVersion !== undefined) s += `error upgrading from currently installed version ${goQuote(e.installedVersion)}: `;
  s += e.catalogs.length > 1 ? `found bundles for package ${goQuote(e.packageName)} ` : `no bundles found for package ${goQuote(e.packageName)} `;
  if (e.version !== '') s += `matching version ${goQuote(e.version)} `;
  if (e.channels.length > 0) s += `in channels ${goList(e.channels)} `;
  const sorted = [...e.catalogs].sort();
  if (sorted.length > 1) s += `in multiple catalogs with the same priority ${goList(sorted)} `;
  return s.trim();
}
