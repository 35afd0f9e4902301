// Upstream internal/operator-controller/resolve/catalog_test.go, case by case, with its exact
// error strings; plus the cases upstream covers elsewhere (dependency validation, bundles
// without a version, the deprecation of the winning catalog) and explain mode.
import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { ResolutionError } from './resolver.ts';
import { formatExplanation } from './explain.ts';
import { EMPTY, buildExtension, bundleName, catalogObject, fakeResolver, genBundle, genPackage, packageDeprecation, type FakeCatalog } from './testing.ts';
import { CatalogResolver } from './resolver.ts';

const PKG = 'pkg-abcde';
const onlyC = (content: FakeCatalog = { content: genPackage(PKG) }) => fakeResolver({ a: { content: EMPTY }, b: { content: EMPTY }, c: content });

async function failure(p: Promise<unknown>): Promise<ResolutionError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ResolutionError);
  return err as ResolutionError;
}

describe('errors before any catalog is read', () => {
  it('TestInvalidClusterExtensionVersionRange', async () => {
    const err = await failure(fakeResolver({}).resolveBundle(buildExtension(PKG, [], 'foobar'), undefined));
    expect(err.message).toBe('desired version range "foobar" is invalid: improper constraint: "foobar"');
  });
  it('TestErrorWalkingCatalogs (listing fails)', async () => {
    const r = new CatalogResolver({
      listCatalogs: () => {
        throw new Error('fake error');
      },
      content: { getPackage: () => Promise.resolve(EMPTY) },
    });
    const err = await failure(r.resolveBundle(buildExtension(PKG, [], ''), undefined));
    expect(err.message).toBe('error walking catalogs: error listing catalogs: fake error');
  });
  it('TestErrorGettingPackage', async () => {
    const err = await failure(fakeResolver({ a: { error: 'fake error' } }).resolveBundle(buildExtension(PKG, [], ''), undefined));
    expect(err.message).toBe(`error walking catalogs: error getting package "${PKG}" from catalog "a": fake error`);
  });
  it.each<{ name: string; selector: NonNullable<ClusterExtension['spec']>['source']['catalog'] extends infer C ? C extends { selector?: infer S } ? S : never : never; message: string; exact: boolean }>([
    {
      name: 'TestInvalidClusterExtensionCatalogMatchExpressions',
      selector: { matchExpressions: [{ key: 'name', operator: 'bad' as 'In', values: ['value'] }] },
      message: 'desired catalog selector is invalid: "bad" is not a valid label selector operator',
      exact: true,
    },
    { name: 'TestInvalidClusterExtensionCatalogMatchLabelsName', selector: { matchLabels: { '': 'value' } }, message: 'desired catalog selector is invalid: key: Invalid value:', exact: false },
    {
      name: 'TestInvalidClusterExtensionCatalogMatchLabelsValue',
      selector: { matchLabels: { name: '&value' } },
      message: 'desired catalog selector is invalid: values[0][name]: Invalid value:',
      exact: false,
    },
  ])('$name', async ({ selector, message, exact }) => {
    const ext = buildExtension('foo', [], '');
    ext.spec!.source.catalog!.selector = selector;
    const err = await failure(fakeResolver({ a: { content: genPackage('foo') } }).resolveBundle(ext, undefined));
    if (exact) expect(err.message).toBe(message);
    else expect(err.message.startsWith(message)).toBe(true);
  });
});

interface Row {
  name: string;
  channels?: string[];
  version?: string;
  policy?: 'CatalogProvided' | 'SelfCertified';
  installed?: string;
  want?: string;
  error?: string;
}

// The genPackage tables: only catalog "c" has the package.
describe.each<Row>([
  { name: 'TestPackageDoesNotExist', error: `no bundles found for package "nope"` },
  { name: 'TestPackageExists', want: '3.0.0' },
  { name: 'TestVersionDoesNotExist', version: '4.0.0', error: `no bundles found for package "${PKG}" matching version "4.0.0"` },
  { name: 'TestVersionExists', version: '>=1.0.0 <2.0.0', want: '1.0.2' },
  { name: 'TestChannelDoesNotExist', channels: ['stable'], error: `no bundles found for package "${PKG}" in channels [stable]` },
  { name: 'TestChannelExists', channels: ['beta'], want: '1.0.2' },
  { name: 'TestChannelExistsButNotVersion', channels: ['beta'], version: '3.0.0', error: `no bundles found for package "${PKG}" matching version "3.0.0" in channels [beta]` },
  { name: 'TestVersionExistsButNotChannel', channels: ['stable'], version: '1.0.0', error: `no bundles found for package "${PKG}" matching version "1.0.0" in channels [stable]` },
  { name: 'TestChannelAndVersionExist', channels: ['alpha'], version: '0.1.0', want: '0.1.0' },
  { name: 'TestPreferNonDeprecated', version: '>=0.1.0 <=1.0.0', want: '0.1.0' },
  { name: 'TestAcceptDeprecated', version: '>=1.0.0 <=1.0.1', want: '1.0.1' },
  { name: 'TestMultipleChannels', channels: ['beta', 'alpha'], want: '2.0.0' },
  { name: 'TestUpgradeFoundLegacy', installed: '0.1.0', want: '1.0.2' },
  {
    name: 'TestUpgradeNotFoundLegacy',
    installed: '0.1.0',
    version: '<1.0.0 >=2.0.0',
    error: `error upgrading from currently installed version "0.1.0": no bundles found for package "${PKG}" matching version "<1.0.0 >=2.0.0"`,
  },
  { name: 'TestDowngradeFound', installed: '1.0.2', version: '<1.0.2', policy: 'SelfCertified', want: '0.1.0' },
  {
    name: 'TestDowngradeNotFound',
    installed: '1.0.2',
    version: '>0.1.0 <1.0.0',
    policy: 'SelfCertified',
    error: `error upgrading from currently installed version "1.0.2": no bundles found for package "${PKG}" matching version ">0.1.0 <1.0.0"`,
  },
  // Derived: upgrade edges only come from the named channels; staying is always allowed.
  { name: 'upgrade edges restricted to the named channel', installed: '1.0.2', channels: ['beta'], want: '1.0.2' },
  { name: 'upgrade along alpha from 1.0.2', installed: '1.0.2', channels: ['alpha'], want: '2.0.0' },
  { name: 'one hop at a time: 2.0.0 → 3.0.0 via gamma', installed: '2.0.0', want: '3.0.0' },
  { name: 'SelfCertified jumps anywhere', installed: '0.1.0', policy: 'SelfCertified', want: '3.0.0' },
])('$name', (row) => {
  it(row.error ? 'fails with the upstream message' : `resolves ${row.want ?? ''}`, async () => {
    const pkg = row.name === 'TestPackageDoesNotExist' ? 'nope' : PKG;
    const ext = buildExtension(pkg, row.channels ?? [], row.version ?? '', row.policy);
    const installed = row.installed ? { name: bundleName(PKG, row.installed), version: row.installed } : undefined;
    const p = onlyC().resolveBundle(ext, installed);
    if (row.error !== undefined) {
      expect((await failure(p)).message).toBe(row.error);
      return;
    }
    const got = await p;
    expect(got.bundle.name).toBe(bundleName(PKG, row.want ?? ''));
    expect(got.bundle.version).toBe(row.want);
    expect(got.bundle.image).toBe(genBundle(PKG, row.want ?? '').image);
    expect(got.catalog).toBe('c');
    expect(got.deprecation).toEqual(packageDeprecation(PKG));
  });
});

it('TestValidationFailed', async () => {
  const r = fakeResolver(
    { a: { content: EMPTY }, c: { content: genPackage(PKG) } },
    {
      validations: [
        () => {
          throw new Error('fail');
        },
      ],
    },
  );
  expect((await failure(r.resolveBundle(buildExtension(PKG, [], ''), undefined))).message).toBe(`validating bundle "${PKG}.v3.0.0": fail`);
});

describe('TestPackageVariationsBetweenCatalogs', () => {
  const single = (version: string, deprecated: boolean, extra: string[] = []) => ({
    content: {
      packages: [{ name: PKG, defaultChannel: '' }],
      channels: [],
      bundles: [version, ...extra].map((v) => genBundle(PKG, v)),
      deprecations: deprecated
        ? [{ package: PKG, entries: [{ reference: { schema: 'olm.bundle', name: bundleName(PKG, version) }, message: `bundle ${bundleName(PKG, version)} is deprecated` }] }]
        : [],
    },
  });
  const r = fakeResolver({ a: { content: EMPTY }, b: single('1.0.0', true), c: single('1.0.1', true), d: single('1.0.2', false), e: single('1.0.3', true), f: single('1.0.4', false, ['1.0.5']) });
  it('when bundle candidates for a package are deprecated in all but one catalog', async () => {
    const got = await r.resolveBundle(buildExtension(PKG, [], '>=1.0.0 <=1.0.3'), undefined);
    expect(got.bundle.name).toBe(bundleName(PKG, '1.0.2'));
    expect(got.bundle.version).toBe('1.0.2');
    expect(got.deprecation).toBeUndefined();
  });
  it('when bundle candidates are found and deprecated in multiple catalogs', async () => {
    const err = await failure(r.resolveBundle(buildExtension(PKG, [], '>=1.0.0 <=1.0.1'), undefined));
    expect(err.message).toBe(`found bundles for package "${PKG}" matching version ">=1.0.0 <=1.0.1" in multiple catalogs with the same priority [b c]`);
  });
  it('when bundle candidates are found and not deprecated in multiple catalogs', async () => {
    const err = await failure(r.resolveBundle(buildExtension(PKG, [], '>=1.0.0 <=1.0.4'), undefined));
    expect(err.message).toBe(`found bundles for package "${PKG}" matching version ">=1.0.0 <=1.0.4" in multiple catalogs with the same priority [d f]`);
  });
  it('highest semver bundle is chosen when candidates are all from the same catalog', async () => {
    const got = await r.resolveBundle(buildExtension(PKG, [], '>=1.0.4 <=1.0.5'), undefined);
    expect(got.bundle.name).toBe(bundleName(PKG, '1.0.5'));
    expect(got.deprecation).toBeUndefined();
  });
});

describe('selectors, availability and priority', () => {
  it('TestClusterExtensionMatchLabel', async () => {
    const ext = buildExtension(PKG, [], '');
    ext.spec!.source.catalog!.selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': 'b' } };
    const got = await fakeResolver({ a: { content: genPackage(PKG) }, b: { content: genPackage(PKG) } }).resolveBundle(ext, undefined);
    expect(got.catalog).toBe('b');
  });
  it('TestClusterExtensionNoMatchLabel', async () => {
    const ext = buildExtension(PKG, [], '');
    ext.spec!.source.catalog!.selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': 'a' } };
    const err = await failure(fakeResolver({ a: { content: EMPTY }, b: { content: genPackage(PKG) } }).resolveBundle(ext, undefined));
    expect(err.message).toBe(`no bundles found for package "${PKG}"`);
  });
  it('an unselected catalog is never read, even when it would fail', async () => {
    const ext = buildExtension(PKG, [], '');
    ext.spec!.source.catalog!.selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': 'b' } };
    const got = await fakeResolver({ a: { error: 'not being served' }, b: { content: genPackage(PKG) } }).resolveBundle(ext, undefined);
    expect(got.bundle.version).toBe('3.0.0');
  });
  it('TestUnequalPriority', async () => {
    const one = (v: string) => ({
      packages: [{ name: PKG, defaultChannel: '' }],
      channels: [{ package: PKG, name: 'alpha', entries: [{ name: bundleName(PKG, v), replaces: '', skips: [], skipRange: '' }] }],
      bundles: [genBundle(PKG, v)],
      deprecations: [],
    });
    const got = await fakeResolver({ a: { content: one('1.0.0'), spec: { priority: 1 } }, b: { content: one('1.1.0'), spec: { priority: 0 } } }).resolveBundle(
      buildExtension(PKG, [], ''),
      undefined,
    );
    expect(got.bundle.version).toBe('1.0.0');
    expect(got.catalog).toBe('a');
  });
  it('TestMultiplePriority', async () => {
    const r = fakeResolver({
      a: { content: genPackage(PKG), spec: { priority: 1 } },
      b: { content: genPackage(PKG), spec: { priority: 0 } },
      c: { content: genPackage(PKG), spec: { priority: 1 } },
    });
    const err = await failure(r.resolveBundle(buildExtension(PKG, [], '>=1.0.0 <=1.0.1'), undefined));
    expect(err.message).toBe(`found bundles for package "${PKG}" matching version ">=1.0.0 <=1.0.1" in multiple catalogs with the same priority [a b c]`);
  });
  it('TestAllCatalogsDisabled', async () => {
    const r = fakeResolver({ a: { error: 'getPackage must not be called', spec: { availabilityMode: 'Unavailable' } }, b: { error: 'no', spec: { availabilityMode: 'Unavailable' } } });
    expect((await failure(r.resolveBundle(buildExtension(PKG, [], '>=1.0.0'), undefined))).message).toBe(`no bundles found for package "${PKG}" matching version ">=1.0.0"`);
  });
  it('TestSomeCatalogsDisabled', async () => {
    const r = fakeResolver({
      enabledCatalog: { content: genPackage(PKG), spec: { priority: 1, availabilityMode: 'Available' } },
      disabledCatalog: { error: 'getPackage must not be called', spec: { priority: 0, availabilityMode: 'Unavailable' } },
    });
    expect((await r.resolveBundle(buildExtension(PKG, [], '>=1.0.0'), undefined)).bundle.version).toBe('3.0.0');
  });
  it('the deprecation returned is the winning catalog’s, whatever the walk order', async () => {
    const plain = { ...genPackage(PKG), deprecations: [] };
    const r = fakeResolver({ a: { content: plain, spec: { priority: 1 } }, b: { content: genPackage(PKG), spec: { priority: 0 } } });
    const got = await r.resolveBundle(buildExtension(PKG, [], ''), undefined);
    expect(got.catalog).toBe('a');
    expect(got.deprecation).toBeUndefined();
  });
  it('catalogsExist follows the selector', () => {
    const r = fakeResolver({ a: {}, b: {} });
    const ext = buildExtension(PKG, [], '');
    expect(r.catalogsExist(ext)).toBe(true);
    ext.spec!.source.catalog!.selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': 'z' } };
    expect(r.catalogsExist(ext)).toBe(false);
  });
  it('catalogsExist cannot tell for an invalid selector: it throws, as upstream’s CheckCatalogsExist fails', () => {
    const r = fakeResolver({ a: {} });
    const ext = buildExtension(PKG, [], '');
    ext.spec!.source.catalog!.selector = { matchExpressions: [{ key: 'k', operator: 'In', values: [] }] };
    expect(() => r.catalogsExist(ext)).toThrow(/^invalid catalog selector: /);
  });
});

describe('the chosen bundle', () => {
  it('a bundle declaring a dependency is refused with upstream’s message', async () => {
    const content = { ...genPackage(PKG), bundles: [genBundle(PKG, '1.0.0', [{ type: 'olm.gvk.required', value: { group: 'g', kind: 'K', version: 'v1' } }])] };
    const err = await failure(fakeResolver({ c: { content } }).resolveBundle(buildExtension(PKG, [], ''), undefined));
    expect(err.message).toBe(`validating bundle "${PKG}.v1.0.0": bundle "${PKG}.v1.0.0" has a dependency declared via property "olm.gvk.required" which is currently not supported`);
  });
  it.each(['olm.package.required', 'olm.constraint'])('%s is refused too', async (type) => {
    const content = { ...genPackage(PKG), bundles: [genBundle(PKG, '1.0.0', [{ type, value: {} }])] };
    const err = await failure(fakeResolver({ c: { content } }).resolveBundle(buildExtension(PKG, [], ''), undefined));
    expect(err.message).toContain(`has a dependency declared via property "${type}" which is currently not supported`);
  });
  it('a bundle without an olm.package property fails after being chosen', async () => {
    const content = { ...genPackage(PKG), bundles: [{ name: 'odd', package: PKG, image: 'x', properties: [] }] };
    const err = await failure(fakeResolver({ c: { content } }).resolveBundle(buildExtension(PKG, [], ''), undefined));
    expect(err.message).toBe('error getting resolved bundle version for bundle "odd": no package property found in bundle "odd"');
  });
  it('a bundle without a version sorts below the others', async () => {
    const content = { ...genPackage(PKG), bundles: [{ name: 'odd', package: PKG, image: 'x', properties: [] }, genBundle(PKG, '0.0.1')] };
    expect((await fakeResolver({ c: { content } }).resolveBundle(buildExtension(PKG, [], ''), undefined)).bundle.name).toBe(bundleName(PKG, '0.0.1'));
  });
  it('the release is folded into the version without BundleReleaseSupport, apart with it', async () => {
    const content = { ...genPackage(PKG), bundles: [genBundle(PKG, '1.0.0+2'), genBundle(PKG, '1.0.0+10'), genBundle(PKG, '1.0.0')] };
    const legacy = await fakeResolver({ c: { content } }).resolveBundle(buildExtension(PKG, [], ''), undefined);
    expect([legacy.bundle.name, legacy.bundle.version, legacy.bundle.release]).toEqual([bundleName(PKG, '1.0.0+10'), '1.0.0+10', undefined]);
    const gated = await fakeResolver({ c: { content } }, { bundleReleaseSupport: true }).resolveBundle(buildExtension(PKG, [], ''), undefined);
    expect([gated.bundle.version, gated.bundle.release]).toEqual(['1.0.0', '10']);
  });
  it('an installed version blang cannot parse fails the walk', async () => {
    const err = await failure(onlyC().resolveBundle(buildExtension(PKG, [], ''), { name: 'x', version: '1.0' }));
    expect(err.message).toBe('error walking catalogs: error finding upgrade edges: failed to get version and release of installed bundle: No Major.Minor.Patch elements found');
  });
  it('a catalog with an unparsable skipRange still resolves; the entry gives no edge', async () => {
    const content = genPackage(PKG);
    const broken = {
      ...content,
      channels: [{ package: PKG, name: 'alpha', entries: [{ name: bundleName(PKG, '0.1.0'), replaces: '', skips: [], skipRange: '' }, { name: bundleName(PKG, '1.0.2'), replaces: '', skips: [], skipRange: '>=0.1 <1.0.2' }] }],
    };
    const err = await failure(fakeResolver({ c: { content: broken } }).resolveBundle(buildExtension(PKG, [], '>=1.0.0'), { name: bundleName(PKG, '0.1.0'), version: '0.1.0' }));
    expect(err.message).toBe(`error upgrading from currently installed version "0.1.0": no bundles found for package "${PKG}" matching version ">=1.0.0"`);
    const stay = await fakeResolver({ c: { content: broken } }).resolveBundle(buildExtension(PKG, [], ''), { name: bundleName(PKG, '0.1.0'), version: '0.1.0' });
    expect(stay.bundle.version).toBe('0.1.0');
  });
  it('the BundleResolver seam returns a Resolution', async () => {
    const got = await onlyC().resolve(buildExtension(PKG, [], ''), undefined, new AbortController().signal);
    expect(got.bundle).toEqual({ package: PKG, name: bundleName(PKG, '3.0.0'), version: '3.0.0', image: genBundle(PKG, '3.0.0').image });
    expect(got.catalog).toBe('c');
    expect(got.deprecations).toEqual(packageDeprecation(PKG).entries);
  });
});

describe('explain mode', () => {
  it('says which filter removed each bundle', async () => {
    const err = await failure(onlyC().resolveBundle(buildExtension(PKG, ['beta'], '>=2.0.0'), { name: bundleName(PKG, '0.1.0'), version: '0.1.0' }));
    expect(err.message).toBe(`error upgrading from currently installed version "0.1.0": no bundles found for package "${PKG}" matching version ">=2.0.0" in channels [beta]`);
    const notSucc = `not a successor of installed ${PKG}.v0.1.0 (0.1.0): no replaces, skips or skipRange edge in channels [beta]`;
    expect(formatExplanation(err.explanation!)).toEqual([
      'catalog "a" (priority 0): package "pkg-abcde" not found',
      'catalog "b" (priority 0): package "pkg-abcde" not found',
      'catalog "c" (priority 0): no bundle passed the filters',
      `  ${PKG}.v0.1.0 0.1.0: version 0.1.0 does not satisfy range ">=2.0.0"`,
      // With channels named, upgrade edges only come from them: alpha's skipRanges do not count.
      `  ${PKG}.v1.0.0 1.0.0 (deprecated): not in channels [beta]; version 1.0.0 does not satisfy range ">=2.0.0"; ${notSucc}`,
      `  ${PKG}.v1.0.1 1.0.1 (deprecated): not in channels [beta]; version 1.0.1 does not satisfy range ">=2.0.0"; ${notSucc}`,
      `  ${PKG}.v1.0.2 1.0.2: version 1.0.2 does not satisfy range ">=2.0.0"`,
      `  ${PKG}.v2.0.0 2.0.0: not in channels [beta]; ${notSucc}`,
      `  ${PKG}.v3.0.0 3.0.0: not in channels [beta]; ${notSucc}`,
    ]);
  });
  it('shows outranked bundles, priority and ambiguity', async () => {
    const r = fakeResolver({
      a: { content: genPackage(PKG), spec: { priority: 1 } },
      b: { content: genPackage(PKG), spec: { priority: 0 } },
      c: { content: genPackage(PKG), spec: { priority: 1 } },
      d: { content: genPackage(PKG), spec: { availabilityMode: 'Unavailable' } },
    });
    const err = await failure(r.resolveBundle(buildExtension(PKG, [], '>=1.0.0 <=1.0.1'), undefined));
    const lines = formatExplanation(err.explanation!);
    expect(lines[0]).toBe(`catalog "a" (priority 1): candidate ${PKG}.v1.0.1, dropped: same priority as [b c]: ambiguous`);
    expect(lines).toContain(`  ${PKG}.v1.0.0 1.0.0 (deprecated): lower than ${PKG}.v1.0.1`);
    expect(lines).toContain(`  ${PKG}.v1.0.1 1.0.1 (deprecated): best in catalog`);
    expect(lines.at(-1)).toBe('catalog "d" (priority 0): skipped, availabilityMode is Unavailable');
  });
  it('on success the explanation names the choice and the lower-priority catalogs', async () => {
    const r = fakeResolver({ a: { content: genPackage(PKG), spec: { priority: 0 } }, b: { content: genPackage(PKG), spec: { priority: 5 } } });
    const got = await r.resolveBundle(buildExtension(PKG, [], ''), { name: bundleName(PKG, '1.0.2'), version: '1.0.2' });
    const lines = formatExplanation(got.explanation);
    expect(lines).toContain(`catalog "a" (priority 0): candidate ${PKG}.v2.0.0, dropped: lower priority than catalog "b" (priority 5)`);
    expect(lines).toContain(`catalog "b" (priority 5): chosen ${PKG}.v2.0.0`);
    expect(lines).toContain(`  ${PKG}.v2.0.0 2.0.0: best in catalog [skipRange ">=1.0.0 <2.0.0" includes installed, channel alpha]`);
    expect(lines).toContain(`  ${PKG}.v1.0.2 1.0.2: lower than ${PKG}.v2.0.0 [installed version]`);
  });
  it('a deprecated best bundle loses to a non-deprecated one in another catalog', async () => {
    const depOnly = { ...genPackage(PKG), bundles: [genBundle(PKG, '1.0.1')] };
    const r = fakeResolver({ x: { content: depOnly }, y: { content: { ...genPackage(PKG), bundles: [genBundle(PKG, '0.1.0')] } } });
    const got = await r.resolveBundle(buildExtension(PKG, [], ''), undefined);
    expect(got.catalog).toBe('y');
    expect(formatExplanation(got.explanation)[0]).toBe(`catalog "x" (priority 0): candidate ${PKG}.v1.0.1, dropped: its best bundle is deprecated and non-deprecated bundles exist in [y]`);
  });
  it('a deprecated bundle loses to a lower non-deprecated one; unreadable versions are named', async () => {
    const content = { ...genPackage(PKG), bundles: [...genPackage(PKG).bundles, { name: 'odd', package: PKG, image: 'x', properties: [] }] };
    const got = await fakeResolver({ c: { content } }).resolveBundle(buildExtension(PKG, [], '>=0.1.0 <=1.0.0'), undefined);
    expect(got.bundle.name).toBe(bundleName(PKG, '0.1.0'));
    const lines = formatExplanation(got.explanation);
    expect(lines).toContain(`  ${PKG}.v1.0.0 1.0.0 (deprecated): deprecated, lost to non-deprecated ${PKG}.v0.1.0`);
    expect(lines).toContain(
      '  odd (no version): version unreadable: no package property found in bundle "odd"',
    );
  });
  it('a catalog that cannot be read is named', async () => {
    const err = await failure(
      fakeResolver({ a: { content: EMPTY }, b: { error: 'catalog "b" is not being served', served: false } }).resolveBundle(buildExtension(PKG, [], ''), undefined),
    );
    expect(err.message).toBe(`error walking catalogs: error getting package "${PKG}" from catalog "b": catalog "b" is not being served`);
    // the condition keeps upstream's text; the explanation names the catalog and the two ways out
    expect(formatExplanation(err.explanation!)).toEqual([
      `catalog "a" (priority 0): package "${PKG}" not found`,
      'catalog "b" (priority 0): error: catalog "b" is not being served',
      '  a selected catalog that is not served blocks resolution, so a lower-priority catalog cannot win by accident: fix its source (kubectl get clustercatalog b -o yaml), or set spec.availabilityMode: Unavailable on it to leave it out',
    ]);
  });
  it('lists unselected catalogs', async () => {
    const ext = buildExtension(PKG, [], '');
    ext.spec!.source.catalog!.selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': 'b' } };
    const r = new CatalogResolver({ listCatalogs: () => [catalogObject('a'), catalogObject('b')], content: { getPackage: () => Promise.resolve(EMPTY) } });
    const err = await failure(r.resolveBundle(ext, undefined));
    expect(formatExplanation(err.explanation!)).toEqual([
      'catalog "a" (priority 0): not selected by spec.source.catalog.selector',
      `catalog "b" (priority 0): package "${PKG}" not found`,
    ]);
  });
});
