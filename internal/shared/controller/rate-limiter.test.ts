import { describe, expect, it } from 'vitest';
import type { Clock } from './clock.ts';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.ts';

class ManualClock implements Clock {
  t = 1000;
  now(): number {
    return this.t;
  }
  date(): Date {
    return new Date(this.t);
  }
}

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from the base per failure and caps at the max (client-go 5 ms → 1000 s)', () => {
    const rl = new ItemExponentialFailureRateLimiter<string>(5, 1000_000);
    const delays = Array.from({ length: 22 }, () => rl.when('a'));
    expect(delays.slice(0, 6)).toEqual([5, 10, 20, 40, 80, 160]);
    expect(delays[17]).toBe(5 * 2 ** 17); // 655.36 s, still under the cap
    expect(delays.slice(18)).toEqual([1000_000, 1000_000, 1000_000, 1000_000]);
    expect(rl.numRequeues('a')).toBe(22);
  });

  it('keeps items apart and forgets', () => {
    const rl = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    rl.when('a');
    rl.when('a');
    expect(rl.when('b')).toBe(1);
    expect(rl.numRequeues('a')).toBe(2);
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(rl.when('a')).toBe(1);
  });

  it('stays at the cap after very many failures (no overflow to NaN/Infinity)', () => {
    const rl = new ItemExponentialFailureRateLimiter<string>(5, 1000_000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = rl.when('a');
    expect(last).toBe(1000_000);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces by 1/qps, refilling over time', () => {
    const clock = new ManualClock();
    const rl = new BucketRateLimiter<string>(10, 100, clock);
    const burst = Array.from({ length: 100 }, (_, i) => rl.when(`k${i}`));
    expect(burst.every((d) => d === 0)).toBe(true);
    expect(rl.when('x')).toBeCloseTo(100); // 1 token in debt at 10/s
    expect(rl.when('y')).toBeCloseTo(200);
    clock.t += 1000; // +10 tokens: debt of 2 → 8 available
    const next = Array.from({ length: 9 }, () => rl.when('z'));
    expect(next.slice(0, 8).every((d) => d === 0)).toBe(true);
    expect(next[8]).toBeCloseTo(100);
    expect(rl.numRequeues('z')).toBe(0);
  });

  it('never saves more than burst', () => {
    const clock = new ManualClock();
    const rl = new BucketRateLimiter<string>(10, 2, clock);
    clock.t += 3600_000;
    expect([rl.when('a'), rl.when('a'), rl.when('a')]).toEqual([0, 0, 100]);
  });

  it('rejects nonsense settings', () => {
    expect(() => new BucketRateLimiter(0, 10)).toThrow(RangeError);
    expect(() => new BucketRateLimiter(10, 0)).toThrow(RangeError);
  });
});

describe('MaxOfRateLimiter / defaultControllerRateLimiter', () => {
  it('takes the longest delay and the largest requeue count; forget reaches all', () => {
    const a = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    const b = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const rl = new MaxOfRateLimiter(a, b);
    expect([rl.when('k'), rl.when('k'), rl.when('k')]).toEqual([5, 10, 20]);
    expect(rl.numRequeues('k')).toBe(3);
    rl.forget('k');
    expect(a.numRequeues('k') + b.numRequeues('k')).toBe(0);
  });

  it('default: per-item backoff until the shared bucket runs dry', () => {
    const clock = new ManualClock();
    const rl = defaultControllerRateLimiter<string>(clock);
    expect(rl.when('a')).toBe(5);
    expect(rl.when('a')).toBe(10);
    // 98 more distinct items use up the burst of 100 at 5 ms each …
    for (let i = 0; i < 98; i++) expect(rl.when(`k${i}`)).toBe(5);
    // … then the bucket (10 qps) dominates a fresh item's 5 ms.
    expect(rl.when('fresh')).toBeCloseTo(100);
  });
});
