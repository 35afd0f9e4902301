// catalog.jsonl layout and the metas index (catalogd storage/index.go semantics).

import { describe, expect, it } from 'vitest';
import { BlobIndex, BlobIndexBuilder, encodeJsonl, type BlobIndexEntry, type EncodedCatalog } from './encode.ts';
import { sortedGoStrings } from './go.ts';
import { catalogFromFiles } from './load.ts';

/** The bytes of some index entries of an encoded catalog, concatenated in the given order. */
const sliceEntries = (encoded: EncodedCatalog, entries: readonly BlobIndexEntry[]): Buffer =>
  Buffer.concat(entries.map((e) => encoded.chunks[e.index] ?? Buffer.alloc(0)));

const files = {
  'a.yaml': [
    'schema: olm.package\nname: foo\ndefaultChannel: stable',
    'schema: olm.channel\npackage: foo\nname: stable\nentries:\n- name: foo.v1\n- name: foo.v2\n  replaces: foo.v1\n  skipRange: "<2.0.0"',
    'schema: olm.bundle\npackage: foo\nname: foo.v1\nimage: quay.io/x/foo:v1\nproperties: [{type: olm.package, value: {packageName: foo, version: 1.0.0}}]',
    'schema: olm.bundle\npackage: foo\nname: foo.v2\nimage: quay.io/x/foo:v2\nproperties: [{type: olm.package, value: {packageName: foo, version: 2.0.0}}]',
    'schema: olm.deprecations\npackage: foo\nentries: [{reference: {schema: olm.bundle, name: foo.v1}, message: "use v2"}]',
  ].join('\n---\n'),
  'b.json': '{"schema":"acme.note","package":"foo","name":"foo.v1"}\n{"name":"schemaless"}',
};
const catalog = catalogFromFiles(files, { strict: false });
const encoded = encodeJsonl(catalog);
const text = Buffer.concat(encoded.chunks).toString('utf8');

describe('encodeJsonl', () => {
  it('lays out one line per blob with offsets and lengths including the newline', () => {
    expect(text.split('\n').length - 1).toBe(7);
    for (const e of encoded.index.entries) {
      const line = text.slice(e.offset, e.offset + e.length); // ASCII-only content: offsets are char offsets
      expect(line.endsWith('\n')).toBe(true);
      expect(JSON.parse(line).name ?? '').toBe(e.name);
    }
    expect(encoded.byteLength).toBe(Buffer.byteLength(text));
  });

  it('answers queries as catalogd does: intersection, in file order, schema-less blobs only in the full file', () => {
    const names = (q: Parameters<typeof encoded.index.query>[0]): string[] => encoded.index.query(q).map((e) => `${e.schema}:${e.name}`);
    expect(names({ package: 'foo' })).toEqual([
      'olm.channel:stable',
      'olm.bundle:foo.v1',
      'olm.bundle:foo.v2',
      'olm.deprecations:',
      'acme.note:foo.v1',
    ]);
    expect(names({ name: 'foo.v1' })).toEqual(['olm.bundle:foo.v1', 'acme.note:foo.v1']);
    expect(names({ schema: 'olm.bundle', name: 'foo.v1' })).toEqual(['olm.bundle:foo.v1']);
    expect(names({ schema: 'olm.bundle', package: 'bar' })).toEqual([]);
    expect(names({ name: 'schemaless' })).toEqual([]);
    expect(names({})).toHaveLength(7);
    expect(sliceEntries(encoded, encoded.index.query({ schema: 'olm.package' })).toString()).toBe(
      '{"defaultChannel":"stable","name":"foo","schema":"olm.package"}\n',
    );
  });

  it('writes catalogd’s index.json', () => {
    const idx = JSON.parse(encoded.index.toCatalogdJSON());
    expect(Object.keys(idx)).toEqual(['by_schema', 'by_package', 'by_name']);
    expect(Object.keys(idx.by_schema)).toEqual(['acme.note', 'olm.bundle', 'olm.channel', 'olm.deprecations', 'olm.package']);
    const first = encoded.index.entries[0];
    expect(idx.by_schema['olm.package']).toEqual([[0, first?.length]]);
    expect(idx.by_name['foo.v1']).toHaveLength(2);
  });
});

describe('BlobIndex', () => {
  /** The former index: an object per blob, index.json through JSON.stringify. */
  function referenceJSON(entries: readonly BlobIndexEntry[]): string {
    const dim = (field: 'schema' | 'package' | 'name'): Record<string, [number, number][]> => {
      const m = new Map<string, [number, number][]>();
      for (const e of entries) if (e[field] !== '') m.set(e[field], [...(m.get(e[field]) ?? []), [e.offset, e.length]]);
      return Object.fromEntries(sortedGoStrings(m.keys()).map((k) => [k, m.get(k)!]));
    };
    const json = JSON.stringify({ by_schema: dim('schema'), by_package: dim('package'), by_name: dim('name') });
    return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') + '\n';
  }

  // Keys that sort differently in UTF-16 and UTF-8, need escaping, or look like numbers / __proto__.
  const odd = ['\uffff', '\u{1f600}', 'a"b', 'line\u2028sep', '10', '9', '__proto__', 'é', ''];
  const entries: BlobIndexEntry[] = [];
  let offset = 0;
  for (let i = 0; i < 300; i++) {
    const length = 10 + (i % 7);
    entries.push({ index: i, offset, length, schema: odd[i % 5]!, package: odd[(i * 3) % odd.length]!, name: i % 4 === 0 ? '' : `n${i % 23}${odd[i % odd.length]!}` });
    offset += length;
  }

  it('writes the same index.json as an object per blob did, in pieces', () => {
    const b = new BlobIndexBuilder();
    for (const e of entries) b.add(e.offset, e.length, e.schema, e.package, e.name);
    const index = b.finish();
    expect(index.toCatalogdJSON()).toBe(referenceJSON(entries));
    expect([...index.catalogdJSON()].join('')).toBe(referenceJSON(entries));
    expect(new BlobIndex(entries).toCatalogdJSON()).toBe(referenceJSON(entries));
    expect(index.size).toBe(300);
    expect(index.entries).toEqual(entries);
  });

  it('answers queries and sections like filtering the entries', () => {
    const index = new BlobIndex(entries);
    const filter = (q: { schema?: string; package?: string; name?: string }): BlobIndexEntry[] =>
      entries.filter((e) => (q.schema ? e.schema === q.schema : e.schema !== '') && (!q.package || e.package === q.package) && (!q.name || e.name === q.name));
    for (const q of [{ schema: '10' }, { package: 'é' }, { name: 'n1\uffff' }, { schema: '\u{1f600}', package: '9' }, { package: '__proto__' }, { name: 'missing' }, { schema: 'a"b', name: 'n5line\u2028sep' }]) {
      const want = filter(q);
      expect(index.query(q), JSON.stringify(q)).toEqual(want);
      const merged: { offset: number; length: number }[] = [];
      for (const e of want) {
        const last = merged.at(-1);
        if (last && last.offset + last.length === e.offset) last.length += e.length;
        else merged.push({ offset: e.offset, length: e.length });
      }
      expect(index.sections(q), JSON.stringify(q)).toEqual(merged);
    }
    expect(index.query({})).toHaveLength(300);
    expect(index.sections({ schema: '\uffff' }).length).toBeGreaterThan(1);
  });

  it('grows past its first columns and keeps each distinct value once', () => {
    const b = new BlobIndexBuilder();
    for (let i = 0; i < 5000; i++) b.add(i * 2, 2, 's', `p${i % 3}`, `n${i}`);
    const index = b.finish();
    expect(index.size).toBe(5000);
    expect(index.query({ package: 'p1' })).toHaveLength(1667);
    expect(index.entry(4999)).toEqual({ index: 4999, offset: 9998, length: 2, schema: 's', package: 'p1', name: 'n4999' });
    expect(index.sections({ schema: 's' })).toEqual([{ offset: 0, length: 10000 }]);
  });
});
