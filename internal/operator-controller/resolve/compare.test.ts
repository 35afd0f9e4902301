// Upstream catalogmetadata/compare/compare_test.go as data.
import { describe, expect, it } from 'vitest';
import { parseBlang } from '../../shared/semver/index.ts';
import { byVersionAndRelease, deprecatedBundleNames, newVersionRange } from './compare.ts';
import { tryVersionAndRelease } from './version-release.ts';

describe('newVersionRange (TestNewVersionRange)', () => {
  it.each([
    { name: 'version without build metadata matches range with build metadata', range: '1.0.0+1', version: '1.0.0', want: true },
    { name: 'version with different build metadata matches range with build metadata', range: '1.0.0+1', version: '1.0.0+2', want: true },
    { name: 'version with same build metadata matches range with build metadata', range: '1.0.0+1', version: '1.0.0+1', want: true },
    { name: 'exact version match without build metadata', range: '1.0.0', version: '1.0.0', want: true },
    { name: 'version with build metadata matches range without build metadata', range: '1.0.0', version: '1.0.0+1', want: true },
    { name: 'version does not match range', range: '>=2.0.0', version: '1.0.0', want: false },
    { name: 'a prerelease needs a prerelease in the range', range: '>=1.0.0', version: '1.5.0-alpha', want: false },
    { name: 'Masterminds operators', range: '~1.2.3', version: '1.2.9', want: true },
  ])('$name', ({ range, version, want }) => {
    expect(newVersionRange(range)(parseBlang(version))).toBe(want);
  });
  it('invalid range returns error', () => {
    expect(() => newVersionRange('not-a-valid-version')).toThrow('improper constraint: "not-a-valid-version"');
  });
});

const bundle = (name: string, value?: unknown) => ({ name, properties: value === undefined ? [] : [{ type: 'olm.package', value }] });

describe('byVersionAndRelease (TestByVersionAndRelease)', () => {
  const b1 = bundle('package1.v1.0.0', { packageName: 'package1', version: '1.0.0' });
  const b2 = bundle('package1.v0.0.1', { packageName: 'package1', version: '0.0.1' });
  const b31 = bundle('package1.v1.0.0-alpha+1', { packageName: 'package1', version: '1.0.0-alpha+1' });
  const b32 = bundle('package1.v1.0.0-alpha+2', { packageName: 'package1', version: '1.0.0-alpha+2' });
  const b4 = bundle('package1.no-version', { packageName: 'package1' });
  const b5 = bundle('package1.empty');
  const sort = (bs: (typeof b1)[]) =>
    bs
      .map((b) => ({ b, vr: tryVersionAndRelease(b) }))
      .sort((x, y) => byVersionAndRelease(x.vr, y.vr))
      .map((x) => x.b.name);

  it('all bundles valid', () => {
    expect(sort([b31, b2, b32, b1])).toEqual([b1, b32, b31, b2].map((b) => b.name));
  });
  it('some bundles are missing version', () => {
    expect(sort([b31, b4, b2, b32, b5, b1])).toEqual([b1, b32, b31, b2, b4, b5].map((b) => b.name));
  });
});

describe('deprecatedBundleNames (what TestByDeprecationFunc orders by)', () => {
  const names = deprecatedBundleNames({
    package: '',
    entries: [
      { reference: { schema: 'olm.bundle', name: 'a' }, message: '' },
      { reference: { schema: 'olm.bundle', name: 'b' }, message: '' },
      { reference: { schema: 'olm.channel', name: 'c' }, message: '' },
    ],
  });
  it.each([
    ['a', true],
    ['b', true],
    ['c', false],
    ['d', false],
  ])('%s deprecated: %s', (name, want) => {
    expect(names.has(name)).toBe(want);
  });
  it('no deprecation blob: none', () => {
    expect(deprecatedBundleNames(undefined).size).toBe(0);
  });
});
