import { executeSync, getIntrospectionQuery, parse, printSchema, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ShapeBuilder } from './discover.ts';
import { SchemaBuildError, buildSchema, goMarshal, type BlobReader } from './schema.ts';

type Blob = Record<string, unknown>;

const pkg = (name: string): Blob => ({ schema: 'olm.package', name, defaultChannel: 'stable', icon: { base64data: 'PHN2Zz4=', mediatype: 'image/svg+xml' } });
const bundle = (p: string, v: string): Blob => ({
  schema: 'olm.bundle',
  name: `${p}.v${v}`,
  package: p,
  image: `quay.io/x/${p}@sha256:0`,
  properties: [
    { type: 'olm.package', value: { packageName: p, version: v } },
    { type: 'olm.gvk', value: { group: 'x.io', kind: 'W<&>', version: 'v1' } },
  ],
  relatedImages: [{ name: '', image: `quay.io/x/${p}@sha256:0` }],
});
const channel = (p: string, names: string[]): Blob => ({
  schema: 'olm.channel',
  package: p,
  name: 'stable',
  entries: names.map((n, i) => (i === 0 ? { name: n } : { name: n, replaces: names[i - 1], skips: ['a', 'b'] })),
});

/** A catalog in memory: the blobs in order, read as the service reads them from disk. */
function catalog(blobs: Blob[]): { run: (q: string) => ExecutionResult; reads: [string, number, number][] } {
  const b = new ShapeBuilder();
  for (const blob of blobs) b.add(String(blob.schema ?? ''), blob);
  const schema = buildSchema(b.result());
  const reads: [string, number, number][] = [];
  const reader: BlobReader = {
    read(s, offset, limit) {
      reads.push([s, offset, limit]);
      return blobs.filter((x) => x.schema === s).slice(offset, offset + limit).map((x) => structuredClone(x));
    },
  };
  return { run: (q) => executeSync({ schema, document: parse(q), contextValue: reader }), reads };
}

const bundles = Array.from({ length: 150 }, (_, i) => bundle(`p${Math.floor(i / 10)}`, `1.0.${i % 10}`));
const blobs: Blob[] = [pkg('a'), pkg('b'), channel('a', ['a.v1', 'a.v2']), ...bundles];

describe('buildSchema: upstream’s query surface', () => {
  it('one list field per schema plus summary, with limit/offset arguments', () => {
    const sdl = printSchema(buildSchema(new ShapeBuilder().result()));
    expect(sdl).toContain('type Query {\n  summary: CatalogSummary\n}');
    const { run } = catalog(blobs);
    const fields = run('{ __type(name: "Query") { fields { name args { name defaultValue type { name } } } } }').data as {
      __type: { fields: { name: string; args: { name: string; defaultValue: string | null }[] }[] };
    };
    expect(fields.__type.fields.map((f) => f.name)).toEqual(['olmbundles', 'olmchannels', 'olmpackages', 'summary']);
    expect(fields.__type.fields[0]?.args).toEqual([
      { name: 'limit', defaultValue: '100', type: { name: 'Int' } },
      { name: 'offset', defaultValue: '0', type: { name: 'Int' } },
    ]);
  });

  it('selects fields, nested objects, and answers objects in String fields as Go JSON text', () => {
    const { run } = catalog(blobs);
    const r = run('{ olmpackages { name icon } olmbundles(limit: 1) { name properties { type value } relatedImages { image } } }');
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({
      olmpackages: [
        { name: 'a', icon: '{"base64data":"PHN2Zz4=","mediatype":"image/svg+xml"}' },
        { name: 'b', icon: '{"base64data":"PHN2Zz4=","mediatype":"image/svg+xml"}' },
      ],
      olmbundles: [
        {
          name: 'p0.v1.0.0',
          properties: [
            { type: 'olm.package', value: '{"packageName":"p0","version":"1.0.0"}' },
            { type: 'olm.gvk', value: '{"group":"x.io","kind":"W\\u003c\\u0026\\u003e","version":"v1"}' },
          ],
          relatedImages: [{ image: 'quay.io/x/p0@sha256:0' }],
        },
      ],
    });
  });

  it('lists of scalars inside nested objects are lists (upstream answers an error there)', () => {
    const { run } = catalog(blobs);
    expect(run('{ olmchannels { entries { name replaces skips } } }').data).toEqual({
      olmchannels: [{ entries: [{ name: 'a.v1', replaces: null, skips: null }, { name: 'a.v2', replaces: 'a.v1', skips: ['a', 'b'] }] }],
    });
  });

  it('pagination: limit 1…100 (else 100), offset ≥ 0 (else 0), in catalog order', () => {
    const { run, reads } = catalog(blobs);
    const names = (q: string): string[] => ((run(q).data as { olmbundles: { name: string }[] }).olmbundles ?? []).map((b) => b.name);
    expect(names('{ olmbundles { name } }')).toHaveLength(100);
    expect(names('{ olmbundles(limit: 3, offset: 10) { name } }')).toEqual(['p1.v1.0.0', 'p1.v1.0.1', 'p1.v1.0.2']);
    expect(names('{ olmbundles(limit: 500, offset: 100) { name } }')).toHaveLength(50);
    expect(names('{ olmbundles(limit: 0) { name } }')).toHaveLength(100);
    expect(names('{ olmbundles(limit: -5, offset: -7) { name } }')[0]).toBe('p0.v1.0.0');
    expect(names('{ olmbundles(limit: null, offset: null) { name } }')).toHaveLength(100);
    expect(names('{ olmbundles(offset: 1000) { name } }')).toEqual([]);
    expect(reads).toEqual([
      ['olm.bundle', 0, 100],
      ['olm.bundle', 10, 3],
      ['olm.bundle', 100, 100],
      ['olm.bundle', 0, 100],
      ['olm.bundle', 0, 100],
      ['olm.bundle', 0, 100],
      ['olm.bundle', 1000, 100],
    ]);
  });

  it('summary: schemas with their blob and field counts, in name order', () => {
    const { run, reads } = catalog(blobs);
    expect(run('{ summary { totalSchemas schemas { name totalObjects totalFields } } }').data).toEqual({
      summary: {
        totalSchemas: 3,
        schemas: [
          { name: 'olm.bundle', totalObjects: 150, totalFields: 6 },
          { name: 'olm.channel', totalObjects: 1, totalFields: 4 },
          { name: 'olm.package', totalObjects: 2, totalFields: 4 },
        ],
      },
    });
    expect(reads).toEqual([]); // nothing read
  });

  it('introspection works (the standard query)', () => {
    const r = catalog(blobs).run(getIntrospectionQuery());
    expect(r.errors).toBeUndefined();
    const types = (r.data as { __schema: { types: { name: string }[] } }).__schema.types.map((t) => t.name);
    expect(types).toEqual(expect.arrayContaining(['OlmBundle', 'OlmBundleProperties', 'OlmBundleRelatedimages', 'OlmChannelEntries', 'OlmPackage', 'CatalogSummary', 'SchemaSummary']));
  });

  it('fields missing from a blob are null; keys that share a field name are all found', () => {
    const { run } = catalog([
      { schema: 'x.y', 'foo-bar': 'dash' },
      { schema: 'x.y', foo_bar: 'underscore' },
      { schema: 'x.y', other: 1 },
    ]);
    expect(run('{ xys { fooBar other } }').data).toEqual({
      xys: [
        { fooBar: 'dash', other: null },
        { fooBar: 'underscore', other: null },
        { fooBar: null, other: 1 },
      ],
    });
  });

  it('a value that does not fit its field type is a field error, the rest is answered', () => {
    const { run } = catalog([
      { schema: 's', n: 1 },
      { schema: 's', n: 'text' },
    ]);
    const r = run('{ ss { n } }');
    expect(r.data).toEqual({ ss: [{ n: 1 }, { n: null }] });
    expect(r.errors?.map((e) => [e.message, e.path])).toEqual([['Int cannot represent non-integer value: "text"', ['ss', 1, 'n']]]);
  });

  it('schemas that meet in one name cannot be built (upstream’s messages)', () => {
    const build = (...schemas: string[]): (() => unknown) => {
      const b = new ShapeBuilder();
      for (const s of schemas) b.add(s, { schema: s });
      return () => buildSchema(b.result());
    };
    expect(build('olm.bundle', 'olm-bundle')).toThrow(new SchemaBuildError('type name collision: schemas "olm-bundle" and "olm.bundle" both sanitize to GraphQL type "OlmBundle"'));
    expect(build('ab', 'a.b')).toThrow('query field collision: schemas "a.b" and "ab" both map to field "abs"'); // types AB and Ab
    expect(build('Ab', 'ab')).toThrow('type name collision'); // Ab and ab are both "Ab"
    expect(build('query')).toThrow(/^failed to create GraphQL schema: Schema must contain uniquely named types but contains multiple types named "Query"\.$/);
    expect(build('1.x')).toThrow(/^failed to create GraphQL schema: Names must start with \[_a-zA-Z\] but "1xs" does not\./);
  });
});

describe('goMarshal', () => {
  it('is Go json.Marshal: sorted keys (integer-like ones too), <>& escaped', () => {
    expect(goMarshal({ b: 1, a: [true, null, 'x<y>&z'], '10': 0, '2': 0 })).toBe('{"10":0,"2":0,"a":[true,null,"x\\u003cy\\u003e\\u0026z"],"b":1}');
    expect(goMarshal('\u2028')).toBe('"\\u2028"');
  });
});
