import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BlangError, compareVersions, formatVersion, parseBlang, parseBlangRange, parseTolerant } from './index.ts';
import type { Version } from './index.ts';
// Internal steps of blang's ParseRange, imported by path so upstream's unit tables can be replayed.
import {
  bumpPart,
  buildBlangComparison,
  comparisonHolds,
  expandBlangWildcard,
  flattenWildcard,
  splitBlangComparator,
  splitBlangOrGroups,
  tokenizeBlangRange,
  wildcardKind,
} from './blang.ts';
import type { Op } from './blang.ts';

const load = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`./testdata/${name}`, import.meta.url), 'utf8')) as T;

type VersionRow = [string, number, number, number, string[], string[]];
interface SemverFixture {
  format: VersionRow[];
  tolerantFormat: VersionRow[];
  compare: [string, string, number][];
  wrongFormat: string[];
  wrongTolerantFormat: string[];
  mustParse: string;
  mustParsePanic: string;
}
interface RangeFixture {
  parseComparator: [string, Op | null][];
  splitAndTrim: [string, string[]][];
  splitComparatorVersion: [string, [string, string] | null][];
  buildVersionRange: [string, string, Op | null, string][];
  splitORParts: [string[], string[][] | null][];
  getWildcardType: [string, string][];
  createVersionFromWildcard: [string, string][];
  incrementMajorVersion: [string, string][];
  incrementMinorVersion: [string, string][];
  expandWildcardVersion: [string[][], string[][] | null][];
  parseRange: { range: string; cases: [string, boolean][] | null }[];
  mustParseRange: { range: string; version: string };
  mustParseRangePanic: string;
}

const semverData = load<SemverFixture>('blang-semver.json');
const rangeData = load<RangeFixture>('blang-range.json');

const fields = (v: Version) => [v.major, v.minor, v.patch, v.prerelease, v.build];
const blangError = (f: () => unknown): BlangError => {
  try {
    f();
  } catch (e) {
    if (e instanceof BlangError) return e;
    throw e;
  }
  throw new Error('expected a BlangError');
};

describe('blang Parse (semver_test.go)', () => {
  it.each(semverData.format)('parses %j', (s, ...want) => {
    const v = parseBlang(s);
    expect(fields(v)).toEqual(want);
    expect(formatVersion(v)).toBe(s); // TestStringer
  });

  it.each(semverData.compare)('compares %s with %s', (a, b, want) => {
    expect(compareVersions(parseBlang(a), parseBlang(b))).toBe(want);
    expect(compareVersions(parseBlang(b), parseBlang(a))).toBe(-want || 0);
  });

  it.each(semverData.wrongFormat.map((s) => [s]))('rejects %j', (s) => {
    expect(blangError(() => parseBlang(s)).code).toBe('BLANG_INVALID_VERSION');
  });

  it('MustParse vectors', () => {
    expect(() => parseBlang(semverData.mustParse)).not.toThrow();
    expect(() => parseBlang(semverData.mustParsePanic)).toThrow(BlangError);
  });

  it.each([
    ['', 'Version string empty'],
    ['1.0', 'No Major.Minor.Patch elements found'],
    ['.1', 'No Major.Minor.Patch elements found'],
    ['a.b.c', 'Invalid character(s) found in major number "a"'],
    ['1.a.b', 'Invalid character(s) found in minor number "a"'],
    ['1.1.a', 'Invalid character(s) found in patch number "a"'],
    ['v1.0.0', 'Invalid character(s) found in major number "v1"'],
    ['1.0.0,', 'Invalid character(s) found in patch number "0,"'],
    ['1.0.0\t<2', 'Invalid character(s) found in patch number "0\\t<2"'],
    ['01.1.1', 'Major number must not contain leading zeroes "01"'],
    ['1.01.1', 'Minor number must not contain leading zeroes "01"'],
    ['1.1.01', 'Patch number must not contain leading zeroes "01"'],
    ['..', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['1.1.+123', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['20000000000000000000.1.1', 'strconv.ParseUint: parsing "20000000000000000000": value out of range'],
    ['1.1.1-20000000000000000000', 'strconv.ParseUint: parsing "20000000000000000000": value out of range'],
    ['1.1.1-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['0.0.0-!', 'Invalid character(s) found in prerelease "!"'],
    ['0.0.0+!', 'Invalid character(s) found in build meta data "!"'],
    ['0.0.0-.alpha', 'Prerelease is empty'],
    ['0.0.0-alpha+', 'Build meta data is empty'],
    ['0.0.0-alpha+test.', 'Build meta data is empty'],
    ['1.2.3-ü', 'Invalid character(s) found in prerelease "ü"'],
    ['1.2.3-\u00a0', 'Invalid character(s) found in prerelease "\\u00a0"'],
  ])('Parse(%j) fails with blang\'s message', (s, message) => {
    expect(blangError(() => parseBlang(s)).message).toBe(message);
  });

  it('accepts uint64 maximum and keeps raw input', () => {
    // accepted like Go's uint64; as a JS number it rounds (documented limitation)
    expect(parseBlang('18446744073709551615.0.0').major).toBe(2 ** 64);
    expect(parseBlang('1.2.3-rc.1+b').raw).toBe('1.2.3-rc.1+b');
  });
});

describe('blang ParseTolerant (semver_test.go)', () => {
  it.each(semverData.tolerantFormat)('parses %j', (s, ...want) => {
    expect(fields(parseTolerant(s))).toEqual(want);
  });

  it.each(semverData.wrongTolerantFormat.map((s) => [s]))('rejects %j', (s) => {
    expect(blangError(() => parseTolerant(s)).code).toBe('BLANG_INVALID_VERSION');
  });

  it.each([
    ['v1.2', '1.2.0'],
    ['01.02.03', '1.2.3'],
    ['1', '1.0.0'],
    ['\u00851.2.3\u3000', '1.2.3'], // Go's TrimSpace set (U+0085 and U+3000 are spaces)
    ['v1.2.3-rc.01x+build', '1.2.3-rc.01x+build'],
  ])('ParseTolerant(%j) = %s', (s, want) => {
    expect(formatVersion(parseTolerant(s))).toBe(want);
  });

  it.each([
    ['V2.0.0', 'Invalid character(s) found in major number "0V2"'], // only a lowercase v is stripped
    ['\ufeff1.0.0', 'Invalid character(s) found in major number "0\\ufeff1"'], // U+FEFF is not a Go space
    ['1.2-rc', 'Short version cannot contain PreRelease/Build meta data'],
    ['1.0+abc', 'Short version cannot contain PreRelease/Build meta data'],
    ['1.0-rc.1', 'Invalid character(s) found in minor number "0-rc"'], // three dot parts, so not "short"
    ['', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['1.2.3.4', 'Invalid character(s) found in patch number "3.4"'],
  ])('ParseTolerant(%j) fails with %s', (s, message) => {
    expect(blangError(() => parseTolerant(s)).message).toBe(message);
  });
});

describe('blang range internals (range_test.go)', () => {
  const v122 = parseBlang('1.2.2');
  const v123 = parseBlang('1.2.3');
  const v124 = parseBlang('1.2.4');
  const holds = (op: Op, a: Version, b: Version): boolean => comparisonHolds({ op, version: b }, a);
  // upstream's testEQ / testNE / testGT / testGE / testLT / testLE
  const behaves: Record<Op, () => boolean> = {
    eq: () => holds('eq', v122, v122) && !holds('eq', v122, v123),
    ne: () => !holds('ne', v122, v122) && holds('ne', v122, v123),
    gt: () => holds('gt', v123, v122) && holds('gt', v124, v123) && !holds('gt', v122, v123) && !holds('gt', v122, v122),
    ge: () => holds('ge', v123, v122) && holds('ge', v124, v123) && !holds('ge', v122, v123),
    lt: () => holds('lt', v122, v123) && holds('lt', v123, v124) && !holds('lt', v123, v122) && !holds('lt', v122, v122),
    le: () => holds('le', v122, v123) && holds('le', v123, v124) && !holds('le', v123, v122),
  };

  it.each(rangeData.parseComparator)('parseComparator(%j) is %s', (op, want) => {
    if (want === null) {
      expect(() => buildBlangComparison(op, '1.2.3')).toThrow(`Could not parse comparator`);
      return;
    }
    const c = buildBlangComparison(op, '1.2.3');
    expect(c.op).toBe(want);
    expect(behaves[want]()).toBe(true);
  });

  it.each(rangeData.splitAndTrim)('splitAndTrim(%j)', (s, want) => {
    expect(tokenizeBlangRange(s)).toEqual(want);
  });

  it.each(rangeData.splitComparatorVersion)('splitComparatorVersion(%j)', (s, want) => {
    if (want === null) {
      expect(() => splitBlangComparator(s)).toThrow(`Could not get version from string: "${s}"`);
    } else {
      expect(splitBlangComparator(s)).toEqual({ op: want[0], version: want[1] });
    }
  });

  it.each(rangeData.buildVersionRange)('buildVersionRange(%j, %j)', (op, v, wantOp, wantV) => {
    if (wantOp === null) {
      expect(() => buildBlangComparison(op, v)).toThrow(BlangError);
      return;
    }
    const c = buildBlangComparison(op, v);
    expect(c.op).toBe(wantOp);
    expect(compareVersions(c.version, parseBlang(wantV))).toBe(0);
    expect(behaves[c.op]()).toBe(true);
  });

  it.each(rangeData.splitORParts)('splitORParts(%j)', (tokens, want) => {
    if (want === null) expect(() => splitBlangOrGroups(tokens)).toThrow(BlangError);
    else expect(splitBlangOrGroups(tokens)).toEqual(want);
  });

  it.each(rangeData.getWildcardType)('getWildcardType(%j) is %s', (s, want) => {
    expect(wildcardKind(s)).toBe(want);
  });

  it.each(rangeData.createVersionFromWildcard)('createVersionFromWildcard(%j) is %s', (s, want) => {
    expect(flattenWildcard(s)).toBe(want);
  });

  it.each(rangeData.incrementMajorVersion)('incrementMajorVersion(%j) is %j', (s, want) => {
    expect(bumpPart(s, 0) ?? '').toBe(want);
  });

  it.each(rangeData.incrementMinorVersion)('incrementMinorVersion(%j) is %j', (s, want) => {
    expect(bumpPart(s, 1) ?? '').toBe(want);
  });

  it.each(rangeData.expandWildcardVersion)('expandWildcardVersion(%j)', (groups, want) => {
    const expand = () => groups.map((g) => g.flatMap(expandBlangWildcard));
    if (want === null) expect(expand).toThrow('Could not get version from string: "foox"');
    else expect(expand()).toEqual(want);
  });
});

describe('blang ParseRange (range_test.go TestParseRange)', () => {
  const checked = rangeData.parseRange.filter((r) => r.cases !== null);
  const rows = checked.flatMap((r) => (r.cases ?? []).map(([v, want]) => [r.range, v, want] as const));

  it.each(rows)('%j matches %s: %s', (range, v, want) => {
    expect(parseBlangRange(range)(parseBlang(v))).toBe(want);
  });

  // Upstream lists these under "Simple Expression errors" but asserts nothing for them (t == nil).
  // All fail to parse in blang v4.0.0 except `!1.2.3`, which is a valid `!=` range (see the rows above).
  it.each([
    ['>>1.2.3', 'Could not parse Range ">>1.2.3": Could not parse comparator ">>" in ">>1.2.3"'],
    ['1.0', 'Could not parse Range "1.0": Could not parse version "1.0" in "1.0": No Major.Minor.Patch elements found'],
    ['string', 'Could not get version from string: "string"'],
    ['', "Last element in range is '||'"],
    ['fo.ob.ar.x', 'Could not get version from string: "fo.ob.ar.x"'],
  ])('the error row %j fails with %s', (range, message) => {
    const e = blangError(() => parseBlangRange(range));
    expect(e.message).toBe(message);
    expect(e.code).toBe('BLANG_INVALID_RANGE');
    expect(e.input).toBe(range);
  });

  it('the error row "!1.2.3" actually parses', () => {
    expect(parseBlangRange('!1.2.3')(parseBlang('1.2.3'))).toBe(false);
  });

  it('MustParseRange vectors', () => {
    const { range, version } = rangeData.mustParseRange;
    expect(parseBlangRange(range)(parseBlang(version))).toBe(true);
    expect(() => parseBlangRange(rangeData.mustParseRangePanic)).toThrow(BlangError);
  });
});
