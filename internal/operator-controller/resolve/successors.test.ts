// Upstream catalogmetadata/filter/successors_test.go (TestSuccessorsPredicate, TestLegacySuccessor)
// as data, plus the release and error cases of successors.go.
import { describe, expect, it } from 'vitest';
import type { DeclChannel } from '../../shared/fbc/index.ts';
import { legacySuccessor, successorsOf, type Candidate } from './successors.ts';
import { tryVersionAndRelease, type VersionRelease } from './version-release.ts';

const PKG = 'test-package';
const entry = (name: string, e: { replaces?: string; skips?: string[]; skipRange?: string } = {}) => ({
  name,
  replaces: e.replaces ?? '',
  skips: e.skips ?? [],
  skipRange: e.skipRange ?? '',
});
const stable: DeclChannel = {
  name: 'stable',
  package: PKG,
  entries: [
    entry('test-package.v2.0.0'),
    entry('test-package.v2.1.0', { replaces: 'test-package.v2.0.0' }),
    entry('test-package.v2.2.0', { replaces: 'test-package.v2.1.0' }),
    entry('test-package.v2.2.1'),
    entry('test-package.v2.3.0', { replaces: 'test-package.v2.2.0', skips: ['test-package.v2.2.1'] }),
    entry('test-package.v2.4.0', { skipRange: '>=2.3.0 <2.4.0' }),
  ],
};
const candidate = (version: string, name = `${PKG}.v${version}`): Candidate => ({
  name,
  versionRelease: tryVersionAndRelease({ name, properties: [{ type: 'olm.package', value: { packageName: PKG, version } }] }) as VersionRelease,
});
const all = ['2.0.0', '2.1.0', '2.2.0', '2.2.1', '2.3.0', '2.4.0'].map((v) => candidate(v));

describe('successorsOf (TestSuccessorsPredicate)', () => {
  it.each([
    { name: 'respect replaces directive from catalog', installed: { name: 'test-package.v2.0.0', version: '2.0.0' }, want: ['2.0.0', '2.1.0'] },
    { name: 'respect skips directive from catalog', installed: { name: 'test-package.v2.2.1', version: '2.2.1' }, want: ['2.2.1', '2.3.0'] },
    { name: 'respect skipRange directive from catalog', installed: { name: 'test-package.v2.3.0', version: '2.3.0' }, want: ['2.3.0', '2.4.0'] },
    { name: 'installed bundle not found', installed: { name: 'test-package.v9.0.0', version: '9.0.0' }, want: [] },
  ])('$name', ({ installed, want }) => {
    const f = successorsOf(installed, [stable]);
    expect(all.filter((c) => f(c) !== undefined).map((c) => c.name)).toEqual(want.map((v) => `${PKG}.v${v}`));
  });

  it('names the edge that allows each successor', () => {
    const f = successorsOf({ name: 'test-package.v2.2.1', version: '2.2.1' }, [stable]);
    expect(f(candidate('2.3.0'))).toEqual({ kind: 'skips', channel: 'stable' });
    expect(f(candidate('2.2.1'))).toEqual({ kind: 'installed' });
    const g = successorsOf({ name: 'test-package.v2.3.0', version: '2.3.0' }, [stable]);
    expect(g(candidate('2.4.0'))).toEqual({ kind: 'skipRange', channel: 'stable', skipRange: '>=2.3.0 <2.4.0' });
  });

  it('staying is matched by version and release, not by name', () => {
    const f = successorsOf({ name: 'other-name', version: '2.0.0+1' }, [stable]);
    expect(f(candidate('2.0.0+1', 'x'))).toEqual({ kind: 'installed' });
    expect(f(candidate('2.0.0+2', 'y'))).toBeUndefined();
    expect(f(candidate('2.0.0', 'z'))).toBeUndefined();
  });

  it('an explicit installed release is compared as a release', () => {
    const f = successorsOf({ name: 'other-name', version: '2.0.0', release: '1' }, [stable]);
    expect(f(candidate('2.0.0+1', 'x'))).toEqual({ kind: 'installed' });
  });

  it.each([
    { installed: { name: 'a', version: 'v1.0.0' }, error: 'failed to get version and release of installed bundle: Invalid character(s) found in major number "v1"' },
    { installed: { name: 'a', version: '1.0.0', release: '01' }, error: 'failed to parse installed bundle release "01"' },
  ])('installed $installed.version fails', ({ installed, error }) => {
    expect(() => successorsOf(installed, [stable])).toThrow(error);
  });

  it('unparsable skipRanges are ignored', () => {
    const ch: DeclChannel = { name: 'c', package: PKG, entries: [entry('b', { skipRange: '>=1.0' }), entry('c', { skipRange: '~1.0.0' }), entry('d', { skipRange: '<2.0.0' })] };
    const f = successorsOf({ name: 'a', version: '1.0.0' }, [ch]);
    expect(['b', 'c', 'd'].map((n) => f({ name: n, versionRelease: new Error('x') }) !== undefined)).toEqual([false, false, true]);
  });
});

describe('legacySuccessor (TestLegacySuccessor)', () => {
  const fake: DeclChannel = {
    name: '',
    package: '',
    entries: [
      entry('package1.v0.0.2', { replaces: 'package1.v0.0.1' }),
      entry('package1.v0.0.3', { replaces: 'package1.v0.0.2' }),
      entry('package1.v0.0.4', { skips: ['package1.v0.0.1'] }),
      entry('package1.v0.0.5', { skipRange: '<=0.0.1' }),
    ],
  };
  const f = legacySuccessor({ name: 'package1.v0.0.1', version: '0.0.1' }, [fake]);
  it.each([
    ['package1.v0.0.2', true],
    ['package1.v0.0.3', false],
    ['package1.v0.0.4', true],
    ['package1.v0.0.5', true],
    ['', false],
  ])('%s', (name, want) => {
    expect(f(name) !== undefined).toBe(want);
  });
  it('an invalid installed version', () => {
    expect(() => legacySuccessor({ name: 'x', version: '1.0' }, [fake])).toThrow('error parsing installed bundle version: No Major.Minor.Patch elements found');
  });
});
