// The two real catalogs in testdata/catalogs: they load, validate with 0 errors, and match
// EXPECTED-SUMMARY.json (counts, property types, channel heads, catalog.jsonl size). Expected
// values are read from that file; nothing is hard-coded here.

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJSON } from './canonical.ts';
import { encodeJsonl, sliceEntries, type EncodedCatalog } from './encode.ts';
import { buildGraphs } from './graph.ts';
import { loadCatalog, type Catalog } from './load.ts';
import { summarizeCatalog, type CatalogSummary } from './summary.ts';
import { validate } from './validate.ts';
import { CATALOG_SUMMARY, realCatalogDir } from '../../../test/support/testdata.ts';

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
    const graphs = buildGraphs(validate(catalog).model ?? new Map());
    for (const [pkg, detail] of Object.entries(want.packagesDetail)) {
      const g = graphs.get(pkg);
      expect(g?.defaultChannel).toBe(detail.defaultChannel);
      for (const [ch, c] of Object.entries(detail.channels)) {
        expect(g?.channels.get(ch)?.head, `${pkg}/${ch}`).toBe(c.head);
        expect(g?.channels.get(ch)?.entries.length).toBe(c.entries);
      }
    }
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
    expect(JSON.parse(sliceEntries(encoded, hit).toString('utf8')).name).toBe(bundle?.name);
    const pkgBlobs = index.query({ package: bundle?.package ?? '' });
    expect(pkgBlobs.length).toBe(catalog.metas.filter((m) => m.package === bundle?.package && m.schema !== '').length);
    expect(index.query({ schema: 'olm.bundle' })).toHaveLength(want.bundles);
    expect(index.query({ schema: 'olm.channel' })).toHaveLength(want.channels);
  });
});
