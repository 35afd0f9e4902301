import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.ts';

describe('Backoff', () => {
  it('doubles from 0.8 s to a 30 s cap, and starts over after reset', () => {
    const b = new Backoff({ random: () => 0.5 }); // the middle of the jitter range: no jitter
    const delays = Array.from({ length: 8 }, () => b.next());
    expect(delays).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    expect(b.attempts).toBe(8);
    b.reset();
    expect(b.next()).toBe(800);
  });

  it('jitters each delay by at most ±10 %', () => {
    expect(new Backoff({ random: () => 0 }).next()).toBe(720);
    expect(new Backoff({ random: () => 0.999999 }).next()).toBe(880);
  });
});
