// Rate limiters for requeues, after client-go's util/workqueue/default_rate_limiters.go.
// `when` says how long to wait before an item is retried and counts the retry; `forget` ends
// the item's run of failures (call it when the item succeeded or was given up on).
import { type Clock, realClock } from './clock.ts';

export interface RateLimiter<T> {
  /** Delay in milliseconds before `item` may be retried; records one more retry. */
  when(item: T): number;
  /** Clears the item's failure history. */
  forget(item: T): void;
  /** How many times `when` was called for the item since it was last forgotten. */
  numRequeues(item: T): number;
}

/** Per-item exponential backoff: base·2^failures, capped at max (client-go: 5 ms … 1000 s). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly #failures = new Map<T, number>();

  constructor(baseDelayMs: number, maxDelayMs: number) {
    this.baseDelayMs = baseDelayMs;
    this.maxDelayMs = maxDelayMs;
  }

  when(item: T): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * 2 ** exp; // Infinity past 2^1023, which the cap handles
    return backoff > this.maxDelayMs ? this.maxDelayMs : backoff;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/**
 * One token bucket shared by all items (golang.org/x/time/rate `Reserve`): `qps` tokens a second,
 * at most `burst` saved. Each `when` takes a token, going into debt if none is left, and returns
 * how long until that debt is paid. Caps the overall retry rate, whatever the per-item backoff.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, clock: Clock = realClock) {
    if (!(qps > 0) || !(burst >= 1)) throw new RangeError(`bucket rate limiter needs qps > 0 and burst >= 1, got ${qps}/${burst}`);
    this.qps = qps;
    this.burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  when(_item: T): number {
    const now = this.#clock.now();
    const elapsedMs = Math.max(0, now - this.#last);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsedMs / 1000) * this.qps) - 1;
    this.#last = Math.max(now, this.#last);
    return this.#tokens < 0 ? (-this.#tokens / this.qps) * 1000 : 0;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The worst (longest) of several limiters; `numRequeues` is the largest count among them. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.#limiters = limiters;
  }

  when(item: T): number {
    return Math.max(0, ...this.#limiters.map((l) => l.when(item)));
  }

  forget(item: T): void {
    for (const l of this.#limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    return Math.max(0, ...this.#limiters.map((l) => l.numRequeues(item)));
  }
}

export const DEFAULT_BASE_DELAY_MS = 5;
export const DEFAULT_MAX_DELAY_MS = 1000_000;
export const DEFAULT_QPS = 10;
export const DEFAULT_BURST = 100;

/**
 * client-go's DefaultControllerRateLimiter (what controller-runtime uses): per-item backoff
 * 5 ms → 1000 s combined with a 10 qps / burst 100 bucket over all items.
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS),
    new BucketRateLimiter<T>(DEFAULT_QPS, DEFAULT_BURST, clock),
  );
}
