import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, suggestions } from './preflight.ts';

describe('install preflight: did you mean', () => {
  it('edit distance', () => {
    expect(editDistance('demo-operatr', 'demo-operator')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests close names, closest first, and names that contain the text', () => {
    const names = ['demo-operator', 'cert-manager', 'demo-operator', 'prometheus', 'widgets'];
    expect(suggestions('demo-operatr', names)).toEqual(['demo-operator']);
    expect(suggestions('cert', names)).toEqual(['cert-manager']);
    expect(suggestions('zzzzzzzz', names)).toEqual([]);
  });

  it('says it in one clause', () => {
    expect(didYouMean([])).toBe('');
    expect(didYouMean(['a'])).toBe('; did you mean "a"?');
    expect(didYouMean(['a', 'b'])).toBe('; did you mean "a" or "b"?');
    expect(didYouMean(['a', 'b', 'c'])).toBe('; did you mean "a", "b", or "c"?');
  });
});
