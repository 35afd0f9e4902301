import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/observability/index.ts';
import { LocalDirStore } from '../storage/index.ts';
import { writeSyntheticCatalog } from '../storage/testing.ts';
import { createCatalogQueries, withGraphQLSchemas, type CatalogQueries } from './service.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

let tmp: string;
let fbc1: string;
let fbc2: string;
let bad: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'graphql-service-'));
  fbc1 = join(tmp, 'fbc1');
  fbc2 = join(tmp, 'fbc2');
  bad = join(tmp, 'bad');
  await writeSyntheticCatalog(fbc1, { packages: 2, bundlesPerPackage: 3, prefix: 'one' });
  await writeSyntheticCatalog(fbc2, { packages: 3, bundlesPerPackage: 1, prefix: 'two' });
  await mkdir(bad, { recursive: true });
  await writeFile(join(bad, 'c.json'), '{"schema":"olm.bundle","name":"a"}\n{"schema":"olm-bundle","name":"b"}\n');
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A store and queries over it, counting schema builds from the log. */
function setup(): { store: LocalDirStore; queries: CatalogQueries; builds: () => number } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  const store = new LocalDirStore({ root: join(tmp, `catalogs-${Math.random().toString(36).slice(2)}`) });
  const queries = createCatalogQueries({ store, logger });
  return { store, queries, builds: () => lines.filter((l) => l.msg === 'built GraphQL schema').length };
}

describe('execute: upstream’s result JSON', () => {
  it('data with its keys sorted at every level (graphql-go maps), no errors key', async () => {
    const { store, queries } = setup();
    await store.store('c', D1, fbc1);
    const json = await queries.execute('c', '{ olmpackages(limit: 1) { name defaultChannel } summary { totalSchemas } }');
    expect(json).toBe('{"data":{"olmpackages":[{"defaultChannel":"stable","name":"one-00000"}],"summary":{"totalSchemas":3}}}');
    expect(JSON.parse(await queries.execute('c', '{ a: olmbundles(limit: 2, offset: 1) { name } }'))).toEqual({
      data: { a: [{ name: 'one-00000.v1.0.1' }, { name: 'one-00000.v1.0.2' }] },
    });
  });

  it('a query that does not parse or breaks a bound: data null, one error without locations — before the catalog is looked at', async () => {
    const { queries } = setup();
    expect(await queries.execute('no-such-catalog', '{ olmbundles { ')).toBe(
      '{"data":null,"errors":[{"message":"query parse error: Syntax Error: Expected Name, found \\u003cEOF\\u003e.","locations":[]}]}',
    );
    const deep = '{ ' + 'a { '.repeat(10) + 'b' + ' }'.repeat(10) + ' }';
    expect(await queries.execute('no-such-catalog', deep)).toBe('{"data":null,"errors":[{"message":"query exceeds maximum depth of 10","locations":[]}]}');
  });

  it('a catalog without content rejects with ENOENT', async () => {
    const { queries } = setup();
    await expect(queries.execute('no-such-catalog', '{ summary { totalSchemas } }')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a query the schema rejects: data null, errors with locations', async () => {
    const { store, queries } = setup();
    await store.store('c', D1, fbc1);
    expect(await queries.execute('c', '{ olmbundles { nme } }')).toBe(
      '{"data":null,"errors":[{"message":"Cannot query field \\"nme\\" on type \\"OlmBundle\\". Did you mean \\"name\\"?","locations":[{"line":1,"column":16}]}]}',
    );
    expect(JSON.parse(await queries.execute('c', 'query A { summary { totalSchemas } } query B { summary { totalSchemas } }'))).toEqual({
      data: null,
      errors: [{ message: 'Must provide operation name if query contains multiple operations.', locations: [] }],
    });
  });

  it('a field error keeps the data and adds the error with its path', async () => {
    const { store, queries } = setup();
    const dir = join(tmp, 'mixed');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'c.json'), '{"schema":"s","n":1}\n{"schema":"s","n":"x"}\n');
    await store.store('m', D1, dir);
    expect(await queries.execute('m', '{ ss { n } }')).toBe(
      '{"data":{"ss":[{"n":1},{"n":null}]},"errors":[{"message":"Int cannot represent non-integer value: \\"x\\"","locations":[{"line":1,"column":8}],"path":["ss",1,"n"]}]}',
    );
  });
});

describe('schemas kept per digest', () => {
  it('built once per content (concurrent queries share the build), rebuilt only when the digest changes', async () => {
    const { store, queries, builds } = setup();
    await store.store('c', D1, fbc1);
    const q = '{ olmpackages { name } }';
    const answers = await Promise.all(Array.from({ length: 5 }, () => queries.execute('c', q)));
    expect(new Set(answers).size).toBe(1);
    expect(builds()).toBe(1);
    await store.store('c', D1, fbc1); // same content again: nothing to rebuild
    await queries.execute('c', q);
    expect(builds()).toBe(1);
    await store.store('c', D2, fbc2);
    expect(JSON.parse(await queries.execute('c', q))).toEqual({ data: { olmpackages: [{ name: 'two-00000' }, { name: 'two-00001' }, { name: 'two-00002' }] } });
    expect(builds()).toBe(2);
    expect(queries.catalogs()).toEqual(['c']);
  });

  it('content replaced while its schema is being built: the query answers from the new content', async () => {
    const { store, queries } = setup();
    await store.store('c', D1, fbc1);
    const pending = queries.execute('c', '{ summary { schemas { name totalObjects } } }');
    await store.store('c', D2, fbc2); // removes D1's files
    const answer = JSON.parse(await pending) as { data: { summary: { schemas: { name: string; totalObjects: number }[] } } };
    expect(answer.data.summary.schemas.find((s) => s.name === 'olm.bundle')?.totalObjects).toBeGreaterThan(0);
  });

  it('a catalog that went is forgotten at its next query', async () => {
    const { store, queries } = setup();
    await store.store('c', D1, fbc1);
    await queries.execute('c', '{ summary { totalSchemas } }');
    await store.delete('c');
    await expect(queries.execute('c', '{ summary { totalSchemas } }')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(queries.catalogs()).toEqual([]);
  });
});

describe('withGraphQLSchemas: the schema follows the store', () => {
  it('built when stored, dropped on delete and garbage collection', async () => {
    const { store, queries, builds } = setup();
    const wrapped = withGraphQLSchemas(store, queries);
    await wrapped.store('a', D1, fbc1);
    await wrapped.store('b', D1, fbc2);
    expect(builds()).toBe(2);
    expect(queries.catalogs().sort()).toEqual(['a', 'b']);
    expect(wrapped.get('a')).toBe(store.get('a'));
    expect(await wrapped.contentExists('a', D1)).toBe(true);
    await wrapped.delete('a');
    expect(queries.catalogs()).toEqual(['b']);
    expect(await wrapped.garbageCollect(new Set())).toEqual(['b']);
    expect(queries.catalogs()).toEqual([]);
  });

  it('a schema that cannot be built fails the store and removes the content, as upstream', async () => {
    const { store, queries } = setup();
    const wrapped = withGraphQLSchemas(store, queries);
    await expect(wrapped.store('bad', D1, bad)).rejects.toThrow(
      'failed to pre-build GraphQL schema for catalog "bad": error building GraphQL schema: type name collision: schemas "olm-bundle" and "olm.bundle" both sanitize to GraphQL type "OlmBundle"',
    );
    expect(store.get('bad')).toBeUndefined();
    expect(await store.contentExists('bad')).toBe(false);
    expect(queries.catalogs()).toEqual([]);
  });
});
