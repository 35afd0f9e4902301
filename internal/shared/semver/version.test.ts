import { describe, expect, it } from 'vitest';
import { compareVersions, formatVersion, makeVersion } from './index.ts';
import { parseBlang, parseMastermindsVersion } from './index.ts';

describe('shared Version', () => {
  it('formats canonically, without a v prefix', () => {
    expect(formatVersion(makeVersion(1, 2, 3, ['rc', '1'], ['b', '7']))).toBe('1.2.3-rc.1+b.7');
    expect(formatVersion(parseMastermindsVersion('v1.2'))).toBe('1.2.0');
    expect(makeVersion(1, 0, 0).raw).toBe('1.0.0');
    expect(makeVersion(1, 0, 0, [], [], 'v1').raw).toBe('v1');
  });

  it('orders by semver 2.0 precedence', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ].map(parseBlang);
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        const a = ordered[i];
        const b = ordered[j];
        if (!a || !b) throw new Error('unreachable');
        expect(compareVersions(a, b), `${a.raw} vs ${b.raw}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('ignores build metadata and compares numeric identifiers by value', () => {
    expect(compareVersions(parseBlang('1.0.0+a'), parseBlang('1.0.0+b'))).toBe(0);
    expect(compareVersions(parseBlang('1.0.0-9'), parseBlang('1.0.0-10'))).toBe(-1);
    // beyond 2^53, still exact (identifiers are kept as text)
    expect(compareVersions(parseBlang('1.0.0-9007199254740993'), parseBlang('1.0.0-9007199254740992'))).toBe(1);
    // beyond uint64, Masterminds treats the identifier as alphanumeric (so above any number)
    expect(compareVersions(parseMastermindsVersion('1.0.0-99999999999999999999'), parseMastermindsVersion('1.0.0-5'))).toBe(1);
  });
});
