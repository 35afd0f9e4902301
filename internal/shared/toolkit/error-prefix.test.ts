import { describe, expect, it } from 'vitest';
import { withErrorPrefix } from './error-prefix.ts';

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
