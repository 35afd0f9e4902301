import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorkQueueMetrics } from '../observability/index.ts';
import { ItemExponentialFailureRateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './workqueue.ts';

// Lets pending promise callbacks run (no timers involved).
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

// A promise's state, observed without waiting on it.
function track<T>(p: Promise<T>): { settled: boolean; value: T | undefined } {
  const state = { settled: false, value: undefined as T | undefined };
  void p.then((v) => {
    state.settled = true;
    state.value = v;
  });
  return state;
}

// Drains every item that is ready now, marking each done.
async function drainReady<T extends NonNullable<unknown>>(q: WorkQueue<T>): Promise<T[]> {
  const out: T[] = [];
  while (q.len() > 0) {
    const item = (await q.get())!;
    out.push(item);
    q.done(item);
  }
  return out;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('WorkQueue: dedupe and processing', () => {
  it('queues an item once while it waits, in first-add order', async () => {
    const q = new WorkQueue<string>();
    for (const k of ['a', 'b', 'a', 'c', 'b', 'a']) q.add(k);
    expect(q.len()).toBe(3);
    expect(await drainReady(q)).toEqual(['a', 'b', 'c']);
    q.shutDown();
  });

  it('re-adding an item being processed re-queues it after done, once', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const a = await q.get();
    expect(a).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0); // not handed out again while processing
    q.done('a');
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('never hands one item to two waiting workers at once', async () => {
    const q = new WorkQueue<string>();
    const w1 = track(q.get());
    const w2 = track(q.get());
    q.add('a');
    await flush();
    expect(w1).toEqual({ settled: true, value: 'a' });
    q.add('a'); // changes while worker 1 processes it
    await flush();
    expect(w2.settled).toBe(false);
    q.add('b');
    await flush();
    expect(w2).toEqual({ settled: true, value: 'b' });
    const w3 = track(q.get());
    await flush();
    expect(w3.settled).toBe(false);
    q.done('a'); // now 'a' may go out again
    await flush();
    expect(w3).toEqual({ settled: true, value: 'a' });
    q.shutDown();
  });

  it('done for an item not handed out is ignored', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(await drainReady(q)).toEqual(['a']);
    q.shutDown();
  });

  it('keeps FIFO order across many items (head compaction)', async () => {
    const q = new WorkQueue<number>();
    const n = 5000;
    for (let i = 0; i < n; i++) q.add(i);
    const got: number[] = [];
    for (let i = 0; i < n / 2; i++) {
      const item = (await q.get())!;
      got.push(item);
      q.done(item);
      q.add(n + i); // interleave adds with gets
    }
    got.push(...(await drainReady(q)));
    expect(got).toEqual(Array.from({ length: n + n / 2 }, (_, i) => i));
    q.shutDown();
  });
});

describe('WorkQueue: delayed adds', () => {
  it('adds after the delay, in readyAt order, ties in call order', async () => {
    const q = new WorkQueue<string>();
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    q.addAfter('b2', 20);
    expect(q.len()).toBe(0);
    expect(q.waitingCount()).toBe(4);
    await vi.advanceTimersByTimeAsync(9);
    expect(q.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await drainReady(q)).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(25);
    expect(await drainReady(q)).toEqual(['b', 'b2', 'c']);
    expect(q.waitingCount()).toBe(0);
    q.shutDown();
  });

  it('keeps one pending entry per item; a second call only moves it earlier', async () => {
    const q = new WorkQueue<string>();
    q.addAfter('a', 100);
    q.addAfter('a', 500); // later: ignored
    expect(q.waitingCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(await drainReady(q)).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(q.len()).toBe(0);

    q.addAfter('b', 500);
    q.addAfter('b', 50); // earlier: moves it
    await vi.advanceTimersByTimeAsync(50);
    expect(await drainReady(q)).toEqual(['b']);
    q.shutDown();
  });

  it('has: queued or processing, not scheduled; dueIn: the time left of a scheduled add', async () => {
    const q = new WorkQueue<string>();
    expect(q.has('a')).toBe(false);
    expect(q.dueIn('a')).toBeUndefined();
    q.addAfter('a', 300);
    expect(q.has('a')).toBe(false);
    expect(q.dueIn('a')).toBe(300);
    await vi.advanceTimersByTimeAsync(100);
    expect(q.dueIn('a')).toBe(200);
    await vi.advanceTimersByTimeAsync(200);
    expect(q.dueIn('a')).toBeUndefined();
    expect(q.has('a')).toBe(true); // queued
    const item = (await q.get())!;
    expect(q.has('a')).toBe(true); // processing
    q.done(item);
    expect(q.has('a')).toBe(false);
    q.shutDown();
  });

  it('a non-positive delay adds at once; a delayed item already queued is deduplicated', async () => {
    const q = new WorkQueue<string>();
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).toBe(2);
    q.addAfter('a', 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(await drainReady(q)).toEqual(['a', 'b']);
    q.shutDown();
  });

  it('addRateLimited backs off per item, forget resets, numRequeues counts', async () => {
    const q = new WorkQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter(5, 40) });
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      q.addRateLimited('a');
      while (q.len() === 0) await vi.advanceTimersByTimeAsync(1);
      delays.push(performance.now() - t0);
      await drainReady(q);
    }
    expect(delays).toEqual([5, 10, 20, 40, 40]); // growth, then the cap
    expect(q.numRequeues('a')).toBe(5);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    q.addRateLimited('a');
    await vi.advanceTimersByTimeAsync(5);
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('uses the default controller rate limiter (5 ms base) when none is given', async () => {
    const q = new WorkQueue<string>();
    q.addRateLimited('a');
    await vi.advanceTimersByTimeAsync(4);
    expect(q.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(q.len()).toBe(1);
    q.shutDown();
  });
});

describe('WorkQueue: shut down', () => {
  it('wakes idle getters, ignores adds, drops delayed items, still hands out queued ones', async () => {
    const q = new WorkQueue<string>();
    const idle = track(q.get());
    q.shutDown();
    await flush();
    expect(idle).toEqual({ settled: true, value: undefined });

    const q2 = new WorkQueue<string>();
    q2.add('queued');
    q2.addAfter('delayed', 10);
    q2.shutDown();
    q2.add('late');
    q2.addAfter('late2', 0);
    q2.addRateLimited('late3');
    expect(q2.shuttingDown()).toBe(true);
    expect(q2.waitingCount()).toBe(0);
    expect(await q2.get()).toBe('queued');
    expect(await q2.get()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(100);
    expect(q2.len()).toBe(0);
    expect(vi.getTimerCount()).toBe(0); // nothing left armed
  });
});

describe('WorkQueue: metrics', () => {
  function fakeMetrics() {
    const m = { depth: 0, adds: 0, retries: 0, latency: [] as number[], work: [] as number[], unfinished: -1, longest: -1 };
    const hooks: WorkQueueMetrics = {
      depth: { inc: () => void m.depth++, dec: () => void m.depth-- },
      adds: { inc: () => void m.adds++ },
      retries: { inc: () => void m.retries++ },
      latency: { observe: (v) => void m.latency.push(v) },
      workDuration: { observe: (v) => void m.work.push(v) },
      unfinishedWorkSeconds: { set: (v) => void (m.unfinished = v) },
      longestRunningProcessorSeconds: { set: (v) => void (m.longest = v) },
    };
    return { m, hooks };
  }

  it('reports depth, adds, retries, queue latency, work duration and unfinished work', async () => {
    const { m, hooks } = fakeMetrics();
    const q = new WorkQueue<string>({ name: 'test', metrics: hooks });
    q.add('a');
    q.add('a'); // deduplicated: not an add
    q.add('b');
    expect({ depth: m.depth, adds: m.adds }).toEqual({ depth: 2, adds: 2 });

    await vi.advanceTimersByTimeAsync(250);
    const a = (await q.get())!;
    expect(m.depth).toBe(1);
    expect(m.latency).toEqual([0.25]);

    // Refreshed every 500 ms from queue creation: at t=1000 'a' has been processing 0.75 s.
    await vi.advanceTimersByTimeAsync(750);
    expect(m.unfinished).toBeCloseTo(0.75);
    expect(m.longest).toBeCloseTo(0.75);
    q.done(a);
    expect(m.work).toEqual([0.75]);

    q.addAfter('c', 10);
    q.addRateLimited('d');
    expect(m.retries).toBe(2);
    q.shutDown();
  });
});
