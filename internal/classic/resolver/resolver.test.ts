// A representative subset of upstream's R/resolver_test.go TestSolveOperators* cases, rebuilt with
// a genEntry-like helper, plus upstream's invalid-subscription and unsatisfiable messages.
import { Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCel } from './cel.ts';
import { makeEntry, type CatalogKey, type Entry } from './entries.ts';
import { createClassicResolutionMetrics, CLASSIC_RESOLUTION_DURATION_METRIC } from './metrics.ts';
import { resolve, type Catalog, type Subscription } from './resolver.ts';

const NS = 'olm';
const GLOBAL = 'global';
const cat = (name: string, namespace = NS): CatalogKey => ({ name, namespace });

interface Gen {
  name: string;
  version?: string;
  replaces?: string;
  pkg: string;
  channel: string;
  defaultChannel?: boolean;
  provides?: string[]; // kinds, group g, version v
  requires?: string[];
  properties?: { type: string; value: unknown }[];
  deprecated?: boolean;
  skips?: string[];
  skipRange?: string;
}
const gvk = (kind: string) => ({ group: 'g', version: 'v', kind });
function gen(key: CatalogKey, g: Gen): Entry {
  return makeEntry(key, {
    name: g.name,
    package: g.pkg,
    channel: g.channel,
    defaultChannel: g.defaultChannel ?? true,
    ...(g.replaces ? { replaces: g.replaces } : {}),
    ...(g.version ? { version: g.version } : {}),
    ...(g.skips ? { skips: g.skips } : {}),
    ...(g.skipRange ? { skipRange: g.skipRange } : {}),
    properties: [
      { type: 'olm.package', value: { packageName: g.pkg, version: g.version ?? '0.0.0' } },
      ...(g.provides ?? []).map((k) => ({ type: 'olm.gvk', value: gvk(k) })),
      ...(g.requires ?? []).map((k) => ({ type: 'olm.gvk.required', value: gvk(k) })),
      ...(g.deprecated ? [{ type: 'olm.deprecated', value: {} }] : []),
      ...(g.properties ?? []),
    ],
  });
}
const catalog = (key: CatalogKey, entries: Gen[], priority = 0): Catalog => ({ key, priority, entries: entries.map((e) => gen(key, e)) });
const sub = (pkg: string, channel: string, source = 'community', extra: Partial<Subscription['spec']> = {}, installedCSV?: string): Subscription => ({
  name: `${pkg}-${channel}`,
  namespace: NS,
  spec: { source, sourceNamespace: NS, name: pkg, channel, ...extra },
  ...(installedCSV ? { status: { installedCSV } } : {}),
});
const names = (r: ReturnType<typeof resolve>): string[] => r.map((x) => `${x.entry.catalog.name}:${x.entry.name}`).sort();
const run = (catalogs: Catalog[], subs: Subscription[], installed: Entry[] = []) => resolve({ namespaces: [NS, GLOBAL], catalogs, subscriptions: subs, installed });

// Some cases carry cel rules; the controller loads the library through loadCelFor (cel.test.ts).
beforeAll(() => loadCel());

describe('TestSolveOperators subset', () => {
  it('single subscription, one bundle', () => {
    const c = catalog(cat('community'), [{ name: 'a.v1', pkg: 'a', channel: 'alpha', version: '1.0.0' }]);
    expect(names(run([c], [sub('a', 'alpha')]))).toEqual(['community:a.v1']);
  });

  it('picks the channel head (latest version)', () => {
    const c = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', version: '1.0.0' },
      { name: 'a.v2', pkg: 'a', channel: 'alpha', version: '2.0.0', replaces: 'a.v1' },
    ]);
    expect(names(run([c], [sub('a', 'alpha')]))).toEqual(['community:a.v2']);
  });

  it('nested GVK dependencies', () => {
    const c = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', requires: ['B'] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'], requires: ['C'] },
      { name: 'c.v1', pkg: 'c', channel: 'alpha', provides: ['C'] },
      { name: 'd.v1', pkg: 'd', channel: 'alpha', provides: ['D'] },
    ]);
    expect(names(run([c], [sub('a', 'alpha')]))).toEqual(['community:a.v1', 'community:b.v1', 'community:c.v1']);
  });

  it('catalog priority decides between other catalogs (CatsrcPrioritySorting)', () => {
    const main = catalog(cat('community'), [{ name: 'a.v1', pkg: 'a', channel: 'alpha', requires: ['B'] }]);
    const low = catalog(cat('low'), [{ name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] }], 1);
    const high = catalog(cat('high'), [{ name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] }], 10);
    expect(names(run([main, low, high], [sub('a', 'alpha')]))).toEqual(['community:a.v1', 'high:b.v1']);
    const neg = catalog(cat('high'), [{ name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] }], -1);
    expect(names(run([main, low, neg], [sub('a', 'alpha')]))).toEqual(['community:a.v1', 'low:b.v1']);
  });

  it("prefers the dependent's own catalog over priority", () => {
    const main = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', requires: ['B'] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] },
    ]);
    const high = catalog(cat('high'), [{ name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] }], 10);
    expect(names(run([main, high], [sub('a', 'alpha')]))).toEqual(['community:a.v1', 'community:b.v1']);
  });

  it('prefers catalogs in the resolving namespace, then by name', () => {
    const main = catalog(cat('community'), [{ name: 'a.v1', pkg: 'a', channel: 'alpha', requires: ['B'] }]);
    const global = catalog(cat('aaa', GLOBAL), [{ name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] }]);
    const local = catalog(cat('zzz', NS), [{ name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] }]);
    expect(names(run([main, global, local], [sub('a', 'alpha')]))).toEqual(['community:a.v1', 'zzz:b.v1']);
    // catalogs in other namespaces are not loaded at all
    const elsewhere = catalog(cat('zzz', 'other'), [{ name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] }]);
    expect(names(run([main, global, elsewhere], [sub('a', 'alpha')]))).toEqual(['aaa:b.v1', 'community:a.v1']);
  });

  it('prefers the default channel of a dependency (also transitively)', () => {
    const c = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', requires: ['B'] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'], defaultChannel: false, requires: ['C'] },
      { name: 'b.v2', pkg: 'b', channel: 'stable', provides: ['B'], requires: ['C'] },
      { name: 'c.v1', pkg: 'c', channel: 'alpha', provides: ['C'], defaultChannel: false },
      { name: 'c.v2', pkg: 'c', channel: 'stable', provides: ['C'] },
    ]);
    expect(names(run([c], [sub('a', 'alpha')]))).toEqual(['community:a.v1', 'community:b.v2', 'community:c.v2']);
  });

  it('olm.package.required with a blang range picks the newest bundle in range', () => {
    const c = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', properties: [{ type: 'olm.package.required', value: { packageName: 'b', versionRange: '>=1.0.0 <2.0.0' } }] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', version: '1.0.0' },
      { name: 'b.v1.5', pkg: 'b', channel: 'alpha', version: '1.5.0', replaces: 'b.v1' },
      { name: 'b.v2', pkg: 'b', channel: 'alpha', version: '2.0.0', replaces: 'b.v1.5' },
    ]);
    expect(names(run([c], [sub('a', 'alpha')]))).toEqual(['community:a.v1', 'community:b.v1.5']);
  });

  const constraint = (value: unknown) => ({ type: 'olm.constraint', value });
  it.each([
    {
      name: 'CompoundAll',
      value: { all: { constraints: [{ package: { packageName: 'b', versionRange: '>=1.0.0' } }, { gvk: gvk('B') }] } },
      want: ['community:a.v1', 'community:b.v1'],
    },
    { name: 'CompoundAny', value: { any: { constraints: [{ gvk: gvk('Nope') }, { package: { packageName: 'c', versionRange: '1.0.0' } }] } }, want: ['community:a.v1', 'community:c.v1'] },
    {
      name: 'CompoundNot',
      value: { all: { constraints: [{ gvk: gvk('B') }, { not: { constraints: [{ package: { packageName: 'b', versionRange: '1.0.0' } }] } }] } },
      want: ['community:a.v1', 'community:bb.v1'],
    },
    {
      name: 'GenericConstraint (CEL)',
      value: { cel: { rule: "properties.exists(p, p.type == 'olm.test' && semver_compare(p.value, '2.0.0') >= 0)" }, failureMessage: 'needs olm.test >= 2' },
      want: ['community:a.v1', 'community:c.v1'],
    },
  ])('olm.constraint $name', ({ value, want }) => {
    const c = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', properties: [constraint(value)] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', version: '1.0.0', provides: ['B'], properties: [{ type: 'olm.test', value: '1.0.0' }] },
      { name: 'bb.v1', pkg: 'bb', channel: 'alpha', version: '1.0.0', provides: ['B'] },
      { name: 'c.v1', pkg: 'c', channel: 'alpha', version: '1.0.0', properties: [{ type: 'olm.test', value: '2.1.0' }] },
    ]);
    expect(names(run([c], [sub('a', 'alpha')]))).toEqual(want);
  });

  it('CEL with no match: the dependency message quotes the rule and the failure message', () => {
    const rule = "properties.exists(p, p.type == 'olm.test' && semver_compare(p.value, '9.0.0') >= 0)";
    const c = catalog(cat('community'), [{ name: 'a.v1', pkg: 'a', channel: 'alpha', properties: [constraint({ cel: { rule }, failureMessage: 'too old' })] }]);
    expect(() => run([c], [sub('a', 'alpha')])).toThrow(
      `constraints not satisfiable: bundle a.v1 requires an operator with constraint: "${rule}" and message: "too old", subscription a-alpha exists, subscription a-alpha requires community/olm/alpha/a.v1`,
    );
  });

  it.each([
    { name: 'unknown constraint type (OLMConstraint_Unknown)', value: { strangeField: 'x' }, message: 'parse olm.constraint: json: unknown field "strangeField"' },
    { name: 'empty constraint', value: {}, message: 'convert olm.constraint to resolver predicate: constraint is empty' },
    { name: 'CEL that does not compile', value: { cel: { rule: 'doesnt_exist(1)' } }, message: /^convert olm.constraint to resolver predicate: cel expression "doesnt_exist\(1\)" does not compile: / },
    { name: 'CEL that is not bool', value: { cel: { rule: '1' } }, message: 'convert olm.constraint to resolver predicate: cel expressions must have type Bool' },
    { name: 'over the size limit', value: { cel: { rule: `"${'x'.repeat(131072)}" == ""` } }, message: 'parse olm.constraint: olm.constraint value is greater than max constraint size 131072 bytes' },
    { name: 'bad version range', value: { package: { packageName: 'b', versionRange: '>=1.0' } }, message: /^convert olm.constraint to resolver predicate: Could not parse Range ">=1.0"/ },
  ])('$name', ({ value, message }) => {
    const c = catalog(cat('community'), [{ name: 'a.v1', pkg: 'a', channel: 'alpha', properties: [constraint(value)] }]);
    expect(() => run([c], [sub('a', 'alpha')])).toThrow(message);
  });

  it('a CEL runtime error makes the predicate false (no candidates)', () => {
    const c = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', properties: [constraint({ cel: { rule: "properties.exists(p, semver_compare(p.value, '1.0.0') == 0)" } })] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', properties: [{ type: 'olm.test', value: 'not-a-version' }] },
    ]);
    expect(() => run([c], [sub('a', 'alpha')])).toThrow(/^constraints not satisfiable: bundle a.v1 requires an operator with constraint/);
  });
});

describe('subscriptions and installed CSVs', () => {
  const c = catalog(cat('community'), [
    { name: 'a.v1', pkg: 'a', channel: 'alpha', version: '1.0.0' },
    { name: 'a.v2', pkg: 'a', channel: 'alpha', version: '2.0.0', replaces: 'a.v1' },
    { name: 'a.v3', pkg: 'a', channel: 'alpha', version: '3.0.0', replaces: 'a.v2' },
  ]);

  it.each([
    { name: 'missing catalog', s: sub('a', 'alpha', 'nope'), message: 'no operators found from catalog nope in namespace olm referenced by subscription a-alpha' },
    { name: 'missing package', s: sub('x', 'alpha'), message: 'no operators found in package x in the catalog referenced by subscription x-alpha' },
    { name: 'missing channel', s: sub('a', 'beta'), message: 'no operators found in channel beta of package a in the catalog referenced by subscription a-beta' },
    {
      name: 'missing startingCSV',
      s: sub('a', 'alpha', 'community', { startingCSV: 'a.v9' }),
      message: 'no operators found with name a.v9 in channel alpha of package a in the catalog referenced by subscription a-alpha',
    },
  ])('invalid subscription: $name', ({ s, message }) => {
    expect(() => run([c], [s])).toThrow(`constraints not satisfiable: ${message}, subscription ${s.name} exists`);
  });

  it('startingCSV picks that bundle and is reported', () => {
    const r = run([c], [sub('a', 'alpha', 'community', { startingCSV: 'a.v2' })]);
    expect(r.map((x) => [x.entry.name, x.startingCSV])).toEqual([['a.v2', 'a.v2']]);
  });

  it('an installed CSV is upgraded along replaces, one edge at a time', () => {
    const installed = [gen(cat('ignored'), { name: 'a.v1', pkg: 'a', channel: 'alpha', version: '1.0.0' })];
    const r = run([c], [sub('a', 'alpha', 'community', {}, 'a.v1')], installed);
    expect(r.map((x) => [x.entry.name, x.replaces])).toEqual([['a.v2', 'a.v1']]);
  });

  it('skipRange lets an upgrade jump to the head', () => {
    const c2 = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', version: '1.0.0' },
      { name: 'a.v2', pkg: 'a', channel: 'alpha', version: '2.0.0', replaces: 'a.v1' },
      { name: 'a.v3', pkg: 'a', channel: 'alpha', version: '3.0.0', replaces: 'a.v2', skipRange: '>=1.0.0 <3.0.0' },
    ]);
    const installed = [gen(cat('ignored'), { name: 'a.v1', pkg: 'a', channel: 'alpha', version: '1.0.0' })];
    expect(run([c2], [sub('a', 'alpha', 'community', {}, 'a.v1')], installed).map((x) => x.entry.name)).toEqual(['a.v3']);
  });

  it('an up-to-date installed CSV stays: nothing new to install', () => {
    const installed = [gen(cat('ignored'), { name: 'a.v3', pkg: 'a', channel: 'alpha', version: '3.0.0' })];
    expect(run([c], [sub('a', 'alpha', 'community', {}, 'a.v3')], installed)).toEqual([]);
  });

  it('an installed CSV without a subscription satisfies a dependency (and is mandatory)', () => {
    const c2 = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', requires: ['B'] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['B'] },
    ]);
    const installed = [gen(cat('ignored'), { name: 'b.v0', pkg: 'b', channel: 'alpha', provides: ['B'] })];
    expect(names(run([c2], [sub('a', 'alpha')], installed))).toEqual(['community:a.v1']);
  });

  it('two subscriptions to one package cannot both be satisfied', () => {
    const c2 = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha' },
      { name: 'a.v2', pkg: 'a', channel: 'beta', defaultChannel: false },
    ]);
    expect(() => run([c2], [sub('a', 'alpha'), sub('a', 'beta')])).toThrow(
      'constraints not satisfiable: community/olm/alpha/a.v1 and community/olm/beta/a.v2 originate from package a, subscription a-alpha exists, subscription a-alpha requires community/olm/alpha/a.v1, subscription a-beta exists, subscription a-beta requires community/olm/beta/a.v2',
    );
  });

  it('a deprecated bundle is prohibited', () => {
    const c2 = catalog(cat('community'), [{ name: 'a.v1', pkg: 'a', channel: 'alpha', deprecated: true }]);
    expect(() => run([c2], [sub('a', 'alpha')])).toThrow(
      'constraints not satisfiable: bundle community/olm/alpha/a.v1 is deprecated, subscription a-alpha exists, subscription a-alpha requires community/olm/alpha/a.v1',
    );
  });

  it('two providers of one GVK: the explanation names them', () => {
    const c2 = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha', provides: ['K'] },
      { name: 'b.v1', pkg: 'b', channel: 'alpha', provides: ['K'] },
    ]);
    expect(() => run([c2], [sub('a', 'alpha'), sub('b', 'alpha')])).toThrow(
      'community/olm/alpha/a.v1 and community/olm/alpha/b.v1 provide K (g/v)',
    );
  });

  it('a channel with two replacement chains is an error with upstream text', () => {
    const c2 = catalog(cat('community'), [
      { name: 'a.v1', pkg: 'a', channel: 'alpha' },
      { name: 'a.v2', pkg: 'a', channel: 'alpha' },
    ]);
    expect(() => run([c2], [sub('a', 'alpha')])).toThrow(
      'a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "alpha" of package "a": a.v1, a.v2',
    );
  });
});

describe('olm_resolution_duration_seconds', () => {
  it('is a summary with outcome succeeded/failed', async () => {
    const registry = new Registry();
    const metrics = createClassicResolutionMetrics(registry);
    const c = catalog(cat('community'), [{ name: 'a.v1', pkg: 'a', channel: 'alpha' }]);
    resolve({ namespaces: [NS], catalogs: [c], subscriptions: [sub('a', 'alpha')] }, { metrics });
    expect(() => resolve({ namespaces: [NS], catalogs: [c], subscriptions: [sub('x', 'alpha')] }, { metrics })).toThrow();
    expect(() => resolve({ namespaces: [NS], catalogs: [c], subscriptions: [sub('x', 'alpha')] }, { metrics })).toThrow();
    const text = await registry.metrics();
    expect(text).toContain(`# TYPE ${CLASSIC_RESOLUTION_DURATION_METRIC} summary`);
    expect(text).toMatch(/olm_resolution_duration_seconds_count\{outcome="succeeded"\} 1\n/);
    expect(text).toMatch(/olm_resolution_duration_seconds_count\{outcome="failed"\} 2\n/);
    expect(text).toMatch(/olm_resolution_duration_seconds\{quantile="0.99",outcome="succeeded"\} /);
    expect(() => createClassicResolutionMetrics(registry)).toThrow();
  });
});
