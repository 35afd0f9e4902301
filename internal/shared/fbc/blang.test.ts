// blang/semver v4 Parse and ParseRange validity as opm's bundle version and olm.skipRange checks read them
// (fbc.md §6.1/§6.3).

import { describe, expect, it } from 'vitest';
import { BlangError, parseBlangRange, tryParseBlang as parseBlangVersion } from '../semver/index.ts';

/** ParseRange's error text, or undefined when `s` parses. */
function isValidBlangRange(s: string): string | undefined {
  try {
    parseBlangRange(s);
    return undefined;
  } catch (err) {
    if (err instanceof BlangError) return err.message;
    throw err;
  }
}

describe('blang Parse (bundle versions)', () => {
  it.each(['0.0.1', '1.2.3-alpha.1+build.5', '1.0.0-0.3.7', '1.0.0-x-y-z.--', '18446744073709551615.0.0'])('%s is valid', (v) => {
    expect(typeof parseBlangVersion(v)).toBe('object');
  });

  it.each<[string, string]>([
    ['', 'Version string empty'],
    ['1.0', 'No Major.Minor.Patch elements found'],
    ['v1.0.0', 'Invalid character(s) found in major number "v1"'],
    ['01.0.0', 'Major number must not contain leading zeroes "01"'],
    ['1.00.0', 'Minor number must not contain leading zeroes "00"'],
    ['1.0.00', 'Patch number must not contain leading zeroes "00"'],
    ['0.1.0.1', 'Invalid character(s) found in patch number "0.1"'],
    ['1..0', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['18446744073709551616.0.0', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
    ['1.0.0-', 'Prerelease is empty'],
    ['1.0.0-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['1.0.0-a_b', 'Invalid character(s) found in prerelease "a_b"'],
    ['1.0.0+', 'Build meta data is empty'],
    ['1.0.0+a_b', 'Invalid character(s) found in build meta data "a_b"'],
  ])('%j → %s', (v, err) => {
    expect(parseBlangVersion(v)).toBe(err);
  });
});

describe('blang ParseRange validity', () => {
  it.each([
    '>=1.0.0 <2.0.0',
    '>1.0.0 <2.0.0 || >3.0.0 !4.2.1',
    '1.0.0',
    '=1.0.0',
    '==1.0.0',
    '!1.0.0',
    '!=1.0.0',
    '>= 1.0.0',
    '> =1.0.0',
    '< 24.7.0',
    '1.0.0 - 2.0.0', // the lone "-" is dropped
    '1.2.x',
    '1.x',
    '>1.2.x',
    '1.x.x',
    '!=1.2.x',
    '~1.2.x', // wildcard path drops an unknown operator
    '>=1.0.0-alpha.x',
    '>=5.0.0 <5.1.2 !5.1.0-alpha1',
    '1.0.0 || || 2.0.0', // parses; evaluating it panics upstream
  ])('%j is valid', (r) => {
    expect(isValidBlangRange(r)).toBeUndefined();
  });

  it.each<[string, string]>([
    ['', "Last element in range is '||'"],
    ['*', "Last element in range is '||'"],
    ['x', "Last element in range is '||'"],
    ['|| 1.0.0', "First element in range is '||'"],
    ['1.0.0 ||', "Last element in range is '||'"],
    ['>v0.1.0', 'Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"'],
    ['>1.00.1', 'Could not parse Range ">1.00.1": Could not parse version "1.00.1" in ">1.00.1": Minor number must not contain leading zeroes "00"'],
    ['>=1.0', 'Could not parse Range ">=1.0": Could not parse version "1.0" in ">=1.0": No Major.Minor.Patch elements found'],
    ['~1.2.3', 'Could not parse Range "~1.2.3": Could not parse comparator "~" in "~1.2.3"'],
    ['^1.2.3', 'Could not parse Range "^1.2.3": Could not parse comparator "^" in "^1.2.3"'],
    ['=>1.0.0', 'Could not parse Range "=>1.0.0": Could not parse comparator "=>" in "=>1.0.0"'],
    ['v1.0.0', 'Could not parse Range "v1.0.0": Could not parse comparator "v" in "v1.0.0"'],
    [
      '>=1.0.0, <2.0.0',
      'Could not parse Range ">=1.0.0,": Could not parse version "1.0.0," in ">=1.0.0,": Invalid character(s) found in patch number "0,"',
    ],
    [
      '>=1.0.0\t<2.0.0',
      'Could not parse Range ">=1.0.0\\t<2.0.0": Could not parse version "1.0.0\\t<2.0.0" in ">=1.0.0\\t<2.0.0": Invalid character(s) found in patch number "0\\t<2.0.0"',
    ],
    ['1.2.X', 'Could not parse Range "1.2.X": Could not parse version "1.2.X" in "1.2.X": Invalid character(s) found in patch number "X"'],
    ['1.0.0-xyz', 'Could not get version from string: "<"'],
    ['>x', 'Could not get version from string: ">x"'],
  ])('%j → %s', (r, err) => {
    expect(isValidBlangRange(r)).toBe(err); // tokens are quoted with Go's %q (a tab prints as \t)
  });
});
