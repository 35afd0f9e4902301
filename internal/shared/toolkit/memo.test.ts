import { describe, expect, it } from 'vitest';
import { memoize } from './memo.ts';

describe('memoize', () => {
  it('computes once per argument, null included, and starts afresh past the limit', () => {
    const calls: string[] = [];
    const f = memoize((k) => {
      calls.push(k);
      return k === 'none' ? null : k.length;
    }, 2);
    expect([f('a'), f('a'), f('none'), f('none')]).toEqual([1, 1, null, null]);
    expect(calls).toEqual(['a', 'none']);
    f('bb'); // the cache was full: forgotten, then 'bb' remembered
    f('a');
    expect(calls).toEqual(['a', 'none', 'bb', 'a']);
  });

  it('remembers nothing when compute throws', () => {
    let n = 0;
    const f = memoize(() => {
      n++;
      throw new Error('bad');
    }, 10);
    expect(() => f('x')).toThrow('bad');
    expect(() => f('x')).toThrow('bad');
    expect(n).toBe(2);
  });
});
