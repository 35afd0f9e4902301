import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, realClock } from './clock.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('realClock', () => {
  it('follows performance.now, fake timers included', () => {
    vi.useFakeTimers();
    const t0 = realClock.now();
    vi.advanceTimersByTime(1500);
    expect(realClock.now() - t0).toBe(1500);
  });

  it('reads the wall time from Date, fake timers included', () => {
    vi.useFakeTimers({ now: new Date('2025-03-04T05:06:07.890Z') });
    expect(realClock.date().toISOString()).toBe('2025-03-04T05:06:07.890Z');
    vi.advanceTimersByTime(1000);
    expect(realClock.date().toISOString()).toBe('2025-03-04T05:06:08.890Z');
  });
});

describe('ManualClock', () => {
  it('moves only when told, and only forward', () => {
    const c = new ManualClock(100);
    expect(c.now()).toBe(100);
    c.advance(50);
    expect(c.now()).toBe(150);
    expect(() => c.advance(-1)).toThrow('a clock only moves forward (advance by -1)');
    expect(c.now()).toBe(150);
  });

  it('moves its wall time with it, from the epoch or the start given', () => {
    const c = new ManualClock(100);
    expect(c.date().toISOString()).toBe('1970-01-01T00:00:00.000Z');
    c.advance(2500);
    expect(c.date().toISOString()).toBe('1970-01-01T00:00:02.500Z');
    const d = new ManualClock(0, new Date('2025-01-01T00:00:00Z'));
    d.advance(60_000);
    expect(d.date().toISOString()).toBe('2025-01-01T00:01:00.000Z');
    expect(d.date()).not.toBe(d.date());
  });
});
