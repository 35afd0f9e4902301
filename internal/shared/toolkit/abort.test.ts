import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { raceAbort, sleep, sleepOrThrow, untilAborted } from './abort.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** 'pending' while `p` has not settled, else how it settled. */
async function state(p: Promise<unknown>): Promise<string> {
  let out = 'pending';
  p.then(
    () => (out = 'resolved'),
    (err: unknown) => (out = `rejected: ${String(err)}`),
  );
  await vi.advanceTimersByTimeAsync(0);
  return out;
}

describe('sleep', () => {
  it('resolves after ms', async () => {
    const p = sleep(1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(await state(p)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await state(p)).toBe('resolved');
  });

  it('resolves, without rejecting, as soon as the signal aborts', async () => {
    const ac = new AbortController();
    const p = sleep(60_000, ac.signal);
    expect(await state(p)).toBe('pending');
    ac.abort(new Error('stop'));
    expect(await state(p)).toBe('resolved');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends early, without throwing, when its signal aborts (real timers)', async () => {
    vi.useRealTimers();
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 20);
    await sleep(10_000, ac.signal);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('resolves at once when the signal has already aborted', async () => {
    const p = sleep(60_000, AbortSignal.abort());
    expect(await state(p)).toBe('resolved');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('sleepOrThrow', () => {
  it('resolves after ms and leaves no listener behind', async () => {
    const ac = new AbortController();
    const p = sleepOrThrow(100, ac.signal);
    await vi.advanceTimersByTimeAsync(100);
    expect(await state(p)).toBe('resolved');
    ac.abort(new Error('late')); // no unhandled rejection: the listener is gone
  });

  it('rejects with the signal reason when the signal aborts', async () => {
    const ac = new AbortController();
    const p = sleepOrThrow(60_000, ac.signal);
    p.catch(() => undefined);
    ac.abort(new Error('stop'));
    expect(await state(p)).toBe('rejected: Error: stop');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once when the signal has already aborted', async () => {
    const p = sleepOrThrow(60_000, AbortSignal.abort(new Error('gone')));
    p.catch(() => undefined);
    expect(await state(p)).toBe('rejected: Error: gone');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('untilAborted', () => {
  it('resolves when the signal aborts, not before', async () => {
    const ac = new AbortController();
    const p = untilAborted(ac.signal);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await state(p)).toBe('pending');
    ac.abort();
    expect(await state(p)).toBe('resolved');
  });

  it('resolves at once when the signal has already aborted', async () => {
    expect(await state(untilAborted(AbortSignal.abort()))).toBe('resolved');
  });
});

describe('raceAbort', () => {
  it('settles as the promise does, or rejects with the reason when the signal aborts first', async () => {
    expect(await raceAbort(Promise.resolve(1), undefined)).toBe(1);
    expect(await raceAbort(Promise.resolve(2), new AbortController().signal)).toBe(2);
    await expect(raceAbort(Promise.reject(new Error('boom')), new AbortController().signal)).rejects.toThrow('boom');
    const ac = new AbortController();
    const p = raceAbort(new Promise(() => {}), ac.signal);
    expect(await state(p)).toBe('pending');
    ac.abort(new Error('stop'));
    expect(await state(p)).toBe('rejected: Error: stop');
    await expect(raceAbort(Promise.resolve(3), AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
