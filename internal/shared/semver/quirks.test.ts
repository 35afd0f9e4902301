// The differences between the two engines (github.com/blang/semver/v4 `semver.go`, `range.go`;
// github.com/Masterminds/semver/v3 `version.go`, `constraints.go`), each row's expectation being what
// those libraries return. Each row pins both engines on the same input.
import { describe, expect, it } from 'vitest';
import {
  BlangError,
  MastermindsError,
  parseBlang,
  parseBlangRange,
  parseConstraints,
  parseMastermindsVersion,
} from './index.ts';
import { expandBlangWildcard, tokenizeBlangRange } from './blang.ts';

type Outcome = boolean | 'error' | 'ok';

/** blang: evaluate `range` on `version` (strict blang version), or 'error' if the range does not parse. */
function blang(range: string, version?: string): Outcome {
  let r;
  try {
    r = parseBlangRange(range);
  } catch (e) {
    if (e instanceof BlangError) return 'error';
    throw e;
  }
  return version === undefined ? 'ok' : r(parseBlang(version));
}

/** Masterminds: NewConstraint(range).Check(version), or 'error' if the constraint does not parse. */
function mm(range: string, version?: string): Outcome {
  let c;
  try {
    c = parseConstraints(range);
  } catch (e) {
    if (e instanceof MastermindsError) return 'error';
    throw e;
  }
  return version === undefined ? 'ok' : c.check(parseMastermindsVersion(version));
}

const blangMessage = (range: string): string => {
  try {
    parseBlangRange(range);
  } catch (e) {
    if (e instanceof BlangError) return e.message;
  }
  throw new Error(`${range} parsed`);
};

describe('fbc.md §6.3: differences at a glance', () => {
  const table: [string, string | undefined, Outcome, Outcome][] = [
    ['>=1.0.0, <2.0.0', '1.5.0', 'error', true],
    ['>=1.0.0\t<2.0.0', '1.5.0', 'error', true],
    ['>=1.0', '1.5.0', 'error', true],
    ['1.2', '1.2.0', 'error', true],
    ['v1.0.0', '1.0.0', 'error', true],
    ['~1.2.3', '1.2.5', 'error', true],
    ['^1.2.3', '1.9.0', 'error', true],
    ['=>1.0.0', '1.0.0', 'error', true],
    ['=<1.2.3', '1.2.3', 'error', true],
    ['1.0.0 - 2.0.0', '1.5.0', false, true],
    ['!1.2.3', '1.2.4', true, 'error'],
    ['==1.2.3', '1.2.3', true, 'error'],
    ['> =1.0.0', '1.0.1', true, 'error'],
    ['>=1.0.0||<0.5.0', '0.1.0', 'error', true],
    ['1.2.X', '1.2.5', 'error', true],
    ['1.2.*', '1.2.5', 'error', true],
    ['*', '1.2.5', 'error', true],
    ['x', '1.2.5', 'error', true],
    ['1.x.x', '1.9.9', false, true],
    ['!=1.2.x', '1.1.0', false, true],
    ['!=1.2.x', '1.4.0', false, true],
    ['>=1.0.0', '1.5.0-alpha', true, false],
    ['<2.0.0', '2.0.0-rc.1', true, false],
    ['>=1.0.0 <2.0.0 || >=3.0.0-0', '1.5.0-alpha', true, false],
    ['>=1.0.0-alpha.x', '1.0.0-alpha.0', true, false],
    ['1.0.0-xyz', '1.0.0-xyz', 'error', true],
    ['>=01.0.0', '1.0.0', 'error', true],
    ['', undefined, 'error', 'error'],
    ['>=1.0.0+1 <1.0.0+3', '1.0.0+2', false, false],
  ];

  it.each(table)('%j on %s: blang %s, Masterminds %s', (range, version, wantBlang, wantMm) => {
    expect(blang(range, version)).toBe(wantBlang);
    expect(mm(range, version)).toBe(wantMm);
  });

  it('the empty string fails differently in each engine', () => {
    expect(blangMessage('')).toBe("Last element in range is '||'");
    expect(() => parseConstraints('')).toThrow(new MastermindsError('MASTERMINDS_INVALID_CONSTRAINT', 'improper constraint: ""', ''));
  });
});

describe('fbc.md §6.1: blang tokenizing and structure', () => {
  it('glues a space after >, < or = to the operator', () => {
    expect(tokenizeBlangRange('>= 1.0.0')).toEqual(['>=1.0.0']);
    expect(tokenizeBlangRange('> 1.0.0')).toEqual(['>1.0.0']);
    expect(tokenizeBlangRange('> =1.0.0')).toEqual(['>=1.0.0']);
    expect(blang('< 24.7.0', '24.6.9')).toBe(true);
  });

  it('silently drops single-character tokens', () => {
    expect(tokenizeBlangRange('1.0.0 - 2.0.0')).toEqual(['1.0.0', '2.0.0']);
    expect(blang('1.0.0 - 2.0.0', '1.0.0')).toBe(false); // =1.0.0 AND =2.0.0
    expect(blangMessage('x')).toBe("Last element in range is '||'");
    expect(blangMessage('*')).toBe("Last element in range is '||'");
    expect(blang('1.0.0 x', '1.0.0')).toBe(true);
  });

  it('does not split on tabs or commas', () => {
    expect(tokenizeBlangRange('>=1.0.0,\t<2.0.0')).toEqual(['>=1.0.0,\t<2.0.0']);
  });

  it('needs || as a standalone token, and not first or last', () => {
    expect(blangMessage('|| 1.0.0')).toBe("First element in range is '||'");
    expect(blangMessage('1.0.0 ||')).toBe("Last element in range is '||'");
    expect(blang('<1.0.0 || >2.0.0', '3.0.0')).toBe(true);
    expect(blang('<1.0.0 || >2.0.0', '1.5.0')).toBe(false);
  });

  it('binds AND tighter than OR', () => {
    expect(blang('>1.0.0 <2.0.0 || >3.0.0 !4.2.1', '1.9.9')).toBe(true);
    expect(blang('>1.0.0 <2.0.0 || >3.0.0 !4.2.1', '4.2.1')).toBe(false);
    expect(blang('>1.0.0 <2.0.0 || >3.0.0 !4.2.1', '2.1.1')).toBe(false);
  });

  it('names the operator as everything before the first digit', () => {
    expect(blangMessage('~1.2.3')).toBe('Could not parse Range "~1.2.3": Could not parse comparator "~" in "~1.2.3"');
    expect(blangMessage('^1.2.3')).toBe('Could not parse Range "^1.2.3": Could not parse comparator "^" in "^1.2.3"');
    expect(blangMessage('=>1.0.0')).toBe('Could not parse Range "=>1.0.0": Could not parse comparator "=>" in "=>1.0.0"');
    expect(blangMessage('=<1.0.0')).toBe('Could not parse Range "=<1.0.0": Could not parse comparator "=<" in "=<1.0.0"');
    expect(blangMessage('>v1.0.0')).toBe('Could not parse Range ">v1.0.0": Could not parse comparator ">v" in ">v1.0.0"');
  });

  it('parses versions strictly, with the nested message', () => {
    expect(blangMessage('>=1.0')).toBe(
      'Could not parse Range ">=1.0": Could not parse version "1.0" in ">=1.0": No Major.Minor.Patch elements found',
    );
  });

  it('expands lowercase x wildcards', () => {
    expect(expandBlangWildcard('1.2.x')).toEqual(['>=1.2.0', '<1.3.0']);
    expect(expandBlangWildcard('1.x')).toEqual(['>=1.0.0', '<2.0.0']);
    expect(expandBlangWildcard('>1.2.x')).toEqual(['>=1.3.0']);
    expect(expandBlangWildcard('<=1.2.x')).toEqual(['<1.3.0']);
    expect(expandBlangWildcard('<1.2.x')).toEqual(['<1.2.0']);
  });

  it('keeps the wildcard bugs', () => {
    expect(expandBlangWildcard('1.x.x')).toEqual(['>=1.0.0', '<1.1.0']);
    expect(blang('1.x.x', '1.0.5')).toBe(true);
    expect(blang('1.x.x', '1.9.9')).toBe(false);
    expect(expandBlangWildcard('!=1.2.x')).toEqual(['<1.2.0', '>=1.3.0']);
    // any token containing an x takes the wildcard path
    expect(expandBlangWildcard('>=1.0.0-rc.x')).toEqual(['>=1.0.0-rc.0']);
    expect(expandBlangWildcard('<=1.0.0+hotfix')).toEqual(['<']);
    expect(blangMessage('<=1.0.0+hotfix')).toBe('Could not get version from string: "<"');
    expect(blangMessage('1.0.0-xyz')).toBe('Could not get version from string: "<"');
    expect(blang('>=1.0.0+hotfix', '1.0.0')).toBe(true);
    // an operator the expansion does not know is dropped: ~1.2.x means =1.2.0
    expect(expandBlangWildcard('~1.2.x')).toEqual(['1.2.0']);
    expect(blang('~1.2.x', '1.2.0')).toBe(true);
    expect(blang('~1.2.x', '1.2.1')).toBe(false);
  });

  it('has only lowercase x as a wildcard', () => {
    expect(blangMessage('1.2.X')).toBe(
      'Could not parse Range "1.2.X": Could not parse version "1.2.X" in "1.2.X": Invalid character(s) found in patch number "X"',
    );
    expect(blang('1.2.*')).toBe('error');
  });

  it('compares prereleases by plain precedence', () => {
    expect(blang('<2.0.0', '2.0.0-rc.1')).toBe(true);
    expect(blang('>=1.0.0', '1.5.0-alpha')).toBe(true);
  });

  it('accepts the real-world skipRanges quoted in fbc.md', () => {
    expect(blang('>=5.0.0 <5.1.2 !5.1.0-alpha1', '5.1.0')).toBe(true);
    expect(blang('>=5.0.0 <5.1.2 !5.1.0-alpha1', '5.1.0-alpha1')).toBe(false);
    expect(mm('>=5.0.0 <5.1.2 !5.1.0-alpha1')).toBe('error');
    expect(blang('< 24.7.0')).toBe('ok');
  });

  it('panics (throws BLANG_RANGE_PANIC) when evaluation reaches an empty OR group', () => {
    const r = parseBlangRange('1.0.0 || || 2.0.0');
    expect(r(parseBlang('1.0.0'))).toBe(true);
    expect(() => r(parseBlang('2.0.0'))).toThrow(
      new BlangError('BLANG_RANGE_PANIC', 'runtime error: invalid memory address or nil pointer dereference', '1.0.0 || || 2.0.0'),
    );
  });
});

describe('fbc.md §6.2: Masterminds', () => {
  it('takes commas or whitespace as AND, with optional whitespace around ||', () => {
    expect(mm('>=1.0.0,<2.0.0', '1.5.0')).toBe(true);
    expect(mm('>=1.0.0 , <2.0.0||>=3', '3.1.0')).toBe(true);
    expect(mm('>=1.0.0<2.0.0', '1.5.0')).toBe('error');
  });

  it('rewrites inclusive hyphen ranges (spaces required)', () => {
    expect(mm('1.0.0 - 2.0.0', '2.0.0')).toBe(true);
    expect(mm('1.0.0 - 2.0.0', '2.0.1')).toBe(false);
    expect(mm('1.0.0-2.0.0', '1.0.0-2.0.0')).toBe(true); // no spaces: a prerelease, not a range
  });

  it('treats partial versions as dirty', () => {
    expect(mm('=1.2', '1.2.9')).toBe(true);
    expect(mm('>1.2', '1.2.9')).toBe(false);
    expect(mm('>1.2', '1.3.0')).toBe(true);
    expect(mm('>11', '11.9.9')).toBe(false);
    expect(mm('>11', '12.0.0')).toBe(true);
    expect(mm('<=1.2', '1.2.99')).toBe(true);
    expect(mm('<=1.2', '1.3.0')).toBe(false);
  });

  it('implements ~ and ^', () => {
    expect(mm('~1.2.3', '1.2.9')).toBe(true);
    expect(mm('~1.2.3', '1.3.0')).toBe(false);
    expect(mm('~1', '1.9.0')).toBe(true);
    expect(mm('~1', '2.0.0')).toBe(false);
    expect(mm('^1.2.3', '1.9.9')).toBe(true);
    expect(mm('^1.2.3', '2.0.0')).toBe(false);
    expect(mm('^0.2.3', '0.2.9')).toBe(true);
    expect(mm('^0.2.3', '0.3.0')).toBe(false);
    expect(mm('^0.0.3', '0.0.3')).toBe(true);
    expect(mm('^0.0.3', '0.0.4')).toBe(false);
    expect(mm('^0', '0.9.9')).toBe(true);
    expect(mm('^0', '1.0.0')).toBe(false);
  });

  it('accepts * and x at constraint level, and a v prefix', () => {
    expect(mm('*', '9.9.9')).toBe(true);
    expect(mm('x', '0.0.1')).toBe(true);
    expect(mm('X', '0.0.1')).toBe(true);
    expect(mm('>=v1.2.3', '1.2.3')).toBe(true);
    expect(mm('1.*.*', '1.5.0')).toBe(true);
  });

  it('opts prereleases in per OR group, not scoped to the same X.Y.Z', () => {
    expect(mm('^0.2.3-beta.2', '0.2.4-beta.2')).toBe(true);
    expect(mm('>=1.0.0-0 <2.0.0 || >=3.0.0', '1.5.0-alpha')).toBe(true);
    expect(mm('>=1.0.0 <2.0.0 || >=3.0.0-0', '1.5.0-alpha')).toBe(false);
    expect(parseConstraints('>=1.0.0 <2.0.0', { includePrerelease: true }).check(parseMastermindsVersion('1.5.0-alpha'))).toBe(
      true,
    );
  });

  it('ignores build metadata', () => {
    expect(mm('=1.0.0+a', '1.0.0+b')).toBe(true);
  });

  it('coerces leading zeros', () => {
    expect(mm('>=01.02.03', '1.2.3')).toBe(true);
  });

  it('rejects ! and ==', () => {
    expect(mm('!1.2.3')).toBe('error');
    expect(mm('==1.2.3')).toBe('error');
  });
});
