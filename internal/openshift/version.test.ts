// Upstream's tables: operator-lifecycle-manager pkg/controller/operators/openshift helpers_test.go (classic) and
// cluster-olm-operator internal/versionutils version_utils_test.go (v1).
import { describe, expect, it } from 'vitest';
import { formatVersion, parseTolerant } from '../shared/semver/index.ts';
import {
  classicBlockingMessage,
  classicBlocks,
  classicMaxOpenShiftVersion,
  classicReleaseVersion,
  formatMinor,
  nextMinor,
  nextY,
  normalize,
  v1AllowedVersion,
  v1BlockingMessage,
  v1Compatible,
  v1CurrentMinor,
  v1NextMinorText,
  type ClassicSkew,
} from './version.ts';

const prop = (value: string) => ({ type: 'olm.maxOpenShiftVersion', value });

describe('next minor and normalization (TestOCPVersionNextY, TestNormalizeOCPVersion)', () => {
  it.each([
    ['4.16.0', '4.17'],
    ['4.16.0-rc1', '4.17'],
    ['4.23.0', '4.24'],
    ['5.0.0', '5.1'],
  ])('nextY(%s) = %s (raw, no 4.23 mapping)', (v, want) => {
    expect(formatMinor(nextY(parseTolerant(v)))).toBe(want);
  });

  it.each([
    ['4.22.0', '4.22'],
    ['4.22.0-rc1', '4.22'],
    ['4.23.0', '5.0'],
    ['5.0.0', '5.0'],
    ['5.1.0', '5.1'],
    ['4.23.0-rc1', '5.0'],
  ])('normalize(%s) = %s', (v, want) => {
    expect(formatMinor(normalize(parseTolerant(v)))).toBe(want);
  });

  it.each([
    ['4.22.3', '4.23'],
    ['4.23.0', '5.1'],
    ['5.0.1', '5.1'],
  ])('a cluster at %s upgrades to %s', (v, want) => {
    expect(formatMinor(nextMinor(parseTolerant(v)))).toBe(want);
  });
});

describe('classic: RELEASE_VERSION', () => {
  it('missing, empty or invalid: upstream’s messages', () => {
    expect(() => classicReleaseVersion(undefined)).toThrow(/^desired release version missing from RELEASE_VERSION env variable$/);
    expect(() => classicReleaseVersion('')).toThrow(/^desired release version missing from RELEASE_VERSION env variable$/);
    expect(() => classicReleaseVersion('garbage')).toThrow(/^cluster version has invalid desired release version: /);
    expect(formatVersion(classicReleaseVersion('1.0.0+cluster'))).toBe('1.0.0+cluster');
  });
});

describe('classic: maxOpenShiftVersion (TestMaxOpenShiftVersion)', () => {
  it('none ⇒ undefined; quoted and bare values; major.minor only', () => {
    expect(classicMaxOpenShiftVersion([])).toBeUndefined();
    expect(classicMaxOpenShiftVersion([{ type: 'olm.package', value: '{}' }])).toBeUndefined();
    expect(formatVersion(classicMaxOpenShiftVersion([prop('"1.0.0"')])!)).toBe('1.0.0');
    expect(formatVersion(classicMaxOpenShiftVersion([prop('4.8')])!)).toBe('4.8.0');
    expect(formatVersion(classicMaxOpenShiftVersion([prop('"1.1.0+build"')])!)).toBe('1.1.0+build');
  });

  it.each([
    ['""', 'value cannot be "" (an empty string)'],
    ['"bad_version"', /^failed to parse "bad_version" as semver: /],
    ['"4.8.1"', 'property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 4.8.1'],
    ['"1.1.0-pre"', 'property olm.maxOpenShiftVersion must specify only <major>.<minor> version, got invalid value 1.1.0-pre'],
  ])('%s is refused', (value, message) => {
    expect(() => classicMaxOpenShiftVersion([prop(value)])).toThrow(message);
  });

  it('two properties are refused', () => {
    expect(() => classicMaxOpenShiftVersion([prop('"1.0"'), prop('"2.0"')])).toThrow('defining more than one "olm.maxOpenShiftVersion" property is not allowed');
  });
});

describe('classic: which CSVs block (TestIncompatibleOperators)', () => {
  const blocks = (cluster: string, max: string): boolean => classicBlocks(classicMaxOpenShiftVersion([prop(JSON.stringify(max))])!, nextMinor(parseTolerant(cluster)));
  it.each([
    ['Compatible', '1.0.0', ['1.1.0', '1.1.0+build', '2.0.0'], []],
    ['Incompatible', '1.0.0', ['1.0.0', '1.0.0+build', '0.1.0'], ['1.0.0', '1.0.0+build', '0.1.0']],
    ['ClusterZ', '1.0.1', ['1.1'], []],
    ['ClusterPre', '1.1.0-pre', ['1.1.0'], ['1.1.0']],
    ['OCP4.22', '4.22.0', ['4.23', '5.0', '5.1'], []],
    ['OCP4.23', '4.23.0', ['4.23', '5.0', '5.1'], ['4.23', '5.0']],
    ['OCP5.0', '5.0.0', ['4.23', '5.0', '5.1'], ['4.23', '5.0']],
    ['OCP5.1', '5.1.0', ['4.23', '5.0', '5.1'], ['4.23', '5.0', '5.1']],
  ])('%s: cluster %s', (_name, cluster, maxes, blocking) => {
    expect(maxes.filter((m) => blocks(cluster, m))).toEqual(blocking);
  });

  it('the Upgradeable message: header, error lines in list order, then blockers in reverse list order', () => {
    const skews: ClassicSkew[] = [
      { namespace: 'a', name: 'one', max: parseTolerant('1.0.0+build') },
      { namespace: 'b', name: 'bad', error: 'value cannot be "" (an empty string)' },
      { namespace: 'c', name: 'two', max: parseTolerant('4.22') },
      { namespace: 'd', name: 'worse', error: 'defining more than one "olm.maxOpenShiftVersion" property is not allowed' },
    ];
    expect(classicBlockingMessage(skews)).toBe(
      [
        'ClusterServiceVersions blocking minor version upgrades to 4.23 or major version upgrades to 5.0:',
        '- b/bad has invalid olm.maxOpenShiftVersion properties: value cannot be "" (an empty string)',
        '- d/worse has invalid olm.maxOpenShiftVersion properties: defining more than one "olm.maxOpenShiftVersion" property is not allowed',
        '- maximum supported OCP version for c/two is 4.22',
        '- maximum supported OCP version for a/one is 1.0',
      ].join('\n'),
    );
  });
});

describe('v1: ToAllowedSemver (TestToAllowedSemver)', () => {
  it.each([
    ['4.18', '4.18.0'],
    ['4.19', '4.19.0'],
    ['"4.18"', '4.18.0'],
    ['5.0', '5.0.0'],
    ['"5.0"', '5.0.0'],
    ['"5.1"', '5.1.0'],
  ])('%s → %s', (raw, want) => {
    expect(formatVersion(v1AllowedVersion(raw))).toBe(want);
  });

  it.each([
    ['4.19e1', 'invalid semver format "4.19e1": expected <major>.<minor>'],
    ['4.18.0', /./],
    ['"4.18.0"', 'invalid version format'],
    ['"v4.18"', 'invalid version format'],
    ['"v4.18.0"', 'invalid version format'],
    ['5.00', 'invalid semver format "5.00": expected <major>.<minor>'],
    ['true', 'invalid type bool for olm.maxOpenshiftVersion: true'],
  ])('%s is refused', (raw, message) => {
    expect(() => v1AllowedVersion(raw)).toThrow(message);
  });
});

describe('v1: compatibility (TestIsOperatorMaxOCPVersionCompatibleWithCluster) and the next version', () => {
  it.each([
    ['4.18', '4.17.0', true],
    ['4.18', '4.18.0', false],
    ['4.18', '4.19.0', false],
    ['4.23', '4.22.0', true],
    ['4.23', '4.23.0', false],
    ['5.0', '4.23.0', false],
    ['5.1', '4.23.0', true],
    ['4.23', '5.0.0', false],
    ['5.0', '5.0.0', false],
    ['5.1', '5.0.0', true],
    ['4.23', '5.1.0', false],
    ['5.0', '5.1.0', false],
    ['5.1', '5.1.0', false],
  ])('max %s on a cluster at %s: compatible %s', (max, cluster, want) => {
    expect(v1Compatible(v1AllowedVersion(`"${max}"`), v1CurrentMinor(cluster))).toBe(want);
  });

  it('the current minor ignores patch, prerelease and build; RELEASE_VERSION is parsed strictly', () => {
    expect(formatVersion(v1CurrentMinor('4.17.3-rc.1+abc'))).toBe('4.17.0');
    expect(() => v1CurrentMinor('4.17')).toThrow();
  });

  it.each([
    ['4.22.0', '4.23'],
    ['4.23.0', '5.1'],
    ['5.0.0', '5.1'],
    ['5.1.0', '5.2'],
  ])('NextOCPMinorVersion(%s) = %s', (cluster, want) => {
    expect(v1NextMinorText(v1CurrentMinor(cluster))).toBe(want);
  });

  it('the Upgradeable message lists the blocking extensions sorted', () => {
    expect(
      v1BlockingMessage(v1CurrentMinor('4.22.1'), [
        { bundle: 'zeta.v1.0.0', extension: 'zeta' },
        { bundle: 'demo-operator.v0.1.0', extension: 'demo-operator' },
      ]),
    ).toBe(
      'Found ClusterExtensions that require upgrades prior to upgrading cluster to version 4.23: bundle "demo-operator.v0.1.0" for ClusterExtension "demo-operator",bundle "zeta.v1.0.0" for ClusterExtension "zeta".',
    );
  });
});
