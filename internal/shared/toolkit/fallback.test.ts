import { describe, expect, it } from 'vitest';
import { tryOr } from './fallback.ts';

describe('tryOr', () => {
  it('returns what the function returns, or the fallback when it throws', () => {
    expect(tryOr(() => JSON.parse('{"a":1}') as unknown, null)).toEqual({ a: 1 });
    expect(tryOr(() => JSON.parse('{') as unknown, null)).toBeNull();
    expect(tryOr(() => 0, undefined)).toBe(0);
  });
});
