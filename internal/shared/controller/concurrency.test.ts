import { describe, expect, it } from 'vitest';
import { sleep } from '../toolkit/index.ts';
import { mapLimit } from './concurrency.ts';

describe('mapLimit', () => {
  it('keeps input order and never has more than `limit` calls pending', async () => {
    let pending = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      pending++;
      most = Math.max(most, pending);
      await sleep(n); // calls of different lengths, ending out of order
      pending--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('starts nothing after a failure, waits for the calls in flight, and throws the first failure', async () => {
    const started: number[] = [];
    let finished = 0;
    const run = mapLimit([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('one failed');
      await sleep(5); // still in flight when call 1 fails
      finished++;
      return n;
    });
    await expect(run).rejects.toThrow('one failed');
    expect(started).toEqual([1, 2]);
    expect(finished).toBe(1);
  });

  it('handles no items and a limit below one', async () => {
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
    expect(await mapLimit([1, 2], 0, async (n) => n)).toEqual([1, 2]);
  });
});
