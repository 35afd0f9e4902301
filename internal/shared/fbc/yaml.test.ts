// File decoding and canonical encoding as opm/catalogd do it (fbc.md §1.1, §1.3): go-yaml v2
// scalars, apimachinery document splitting and JSON/YAML sniffing, encoding/json output.

import { describe, expect, it } from 'vitest';
import { canonicalJSON } from './canonical.ts';
import { catalogFromFiles } from './load.ts';
import { FbcLoadError } from './messages.ts';
import { decodeDocumentBytes, decodeDocuments } from './yaml.ts';

const values = (text: string): unknown[] => [...decodeDocuments(text)].map((d) => d.value);
const one = (yamlValue: string): unknown => (values(`v: ${yamlValue}\n`)[0] as { v: unknown }).v;
/** The stored line (without newline) for a single-document file. */
const line = (text: string, file = 'c.yaml'): string => {
  const c = catalogFromFiles({ [file]: text }, { strict: false });
  return (c.metas[0]?.json.toString('utf8') ?? '').replace(/\n$/, '');
};

describe('go-yaml v2 scalar resolution', () => {
  it.each<[string, unknown]>([
    ['yes', true],
    ['On', true],
    ['Y', true],
    ['no', false],
    ['off', false],
    ['n', false],
    ['~', null],
    ['null', null],
    ['', null],
    ['1.0', 1],
    ['3.10', 3.1],
    ['0777', 511],
    ['0x1F', 31],
    ['0o17', 15],
    ['0b101', 5],
    ['1_000', 1000],
    ['1e3', 1000],
    ['+12', 12],
    ['-0x1F', -31],
    ['.5', 0.5],
    ['08', 8], // not octal, so it is read as a float
    ['12345678901234567890', Number('12345678901234567890')],
    ['1e400', '1e400'], // ParseFloat overflow: kept as text
    ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'],
    ['2025-06-24T14:07:09', '2025-06-24T14:07:09'],
    ['2024-01-01', '2024-01-01'],
    ['!!str 123', '123'],
    ['!!binary aGVsbG8=', 'hello'],
    ['"yes"', 'yes'],
    ['v1.0', 'v1.0'],
    ['1.2.3', '1.2.3'],
  ])('%s', (input, want) => {
    expect(one(input)).toEqual(want);
  });

  it('turns scalar map keys into strings and resolves merges, anchors and duplicate keys', () => {
    expect(values('y: 1\n1: 2\n')[0]).toEqual({ true: 1, 1: 2 });
    expect(values('base: &b {a: 1, b: 2}\nderived:\n  <<: *b\n  b: 3\n')[0]).toEqual({ base: { a: 1, b: 2 }, derived: { a: 1, b: 3 } });
    expect(values('a: 1\na: 2\n')[0]).toEqual({ a: 2 });
  });

  it('.inf and .nan cannot become JSON', () => {
    expect(() => catalogFromFiles({ 'c.yaml': 'schema: x\nv: .inf\n' })).toThrow(
      'c.yaml: document 1 (line 1), x: error converting YAML to JSON: json: unsupported value: +Inf',
    );
    expect(() => catalogFromFiles({ 'c.yaml': 'schema: x\nv: -.inf\n' })).toThrow('json: unsupported value: -Inf');
    expect(() => catalogFromFiles({ 'c.yaml': 'schema: x\nv: .nan\n' })).toThrow('json: unsupported value: NaN');
  });
});

it('refuses documents that expand through aliases into huge trees (billion laughs)', () => {
  const lines = ['schema: x', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill('*' + String.fromCharCode(96 + i)).join(',')}]`);
  expect(() => catalogFromFiles({ 'lol.yaml': lines.join('\n') + '\n' })).toThrow(
    'lol.yaml: document 1 (line 1), x: error converting YAML to JSON: yaml: document contains excessive aliasing',
  );
});

describe('documents', () => {
  it('splits on lines starting with ---, allowing only spaces or a comment after it', () => {
    expect(values('---\na: 1\n--- # two\nb: 2\n---\n')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(() => values('a: 1\n---x\nb: 2\n')).toThrow('invalid Yaml document separator: x');
    expect(() => values('a: 1\n--- {b: 2}\n')).toThrow('invalid Yaml document separator: {b: 2}');
    // Indented --- is content, not a separator.
    expect(values('a: |\n  x\n  ---\n  y\n')).toEqual([{ a: 'x\n---\ny\n' }]);
  });

  it('comment-only, blank and null documents carry no node', () => {
    const docs = [...decodeDocuments('# header\n---\na: 1\n---\n# just a comment\n---\n\n\n---\nnull\n---\nb: 2\n---\n\n')];
    expect(docs.map((d) => d.value)).toEqual([undefined, { a: 1 }, undefined, undefined, undefined, { b: 2 }, undefined]);
    expect(docs.map((d) => d.line)).toEqual([1, 3, 5, 7, 10, 12, 14]);
  });

  it('handles CRLF and a byte-order mark', () => {
    expect(values('\ufeffa: 1\r\n---\r\nb: "x"\r\n')).toEqual([{ a: 1 }, { b: 'x' }]);
  });

  it('reads a stream of JSON values when the file starts with {', () => {
    expect(values('  {"a": 1}\n{"b": [1, {"c": "}"}]}{"d":"\\""}')).toEqual([{ a: 1 }, { b: [1, { c: '}' }] }, { d: '"' }]);
  });

  it('falls back to YAML after at most one JSON value, and mixes freely', () => {
    expect(values('{"a": 1}\n---\nb: 2\n---\nc: [3]\n')).toEqual([{ a: 1 }, undefined, { b: 2 }, { c: [3] }]);
    expect(values('{a: 1, b: yes}\n')).toEqual([{ a: 1, b: true }]);
    expect(() => values('{"a": 1}\n{"b": 2}\n{"c": \n')).toThrow(/^json: /);
  });

  it('decodes a file from its bytes, one document at a time, exactly as from its text', () => {
    const texts = [
      '# header\n---\na: 1\n---\n# just a comment\n---\n\n\n---\nnull\n---\nb: 2\n---\n\n',
      'a: "h\u00e9llo \u2603"\n---\nb: [\u00fc, 2]\r\n--- # c\r\nc: \ud83d\ude00\n',
      '\ufeffa: 1\r\n---\r\nb: "x"\r\n',
      '  {"a": "\u00e9"}\n{"b": [1, {"c": "}"}]}',
      '{"a": 1}\n---\nb: 2\n',
      'a: |\n  x\n  ---\n  y\n---',
      '',
    ];
    for (const text of texts) {
      expect([...decodeDocumentBytes(Buffer.from(text, 'utf8'))]).toEqual([...decodeDocuments(text)]);
    }
    const failure = (f: () => unknown): unknown => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    for (const text of ['a: 1\n---x\nb: 2\n', 'a: 1\n---\nb: \u00e9\n  c: [\n']) {
      const fromBytes = failure(() => [...decodeDocumentBytes(Buffer.from(text, 'utf8'))]);
      expect(fromBytes).toBeInstanceOf(Error);
      expect(fromBytes).toEqual(failure(() => [...decodeDocuments(text)]));
    }
  });

  it('reports YAML syntax errors with the line in the file', () => {
    let err: unknown;
    try {
      catalogFromFiles({ 'pkg/catalog.yaml': 'schema: olm.package\nname: a\n---\nschema: olm.channel\n  bad: indent\n' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FbcLoadError);
    const e = err as FbcLoadError;
    expect(e.code).toBe('FBC_YAML_SYNTAX');
    expect(e.file).toBe('pkg/catalog.yaml');
    expect(e.ref).toMatchObject({ document: 2, line: 4 });
    expect(e.message).toMatch(/^pkg\/catalog\.yaml: document 2 \(line 4\): error converting YAML to JSON: yaml: line 5: /);
  });
});

describe('canonical JSON (Meta.Blob)', () => {
  it('sorts keys at every level and stays compact', () => {
    expect(canonicalJSON({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
    expect(canonicalJSON({ '10': 1, '9': 2, a: 3 })).toBe('{"10":1,"9":2,"a":3}');
  });

  it('does not escape HTML but escapes U+2028/U+2029 and control characters', () => {
    expect(canonicalJSON({ s: '<a href="x">&amp;</a>' })).toBe('{"s":"<a href=\\"x\\">&amp;</a>"}');
    expect(canonicalJSON({ s: 'a\u2028b\u2029c' })).toBe('{"s":"a\\u2028b\\u2029c"}');
    expect(canonicalJSON({ s: '\u0001\b\f\n\r\t\u007f' })).toBe('{"s":"\\u0001\\b\\f\\n\\r\\t\u007f"}');
  });

  it('prints numbers like Go float64', () => {
    expect(canonicalJSON([1, 1.5, 0.0000001, 1e21, 1e20, -0, Number('12345678901234567890')])).toBe('[1,1.5,1e-7,1e+21,100000000000000000000,-0,12345678901234567000]');
  });

  it('orders keys by UTF-8 bytes, like Go', () => {
    // U+FF21 (fullwidth A) sorts before U+1F600 in UTF-8 but after it in UTF-16.
    expect(canonicalJSON({ '\u{1F600}': 1, '\uFF21': 2 })).toBe('{"\uFF21":2,"\u{1F600}":1}');
  });

  it('the stored line for YAML input', () => {
    expect(line('schema: olm.package\nname: foo\ndescription: "a <b> & c"\ncreatedAt: 2025-06-24T14:07:09\n')).toBe(
      '{"createdAt":"2025-06-24T14:07:09","description":"a <b> & c","name":"foo","schema":"olm.package"}',
    );
  });
});
