import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdleCollector } from './memory.ts';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('IdleCollector', () => {
  it('collects once a burst of work has ended and nothing ran for the idle time', () => {
    const collect = vi.fn();
    const c = new IdleCollector({ burst: 3, idleMs: 1000, collect });
    for (let i = 0; i < 2; i++) {
      c.started();
      c.done();
    }
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled(); // 2 < burst

    c.started();
    c.started(); // two at once
    c.done();
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled(); // one still running
    c.done();
    vi.advanceTimersByTime(999);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('waits again when work starts before the idle time is up, and counts anew after collecting', () => {
    const collect = vi.fn();
    const c = new IdleCollector({ burst: 1, idleMs: 1000, collect });
    c.started();
    c.done();
    vi.advanceTimersByTime(500);
    c.started();
    vi.advanceTimersByTime(2000);
    expect(collect).not.toHaveBeenCalled();
    c.done();
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });
});
