// Time source for the queue, rate limiters and controller: milliseconds on a monotonic scale.

export interface Clock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  now(): number;
}

/** `performance.now()`, looked up on each call so test fake timers apply. */
export const realClock: Clock = { now: () => performance.now() };
