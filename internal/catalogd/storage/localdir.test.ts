// LocalDirStore over real temp dirs: catalogd's bytes and index, atomic swaps, restart recovery,
// garbage collection and crash leftovers.
import { cp, mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FbcLoadError, encodeJsonl, loadCatalog } from '../../shared/fbc/index.ts';
import { CONTENT_FILE, LocalDirStore, indexFromCatalogdJSON } from './localdir.ts';
import { dns1123SubdomainErrors } from './names.ts';
import { writeSyntheticCatalog } from './testing.ts';

const MIXED = fileURLToPath(new URL('../../shared/fbc/testdata/mixed', import.meta.url));
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const D3 = `sha256:${'3'.repeat(64)}`;

let tmp: string;
let root: string;
let fbcA: string;
let fbcB: string;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'localdir-'));
  root = join(tmp, 'catalogs');
  fbcA = join(tmp, 'fbc-a');
  fbcB = join(tmp, 'fbc-b');
  await writeSyntheticCatalog(fbcA, { packages: 3, bundlesPerPackage: 4, prefix: 'a' });
  await writeSyntheticCatalog(fbcB, { packages: 2, bundlesPerPackage: 2, prefix: 'b' });
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const expectedBytes = async (dir: string): Promise<Buffer> => Buffer.concat(encodeJsonl(await loadCatalog(dir, { strict: false })).chunks);

describe('store', () => {
  it('writes catalogd catalog.jsonl and index.json at <root>/<catalog>/<alg>/<encoded>', async () => {
    const store = new LocalDirStore({ root });
    const stored = await store.store('operatorhub', D1, MIXED);
    const dir = join(root, 'operatorhub', 'sha256', '1'.repeat(64));
    expect(stored.jsonlPath).toBe(join(dir, 'catalog.jsonl'));
    const expected = encodeJsonl(await loadCatalog(MIXED, { strict: false }));
    const bytes = await readFile(stored.jsonlPath);
    expect(bytes.equals(Buffer.concat(expected.chunks))).toBe(true);
    expect(stored.size).toBe(expected.byteLength);
    expect(await readFile(join(dir, 'index.json'), 'utf8')).toBe(expected.index.toCatalogdJSON());
    expect(stored.index.query({ schema: 'olm.bundle', package: 'foo' })).toEqual(expected.index.query({ schema: 'olm.bundle', package: 'foo' }));
    expect(stored.etag).toBe(`"${D1}.v1"`);
    expect(store.get('operatorhub')).toBe(stored);
    expect(await store.contentExists('operatorhub')).toBe(true);
    expect(await store.contentExists('operatorhub', D1)).toBe(true);
    expect(await store.contentExists('operatorhub', D2)).toBe(false);
    expect(await store.contentExists('other')).toBe(false);
    expect((await readdir(root)).sort()).toEqual(['operatorhub']); // no temp dir left
  });

  it('stores a larger synthetic catalog byte for byte', async () => {
    const store = new LocalDirStore({ root });
    const stored = await store.store('synthetic', D1, fbcA);
    expect((await readFile(stored.jsonlPath)).equals(await expectedBytes(fbcA))).toBe(true);
    const sections = stored.index.query({ schema: 'olm.bundle', package: 'a-00001' });
    expect(sections.map((e) => e.name)).toEqual(['a-00001.v1.0.0', 'a-00001.v1.0.1', 'a-00001.v1.0.2', 'a-00001.v1.0.3']);
  });

  it('re-registers an entry already on disk without reading the FBC again', async () => {
    const first = new LocalDirStore({ root });
    const stored = await first.store('c', D1, fbcA);
    const mtime = (await stat(stored.jsonlPath)).mtimeMs;
    expect(await first.store('c', D1, join(tmp, 'missing'))).toBe(stored);

    const second = new LocalDirStore({ root });
    const again = await second.store('c', D1, join(tmp, 'missing'));
    expect(again).toMatchObject({ name: 'c', digest: D1, size: stored.size, etag: stored.etag, jsonlPath: stored.jsonlPath });
    expect(again.modified.getTime()).toBe(stored.modified.getTime());
    expect((await stat(again.jsonlPath)).mtimeMs).toBe(mtime);
  });

  it('swaps to a new digest and removes the old one, while an open reader keeps its bytes', async () => {
    const store = new LocalDirStore({ root });
    const old = await store.store('c', D1, fbcA);
    const expectedOld = await readFile(old.jsonlPath);
    const reader = await open(old.jsonlPath, 'r');
    try {
      const next = await store.store('c', D2, fbcB);
      expect(store.get('c')).toBe(next);
      expect((await readFile(next.jsonlPath)).equals(await expectedBytes(fbcB))).toBe(true);
      expect(await readdir(join(root, 'c', 'sha256'))).toEqual(['2'.repeat(64)]);
      const buf = Buffer.alloc(old.size);
      const { bytesRead } = await reader.read(buf, 0, old.size, 0);
      expect(bytesRead).toBe(old.size);
      expect(buf.equals(expectedOld)).toBe(true);
    } finally {
      await reader.close();
    }
  });

  it('leaves the previous content served when a load fails, naming the file and blob', async () => {
    const store = new LocalDirStore({ root });
    const good = await store.store('c', D1, fbcA);
    const bad = join(tmp, 'bad');
    await mkdir(join(bad, 'pkg'), { recursive: true });
    await writeFile(join(bad, 'pkg', 'catalog.yaml'), 'schema: olm.package\nname: pkg\n---\nschema: olm.channel\n  bad: indent\n');
    const err = await store.store('c', D2, bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FbcLoadError);
    expect((err as FbcLoadError).message).toMatch(/^pkg\/catalog\.yaml: document 2 \(line 4\): error converting YAML to JSON: yaml: line 5: /);
    expect(store.get('c')).toBe(good);
    expect((await readFile(good.jsonlPath)).equals(await expectedBytes(fbcA))).toBe(true);
    expect((await readdir(root)).sort()).toEqual(['c']);
    expect(await readdir(join(root, 'c', 'sha256'))).toEqual(['1'.repeat(64)]);
  });

  it('stops when aborted and keeps the previous content', async () => {
    const store = new LocalDirStore({ root });
    const good = await store.store('c', D1, fbcA);
    const abort = new AbortController();
    abort.abort(new Error('stop now'));
    await expect(store.store('c', D2, fbcB, abort.signal)).rejects.toThrow('stop now');
    expect(store.get('c')).toBe(good);
    expect(await readdir(root)).toEqual(['c']);
  });

  it('runs stores of one catalog one at a time; the last one wins', async () => {
    const store = new LocalDirStore({ root });
    const [, , last] = await Promise.all([store.store('c', D1, fbcA), store.store('c', D2, fbcB), store.store('c', D3, fbcA)]);
    expect(store.get('c')).toBe(last);
    expect(last.digest).toBe(D3);
    expect(await readdir(join(root, 'c', 'sha256'))).toEqual(['3'.repeat(64)]);
  });

  it('rejects names and digests that are not path-safe', async () => {
    const store = new LocalDirStore({ root });
    await expect(store.store('../x', D1, fbcA)).rejects.toThrow('invalid catalog name "../x"');
    await expect(store.store('c', 'sha256:../../x', fbcA)).rejects.toThrow('invalid digest "sha256:../../x"');
    await expect(store.store('c', 'latest', fbcA)).rejects.toThrow('invalid digest "latest"');
  });
});

describe('restart, deletion and garbage collection', () => {
  it('load() serves what is on disk, with the index rebuilt from index.json', async () => {
    const first = new LocalDirStore({ root });
    const a = await first.store('a', D1, fbcA);
    await first.store('b', D2, fbcB);

    const second = new LocalDirStore({ root });
    expect(second.get('a')).toBeUndefined();
    const found = await second.load();
    expect(found.map((s) => s.name).sort()).toEqual(['a', 'b']);
    const again = second.get('a');
    expect(again).toMatchObject({ digest: D1, size: a.size, etag: a.etag, jsonlPath: a.jsonlPath });
    expect(again?.modified.getTime()).toBe(a.modified.getTime());
    for (const q of [{ schema: 'olm.bundle' }, { package: 'a-00002' }, { schema: 'olm.channel', name: 'stable' }, { name: 'a-00000.v1.0.1' }]) {
      const strip = (es: readonly { offset: number; length: number; schema: string; package: string; name: string }[]): unknown =>
        es.map(({ offset, length, schema, package: p, name }) => ({ offset, length, schema, package: p, name }));
      expect(strip(again?.index.query(q) ?? [])).toEqual(strip(a.index.query(q)));
    }
    expect(await second.contentExists('b', D2)).toBe(true);
  });

  it('after a crash between rename and cleanup, load() keeps the newest entry', async () => {
    const store = new LocalDirStore({ root });
    const older = await store.store('c', D1, fbcA);
    // Simulate a second, newer entry whose predecessor was never removed.
    const newerDir = join(root, 'c', 'sha256', '2'.repeat(64));
    await cp(join(root, 'c', 'sha256', '1'.repeat(64)), newerDir, { recursive: true });
    const record = { catalog: 'c', digest: D2, encoding: 1, stored: new Date(older.modified.getTime() + 5000).toISOString() };
    await writeFile(join(newerDir, CONTENT_FILE), JSON.stringify(record));

    const restarted = new LocalDirStore({ root });
    await restarted.load();
    expect(restarted.get('c')?.digest).toBe(D2);
    expect(await readdir(join(root, 'c', 'sha256'))).toEqual(['2'.repeat(64)]);
  });

  it('an entry of another encoding version is not reused', async () => {
    const store = new LocalDirStore({ root });
    const stored = await store.store('c', D1, fbcA);
    const contentFile = join(root, 'c', 'sha256', '1'.repeat(64), CONTENT_FILE);
    const record = JSON.parse(await readFile(contentFile, 'utf8')) as Record<string, unknown>;
    await writeFile(contentFile, JSON.stringify({ ...record, encoding: 0 }));
    const restarted = new LocalDirStore({ root });
    expect(await restarted.load()).toEqual([]);
    expect(await restarted.contentExists('c')).toBe(false);
    const again = await restarted.store('c', D1, fbcA);
    expect((await readFile(again.jsonlPath)).equals(await readFile(stored.jsonlPath))).toBe(true);
  });

  it('removes stray temp dirs left by a crash, at load and at garbage collection', async () => {
    await mkdir(join(root, '.c-deadbeef'), { recursive: true });
    await writeFile(join(root, '.c-deadbeef', 'catalog.jsonl'), '{"half":');
    const store = new LocalDirStore({ root });
    await store.store('c', D1, fbcA);
    expect(await readdir(root)).toEqual(['c']);

    await mkdir(join(root, '.c-0badf00d'));
    expect(await store.garbageCollect(new Set(['c']))).toEqual(['.c-0badf00d']);
    expect(await readdir(root)).toEqual(['c']);
  });

  it('garbageCollect removes every catalog not kept', async () => {
    const store = new LocalDirStore({ root });
    await store.store('a', D1, fbcA);
    await store.store('b', D2, fbcB);
    await store.store('c', D3, fbcB);
    expect((await store.garbageCollect(new Set(['b']))).sort()).toEqual(['a', 'c']);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('c')).toBeUndefined();
    expect(store.get('b')?.digest).toBe(D2);
    expect(await readdir(root)).toEqual(['b']);
  });

  it('delete removes the catalog from memory and disk', async () => {
    const store = new LocalDirStore({ root });
    await store.store('a', D1, fbcA);
    await store.delete('a');
    expect(store.get('a')).toBeUndefined();
    expect(await store.contentExists('a')).toBe(false);
    expect(await readdir(root)).toEqual([]);
    await store.delete('a'); // idempotent
  });
});

describe('index.json and names', () => {
  it('indexFromCatalogdJSON rebuilds the entries and rejects sections outside the file', async () => {
    const encoded = encodeJsonl(await loadCatalog(MIXED, { strict: false }));
    const rebuilt = await indexFromCatalogdJSON(encoded.index.toCatalogdJSON(), encoded.byteLength);
    const indexed = encoded.index.entries.filter((e) => e.schema !== '' || e.package !== '' || e.name !== '');
    expect(rebuilt.entries.map(({ offset, length, schema, package: p, name }) => [offset, length, schema, p, name])).toEqual(
      indexed.map(({ offset, length, schema, package: p, name }) => [offset, length, schema, p, name]),
    );
    await expect(indexFromCatalogdJSON('{"by_schema":{"x":[[0,10]]}}', 5)).rejects.toThrow('index section [0,10] is outside catalog.jsonl (5 bytes)');
  });

  it('reports k8s IsDNS1123Subdomain messages', () => {
    expect(dns1123SubdomainErrors('operatorhubio')).toEqual([]);
    expect(dns1123SubdomainErrors('a.b-c.d')).toEqual([]);
    const format =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    expect(dns1123SubdomainErrors('Bad_Name')).toEqual([format]);
    expect(dns1123SubdomainErrors('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
    expect(dns1123SubdomainErrors('-'.repeat(254))).toEqual(['must be no more than 253 characters', format]);
  });
});
