// operator-framework/api pkg/constraints cel_test.go (TestCelLibrary), and the library's loading on
// first need. The tests of a file run in order: the first ones see the library not loaded yet.
import { beforeAll, describe, expect, it } from 'vitest';
import { celLoaded, compileCel, loadCel } from './cel.ts';
import { makeEntry } from './entries.ts';
import { loadCelFor, resolve, type Catalog } from './resolver.ts';

describe('loading on first need', () => {
  const key = { name: 'community', namespace: 'olm' };
  const entry = (name: string, properties: { type: string; value: unknown }[] = []) =>
    makeEntry(key, { name, package: name.split('.')[0]!, channel: 'alpha', defaultChannel: true, version: '1.0.0', properties });
  const input = (entries: ReturnType<typeof makeEntry>[]) => ({
    namespaces: ['olm'],
    catalogs: [{ key, entries } satisfies Catalog],
    subscriptions: [{ name: 'a', namespace: 'olm', spec: { source: 'community', sourceNamespace: 'olm', name: 'a', channel: 'alpha' } }],
  });
  const rule = "properties.exists(p, p.type == 'olm.test')";
  const celConstraint = { type: 'olm.constraint', value: { cel: { rule }, failureMessage: 'needs a test' } };

  it('is not loaded by importing the resolver, and a rule met before loading says so', () => {
    expect(celLoaded()).toBe(false);
    expect(() => compileCel(rule)).toThrow(`cel expression "${rule}" met before the CEL library was loaded (loadCel)`);
  });

  it('an input without olm.constraint does not load it', async () => {
    const plain = input([entry('a.v1', [{ type: 'olm.gvk.required', value: { group: 'g', version: 'v1', kind: 'K' } }]), entry('b.v1', [{ type: 'olm.gvk', value: { group: 'g', version: 'v1', kind: 'K' } }])]);
    await loadCelFor(plain);
    expect(celLoaded()).toBe(false);
  });

  it('an olm.constraint in the catalog loads it, and the resolver then compiles the rule', async () => {
    const withCel = input([entry('a.v1', [celConstraint]), entry('b.v1', [{ type: 'olm.test', value: 'x' }])]);
    await loadCelFor(withCel);
    expect(celLoaded()).toBe(true);
    expect(resolve(withCel).map((r) => r.entry.name)).toEqual(['a.v1', 'b.v1']);
  });
});

describe('CEL (cel_test.go TestCelLibrary)', () => {
  beforeAll(() => loadCel());
  const props = [{ type: 'olm.test', value: '1.0.0' }];
  it.each([
    { name: 'ValidCelExpression/True', rule: "properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') == 0))", out: true },
    { name: 'ValidCelExpression/NotEqual/False', rule: "properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.1') == 0))", out: false },
    { name: 'ValidCelExpression/Less/False', rule: "properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') < 0))", out: false },
    { name: 'ValidCelExpression/Larger/False', rule: "properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') > 0))", out: false },
  ])('$name', ({ rule, out }) => expect(compileCel(rule)(props)).toBe(out));

  it('InvalidCelExpression/NotExistedFunc', () =>
    expect(() => compileCel("properties.exists(p, p.type == 'olm.test' && (doesnt_exist(p.value, '1.0.0') == 0))")).toThrow(
      /^cel expression "properties.exists\(p, p.type == 'olm.test' && \(doesnt_exist\(p.value, '1.0.0'\) == 0\)\)" does not compile: /,
    ));
  it('InvalidCelExpression/NonBoolReturn', () => expect(() => compileCel('1')).toThrow('cel expressions must have type Bool'));

  it('semver_compare parses tolerantly (v prefix, short versions) and fails on garbage', () => {
    expect(compileCel("semver_compare('v1.2', '1.2.0') == 0")([])).toBe(true);
    expect(compileCel("semver_compare('2', '10.0.0') < 0")([])).toBe(true);
    expect(() => compileCel("semver_compare('nope', '1.0.0') == 0")([])).toThrow("unable to parse 'nope' to semver format");
  });
});
