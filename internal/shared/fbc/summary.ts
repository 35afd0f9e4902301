// Figures about a loaded catalog, in the shape of testdata/catalogs/EXPECTED-SUMMARY.json: totals,
// property-type counts, and per package its default channel, bundle count and per channel the
// entry count and head. Used by golden tests and handy for a CLI `catalog inspect`.

import { PROPERTY_BUNDLE_OBJECT, PROPERTY_CSV_METADATA } from './properties.ts';
import type { Catalog } from './load.ts';
import { channelHead } from './model.ts';

export interface ChannelSummary {
  readonly entries: number;
  /** The head, or opm's error text when there is no single head. */
  readonly head: string;
}

export interface PackageSummary {
  readonly defaultChannel: string;
  readonly bundles: number;
  readonly channels: Record<string, ChannelSummary>;
}

export interface CatalogSummary {
  readonly files: number;
  readonly bytes: number;
  readonly blobs: number;
  readonly packages: number;
  readonly channels: number;
  readonly bundles: number;
  readonly deprecations: number;
  readonly channelEntries: number;
  readonly entriesWithReplaces: number;
  readonly entriesWithSkips: number;
  readonly entriesWithSkipRange: number;
  readonly bundlesWithBundleObject: number;
  readonly bundlesWithCsvMetadata: number;
  readonly propertyTypes: Record<string, number>;
  /** Size of the largest blob's canonical JSON, without its newline. */
  readonly largestBlobBytes: number;
  /** `<schema> <name>` of the largest blob. */
  readonly largestBlob: string;
  readonly jsonlBytes: number;
  readonly packagesDetail: Record<string, PackageSummary>;
}

export function summarizeCatalog(c: Catalog): CatalogSummary {
  const { packages, channels, bundles, deprecations } = c.config;
  let jsonlBytes = 0;
  let largestBlobBytes = -1;
  let largestBlob = '';
  for (const m of c.metas) {
    jsonlBytes += m.json.length;
    if (m.json.length - 1 > largestBlobBytes) {
      largestBlobBytes = m.json.length - 1;
      largestBlob = `${m.schema} ${m.name}`;
    }
  }
  const propertyTypes: Record<string, number> = {};
  let withObjects = 0;
  let withCsvMetadata = 0;
  const bundleCount = new Map<string, number>();
  for (const b of bundles) {
    for (const t of b.properties.types) propertyTypes[t] = (propertyTypes[t] ?? 0) + 1;
    if (b.properties.types.includes(PROPERTY_BUNDLE_OBJECT)) withObjects++;
    if (b.properties.types.includes(PROPERTY_CSV_METADATA)) withCsvMetadata++;
    bundleCount.set(b.package, (bundleCount.get(b.package) ?? 0) + 1);
  }
  let entries = 0;
  let withReplaces = 0;
  let withSkips = 0;
  let withSkipRange = 0;
  const detail: Record<string, { defaultChannel: string; bundles: number; channels: Record<string, ChannelSummary> }> = {};
  for (const p of packages) detail[p.name] = { defaultChannel: p.defaultChannel, bundles: bundleCount.get(p.name) ?? 0, channels: {} };
  for (const ch of channels) {
    entries += ch.entries.length;
    for (const e of ch.entries) {
      if (e.replaces !== '') withReplaces++;
      if (e.skips.length > 0) withSkips++;
      if (e.skipRange !== '') withSkipRange++;
    }
    const h = channelHead(ch.entries);
    const pkg = detail[ch.package];
    if (pkg) pkg.channels[ch.name] = { entries: ch.entries.length, head: 'head' in h ? h.head : h.error };
  }
  return {
    files: c.files,
    bytes: c.sourceBytes,
    blobs: c.metas.length,
    packages: packages.length,
    channels: channels.length,
    bundles: bundles.length,
    deprecations: deprecations.length,
    channelEntries: entries,
    entriesWithReplaces: withReplaces,
    entriesWithSkips: withSkips,
    entriesWithSkipRange: withSkipRange,
    bundlesWithBundleObject: withObjects,
    bundlesWithCsvMetadata: withCsvMetadata,
    propertyTypes,
    largestBlobBytes: Math.max(largestBlobBytes, 0),
    largestBlob,
    jsonlBytes,
    packagesDetail: detail,
  };
}
