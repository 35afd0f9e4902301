import { describe, expect, it } from 'vitest';
import { noopLogger } from './logger.ts';

describe('noopLogger', () => {
  it('writes nothing, and its children are itself', () => {
    for (const level of ['error', 'warn', 'info', 'debug'] as const) expect(noopLogger[level]('m', { a: 1 })).toBeUndefined();
    expect(noopLogger.child({ a: 1 })).toBe(noopLogger);
  });
});
