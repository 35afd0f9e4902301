import { describe, expect, it } from 'vitest';
import { isObject } from './record.ts';

describe('isObject', () => {
  it('is true for a JSON object only', () => {
    expect(isObject({ a: 1 })).toBe(true);
    expect([null, [], 'x', 1, undefined].map(isObject)).toEqual([false, false, false, false, false]);
  });
});
