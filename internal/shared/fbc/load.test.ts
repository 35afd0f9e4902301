// Loading: walk order, `.indexignore`, mixed JSON/YAML files, the stored lines, and loader
// errors (which name the file and the document) with opm's texts.

import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareGoStrings } from './go.ts';
import { IgnoreMatcher, parseIgnoreFile } from './ignore.ts';
import { catalogFromFiles, listCatalogFiles, loadCatalog, walkMetas, type Catalog } from './load.ts';
import { FbcLoadError } from './messages.ts';
import { validate } from './validate.ts';

const MIXED = fileURLToPath(new URL('./testdata/mixed', import.meta.url));

function loadError(files: Record<string, string>, strict = true): FbcLoadError {
  try {
    catalogFromFiles(files, { strict });
  } catch (e) {
    if (e instanceof FbcLoadError) return e;
    throw e;
  }
  throw new Error('expected a load error');
}

describe('testdata/mixed', () => {
  let c: Catalog;
  beforeAll(async () => {
    c = await loadCatalog(MIXED);
  });

  it('walks files in lexical order, honouring nested .indexignore files', async () => {
    expect(await listCatalogFiles(MIXED)).toEqual([
      'bar/catalog.yaml',
      'foo/bundles.yaml',
      'foo/catalog.json',
      'foo/sub/y.yaml',
      'keep.txt',
      'zz-custom.yaml',
    ]);
    expect(c.files).toBe(6);
  });

  it('keeps blobs in file and document order, with where they came from', () => {
    expect(c.metas.map((m) => [m.file, m.document, m.line, m.schema, m.package, m.name])).toEqual([
      ['bar/catalog.yaml', 1, 1, 'olm.package', '', 'bar'],
      ['bar/catalog.yaml', 3, 3, 'olm.channel', 'bar', 'alpha'],
      ['bar/catalog.yaml', 4, 9, 'olm.bundle', 'bar', 'bar.v0.1.0'],
      ['foo/bundles.yaml', 2, 3, 'olm.bundle', 'foo', 'foo.v1.0.0'],
      ['foo/bundles.yaml', 4, 21, 'olm.bundle', 'foo', 'foo.v1.1.0'],
      ['foo/catalog.json', 1, 1, 'olm.package', '', 'foo'],
      ['foo/catalog.json', 2, 7, 'olm.channel', 'foo', 'stable'],
      ['foo/sub/y.yaml', 1, 1, 'olm.channel', 'foo', 'fast'],
      ['keep.txt', 1, 1, 'custom.note', '', 'keep'],
      ['zz-custom.yaml', 1, 1, 'acme.widget', '', 'gadget'],
    ]);
  });

  it('stores canonical JSON lines: sorted keys, no HTML escaping, timestamps as text, YAML 1.1 scalars', () => {
    const line = (name: string): string => c.metas.find((m) => m.name === name)?.json.toString('utf8') ?? '';
    expect(line('foo')).toBe('{"defaultChannel":"stable","description":"<b>Foo</b> & friends","name":"foo","schema":"olm.package"}\n');
    expect(line('foo.v1.0.0')).toBe(
      '{"image":"quay.io/example/foo-bundle:v1.0.0","name":"foo.v1.0.0","package":"foo","properties":[' +
        '{"type":"olm.package","value":{"packageName":"foo","version":"1.0.0"}},' +
        '{"type":"olm.csv.metadata","value":{"annotations":{"capabilities":"Basic Install","createdAt":"2025-06-24T14:07:09"},"displayName":"Foo"}}' +
        '],"schema":"olm.bundle"}\n',
    );
    // Meta keys match case-insensitively; the stored blob keeps the original keys.
    expect(line('foo.v1.1.0')).toMatch(/^\{"Name":"foo\.v1\.1\.0","Package":"foo","Schema":"olm\.bundle","image":/);
    expect(line('gadget')).toBe('{"name":"gadget","schema":"acme.widget","spec":{"count":16,"enabled":true}}\n');
  });

  it('builds the typed config and validates', () => {
    expect(c.config.packages.map((p) => [p.name, p.defaultChannel])).toEqual([
      ['bar', 'alpha'],
      ['foo', 'stable'],
    ]);
    expect(c.config.channels.map((ch) => `${ch.package}/${ch.name}`)).toEqual(['bar/alpha', 'foo/stable', 'foo/fast']);
    const b = c.config.bundles.find((x) => x.name === 'foo.v1.1.0');
    expect(b).toMatchObject({
      package: 'foo',
      image: 'quay.io/example/foo-bundle:v1.1.0',
      relatedImages: ['quay.io/example/foo@sha256:' + '0'.repeat(64)],
      properties: { types: ['olm.package', 'olm.gvk'], packages: [{ packageName: 'foo', version: '1.1.0', release: '' }], bundleObjects: 0 },
    });
    expect(c.config.channels[1]?.entries[1]).toEqual({ name: 'foo.v1.1.0', replaces: 'foo.v1.0.0', skips: [], skipRange: '>=1.0.0 <1.1.0' });
    expect(validate(c).errors).toEqual([]);
  });

  it('streams the same metas', async () => {
    const names: string[] = [];
    for await (const m of walkMetas(MIXED)) names.push(m.name);
    expect(names).toEqual(c.metas.map((m) => m.name));
  });
});

describe('loader errors name the file and the document', () => {
  it('malformed JSON', () => {
    const e = loadError({ 'a/catalog.json': '{"schema":"x","name":"a"}\n{"schema":"x","name":"b"}\n{"schema": }\n' });
    expect(e.code).toBe('FBC_JSON_SYNTAX');
    expect(e.message).toMatch(/^a\/catalog\.json: document 3 \(line 3\): json: /);
  });

  it('missing schema (strict) is opm LoadFS’s error; catalogd (non-strict) stores the blob', () => {
    const e = loadError({ 'p/c.yaml': 'schema: olm.package\nname: p\n---\nname: orphan\nvalue: 1\n' });
    expect(e.code).toBe('FBC_MISSING_SCHEMA');
    expect(e.detail).toBe(`object '{"name":"orphan","value":1}\n' is missing root schema field`);
    expect(e.message).toBe(`p/c.yaml: document 2 (line 4), name "orphan": object '{"name":"orphan","value":1}\n' is missing root schema field`);
    const c = catalogFromFiles({ 'p/c.yaml': 'name: orphan\n' }, { strict: false });
    expect(c.metas.map((m) => [m.schema, m.name, m.json.toString()])).toEqual([['', 'orphan', '{"name":"orphan"}\n']]);
  });

  it.each<[string, string, string]>([
    ['- a\n- b\n', 'FBC_NOT_AN_OBJECT', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['just some prose\n', 'FBC_NOT_AN_OBJECT', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['schema: a\nSchema: b\n', 'FBC_DUPLICATE_KEYS', 'duplicate keys for key "schema": [Schema schema]'],
    [
      'Name: a\nNAME: b\nschema: x\nSCHEMA: y\n',
      'FBC_DUPLICATE_KEYS',
      '[duplicate keys for key "name": [NAME Name], duplicate keys for key "schema": [SCHEMA schema]]',
    ],
    ['schema: 5\n', 'FBC_META_NOT_STRING', 'expected value for key "schema" to be a string, got %!t(float64=5): 5'],
    ['schema: x\nname: yes\n', 'FBC_META_NOT_STRING', 'expected value for key "name" to be a string, got true: true'],
    ['schema: x\npackage: [a, 1000000]\n', 'FBC_META_NOT_STRING', 'expected value for key "package" to be a string, got %!t([]interface {}=[a 1e+06]): [a 1e+06]'],
    ['schema: ~\n', 'FBC_META_NOT_STRING', 'expected value for key "schema" to be a string, got %!t(<nil>): <nil>'],
  ])('%j', (text, code, detail) => {
    const e = loadError({ 'x.yaml': text });
    expect([e.code, e.detail]).toEqual([code, detail]);
    expect(e.message.startsWith('x.yaml: document 1 (line 1)')).toBe(true);
  });

  it.each<[string, string]>([
    ['schema: olm.bundle\nname: b\nimage: 5\n', 'parse bundle: json: cannot unmarshal number into Go struct field Bundle.image of type string'],
    ['schema: olm.bundle\nname: b\nproperties: {}\n', 'parse bundle: json: cannot unmarshal object into Go struct field Bundle.properties of type []property.Property'],
    ['schema: olm.bundle\nname: b\nproperties: [x]\n', 'parse bundle: json: cannot unmarshal string into Go struct field Bundle.properties of type property.Property'],
    ['schema: olm.bundle\nname: b\nproperties: [{type: 1}]\n', 'parse bundle: json: cannot unmarshal number into Go struct field Property.properties.type of type string'],
    ['schema: olm.bundle\nname: b\nrelatedImages: [{image: true}]\n', 'parse bundle: json: cannot unmarshal bool into Go struct field RelatedImage.relatedImages.image of type string'],
    ['schema: olm.channel\nname: c\nentries: [{name: 1}]\n', 'parse channel: json: cannot unmarshal number into Go struct field ChannelEntry.entries.name of type string'],
    ['schema: olm.channel\nname: c\nentries: [{name: a, skips: a}]\n', 'parse channel: json: cannot unmarshal string into Go struct field ChannelEntry.entries.skips of type []string'],
    ['schema: olm.package\nname: p\ndescription: {}\n', 'parse package: json: cannot unmarshal object into Go struct field Package.description of type string'],
    ['schema: olm.package\nname: p\nicon: {base64data: "abc!"}\n', 'parse package: illegal base64 data at input byte 3'],
    ['schema: olm.package\nname: p\nicon: {base64data: "abcde"}\n', 'parse package: illegal base64 data at input byte 4'],
    ['schema: olm.deprecations\npackage: p\nentries: [{reference: x}]\n', 'parse deprecation: json: cannot unmarshal string into Go struct field DeprecationEntry.entries.reference of type declcfg.PackageScopedReference'],
    [
      'schema: olm.bundle\nname: b\npackage: p\nproperties: [{type: olm.bundle.object, value: {data: "!!"}}]\n',
      'read bundle objects: package "p", bundle "b": parse property at index 0 as bundle object: illegal base64 data at input byte 0',
    ],
    [
      'schema: olm.bundle\nname: b\npackage: p\nproperties: [{type: olm.bundle.object, value: {data: "' + Buffer.from('a: [').toString('base64') + '"}}]\n',
      'read bundle objects: package "p", bundle "b": convert bundle object property at index 0 to JSON: yaml: line 2: unexpected end of the stream within a flow collection',
    ],
  ])('%j', (text, detail) => {
    const e = loadError({ 'x.yaml': text });
    expect(e.detail).toBe(detail);
    expect(e.message.startsWith('x.yaml: document 1 (line 1), ')).toBe(true);
    // catalogd (non-strict) stores such blobs anyway.
    expect(catalogFromFiles({ 'x.yaml': text }, { strict: false }).metas).toHaveLength(1);
  });

  it('struct fields match case-insensitively; of `Name` and `name` the sorted-last wins', () => {
    const c = catalogFromFiles({ 'x.yaml': 'schema: olm.channel\nname: c\nENTRIES: [{Name: a, name: b, REPLACES: r}]\n' });
    expect(c.config.channels[0]?.entries).toEqual([{ name: 'b', replaces: 'r', skips: [], skipRange: '' }]);
  });
});

describe('loadCatalog on a directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fbc-load-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('parses every file, so a stray README breaks loading unless ignored', async () => {
    const root = join(dir, 'readme');
    await mkdir(join(root, 'pkg'), { recursive: true });
    await writeFile(join(root, 'pkg', 'catalog.yaml'), 'schema: olm.package\nname: pkg\n');
    await writeFile(join(root, 'README.md'), '# Catalog\n\nSee the docs.\n');
    await expect(loadCatalog(root)).rejects.toThrow(
      /^README\.md: document 1 \(line 1\): json: cannot unmarshal string into Go value of type map\[string\]interface \{\}$/,
    );
    await writeFile(join(root, '.indexignore'), '*.md\n');
    expect((await loadCatalog(root)).metas.map((m) => m.name)).toEqual(['pkg']);
  });

  it('reports a directory that does not exist', async () => {
    await expect(loadCatalog(join(dir, 'missing'))).rejects.toThrow(/ENOENT/);
  });
});

describe('the walk keeps nothing per file, with the same .indexignore semantics as reading every one first', () => {
  /** The former walk: every file and every `.indexignore` listed first, then the patterns applied in walk order. */
  async function reference(root: string): Promise<string[]> {
    const all: string[] = [];
    const ignores: { dir: string; abs: string }[] = [];
    const visit = async (abs: string, rel: string): Promise<void> => {
      const entries = (await readdir(abs, { withFileTypes: true })).sort((a, b) => compareGoStrings(a.name, b.name));
      for (const e of entries) {
        const r = rel === '' ? e.name : `${rel}/${e.name}`;
        if (e.isDirectory()) await visit(join(abs, e.name), r);
        else if (e.name === '.indexignore') ignores.push({ dir: rel, abs: join(abs, e.name) });
        else all.push(r);
      }
    };
    await visit(root, '');
    const m = new IgnoreMatcher();
    for (const f of ignores) m.addPatterns(parseIgnoreFile(f.dir, await readFile(f.abs, 'utf8')));
    return all.filter((f) => !m.match(f, false));
  }

  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fbc-walk-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lets the later .indexignore in walk order win: a directory sorting before it is walked first', async () => {
    const root = join(dir, 'order');
    for (const d of ['-a', 'b']) {
      await mkdir(join(root, d), { recursive: true });
      await writeFile(join(root, d, '.indexignore'), '!*.json\n');
      await writeFile(join(root, d, 'f.json'), '{}');
    }
    await writeFile(join(root, '.indexignore'), '*.json\n');
    await writeFile(join(root, 'top.json'), '{}');
    // '-a' is walked before the root's .indexignore is found, so the root's '*.json' is later and
    // wins there; 'b' is walked after it, so its own '!*.json' wins.
    expect(await listCatalogFiles(root)).toEqual(['b/f.json']);
    expect(await reference(root)).toEqual(['b/f.json']);
  });

  it('matches the former walk on trees whose directories sort before and after .indexignore', async () => {
    // Names around '.indexignore' in Go order: '-a' and '.a' before it, '.z' and 'a' after it.
    const dirNames = ['-a', '.a', '.z', 'a', 'b'];
    const patterns = ['*.md', '!keep.md', 'x*', '!x1.json', '-a/', 'a/**/deep.json', '/top.json', '*.json', '!*.json'];
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let t = 0; t < 25; t++) {
      const root = join(dir, `t${t}`);
      const make = async (abs: string, depth: number): Promise<void> => {
        await mkdir(abs, { recursive: true });
        for (const f of ['keep.md', 'x.md', 'x1.json', 'top.json', 'deep.json', 'c.yaml']) if (rand(2)) await writeFile(join(abs, f), '{}');
        if (rand(2)) {
          const lines = Array.from({ length: 1 + rand(3) }, () => patterns[rand(patterns.length)]!);
          await writeFile(join(abs, '.indexignore'), lines.join('\n') + '\n');
        }
        if (depth < 3) for (const d of dirNames) if (rand(3) === 0) await make(join(abs, d), depth + 1);
      };
      await make(root, 0);
      expect(await listCatalogFiles(root), `tree ${t}`).toEqual(await reference(root));
    }
  });
});
