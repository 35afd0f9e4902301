import { describe, expect, it } from 'vitest';
import { jsonKind } from './json-kind.ts';

describe('jsonKind', () => {
  it.each([
    [null, 'null'],
    [[1], 'array'],
    [true, 'bool'],
    [1.5, 'number'],
    ['s', 'string'],
    [{ a: 1 }, 'object'],
  ])('%j is %s', (v, want) => {
    expect(jsonKind(v)).toBe(want);
  });
});
