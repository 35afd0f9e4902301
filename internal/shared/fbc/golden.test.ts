// The two real catalogs in testdata/catalogs: they load, validate with 0 errors, and match
// EXPECTED-SUMMARY.json (counts, property types, channel heads, catalog.jsonl size). Expected
// values are read from that file; nothing is hard-coded here.

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJSON } from './canonical.ts';
import { encodeJsonl, type EncodedCatalog } from './encode.ts';
import { loadCatalog, type Catalog } from './load.ts';
import { PROPERTY_BUNDLE_OBJECT, PROPERTY_CSV_METADATA } from './properties.ts';
import { channelHead } from './model.ts';
import { validate } from './validate.ts';
import { CATALOG_SUMMARY, realCatalogDir } from '../../../test/support/testdata.ts';

// Figures about a loaded catalog, in the shape of EXPECTED-SUMMARY.json: totals, property-type counts, and per
// package its default channel, bundle count and per channel the entry count and head.
interface ChannelSummary {
  readonly entries: number;
  /** The head, or opm's error text when there is no single head. */
  readonly head: string;
}

interface PackageSummary {
  readonly defaultChannel: string;
  readonly bundles: number;
  readonly channels: Record<string, ChannelSummary>;
}

interface CatalogSummary {
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

function summarizeCatalog(c: Catalog): CatalogSummary {
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

const SUMMARY = CATALOG_SUMMARY;
// The shared data is part of the test setup (CI clones it beside the repository): missing, it fails loudly.
const expected = JSON.parse(readFileSync(SUMMARY, 'utf8')) as {
  catalogs: Record<string, CatalogSummary & { nValidationErrors: number }>;
};


/**
 * The summary's `largestBlobBytes` was measured on JSON with non-ASCII characters escaped
 * (`\uXXXX`, 6 bytes each; 12 for a surrogate pair) while `jsonlBytes` counts UTF-8. Convert.
 */
function asciiEscapedLength(line: string): number {
  let n = 0;
  for (const ch of line) n += ch.charCodeAt(0) < 0x80 ? 1 : ch.length === 2 ? 12 : 6;
  return n;
}

const names = Object.keys(expected.catalogs);
it('the summary lists the shared catalogs', () => {
  expect(names.length).toBeGreaterThan(0);
});

describe.each(names)('%s', (name) => {
  const want = expected.catalogs[name] as CatalogSummary & { nValidationErrors: number };
  let catalog: Catalog;
  let summary: CatalogSummary;
  let encoded: EncodedCatalog;

  beforeAll(async () => {
    catalog = await loadCatalog(realCatalogDir(name));
    summary = summarizeCatalog(catalog);
    encoded = encodeJsonl(catalog);
  });

  it('validates with opm’s rules', () => {
    const { errors, model } = validate(catalog);
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(errors.length).toBe(want.nValidationErrors);
    expect(model?.size).toBe(want.packages);
  });

  it('has the expected totals and property types', () => {
    const { packagesDetail: _pd, largestBlobBytes: _lb, ...rest } = summary;
    const { packagesDetail: _wpd, largestBlobBytes: _wlb, nValidationErrors: _n, ...wantRest } = want;
    expect(rest).toEqual(wantRest);
  });

  it('encodes to exactly jsonlBytes, and the largest blob is the expected one', () => {
    expect(encoded.byteLength).toBe(want.jsonlBytes);
    expect(encoded.chunks.reduce((n, c) => n + c.length, 0)).toBe(want.jsonlBytes);
    const largest = catalog.metas.reduce((a, b) => (b.json.length > a.json.length ? b : a));
    expect(`${largest.schema} ${largest.name}`).toBe(want.largestBlob);
    expect(asciiEscapedLength(largest.json.toString('utf8').slice(0, -1))).toBe(want.largestBlobBytes);
  });

  it('has the expected packages, default channels, bundle counts, entries and channel heads', () => {
    expect(summary.packagesDetail).toEqual(want.packagesDetail);
  });

  it('every stored line is canonical JSON and the index finds blobs without scanning', () => {
    for (const m of catalog.metas) {
      const text = m.json.toString('utf8');
      expect(text.endsWith('\n') && !text.slice(0, -1).includes('\n')).toBe(true);
      expect(canonicalJSON(JSON.parse(text))).toBe(text.slice(0, -1));
    }
    const { index } = encoded;
    const bundle = catalog.config.bundles[0];
    const hit = index.query({ schema: 'olm.bundle', package: bundle?.package ?? '', name: bundle?.name ?? '' });
    expect(hit).toHaveLength(1);
    const hitBytes = Buffer.concat(hit.map((e) => encoded.chunks[e.index]!));
    expect(JSON.parse(hitBytes.toString('utf8')).name).toBe(bundle?.name);
    const pkgBlobs = index.query({ package: bundle?.package ?? '' });
    expect(pkgBlobs.length).toBe(catalog.metas.filter((m) => m.package === bundle?.package && m.schema !== '').length);
    expect(index.query({ schema: 'olm.bundle' })).toHaveLength(want.bundles);
    expect(index.query({ schema: 'olm.channel' })).toHaveLength(want.channels);
  });
});
