import { describe, expect, it } from 'vitest';
import { tryOrThrow } from './rethrow.ts';

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
