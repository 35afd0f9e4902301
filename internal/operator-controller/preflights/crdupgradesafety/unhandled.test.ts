// The condensed "unhandled changes found (...)" summary: upstream's formatter rules on go-cmp diff lines
// (operator-controller unhandled_message_test.go), and what our schema diff feeds it.
import { describe, expect, it } from 'vitest';
import { condenseUnhandledDiff, validateUpgrade, type Crd, type Schema } from './index.ts';

const lines = (...pairs: [sign: '-' | '+', text: string][]) => pairs.map(([sign, text]) => ({ sign, text }));

describe('condensing go-cmp lines as upstream does', () => {
  it('one field: old and new value', () => {
    expect(condenseUnhandledDiff(lines(['-', 'Format: "",'], ['+', 'Format: "email",']))).toEqual(['Format "" -> "email"']);
  });

  it('several fields, in the order they first appear', () => {
    const diff = lines(
      ['-', 'Format: ""'],
      ['+', 'Format: "email"'],
      ['-', 'Default: nil'],
      ['+', 'Default: "value"'],
      ['-', 'Title: ""'],
      ['+', 'Title: "Widget"'],
      ['-', 'Description: "old"'],
      ['+', 'Description: "new"'],
    );
    expect(condenseUnhandledDiff(diff)).toEqual(['Format "" -> "email"', 'Default nil -> "value"', 'Title "" -> "Widget"', 'Description "old" -> "new"']);
  });

  it('schemas read as <complex value>; a new value that reads the same as the old is marked (changed)', () => {
    const diff = lines(['-', 'Default: &v1.JSONSchemaProps{}'], ['+', 'Default: &v1.JSONSchemaProps{Type: "string"}']);
    expect(condenseUnhandledDiff(diff)).toEqual(['Default <complex value> -> <complex value> (changed)']);
  });

  it('a side with no line is <empty>; `v1.` is dropped; lines without `field:` are skipped', () => {
    const diff = lines(['+', 'Example: &v1.JSON{Raw: []uint8(`1`)}'], ['-', '"a",'], ['+', '"b",']);
    expect(condenseUnhandledDiff(diff)).toEqual(['Example <empty> -> &JSON{Raw: []uint8(`1`)}']);
  });
});

describe('unhandled changes of a property', () => {
  const crd = (image: Schema): Crd => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { image } } } },
      ],
    },
  });
  const line = (details: string): string => `v1: ^.image: unhandled: unhandled changes found${details}`;

  it('scalars, pointers and string lists print as Go does, in struct order', () => {
    const before = crd({ type: 'string' });
    const after = crd({
      type: 'string',
      format: 'email',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
      multipleOf: 0.00001,
      uniqueItems: true,
    });
    expect(validateUpgrade(before, after)).toEqual([
      line(' (Format "" -> "email"; UniqueItems false -> true; MultipleOf nil -> &1e-05; XListMapKeys nil -> []string{"name"}; XListType nil -> &"map")'),
    ]);
  });

  it('child schemas other than properties and items are unhandled at the parent: added ones read <complex value>', () => {
    const after = crd({ type: 'string', anyOf: [{ minLength: 1 }], not: { pattern: '^x' } });
    expect(validateUpgrade(crd({ type: 'string' }), after)).toEqual([line(' (AnyOf nil -> <complex value>; Not nil -> <complex value>)')]);
  });

  it('a change inside a kept child schema is reported by its own field name', () => {
    const before = crd({ type: 'object', additionalProperties: { type: 'string', description: 'a' }, example: { a: 1 } });
    const after = crd({ type: 'object', additionalProperties: { type: 'string', description: 'b' }, example: { a: 2 } });
    expect(validateUpgrade(before, after)).toEqual([line(' (Description "a" -> "b"; Raw []uint8(`{"a":1}`) -> []uint8(`{"a":2}`))')]);
  });

  it('a list changed element by element has no line with a field name: the summary has no details', () => {
    const before = crd({ type: 'array', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'string' } });
    const after = crd({ type: 'array', 'x-kubernetes-list-map-keys': ['b'], items: { type: 'string' } });
    expect(validateUpgrade(before, after)).toEqual([line('')]);
  });
});
