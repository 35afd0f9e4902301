import { describe, expect, it } from 'vitest';
import { semanticEqual } from './equality.ts';

describe('semanticEqual', () => {
  it('ignores key order and undefined fields', () => {
    expect(semanticEqual({ a: 1, b: { c: [1, { d: 'x' }] } }, { b: { c: [1, { d: 'x' }] }, a: 1 })).toBe(true);
    expect(semanticEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(semanticEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
  });

  it('tells values, lengths, types and nulls apart', () => {
    expect(semanticEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(semanticEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(semanticEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(semanticEqual([1, 2], [1])).toBe(false);
    expect(semanticEqual([1, 2], [2, 1])).toBe(false);
    expect(semanticEqual({ 0: 1 }, [1])).toBe(false);
    expect(semanticEqual([1], { 0: 1 })).toBe(false);
    expect(semanticEqual(null, {})).toBe(false);
    expect(semanticEqual({ a: null }, { a: undefined })).toBe(false);
    expect(semanticEqual('1', 1)).toBe(false);
  });

  it('compares primitives and empty values', () => {
    expect(semanticEqual(null, null)).toBe(true);
    expect(semanticEqual(undefined, undefined)).toBe(true);
    expect(semanticEqual({}, {})).toBe(true);
    expect(semanticEqual([], [])).toBe(true);
    expect(semanticEqual({}, [])).toBe(false);
  });
});
