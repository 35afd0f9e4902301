import { describe, expect, it } from 'vitest';
import { oneLine } from './text.ts';

describe('oneLine', () => {
  it('folds line breaks and the blanks around them into one space, and trims', () => {
    expect(oneLine('  error creating csv x:\n   forbidden\r\n  by policy \n')).toBe('error creating csv x: forbidden by policy');
    expect(oneLine('already one line')).toBe('already one line');
  });
});
