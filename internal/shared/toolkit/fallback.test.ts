import { describe, expect, it } from 'vitest';
import { tryOr, tryOrThrow, withErrorPrefix } from './fallback.ts';

describe('tryOr', () => {
  it('returns what the function returns, or the fallback when it throws', () => {
    expect(tryOr(() => JSON.parse('{"a":1}') as unknown, null)).toEqual({ a: 1 });
    expect(tryOr(() => JSON.parse('{') as unknown, null)).toBeNull();
    expect(tryOr(() => 0, undefined)).toBe(0);
  });
});

describe('withErrorPrefix', () => {
  it('returns what the function returns, or throws `<prefix>: <message>` with the error as its cause', () => {
    expect(withErrorPrefix('parsing', () => 1)).toBe(1);
    let thrown: unknown;
    try {
      withErrorPrefix('parsing x', () => JSON.parse('{') as unknown);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/^parsing x: /);
    expect((thrown as Error).cause).toBeInstanceOf(SyntaxError);
    expect(() => withErrorPrefix('p', () => { throw 'text'; })).toThrow('p: text');
  });
});

describe('tryOrThrow', () => {
  it('returns what run returns', () => {
    expect(tryOrThrow(() => 42, () => new Error('unused'))).toBe(42);
  });

  it('throws the wrapped error, the original as cause', () => {
    const original = new Error('bad');
    let thrown: unknown;
    try {
      tryOrThrow(
        () => {
          throw original;
        },
        (err) => new Error(`context: ${err.message}`, { cause: err }),
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toBe('context: bad');
    expect((thrown as Error).cause).toBe(original);
  });
});
