// operator-framework/api pkg/constraints constraint_test.go (Parse), plus the predicate texts of OLM
// R/cache/predicates.go.
import { describe, expect, it } from 'vitest';
import { makeEntry } from './entries.ts';
import { constraintPredicate, parseConstraint, predicateForProperty } from './predicates.ts';

describe('parseConstraint (constraint_test.go)', () => {
  const gvk = { group: 'example.com', version: 'v1', kind: 'Foo' };
  const pkg = { packageName: 'foo', versionRange: '>=1.0.0' };
  it.each([
    { name: 'Valid/BasicGVK', input: { gvk, failureMessage: 'blah' }, want: { gvk, failureMessage: 'blah' } },
    { name: 'Valid/BasicPackage', input: { package: pkg }, want: { package: pkg } },
    { name: 'Valid/BasicAll', input: { all: { constraints: [{ gvk }, { package: pkg }] } }, want: { all: { constraints: [{ gvk }, { package: pkg }] } } },
    { name: 'Valid/BasicAny', input: { any: { constraints: [{ gvk }] } }, want: { any: { constraints: [{ gvk }] } } },
    { name: 'Valid/BasicNot', input: { not: { constraints: [{ gvk }] } }, want: { not: { constraints: [{ gvk }] } } },
    {
      name: 'Valid/Complex',
      input: { all: { constraints: [{ package: pkg }, { any: { constraints: [{ gvk }, { not: { constraints: [{ gvk }] } }] } }] } },
      want: { all: { constraints: [{ package: pkg }, { any: { constraints: [{ gvk }, { not: { constraints: [{ gvk }] } }] } }] } },
    },
    { name: 'Valid/CaseInsensitiveKeys (encoding/json)', input: { GVK: gvk }, want: { gvk } },
  ])('$name', ({ input, want }) => expect(parseConstraint(JSON.stringify(input))).toEqual(want));

  it('Invalid/TooLarge', () => {
    const raw = JSON.stringify({ failureMessage: 'x'.repeat(131072) });
    expect(() => parseConstraint(raw)).toThrow('olm.constraint value is greater than max constraint size 131072 bytes');
    // exactly at the limit is accepted
    const at = JSON.stringify({ failureMessage: 'x'.repeat(131072 - 21) });
    expect(Buffer.byteLength(at)).toBe(131072);
    expect(parseConstraint(at).failureMessage).toHaveLength(131072 - 21);
  });
  it('Invalid/UnknownField', () => expect(() => parseConstraint('{"foo": {"bar": "baz"}}')).toThrow('json: unknown field "foo"'));
  it('a nested unknown field', () => expect(() => parseConstraint('{"gvk": {"group": "g", "nope": 1}}')).toThrow('json: unknown field "nope"'));
  it('a wrong type names the field', () =>
    expect(() => parseConstraint('{"cel": {"rule": 1}}')).toThrow('json: cannot unmarshal number into Go struct field Cel.rule of type string'));
  it('invalid JSON names the value', () => expect(() => parseConstraint('{')).toThrow(/^invalid JSON in olm.constraint value "\{": /));
});

describe('predicates', () => {
  const entry = makeEntry({ name: 'c', namespace: 'ns' }, {
    name: 'b.v1',
    package: 'b',
    channel: 'alpha',
    version: '1.5.0',
    properties: [
      { type: 'olm.gvk', value: { group: 'g', version: 'v', kind: 'K' } },
      { type: 'olm.label', value: { label: 'fast' } },
    ],
  });
  it.each([
    { type: 'olm.gvk.required', value: { group: 'g', version: 'v', kind: 'K' }, text: 'providing an API with group: g, version: v, kind: K', match: true },
    { type: 'olm.package.required', value: { packageName: 'b', versionRange: '>1.0.0 <2.0.0' }, text: 'with package: b and with version in range: >1.0.0 <2.0.0', match: true },
    { type: 'olm.package.required', value: { packageName: 'b', versionRange: '>=2.0.0' }, text: 'with package: b and with version in range: >=2.0.0', match: false },
    { type: 'olm.label.required', value: { label: 'fast' }, text: 'with label: fast', match: true },
    {
      type: 'olm.constraint',
      value: { not: { constraints: [{ gvk: { group: 'g', version: 'v', kind: 'X' } }, { package: { packageName: 'z', versionRange: '1.0.0' } }] } },
      text: 'providing an API with group: g, version: v, kind: X and not with package: z and with version in range: 1.0.0',
      match: true,
    },
    { type: 'olm.constraint', value: { any: { constraints: [] } }, text: '', match: false },
    { type: 'olm.constraint', value: { all: { constraints: [] } }, text: '', match: true },
  ])('$type $text', ({ type, value, text, match }) => {
    const p = predicateForProperty(type, JSON.stringify(value));
    expect(p?.toString()).toBe(text);
    expect(p?.test(entry)).toBe(match);
  });

  it('unknown property types are not dependencies', () => expect(predicateForProperty('olm.maxOpenShiftVersion', '"4.12"')).toBeUndefined());
  it('the first set key wins: gvk before cel', () =>
    expect(constraintPredicate({ gvk: { group: 'g', version: 'v', kind: 'K' }, cel: { rule: 'true' } }).toString()).toBe('providing an API with group: g, version: v, kind: K'));
});
