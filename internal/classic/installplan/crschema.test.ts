// The API server's messages for a CR that fails its CRD's schema (the check of existing CRs before a CRD update).
// test/integration/classic/installplan.test.ts compares the same cases with the real API server's answers.
import { describe, expect, it } from 'vitest';
import { goFloat, validateCustomResource, type JsonSchemaProps } from './crschema.ts';

const spec = (properties: Record<string, JsonSchemaProps>, extra: JsonSchemaProps = {}): JsonSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } },
});
const check = (schema: JsonSchemaProps, value: Record<string, unknown>): string[] => validateCustomResource(schema, { spec: value });

describe('validateCustomResource', () => {
  it('bounds, lengths, patterns, counts', () => {
    expect(check(spec({ n: { type: 'integer', minimum: 3 } }), { n: 2 })).toEqual(['spec.n: Invalid value: 2: spec.n in body should be greater than or equal to 3']);
    expect(check(spec({ n: { type: 'integer', maximum: 9, exclusiveMaximum: true } }), { n: 9 })).toEqual(['spec.n: Invalid value: 9: spec.n in body should be less than 9']);
    expect(check(spec({ n: { type: 'number', minimum: 0.5 } }), { n: 0.25 })).toEqual(['spec.n: Invalid value: 0.25: spec.n in body should be greater than or equal to 0.5']);
    expect(check(spec({ n: { type: 'integer', multipleOf: 5 } }), { n: 7 })).toEqual(['spec.n: Invalid value: 7: spec.n in body should be a multiple of 5']);
    expect(check(spec({ s: { type: 'string', minLength: 1 } }), { s: '' })).toEqual(['spec.s: Invalid value: "": spec.s in body should be at least 1 chars long']);
    expect(check(spec({ s: { type: 'string', maxLength: 3 } }), { s: 'abcd' })).toEqual(['spec.s: Too long: may not be more than 3 bytes']);
    expect(check(spec({ s: { type: 'string', pattern: '^[a-z]+$' } }), { s: 'A1' })).toEqual(["spec.s: Invalid value: \"A1\": spec.s in body should match '^[a-z]+$'"]);
    expect(check(spec({ l: { type: 'array', items: { type: 'string' }, maxItems: 1 } }), { l: ['a', 'b'] })).toEqual(['spec.l: Too many: 2: must have at most 1 item']);
    expect(check(spec({ l: { type: 'array', items: { type: 'string' }, minItems: 1 } }), { l: [] })).toEqual(['spec.l: Invalid value: 0: spec.l in body should have at least 1 items']);
    expect(check(spec({ l: { type: 'array', items: { type: 'string' }, uniqueItems: true } }), { l: ['a', 'a'] })).toEqual(['spec.l: Invalid value: "": spec.l in body shouldn\'t contain duplicates']);
    expect(check(spec({ o: { type: 'object', minProperties: 1 } }), { o: {} })).toEqual(['spec.o: Invalid value: 0: spec.o in body should have at least 1 properties']);
    expect(check(spec({ o: { type: 'object', maxProperties: 1 } }), { o: { a: 1, b: 2 } })).toEqual(['spec.o: Too many: 2: must have at most 1 item']);
  });

  it('types, null, int-or-string, enum, required, items', () => {
    expect(check(spec({ n: { type: 'integer' } }), { n: 'x' })).toEqual(['spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"']);
    expect(check(spec({ o: { type: 'object' } }), { o: null })).toEqual(['spec.o: Invalid value: "null": spec.o in body must be of type object: "null"']);
    expect(check(spec({ o: { type: 'object', nullable: true } }), { o: null })).toEqual([]);
    expect(check(spec({ p: { 'x-kubernetes-int-or-string': true } }), { p: true })).toEqual(['spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"']);
    expect(check(spec({ p: { 'x-kubernetes-int-or-string': true } }), { p: 8080 })).toEqual([]);
    expect(check(spec({ e: { type: 'string', enum: ['a', 'b'] } }), { e: 'c' })).toEqual(['spec.e: Unsupported value: "c": supported values: "a", "b"']);
    expect(check(spec({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['a', 'b'] }), { a: 'x' })).toEqual(['spec.b: Required value']);
    expect(check(spec({ l: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } } } }), { l: [{ n: 1 }, { n: 0 }] })).toEqual([
      'spec.l[1].n: Invalid value: 0: spec.l[1].n in body should be greater than or equal to 1',
    ]);
    expect(check(spec({ m: { type: 'object', additionalProperties: { type: 'integer' } } }), { m: { a: 1, b: 'x' } })).toEqual([
      'spec.m.b: Invalid value: "string": spec.m.b in body must be of type integer: "string"',
    ]);
    expect(check(spec({ m: { type: 'object', properties: { a: {} }, additionalProperties: false } }), { m: { a: 1, z: 2 } })).toEqual([
      'spec.m: Invalid value: "z": spec.m.z in body is a forbidden property',
    ]);
    expect(check(spec({ t: { type: 'string', format: 'date-time' } }), { t: 'yesterday' })).toEqual(['spec.t: Invalid value: "yesterday": spec.t in body must be of type date-time: "yesterday"']);
  });

  it('OLM’s root: every path hangs from `[]`; a type error at the root has no child', () => {
    expect(validateCustomResource(spec({ n: { type: 'integer', minimum: 3 } }), { spec: { n: 2 } }, { root: '[]' })).toEqual([
      '[].spec.n: Invalid value: 2: spec.n in body should be greater than or equal to 3',
    ]);
    expect(validateCustomResource({ type: 'object', required: ['spec'] }, {}, { root: '[]' })).toEqual(['[].spec: Required value']);
  });

  it('no schema or an empty one accepts anything', () => {
    expect(validateCustomResource(undefined, { anything: 1 })).toEqual([]);
    expect(validateCustomResource({}, { anything: 1 })).toEqual([]);
  });

  it('Go prints floats with an exponent below 1e-4 and from 1e21', () => {
    expect(goFloat(0.5)).toBe('0.5');
    expect(goFloat(0.00001)).toBe('1e-05');
    expect(goFloat(1e21)).toBe('1e+21');
  });
});
