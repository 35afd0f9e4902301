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
});
