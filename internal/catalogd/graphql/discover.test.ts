import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDirStore } from '../storage/index.ts';
import { writeSyntheticCatalog } from '../storage/testing.ts';
import { ShapeBuilder, discoverShape, type CatalogShape } from './discover.ts';

/** The shape as plain data: schema → field → "Type" / "[Type]" / { nested fields }. */
function plain(shape: CatalogShape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, s] of shape.schemas) {
    const fields: Record<string, unknown> = {};
    for (const [f, shapeOf] of s.fields) {
      const t = shapeOf.list ? `[${shapeOf.scalar}]` : shapeOf.scalar;
      if (!shapeOf.nested) fields[f] = t;
      else fields[f] = Object.fromEntries([...shapeOf.nested].map(([n, x]) => [n, x.list ? `[${x.scalar}]` : x.scalar]));
    }
    out[name] = { objects: s.objects, fields };
  }
  return out;
}

const shapeOf = (...blobs: [string, unknown][]): CatalogShape => {
  const b = new ShapeBuilder();
  for (const [schema, blob] of blobs) b.add(schema, blob);
  return b.result();
};

describe('ShapeBuilder: types from the blobs', () => {
  it('scalars from the first blob that has the field; later blobs never retype it', () => {
    const shape = shapeOf(
      ['x', { schema: 'x', s: 'a', i: 3, f: 1.5, b: true, n: null, o: { k: 1 } }],
      ['x', { schema: 'x', s: 3, i: 2.5, late: 7, n: 'now a string' }],
    );
    expect(plain(shape)).toEqual({
      x: { objects: 2, fields: { schema: 'String', s: 'String', i: 'Int', f: 'Float', b: 'Boolean', n: 'String', o: 'String', late: 'Int' } },
    });
  });

  it('arrays: element type from the first non-null of the first ten; mixed or empty → [String]', () => {
    const shape = shapeOf([
      'x',
      {
        ints: [1, 2],
        floats: [1.5, 2],
        strs: ['a'],
        empty: [],
        nulls: [null, null],
        lateNull: [null, true],
        mixed: ['a', 1],
        mixedAfterTen: [...Array.from({ length: 10 }, () => 1), 'a'],
        arrays: [[1], [2]],
      },
    ]);
    expect(plain(shape).x).toEqual({
      objects: 1,
      fields: {
        ints: '[Int]',
        floats: '[Float]',
        strs: '[String]',
        empty: '[String]',
        nulls: '[String]',
        lateNull: '[Boolean]',
        mixed: '[String]',
        mixedAfterTen: '[Int]',
        arrays: '[String]',
      },
    });
  });

  it('arrays of objects: nested fields merged over elements and blobs (first seen wins), one level deep', () => {
    const shape = shapeOf(
      ['olm.bundle', { properties: [{ type: 'olm.package', value: { packageName: 'p' } }, { type: 'olm.gvk', value: {}, extra_key: 1 }] }],
      ['olm.bundle', { properties: [{ type: 7, later: [{ deep: 1 }], skips: ['a'] }] }],
      ['olm.bundle', { properties: [] }],
    );
    expect(plain(shape)).toEqual({
      'olm.bundle': {
        objects: 3,
        fields: { properties: { type: 'String', value: 'String', extraKey: 'Int', later: '[String]', skips: '[String]' } },
      },
    });
  });

  it('a field first seen as a scalar array gets nested fields when objects come later', () => {
    const shape = shapeOf(['x', { entries: [] }], ['x', { entries: [{ name: 'a' }] }]);
    expect(plain(shape).x).toEqual({ objects: 2, fields: { entries: { name: 'String' } } });
  });

  it('only the first ten elements of an array are looked at', () => {
    const elements = Array.from({ length: 12 }, (_, i) => ({ [`k${i}`]: i }));
    const fields = plain(shapeOf(['x', { a: elements }])).x as { fields: { a: Record<string, string> } };
    expect(Object.keys(fields.fields.a)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']);
  });

  it('keys with one field name share it and are all remembered', () => {
    const shape = shapeOf(['x', { 'foo-bar': 'a' }], ['x', { foo_bar: 1, fooBar: true }]);
    const field = shape.schemas.get('x')?.fields.get('fooBar');
    expect(field).toEqual({ keys: ['foo-bar', 'foo_bar', 'fooBar'], scalar: 'String', list: false });
  });

  it('blobs without a schema, and values that are not objects, are not counted', () => {
    expect(plain(shapeOf(['', { name: 'a' }], ['x', [1]], ['x', 'text']))).toEqual({});
  });
});

describe('discoverShape: one pass over a stored catalog.jsonl', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'graphql-discover-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('finds olm.package, olm.channel, olm.bundle, olm.deprecations and custom schemas', async () => {
    const fbc = join(tmp, 'fbc');
    await writeSyntheticCatalog(fbc, { packages: 2, bundlesPerPackage: 3 });
    await writeFile(
      join(fbc, 'extra.json'),
      [
        { schema: 'olm.deprecations', package: 'pkg-00000', entries: [{ reference: { schema: 'olm.bundle', name: 'pkg-00000.v1.0.0' }, message: 'old' }] },
        { schema: 'helm.chart', name: 'c', version: '1.0.0', 'app-version': 2, tags: ['a', 'b'] },
        { schema: 'helm.chart', name: 'd', maintainers: [{ name: 'm', email: 'e' }] },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
    const store = new LocalDirStore({ root: join(tmp, 'catalogs') });
    const stored = await store.store('c', `sha256:${'1'.repeat(64)}`, fbc);
    const shape = plain(await discoverShape(stored.jsonlPath, stored.index.entries));
    expect(shape).toEqual({
      'olm.package': { objects: 2, fields: { defaultChannel: 'String', description: 'String', icon: 'String', name: 'String', schema: 'String' } },
      'olm.channel': {
        objects: 2,
        fields: { entries: { name: 'String', replaces: 'String', skipRange: 'String' }, name: 'String', package: 'String', schema: 'String' },
      },
      'olm.bundle': {
        objects: 6,
        fields: {
          image: 'String',
          name: 'String',
          package: 'String',
          properties: { type: 'String', value: 'String' },
          relatedImages: { image: 'String', name: 'String' },
          schema: 'String',
        },
      },
      'olm.deprecations': { objects: 1, fields: { entries: { message: 'String', reference: 'String' }, package: 'String', schema: 'String' } },
      'helm.chart': {
        objects: 2,
        fields: { appVersion: 'Int', name: 'String', schema: 'String', tags: '[String]', version: 'String', maintainers: { email: 'String', name: 'String' } },
      },
    });
  });

  it('reads lines across read boundaries and skips lines without an index entry', async () => {
    const path = join(tmp, 'lines.jsonl');
    const long = 'x'.repeat((1 << 20) + 5); // one line longer than a read
    const lines = [JSON.stringify({ schema: 'a', v: long }), JSON.stringify({ k: 1 }), JSON.stringify({ schema: 'b', n: 1 })];
    await writeFile(path, lines.map((l) => l + '\n').join(''));
    const at = (i: number): number => lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0);
    const entry = (i: number, schema: string) => ({ index: i, offset: at(i), length: (lines[i] as string).length + 1, schema, package: '', name: '' });
    const shape = await discoverShape(path, [entry(2, 'b'), entry(0, 'a')]);
    expect(plain(shape)).toEqual({ a: { objects: 1, fields: { schema: 'String', v: 'String' } }, b: { objects: 1, fields: { schema: 'String', n: 'Int' } } });
  });
});
