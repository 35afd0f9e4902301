// Upstream bundleutil/bundle_test.go (TestGetVersionAndRelease, with and without the
// BundleReleaseSupport gate, and TestMetadataFor) and declcfg's release rules, as data.
import { describe, expect, it } from 'vitest';
import { formatVersion } from '../../shared/semver/index.ts';
import {
  bundleMetadataVersion,
  compareRelease,
  getVersionAndRelease,
  installedVersionRelease,
  parseLegacyVersionRelease,
  parseRelease,
  type VersionRelease,
} from './version-release.ts';

const pkgProp = (value: unknown) => [{ type: 'olm.package', value }];
const shape = (vr: VersionRelease) => ({ version: formatVersion(vr.version), release: vr.release });

describe('getVersionAndRelease (bundle_test.go)', () => {
  it.each<{ name: string; value?: unknown; want?: { version: string; release: readonly string[] | undefined }; error?: string }>([
    { name: 'valid version', value: { version: '1.0.0-pre+1.alpha.2' }, want: { version: '1.0.0-pre', release: ['1', 'alpha', '2'] } },
    { name: 'invalid version', value: { version: 'abcd' }, error: 'No Major.Minor.Patch elements found' },
    { name: 'invalid release - build metadata with leading zeros', value: { version: '1.0.0+001' }, want: { version: '1.0.0+001', release: undefined } },
    { name: 'invalid json', value: 'abcd', error: 'error unmarshalling package property: json: cannot unmarshal string into Go value of type property.Package' },
    { name: 'no version property', error: 'no package property found in bundle "test-bundle"' },
    { name: 'gate disabled ignores an explicit release', value: { version: '1.0.0+2', release: '999' }, want: { version: '1.0.0', release: ['2'] } },
    { name: 'missing version', value: { packageName: 'foo' }, error: 'Version string empty' },
    {
      name: 'build metadata over 20 characters is not a release',
      value: { version: '1.0.0+123456789.123456789.1' },
      want: { version: '1.0.0+123456789.123456789.1', release: undefined },
    },
  ])('$name', ({ value, want, error }) => {
    const bundle = { name: 'test-bundle', properties: value === undefined ? [] : pkgProp(value) };
    if (error !== undefined) {
      expect(() => getVersionAndRelease(bundle)).toThrow(error);
      return;
    }
    expect(shape(getVersionAndRelease(bundle))).toEqual(want);
  });
});

describe('getVersionAndRelease with BundleReleaseSupport', () => {
  const opts = { bundleReleaseSupport: true };
  it.each<{ name: string; value: unknown; want?: { version: string; release: readonly string[] | undefined }; error?: string }>([
    { name: 'explicit release field - takes precedence over build metadata', value: { version: '1.0.0+ignored', release: '2' }, want: { version: '1.0.0+ignored', release: ['2'] } },
    { name: 'explicit release field - complex release', value: { version: '2.1.0', release: '1.alpha.3' }, want: { version: '2.1.0', release: ['1', 'alpha', '3'] } },
    {
      name: 'explicit release field - invalid release',
      value: { version: '1.0.0', release: '001' },
      error: 'error parsing release "001": invalid release "001": segment 0: Numeric PreRelease version must not contain leading zeroes "001"',
    },
    { name: 'explicit empty release - preserves build metadata in version', value: { version: '1.0.0+2', release: '' }, want: { version: '1.0.0+2', release: [] } },
    { name: 'no release key falls back to the legacy rule', value: { version: '1.0.0+2' }, want: { version: '1.0.0', release: ['2'] } },
    { name: 'invalid version', value: { version: '1.0', release: '1' }, error: 'error parsing version "1.0": No Major.Minor.Patch elements found' },
  ])('$name', ({ value, want, error }) => {
    const bundle = { name: 'test-bundle', properties: pkgProp(value) };
    if (error !== undefined) {
      expect(() => getVersionAndRelease(bundle, opts)).toThrow(error);
      return;
    }
    expect(shape(getVersionAndRelease(bundle, opts))).toEqual(want);
  });
});

describe('parseRelease (declcfg.NewRelease)', () => {
  it.each([
    ['', undefined],
    ['2', ['2']],
    ['1.alpha.3', ['1', 'alpha', '3']],
    ['a-b', ['a-b']],
  ])('%j', (s, want) => {
    expect(parseRelease(s)).toEqual(want);
  });
  it.each([
    ['01', 'invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01"'],
    ['1..2', 'invalid release "1..2": segment 1: Prerelease is empty'],
    ['a_b.0x', 'invalid release "a_b.0x": segment 0: Invalid character(s) found in prerelease "a_b"'],
    ['1.01.x_y', 'invalid release "1.01.x_y": segment 1: Numeric PreRelease version must not contain leading zeroes "01"\nsegment 2: Invalid character(s) found in prerelease "x_y"'],
    ['123456789012345678901', 'invalid release "123456789012345678901": exceeds maximum length of 20 characters'],
  ])('%j fails', (s, message) => {
    expect(() => parseRelease(s)).toThrow(message);
  });
});

describe('compareRelease (declcfg.Release.Compare)', () => {
  it.each<[readonly string[] | undefined, readonly string[] | undefined, number]>([
    [undefined, undefined, 0],
    [undefined, [], 0],
    [undefined, ['1'], -1],
    [['1'], undefined, 1],
    [['2'], ['10'], -1],
    [['10'], ['alpha'], -1],
    [['alpha'], ['beta'], -1],
    [['1'], ['1', '0'], -1],
    [['1', 'a'], ['1', 'a'], 0],
  ])('%j vs %j', (a, b, want) => {
    expect(compareRelease(a, b)).toBe(want);
  });
});

describe('bundleMetadataVersion (TestMetadataFor)', () => {
  const vr = (release: readonly string[] | undefined): VersionRelease => ({ version: parseLegacyVersionRelease('1.0.0').version, release });
  it.each<{ name: string; gate: boolean; release: readonly string[] | undefined; want: { version: string; release?: string } }>([
    { name: 'gate on, with release', gate: true, release: ['2'], want: { version: '1.0.0', release: '2' } },
    { name: 'gate on, without release', gate: true, release: undefined, want: { version: '1.0.0' } },
    { name: 'gate on, explicit empty release', gate: true, release: [], want: { version: '1.0.0', release: '' } },
    { name: 'gate off reconstitutes build metadata', gate: false, release: ['2'], want: { version: '1.0.0+2' } },
    { name: 'gate off without release', gate: false, release: undefined, want: { version: '1.0.0' } },
  ])('$name', ({ gate, release, want }) => {
    expect(bundleMetadataVersion(vr(release), { bundleReleaseSupport: gate })).toEqual(want);
  });
  it('keeps non-release build metadata without the gate', () => {
    expect(bundleMetadataVersion(parseLegacyVersionRelease('1.0.0+001'))).toEqual({ version: '1.0.0+001' });
  });
});

describe('installedVersionRelease (successors.go parseInstalledBundleVersionRelease)', () => {
  it.each<{ name: string; installed: { version: string; release?: string }; want?: { version: string; release: readonly string[] | undefined }; error?: string }>([
    { name: 'legacy release in build metadata', installed: { version: '2.0.0+1' }, want: { version: '2.0.0', release: ['1'] } },
    { name: 'explicit release keeps build', installed: { version: '2.0.0+git.abc', release: '3' }, want: { version: '2.0.0+git.abc', release: ['3'] } },
    { name: 'explicit empty release', installed: { version: '2.0.0+1', release: '' }, want: { version: '2.0.0+1', release: [] } },
    { name: 'legacy invalid version', installed: { version: 'v1' }, error: 'failed to get version and release of installed bundle: No Major.Minor.Patch elements found' },
    { name: 'explicit invalid version', installed: { version: 'x', release: '1' }, error: 'failed to parse installed bundle version "x": No Major.Minor.Patch elements found' },
    {
      name: 'explicit invalid release',
      installed: { version: '1.0.0', release: '01' },
      error: 'failed to parse installed bundle release "01": invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01"',
    },
  ])('$name', ({ installed, want, error }) => {
    if (error !== undefined) {
      expect(() => installedVersionRelease(installed)).toThrow(error);
      return;
    }
    expect(shape(installedVersionRelease(installed))).toEqual(want);
  });
});
