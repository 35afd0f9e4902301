import { describe, expect, it } from 'vitest';
import { aggregateMessages } from './aggregate.ts';

describe('aggregateMessages (utilerrors.NewAggregate)', () => {
  it('one message bare, several bracketed and comma-joined', () => {
    expect(aggregateMessages(['a'])).toBe('a');
    expect(aggregateMessages(['a', 'b'])).toBe('[a, b]');
  });
});
