// The one time source (docs/decisions/0010-one-clock.md). `Clock.now()`: milliseconds on a monotonic scale, for
// deadlines, timeouts, TTLs and backoff — the work queue, rate limiters and controllers, the applier's waits, the kube
// client's caches and leader election. `Clock.date()`: the wall time, for what is written down (metav1.Time,
// annotations, Events, certificates' validity) or compared with times read back. This file is the only one of product
// code that reads the system's clocks (`Date.now()`, `new Date()`): the eslint rule `clock/only-here` holds it.

export interface Clock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  now(): number;
  /** The wall time now. */
  date(): Date;
}

/** `performance.now()` and `new Date()`, looked up on each call so test fake timers apply. */
export const realClock: Clock = {
  now: () => performance.now(),
  date: () => new Date(),
};

/**
 * A clock a test moves by hand: starts at `startMs`, `advance(ms)` moves it on. Its wall time is `wallStart`
 * (default: the epoch) plus the time advanced since it was made.
 */
export class ManualClock implements Clock {
  #now: number;
  readonly #start: number;
  readonly #wallStart: number;
  constructor(startMs = 0, wallStart: Date = new Date(0)) {
    this.#now = startMs;
    this.#start = startMs;
    this.#wallStart = wallStart.getTime();
  }
  now(): number {
    return this.#now;
  }
  date(): Date {
    return new Date(this.#wallStart + (this.#now - this.#start));
  }
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`a clock only moves forward (advance by ${ms})`);
    this.#now += ms;
  }
}
