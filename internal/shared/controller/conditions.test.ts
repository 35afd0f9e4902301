import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../api/meta/v1.ts';
import {
  MAX_CONDITION_MESSAGE_BYTES,
  TRUNCATION_SUFFIX,
  findCondition,
  formatTime,
  hasStatus,
  isTrue,
  removeCondition,
  setCondition,
  truncateMessage,
} from './conditions.ts';

const T0 = new Date('2026-11-22T07:40:00.123Z');
const T1 = new Date('2026-11-22T08:00:59.999Z');
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

const progressing = (over: Partial<Condition> = {}): Condition => ({
  type: 'Progressing',
  status: 'True',
  reason: 'Succeeded',
  message: 'Desired state reached',
  observedGeneration: 1,
  lastTransitionTime: formatTime(T0),
  ...over,
});

describe('formatTime', () => {
  it.each([
    { date: T0, want: '2026-11-22T07:40:00Z' },
    { date: T1, want: '2026-11-22T08:00:59Z' }, // truncated, never rounded up
    { date: new Date('2026-01-01T00:00:00Z'), want: '2026-01-01T00:00:00Z' },
  ])('$want', ({ date, want }) => {
    expect(formatTime(date)).toBe(want);
  });
});

describe('setCondition', () => {
  it.each([
    {
      name: 'new condition is appended with now',
      before: [] as Condition[],
      input: { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'Desired state reached', observedGeneration: 1 },
      want: [progressing()],
      changed: true,
    },
    {
      name: 'same status: lastTransitionTime kept, reason/message/generation updated',
      before: [progressing()],
      input: { type: 'Progressing', status: 'True', reason: 'Retrying', message: 'pull failed', observedGeneration: 2 },
      want: [progressing({ reason: 'Retrying', message: 'pull failed', observedGeneration: 2 })],
      changed: true,
    },
    {
      name: 'status change: lastTransitionTime moves to now',
      before: [progressing()],
      input: { type: 'Progressing', status: 'False', reason: 'Blocked', message: 'no', observedGeneration: 1 },
      want: [progressing({ status: 'False', reason: 'Blocked', message: 'no', lastTransitionTime: formatTime(T1) })],
      changed: true,
    },
    {
      name: 'identical: nothing changes',
      before: [progressing()],
      input: { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'Desired state reached', observedGeneration: 1 },
      want: [progressing()],
      changed: false,
    },
    {
      name: 'explicit lastTransitionTime is used on status change',
      before: [progressing()],
      input: { type: 'Progressing', status: 'Unknown', reason: 'Failed', message: 'x', observedGeneration: 1, lastTransitionTime: '2020-01-01T00:00:00Z' },
      want: [progressing({ status: 'Unknown', reason: 'Failed', message: 'x', lastTransitionTime: '2020-01-01T00:00:00Z' })],
      changed: true,
    },
    {
      name: 'explicit lastTransitionTime is ignored without a status change',
      before: [progressing()],
      input: { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'Desired state reached', observedGeneration: 1, lastTransitionTime: '2020-01-01T00:00:00Z' },
      want: [progressing()],
      changed: false,
    },
    {
      name: 'other types untouched, order kept',
      before: [{ ...progressing(), type: 'Installed' }, progressing()],
      input: { type: 'Progressing', status: 'False', reason: 'Blocked', message: 'm', observedGeneration: 1 },
      want: [{ ...progressing(), type: 'Installed' }, progressing({ status: 'False', reason: 'Blocked', message: 'm', lastTransitionTime: formatTime(T1) })],
      changed: true,
    },
  ] as const)('$name', ({ before, input, want, changed }) => {
    const conditions = structuredClone(before) as Condition[];
    const now = before.length === 0 ? T0 : T1;
    expect(setCondition(conditions, input, now)).toBe(changed);
    expect(conditions).toEqual(want);
  });

  it('updates the existing element in place', () => {
    const conditions = [progressing()];
    const element = conditions[0]!;
    setCondition(conditions, { type: 'Progressing', status: 'True', reason: 'Retrying', message: 'm', observedGeneration: 3 }, T1);
    expect(conditions[0]).toBe(element);
    expect(element.observedGeneration).toBe(3);
  });

  it('truncates the message it stores', () => {
    const conditions: Condition[] = [];
    setCondition(conditions, { type: 'Progressing', status: 'True', reason: 'Retrying', message: 'x'.repeat(40000) }, T0);
    expect(utf8(conditions[0]!.message)).toBe(MAX_CONDITION_MESSAGE_BYTES);
    expect(conditions[0]!.message.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(conditions[0]).not.toHaveProperty('observedGeneration');
  });

  it('a long message set twice is unchanged the second time', () => {
    const conditions: Condition[] = [];
    const message = 'é'.repeat(20000);
    setCondition(conditions, { type: 'A', status: 'True', reason: 'R', message }, T0);
    expect(setCondition(conditions, { type: 'A', status: 'True', reason: 'R', message }, T1)).toBe(false);
  });
});

describe('truncateMessage', () => {
  it('has upstream suffix text exactly', () => {
    expect(TRUNCATION_SUFFIX).toBe('\n\n... [message truncated]');
    expect(MAX_CONDITION_MESSAGE_BYTES).toBe(32768);
  });

  const cut = MAX_CONDITION_MESSAGE_BYTES - utf8(TRUNCATION_SUFFIX); // 32743 content bytes
  it.each([
    { name: 'short', message: 'hello', truncated: false, bytes: 5 },
    { name: 'exactly 32768 ASCII bytes kept', message: 'a'.repeat(32768), truncated: false, bytes: 32768 },
    { name: '32769 ASCII bytes cut to exactly 32768', message: 'a'.repeat(32769), truncated: true, bytes: 32768 },
    { name: 'exactly 32768 bytes of 2-byte characters kept', message: 'é'.repeat(16384), truncated: false, bytes: 32768 },
    { name: '2-byte characters: never split, so 1 byte short', message: 'é'.repeat(16385), truncated: true, bytes: 32767 },
    { name: '3-byte characters (cut falls 1 byte in)', message: '€'.repeat(11000), truncated: true, bytes: 32742 + 25 },
    { name: '4-byte characters (surrogate pairs)', message: '😀'.repeat(9000), truncated: true, bytes: 32740 + 25 },
    // 32742 ASCII bytes then '€': the cut (32743) falls after its first byte → '€' dropped whole.
    { name: 'multi-byte character straddling the cut', message: 'a'.repeat(cut - 1) + '€' + 'b'.repeat(100), truncated: true, bytes: 32767 },
    // 32740 ASCII then '€' ends exactly at the cut → kept.
    { name: 'multi-byte character ending at the cut kept', message: 'a'.repeat(cut - 3) + '€' + 'b'.repeat(100), truncated: true, bytes: 32768 },
  ])('$name', ({ message, truncated, bytes }) => {
    const got = truncateMessage(message);
    expect(utf8(got)).toBe(bytes);
    expect(utf8(got)).toBeLessThanOrEqual(MAX_CONDITION_MESSAGE_BYTES);
    if (!truncated) {
      expect(got).toBe(message);
      return;
    }
    expect(got.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    const kept = got.slice(0, -TRUNCATION_SUFFIX.length);
    expect(message.startsWith(kept)).toBe(true); // a prefix of whole characters
    expect(kept).not.toContain('\uFFFD');
    expect(Buffer.from(got, 'utf8').toString('utf8')).toBe(got); // valid UTF-8 round trip
  });
});

describe('find / remove / isTrue / isFalse', () => {
  const conditions = (): Condition[] => [
    progressing(),
    { ...progressing(), type: 'Installed', status: 'False' },
    { ...progressing(), type: 'Deprecated', status: 'Unknown' },
  ];

  it.each([
    { type: 'Progressing', found: true, isTrue: true, isFalse: false },
    { type: 'Installed', found: true, isTrue: false, isFalse: true },
    { type: 'Deprecated', found: true, isTrue: false, isFalse: false },
    { type: 'Missing', found: false, isTrue: false, isFalse: false },
  ])('$type', (c) => {
    const cs = conditions();
    expect(findCondition(cs, c.type) !== undefined).toBe(c.found);
    expect(isTrue(cs, c.type)).toBe(c.isTrue);
    expect(hasStatus(cs, c.type, 'False')).toBe(c.isFalse);
  });

  it('handles undefined lists', () => {
    expect(findCondition(undefined, 'Progressing')).toBeUndefined();
    expect(isTrue(undefined, 'Progressing')).toBe(false);
  });

  it('removes in place', () => {
    const cs = conditions();
    expect(removeCondition(cs, 'Installed')).toBe(true);
    expect(cs.map((c) => c.type)).toEqual(['Progressing', 'Deprecated']);
    expect(removeCondition(cs, 'Installed')).toBe(false);
    expect(cs).toHaveLength(2);
  });
});
