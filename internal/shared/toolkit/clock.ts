// Time sources. `Clock`: milliseconds on a monotonic scale, for deadlines, timeouts, TTLs and backoff — the work
// queue, rate limiters and controllers, the applier's waits, the kube client's caches and leader election. Wall time
// that is written down (metav1.Time, annotations) is a `now: () => Date` where it is read, as before.

export interface Clock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  now(): number;
}

/** `performance.now()`, looked up on each call so test fake timers apply. */
export const realClock: Clock = { now: () => performance.now() };

/** A clock a test moves by hand: starts at `startMs`, `advance(ms)` moves it on. */
export class ManualClock implements Clock {
  #now: number;
  constructor(startMs = 0) {
    this.#now = startMs;
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`a clock only moves forward (advance by ${ms})`);
    this.#now += ms;
  }
}
