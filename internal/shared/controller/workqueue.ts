// A rate-limited work queue with client-go's semantics (util/workqueue: queue.go,
// delaying_queue.go, rate_limiting_queue.go), for one event loop instead of goroutines.
//
//   add ──▶ dirty ──▶ queue (FIFO) ──get──▶ processing ──done──▶ (dirty again? back to queue)
//   addAfter ──▶ waiting (min-heap by readyAt, one timer) ──ready──▶ add
//
// - An item is queued at most once: adding an item that is already waiting does nothing.
// - An item is never handed to two workers at once: adding an item that is being processed
//   marks it dirty, and `done` puts it back in the queue.
// - `addAfter` keeps one pending entry per item; a second call only ever moves it earlier.
// - `addRateLimited` = `addAfter(item, rateLimiter.when(item))`; `forget` resets the backoff.
// - After `shutDown`, adds are ignored and pending delayed adds dropped; `get` still hands out
//   what is already queued, then resolves `undefined`.
import type { WorkQueueMetrics } from '../observability/index.ts';
import { type Clock, realClock } from './clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

export interface WorkQueueOptions<T> {
  /** Queue name: the `name` label of the workqueue_* metrics. */
  readonly name?: string;
  /** Backoff for `addRateLimited`; default: client-go's default controller rate limiter. */
  readonly rateLimiter?: RateLimiter<T>;
  /** Metric hooks; without them the queue keeps no timing state at all. */
  readonly metrics?: WorkQueueMetrics;
  readonly clock?: Clock;
}

interface Waiting<T> {
  readonly item: T;
  readyAt: number;
  readonly seq: number; // ties on readyAt keep addAfter order
  index: number;
}

// setTimeout's ceiling (~24.8 days); a longer wait just re-arms the timer when it fires.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WorkQueue<T extends NonNullable<unknown> = string> {
  readonly name: string;
  readonly #rateLimiter: RateLimiter<T>;
  readonly #clock: Clock;

  // FIFO as an array with a moving head, compacted now and then (no O(n) shift per get).
  #queue: T[] = [];
  #head = 0;
  readonly #dirty = new Set<T>();
  readonly #processing = new Set<T>();
  readonly #getters: ((item: T | undefined) => void)[] = [];

  #shuttingDown = false;

  readonly #heap: Waiting<T>[] = [];
  readonly #waiting = new Map<T, Waiting<T>>();
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;

  readonly #metrics: WorkQueueMetrics | undefined;
  readonly #addTimes = new Map<T, number>();
  readonly #startTimes = new Map<T, number>();
  #unfinishedTimer: NodeJS.Timeout | undefined;

  constructor(options: WorkQueueOptions<T> = {}) {
    this.name = options.name ?? '';
    this.#clock = options.clock ?? realClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.#clock);
    this.#metrics = options.metrics;
    if (this.#metrics) {
      // The unfinished-work gauges, refreshed as often as client-go does.
      this.#unfinishedTimer = setInterval(() => this.#updateUnfinishedWork(), 500);
      this.#unfinishedTimer.unref(); // housekeeping only: never what keeps a process alive
    }
  }

  /** Marks `item` as needing processing. */
  add(item: T): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    if (this.#metrics) {
      this.#metrics.adds.inc();
      this.#metrics.depth.inc();
      if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.now());
    }
    this.#dirty.add(item);
    if (this.#processing.has(item)) return; // `done` re-queues it
    this.#queue.push(item);
    this.#dispatch();
  }

  /** Adds `item` once `delayMs` has passed (now, if not positive). Counts as a retry. */
  addAfter(item: T, delayMs: number): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retries.inc();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const existing = this.#waiting.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.#siftUp(existing.index);
      }
    } else {
      const entry: Waiting<T> = { item, readyAt, seq: this.#seq++, index: this.#heap.length };
      this.#heap.push(entry);
      this.#waiting.set(item, entry);
      this.#siftUp(entry.index);
    }
    this.#arm();
  }

  /** Adds `item` after its rate limiter's delay (per-item backoff, overall bucket). */
  addRateLimited(item: T): void {
    if (this.#shuttingDown) return;
    this.addAfter(item, this.#rateLimiter.when(item));
  }

  /** Ends the item's run of failures: the next `addRateLimited` starts from the base delay. */
  forget(item: T): void {
    this.#rateLimiter.forget(item);
  }

  /** How many rate-limited requeues the item has had since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#rateLimiter.numRequeues(item);
  }

  /**
   * The next item to process, waiting for one if need be; `undefined` once the queue is shut
   * down and empty. Every item received must be passed to `done` when its processing ends.
   */
  get(): Promise<T | undefined> {
    if (this.#head < this.#queue.length) return Promise.resolve(this.#takeNext());
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Ends processing of `item`; if it was added again meanwhile, it goes back in the queue. */
  done(item: T): void {
    if (!this.#processing.delete(item)) return; // not handed out: nothing to finish
    if (this.#metrics) {
      const started = this.#startTimes.get(item);
      if (started !== undefined) {
        this.#metrics.workDuration.observe((this.#clock.now() - started) / 1000);
        this.#startTimes.delete(item);
      }
    }
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#dispatch();
    }
  }

  /** Items waiting for a worker (not those being processed or delayed). */
  len(): number {
    return this.#queue.length - this.#head;
  }

  /** Items handed out and not yet done. */
  processingCount(): number {
    return this.#processing.size;
  }

  /** Items scheduled by `addAfter` that are not due yet. */
  waitingCount(): number {
    return this.#heap.length;
  }

  /** Whether `item` waits for a worker or is being processed (a scheduled `addAfter` does not count). */
  has(item: T): boolean {
    return this.#dirty.has(item) || this.#processing.has(item);
  }

  /** Milliseconds until `item`'s scheduled `addAfter` (0 when due), or undefined when none is scheduled. */
  dueIn(item: T): number | undefined {
    const entry = this.#waiting.get(item);
    return entry && Math.max(0, entry.readyAt - this.#clock.now());
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Stops accepting items and drops delayed ones; idle `get` calls resolve `undefined`. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#heap.length = 0;
    this.#waiting.clear();
    if (this.#unfinishedTimer !== undefined) clearInterval(this.#unfinishedTimer);
    this.#unfinishedTimer = undefined;
    this.#dispatch();
  }

  // Hands queued items to waiting getters; once shut down and empty, tells them to stop.
  #dispatch(): void {
    while (this.#getters.length > 0 && this.#head < this.#queue.length) {
      const resolve = this.#getters.shift()!;
      resolve(this.#takeNext());
    }
    if (this.#shuttingDown && this.#head >= this.#queue.length) {
      for (const resolve of this.#getters.splice(0)) resolve(undefined);
    }
  }

  #takeNext(): T {
    const item = this.#queue[this.#head]!;
    this.#head++;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (this.#metrics) {
      const now = this.#clock.now();
      this.#metrics.depth.dec();
      const added = this.#addTimes.get(item);
      if (added !== undefined) {
        this.#metrics.latency.observe((now - added) / 1000);
        this.#addTimes.delete(item);
      }
      this.#startTimes.set(item, now);
    }
    this.#processing.add(item);
    this.#dirty.delete(item);
    return item;
  }

  #updateUnfinishedWork(): void {
    if (!this.#metrics) return;
    const now = this.#clock.now();
    let total = 0;
    let oldest = 0;
    for (const started of this.#startTimes.values()) {
      const age = (now - started) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.#metrics.unfinishedWorkSeconds.set(total);
    this.#metrics.longestRunningProcessorSeconds.set(oldest);
  }

  // ---- delayed adds -------------------------------------------------------------------------

  // Keeps one timer, set for the earliest readyAt.
  #arm(): void {
    const top = this.#heap[0];
    if (top === undefined) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#timerAt = Infinity;
      return;
    }
    if (this.#timer !== undefined && this.#timerAt <= top.readyAt) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const delay = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(top.readyAt - this.#clock.now())));
    this.#timerAt = top.readyAt;
    this.#timer = setTimeout(() => this.#fire(), delay);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#clock.now();
    for (let top = this.#heap[0]; top !== undefined && top.readyAt <= now; top = this.#heap[0]) {
      this.#popTop();
      this.#waiting.delete(top.item);
      this.add(top.item);
    }
    this.#arm();
  }

  #less(a: Waiting<T>, b: Waiting<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const a = this.#heap[i]!;
    const b = this.#heap[j]!;
    this.#heap[i] = b;
    this.#heap[j] = a;
    b.index = i;
    a.index = j;
  }

  #siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#heap[i]!, this.#heap[parent]!)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #popTop(): void {
    const last = this.#heap.length - 1;
    this.#swap(0, last);
    this.#heap.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < this.#heap.length && this.#less(this.#heap[l]!, this.#heap[smallest]!)) smallest = l;
      if (r < this.#heap.length && this.#less(this.#heap[r]!, this.#heap[smallest]!)) smallest = r;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }
}
