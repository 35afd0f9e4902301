import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeJsonl, loadCatalog, type Catalog } from '../../shared/fbc/index.ts';
import { CatalogIndexBuilder, indexFromCatalog, indexFromDirectory, indexFromJsonl } from './catalog-index.ts';
import type { PackageContent } from './types.ts';
import { realCatalogDir } from '../../../test/support/testdata.ts';

const jsonl = (...blobs: unknown[]): string => blobs.map((b) => `${JSON.stringify(b)}\n`).join('');

const small = jsonl(
  { schema: 'olm.package', name: 'foo', defaultChannel: 'stable' },
  { schema: 'olm.channel', package: 'foo', name: 'stable', entries: [{ name: 'foo.v1' }, { name: 'foo.v2', replaces: 'foo.v1', skips: ['x'], skipRange: '<2.0.0' }] },
  { schema: 'olm.bundle', package: 'foo', name: 'foo.v1', image: 'img/foo:1', properties: [{ type: 'olm.package', value: { packageName: 'foo', version: '1.0.0' } }] },
  { schema: 'olm.package', name: 'bar', defaultChannel: 'alpha' },
  { schema: 'olm.bundle', package: 'foo', name: 'foo.v2', image: 'img/foo:2', properties: [{ type: 'olm.package', value: { packageName: 'foo', version: '2.0.0' } }] },
  { schema: 'olm.deprecations', package: 'foo', entries: [{ reference: { schema: 'olm.bundle', name: 'foo.v1' }, message: 'old' }] },
  { schema: 'my.custom', package: 'foo', name: 'extra', data: 1 },
  { schema: 'olm.bundle', name: 'orphan', image: 'img/orphan' }, // no package: not in any package
);

const expectedFoo: PackageContent = {
  packages: [{ name: 'foo', defaultChannel: 'stable' }],
  channels: [
    {
      name: 'stable',
      package: 'foo',
      entries: [
        { name: 'foo.v1', replaces: '', skips: [], skipRange: '' },
        { name: 'foo.v2', replaces: 'foo.v1', skips: ['x'], skipRange: '<2.0.0' },
      ],
    },
  ],
  bundles: [
    { name: 'foo.v1', package: 'foo', image: 'img/foo:1', properties: [{ type: 'olm.package', value: { packageName: 'foo', version: '1.0.0' } }] },
    { name: 'foo.v2', package: 'foo', image: 'img/foo:2', properties: [{ type: 'olm.package', value: { packageName: 'foo', version: '2.0.0' } }] },
  ],
  deprecations: [{ package: 'foo', entries: [{ reference: { schema: 'olm.bundle', name: 'foo.v1' }, message: 'old' }] }],
};

describe('indexFromJsonl', () => {
  it('groups a small catalog by package', async () => {
    const index = await indexFromJsonl(small);
    expect(index.packageNames()).toEqual(['foo', 'bar']);
    expect(index.getPackage('foo')).toEqual(expectedFoo);
    expect(index.getPackage('bar')).toEqual({ packages: [{ name: 'bar', defaultChannel: 'alpha' }], channels: [], bundles: [], deprecations: [] });
    expect(index.blobs).toBe(8);
    expect(index.jsonlBytes).toBe(Buffer.byteLength(small));
  });

  it('gives empty lists for a package the catalog lacks', async () => {
    const index = await indexFromJsonl(small);
    expect(index.getPackage('nope')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [] });
    expect(index.getPackage('')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [] });
    expect(index.hasPackage('nope')).toBe(false);
  });

  it('gives the same index wherever the body is cut into chunks', async () => {
    const bytes = Buffer.from(small);
    const whole = await indexFromJsonl(bytes);
    for (const size of [1, 2, 7, 64, 333]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const index = await indexFromJsonl(chunks);
      expect(index.getPackage('foo'), `chunk size ${size}`).toEqual(whole.getPackage('foo'));
      expect(index.packageJsonl('foo').equals(whole.packageJsonl('foo'))).toBe(true);
    }
  });

  it('accepts a last line without a newline, blank lines and CRLF', async () => {
    const body = `\n${JSON.stringify({ schema: 'olm.package', name: 'a' })}\r\n\n  \n${JSON.stringify({ schema: 'olm.package', name: 'b' })}`;
    const index = await indexFromJsonl(body);
    expect(index.packageNames()).toEqual(['a', 'b']);
    expect(index.getPackage('b').packages).toEqual([{ name: 'b', defaultChannel: '' }]);
  });

  it('keeps the last blob of a schema and name, as upstream cache files do (nameless deprecations too)', async () => {
    const index = await indexFromJsonl(
      jsonl(
        { schema: 'olm.bundle', package: 'p', name: 'b1', image: 'first' },
        { schema: 'olm.deprecations', package: 'p', entries: [{ reference: { schema: 'olm.package' }, message: 'one' }] },
        { schema: 'olm.bundle', package: 'p', name: 'b2', image: 'other' },
        { schema: 'olm.bundle', package: 'p', name: 'b1', image: 'second' },
        { schema: 'olm.deprecations', package: 'p', entries: [{ reference: { schema: 'olm.package' }, message: 'two' }] },
      ),
    );
    const p = index.getPackage('p');
    expect(p.bundles.map((b) => [b.name, b.image])).toEqual([
      ['b2', 'other'],
      ['b1', 'second'],
    ]);
    expect(p.deprecations).toEqual([{ package: 'p', entries: [{ reference: { schema: 'olm.package', name: '' }, message: 'two' }] }]);
  });

  it('reads fields like encoding/json: exact key first, else case-insensitively', async () => {
    const index = await indexFromJsonl(
      jsonl(
        { Schema: 'olm.package', NAME: 'p', defaultchannel: 'c' },
        { schema: 'olm.channel', Package: 'p', name: 'c', Entries: [{ Name: 'p.v1', Replaces: 'p.v0', SkipRange: '<1.0.0' }] },
      ),
    );
    expect(index.getPackage('p')).toEqual({
      packages: [{ name: 'p', defaultChannel: 'c' }],
      channels: [{ name: 'c', package: 'p', entries: [{ name: 'p.v1', replaces: 'p.v0', skips: [], skipRange: '<1.0.0' }] }],
      bundles: [],
      deprecations: [],
    });
  });

  it.each([
    ['not JSON', '{"schema":"olm.package",\n', /^error parsing catalog contents: /],
    ['not an object', '[1,2]\n', /^error parsing catalog contents: json: cannot unmarshal array into Go value of type declcfg\.Meta$/],
    [
      'a non-string meta field',
      '{"schema":"olm.package","name":12345}\n',
      /^error parsing catalog contents: json: cannot unmarshal number into Go struct field Meta\.name of type string$/,
    ],
  ])('rejects %s with upstream’s prefix', async (_name, body, want) => {
    await expect(indexFromJsonl(body)).rejects.toThrow(want);
  });

  it('decodes a package once and serves it from the LRU until evicted', async () => {
    const body = jsonl(...Array.from({ length: 5 }, (_, i) => ({ schema: 'olm.package', name: `p${i}` })));
    const index = await indexFromJsonl(body, { cacheEntries: 2 });
    const first = index.getPackage('p0');
    expect(index.getPackage('p0')).toBe(first);
    index.getPackage('p1');
    index.getPackage('p0'); // p0 most recent: p1 is evicted next
    index.getPackage('p2');
    expect(index.getPackage('p0')).toBe(first);
    const p1 = index.getPackage('p1');
    expect(p1).toEqual({ packages: [{ name: 'p1', defaultChannel: '' }], channels: [], bundles: [], deprecations: [] });
    index.getPackage('p3');
    index.getPackage('p4');
    expect(index.getPackage('p0')).not.toBe(first); // decoded again, equal content
    expect(index.getPackage('p0')).toEqual(first);
  });

  it('bounds the LRU by bytes but always keeps the last package', async () => {
    const index = await indexFromJsonl(small, { cacheBytes: 1 });
    const foo = index.getPackage('foo');
    expect(index.getPackage('foo')).toBe(foo);
    index.getPackage('bar');
    expect(index.getPackage('foo')).not.toBe(foo);
  });

  it('refuses a builder used after finish', () => {
    const b = new CatalogIndexBuilder();
    b.finish();
    expect(() => b.push(Buffer.from('{}\n'))).toThrow('push after finish');
  });
});

describe('CatalogIndexBuilder.toFile', () => {
  const inDir = async (f: (dir: string) => Promise<void>): Promise<void> => {
    const dir = await mkdtemp(join(tmpdir(), 'catalog-index-'));
    try {
      await f(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('keeps the lines in an unlinked file: the same packages as in memory (a package in several runs too), nothing left in the directory, none in memory', () =>
    inDir(async (dir) => {
      const b = await CatalogIndexBuilder.toFile(join(dir, 'c.1.jsonl'));
      expect(await readdir(dir)).toEqual([]); // unlinked as soon as it is opened
      b.push(Buffer.from(small));
      const index = b.finish();
      const memory = await indexFromJsonl(small);
      expect(await readdir(dir)).toEqual([]);
      expect(index.retainedBytes).toBe(0);
      expect(memory.retainedBytes).toBeGreaterThan(0);
      expect(index.packageNames()).toEqual(memory.packageNames());
      expect(index.getPackage('foo')).toEqual(expectedFoo); // foo's lines come in two runs, bar's between them
      for (const p of memory.packageNames()) expect(index.packageJsonl(p).equals(memory.packageJsonl(p)), p).toBe(true);
      expect(index.jsonlBytes).toBe(memory.jsonlBytes);
    }));

  it('writes the lines as they come: a big body fed in chunks is never held, and reads back in order across writes (of more lines than one writev takes, IOV_MAX)', () =>
    inDir(async (dir) => {
      const many = jsonl(...Array.from({ length: 9000 }, (_, i) => ({ schema: 'olm.bundle', package: `p${Math.floor(i / 7) % 3}`, name: `b${i}`, image: `img/${i}`, pad: 'x'.repeat(100) })));
      const body = Buffer.from(many);
      const b = await CatalogIndexBuilder.toFile(join(dir, 'c.jsonl'));
      const memoryBuilder = new CatalogIndexBuilder();
      let mostHeld = 0;
      for (let at = 0; at < body.length; at += 16 * 1024) {
        const chunk = body.subarray(at, at + 16 * 1024);
        b.push(chunk);
        memoryBuilder.push(chunk);
        mostHeld = Math.max(mostHeld, b.heldBytes);
      }
      expect(body.length).toBeGreaterThan(1_400_000);
      expect(mostHeld).toBeLessThan(256 * 1024 + 1024); // one write's worth (and the line that filled it)
      expect(memoryBuilder.heldBytes).toBe(body.length);
      const index = b.finish();
      const memory = memoryBuilder.finish();
      for (const p of ['p0', 'p1', 'p2']) expect(index.packageJsonl(p).equals(memory.packageJsonl(p)), p).toBe(true);
      expect(index.getPackage('p1').bundles.map((x) => x.name)).toEqual(memory.getPackage('p1').bundles.map((x) => x.name));
    }));

  it('an index without package lines; a directory that does not exist and a failed build given up (upstream\'s message, the file closed)', () =>
    inDir(async (dir) => {
      const empty = await CatalogIndexBuilder.toFile(join(dir, 'e.jsonl'));
      empty.push(Buffer.from(jsonl({ schema: 'olm.bundle', name: 'orphan', image: 'img/orphan' })));
      expect(empty.finish().packageNames()).toEqual([]);
      await expect(CatalogIndexBuilder.toFile(join(dir, 'missing', 'c.jsonl'))).rejects.toThrow(/^error writing catalog metadata to file: .*ENOENT/);
      const b = await CatalogIndexBuilder.toFile(join(dir, 'c.jsonl'));
      expect(() => b.push(Buffer.from('{"schema": 1}\n'))).toThrow(/^error parsing catalog contents: /);
      b.discard();
      expect(() => b.push(Buffer.from(small))).toThrow('push after finish');
      expect(await readdir(dir)).toEqual([]);
    }));
});

describe('indexFromCatalog and indexFromDirectory on a real catalog', () => {
  const dir = realCatalogDir('certified-operators-v4.21');
  let catalog: Catalog;

  it('loads', async () => {
    catalog = await loadCatalog(dir);
    expect(catalog.config.packages.length).toBe(58); // EXPECTED-SUMMARY.json
  }, 120_000);

  it('gives every package what the typed catalog holds, from the directory and from its JSONL alike', async () => {
    const fromCatalog = indexFromCatalog(catalog);
    const encoded = encodeJsonl(catalog);
    const fromJsonl = await indexFromJsonl(encoded.chunks);
    expect(fromJsonl.jsonlBytes).toBe(encoded.byteLength);
    expect(encoded.byteLength).toBe(15_221_201); // EXPECTED-SUMMARY.json
    expect(fromCatalog.jsonlBytes).toBe(encoded.byteLength);
    // Kept lines are at most the catalog's JSONL.
    expect(fromJsonl.retainedBytes).toBeLessThanOrEqual(encoded.byteLength);

    // The oracle: fbc's strict, Go-typed view (packages, channels, deprecations) and each bundle's own JSON.
    const strip = <T extends { ref?: unknown }>(o: T): Omit<T, 'ref'> => {
      const { ref: _ref, ...rest } = o;
      return rest;
    };
    const want = new Map<string, { packages: unknown[]; channels: unknown[]; bundles: unknown[]; deprecations: unknown[] }>();
    const entry = (p: string) => {
      let e = want.get(p);
      if (!e) want.set(p, (e = { packages: [], channels: [], bundles: [], deprecations: [] }));
      return e;
    };
    for (const p of catalog.config.packages) entry(p.name).packages.push(strip(p));
    for (const c of catalog.config.channels) entry(c.package).channels.push({ ...strip(c), entries: c.entries.map((e) => ({ ...e })) });
    for (const d of catalog.config.deprecations) entry(d.package).deprecations.push(strip(d));
    for (const m of catalog.metas) {
      if (m.schema !== 'olm.bundle') continue;
      const b = JSON.parse(m.json.toString('utf8')) as { name: string; package: string; image: string; properties?: { type: string; value: unknown }[] };
      entry(m.package).bundles.push({ name: b.name, package: b.package, image: b.image, properties: (b.properties ?? []).map((p) => ({ type: p.type, value: p.value })) });
    }
    expect(new Set(fromJsonl.packageNames())).toEqual(new Set(want.keys()));
    for (const [name, content] of want) {
      expect(fromJsonl.getPackage(name), name).toEqual(content);
      expect(fromCatalog.getPackage(name), name).toEqual(content);
    }
  }, 120_000);

  it('indexFromDirectory is loadCatalog + indexFromCatalog', async () => {
    const index = await indexFromDirectory(dir);
    const pkg = catalog.config.packages[0]!.name;
    expect(index.getPackage(pkg)).toEqual(indexFromCatalog(catalog).getPackage(pkg));
    expect(index.packageNames().length).toBe(catalog.config.packages.length);
  }, 120_000);
});
