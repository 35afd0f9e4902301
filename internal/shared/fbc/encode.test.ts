// catalog.jsonl layout and the metas index (catalogd storage/index.go semantics), plus the
// upgrade-graph helper.

import { describe, expect, it } from 'vitest';
import { encodeJsonl, sliceEntries } from './encode.ts';
import { buildGraphs } from './graph.ts';
import { catalogFromFiles } from './load.ts';
import { validate } from './validate.ts';

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

describe('buildGraphs', () => {
  it('gives channels, entries with versions, heads and deprecations', () => {
    const strictCatalog = catalogFromFiles({ 'a.yaml': files['a.yaml'] });
    const { model, errors } = validate(strictCatalog);
    expect(errors).toEqual([]);
    const g = buildGraphs(model ?? new Map()).get('foo');
    expect(g?.defaultChannel).toBe('stable');
    const ch = g?.channels.get('stable');
    expect(ch?.head).toBe('foo.v2');
    expect(ch?.entries).toEqual([
      { name: 'foo.v1', replaces: '', skips: [], skipRange: '', version: '1.0.0', release: '', image: 'quay.io/x/foo:v1', deprecation: 'use v2' },
      { name: 'foo.v2', replaces: 'foo.v1', skips: [], skipRange: '<2.0.0', version: '2.0.0', release: '', image: 'quay.io/x/foo:v2' },
    ]);
  });
});
