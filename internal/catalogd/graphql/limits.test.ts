import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { complexityError } from './limits.ts';

const nested = (depth: number): string => '{ ' + 'a { '.repeat(depth - 1) + 'b' + ' }'.repeat(depth - 1) + ' }';
const check = (q: string): string | undefined => complexityError(parse(q));

describe('query bounds', () => {
  it('depth: an operation is depth 1, each field, inline fragment or spread one more, at most 10', () => {
    expect(check(nested(10))).toBeUndefined();
    expect(check(nested(11))).toBe('query exceeds maximum depth of 10');
    // the same through inline fragments and named fragments
    expect(check('{ ' + 'a { ... on T { '.repeat(4) + 'b' + ' } }'.repeat(4) + ' }')).toBeUndefined(); // 9 deep
    expect(check('{ ' + 'a { ... on T { '.repeat(5) + 'b' + ' } }'.repeat(5) + ' }')).toBe('query exceeds maximum depth of 10');
    expect(check(`{ ...F } fragment F on Q { ${nested(9).slice(2, -2)} }`)).toBeUndefined();
    expect(check(`{ ...F } fragment F on Q { ${nested(10).slice(2, -2)} }`)).toBe('query exceeds maximum depth of 10');
  });

  it('fields: at most 500 over the document, fragments counted once per operation', () => {
    const fields = (n: number): string => Array.from({ length: n }, (_, i) => `f${i}`).join(' ');
    expect(check(`{ ${fields(500)} }`)).toBeUndefined();
    expect(check(`{ ${fields(501)} }`)).toBe('query exceeds maximum field count of 500');
    expect(check(`query A { ${fields(250)} } query B { ${fields(251)} }`)).toBe('query exceeds maximum field count of 500');
    expect(check(`{ ...F ...F ...F } fragment F on Q { ${fields(300)} }`)).toBeUndefined();
    expect(check(`query A { ...F } query B { ...F } fragment F on Q { ${fields(300)} }`)).toBe('query exceeds maximum field count of 500');
    expect(check(`{ a } fragment Unused on Q { ${fields(600)} }`)).toBeUndefined();
  });

  it('aliases: at most 50', () => {
    const aliased = (n: number): string => Array.from({ length: n }, (_, i) => `x${i}: name`).join(' ');
    expect(check(`{ ${aliased(50)} }`)).toBeUndefined();
    expect(check(`{ ${aliased(51)} }`)).toBe('query exceeds maximum alias count of 50');
  });
});
