// The reconcile loop: event sources put keys in a rate-limited work queue, `concurrency`
// workers take keys out and call the reconciler, and the outcome decides what happens next
// (controller-runtime's pkg/internal/controller, reconcileHandler):
//
//   outcome                          queue                  reconcile_total{result}
//   resolved, no result              forget                 success
//   { requeueAfterMs: n > 0 }        forget, addAfter(n)    requeue_after
//   { requeue: true }                addRateLimited         requeue
//   throws TerminalError             forget (no retry)      error  (+ errors_total, terminal_…_total)
//   throws anything else             addRateLimited         error  (+ errors_total)
//
// Logging only: a conflict, an AlreadyExists, or an error marked `routine(err, reason)` (errors.ts) is logged at
// debug/info with its reason instead of as `Reconciler error`; queue and metrics are as in the table.
//
// A key is never reconciled by two workers at once (the queue guarantees it); a key that changes
// while it is being reconciled is reconciled once more afterwards.
import { setMaxListeners } from 'node:events';
import { idleCollector, noopLogger, noopMetrics, type Logger, type MetricsProvider, type ReconcileMetrics } from '../observability/index.ts';
import { untilAborted } from '../toolkit/index.ts';
import { type Clock, realClock } from './clock.ts';
import { cacheKey, isAlreadyExists, isConflict, isNamespaceTerminating, isRetryable } from '../kube/index.ts';
import { isTerminal, routineOf } from './errors.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './workqueue.ts';

/** Abort listeners one reconcile may have on its signal at once before Node warns of a leak. */
const REQUESTS_PER_RECONCILE = 64;

/** What a reconcile asks for besides "done". Both unset (or no result at all) means success. */
export interface Result {
  /** Reconcile this key again after this many milliseconds (and reset its backoff). */
  readonly requeueAfterMs?: number;
  /** Reconcile this key again after its rate-limited backoff, without counting an error. */
  readonly requeue?: boolean;
}

/**
 * Makes the cluster match one object's spec. `key` is `namespace/name` or `name`; `signal` is
 * aborted when the controller stops. Throw to retry with backoff; throw a TerminalError to stop
 * retrying; return a Result to come back later.
 */
export interface Reconciler {
  reconcile(key: string, signal: AbortSignal): Promise<Result | void>;
}

export type EventType = 'add' | 'update' | 'delete';

/** Anything that reports object changes; the informers in internal/shared/kube satisfy it. */
export interface EventSource<T> {
  /** Subscribes; returns the unsubscribe function. */
  onEvent(cb: (type: EventType, obj: T, old?: T) => void): () => void;
}

/** Turns an event's object into the keys to reconcile; nothing (or []) filters the event out. */
export type MapFn<T> = (obj: T, type: EventType) => string | Iterable<string> | undefined | null;

/** The shape `objectKey` reads: any Kubernetes object. */
export interface NamedObject {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's key); undefined without a name. */
export const objectKey = (obj: NamedObject): string | undefined => (obj.metadata?.name ? cacheKey(obj) : undefined);

/** The inverse of `objectKey`. */
export function splitKey(key: string): { readonly namespace?: string; readonly name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export interface ControllerOptions {
  /** Names the logs (`controller`), the metrics (`controller`, `name`) and the queue. */
  readonly name: string;
  readonly reconciler: Reconciler;
  /** Workers, i.e. the most keys reconciled at once. Default 1. */
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly metrics?: MetricsProvider;
  /** Backoff for errors and `requeue`; default: client-go's default controller rate limiter. */
  readonly rateLimiter?: RateLimiter<string>;
  /** Every `periodMs`, enqueue every key `keys()` lists (e.g. all objects in an informer's cache). */
  readonly resync?: { readonly periodMs: number; readonly keys: () => Iterable<string> };
  readonly clock?: Clock;
  /**
   * The log field that carries the key (default `key`): a controller keyed by a namespace name (a namespace sync)
   * sets `namespace`, so its lines carry the field every other line about the namespace's objects carries.
   */
  readonly keyField?: string;
}

/** How a watch enqueues the keys its events map to. */
export interface WatchOptions {
  /**
   * Enqueue each key this long after the event instead of at once: a burst of events for one key (or many keys)
   * then costs one reconcile per key (the queue keeps one pending add per key, only ever moved earlier). For
   * wake-ups of objects that merely might care about a change, not the change's own object.
   */
  readonly delayMs?: number;
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  readonly concurrency: number;
  readonly #reconciler: Reconciler;
  readonly #log: Logger;
  readonly #metrics: ReconcileMetrics;
  readonly #clock: Clock;
  readonly #resync: ControllerOptions['resync'];
  readonly #keyField: string;
  readonly #unsubscribes: (() => void)[] = [];
  #started = false;
  #stopping = false;

  constructor(options: ControllerOptions) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`controller ${options.name}: concurrency must be a positive integer, got ${concurrency}`);
    }
    if (options.resync !== undefined && !(options.resync.periodMs > 0)) {
      throw new RangeError(`controller ${options.name}: resync period must be positive`);
    }
    this.name = options.name;
    this.concurrency = concurrency;
    this.#reconciler = options.reconciler;
    this.#log = (options.logger ?? noopLogger).child({ controller: options.name });
    this.#metrics = (options.metrics ?? noopMetrics).controller(options.name);
    this.#clock = options.clock ?? realClock;
    this.#resync = options.resync;
    this.#keyField = options.keyField ?? 'key';
    const queueOptions = { name: options.name, clock: this.#clock, ...(options.rateLimiter && { rateLimiter: options.rateLimiter }) };
    this.queue = new WorkQueue<string>(options.metrics ? { ...queueOptions, metrics: options.metrics.workQueue(options.name) } : queueOptions);
  }

  /**
   * Enqueues keys for the source's events, from now until the controller stops. Without `mapFn`
   * the key is the object's own (`objectKey`). For updates, the keys of the old object are
   * enqueued too, so a change that moves an object from one owner to another reaches both.
   * Returns a function that ends this watch early.
   */
  watch<T extends NamedObject>(source: EventSource<T>): () => void;
  watch<T>(source: EventSource<T>, mapFn: MapFn<T>, options?: WatchOptions): () => void;
  watch<T>(source: EventSource<T>, mapFn?: MapFn<T>, options: WatchOptions = {}): () => void {
    if (this.#stopping) throw new Error(`controller ${this.name} has stopped; it cannot watch anything more`);
    const map = mapFn ?? ((obj: T) => objectKey(obj as NamedObject));
    const delayMs = options.delayMs ?? 0;
    const unsubscribe = source.onEvent((type, obj, old) => {
      if (this.#stopping) return;
      this.#enqueueMapped(map, obj, type, delayMs);
      if (old !== undefined && old !== obj) this.#enqueueMapped(map, old, type, delayMs);
    });
    this.#unsubscribes.push(unsubscribe);
    return unsubscribe;
  }

  /** Enqueues a key directly (deduplicated with everything else in the queue). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  get started(): boolean {
    return this.#started;
  }

  /**
   * Runs the workers until `signal` aborts, then stops: event sources are unsubscribed, queued
   * keys are dropped, reconciles in flight see the aborted signal, and the returned promise
   * resolves once every one of them has finished. A controller runs once.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`controller ${this.name} was already started`);
    this.#started = true;
    if (!signal.aborted) {
      this.#metrics.maxConcurrentReconciles.set(this.concurrency);
      this.#log.info('Starting workers', { workerCount: this.concurrency });
      const workers: Promise<void>[] = [];
      for (let i = 0; i < this.concurrency; i++) workers.push(this.#worker(signal));
      const resync = this.#resync && setInterval(() => this.#resyncAll(), this.#resync.periodMs);
      await untilAborted(signal);
      this.#log.info('Shutdown signal received, waiting for all workers to finish');
      if (resync !== undefined) clearInterval(resync);
      this.#stop();
      await Promise.all(workers);
      this.#log.info('All workers finished');
    }
    this.#stop();
  }

  #stop(): void {
    this.#stopping = true;
    for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe();
    this.queue.shutDown();
  }

  #enqueueMapped<T>(map: MapFn<T>, obj: T, type: EventType, delayMs: number): void {
    let keys: string | Iterable<string> | undefined | null;
    try {
      keys = map(obj, type);
    } catch (err) {
      this.#log.error('Mapping an event to keys failed; event dropped', { event: type, err });
      return;
    }
    if (keys === undefined || keys === null) return;
    const add = delayMs > 0 ? (key: string): void => this.queue.addAfter(key, delayMs) : (key: string): void => this.queue.add(key);
    if (typeof keys === 'string') add(keys);
    else for (const key of keys) add(key);
  }

  /** The log field of a key: `{ key }`, or the field `keyField` names. */
  #k(key: string): Record<string, string> {
    return { [this.#keyField]: key };
  }

  #resyncAll(): void {
    try {
      for (const key of this.#resync!.keys()) this.queue.add(key);
    } catch (err) {
      this.#log.error('Listing keys for resync failed', { err });
    }
  }

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      if (this.#stopping) {
        this.queue.done(key); // shutting down: start nothing new
        return;
      }
      try {
        await this.#reconcileOne(key, signal);
      } catch (err) {
        // Only a throwing logger or metrics hook gets here; keep the worker alive.
        this.#log.error('Handling a reconcile outcome failed', { ...this.#k(key), err });
      }
    }
  }

  async #reconcileOne(key: string, signal: AbortSignal): Promise<void> {
    const m = this.#metrics;
    m.activeWorkers.inc();
    idleCollector.started();
    const started = this.#clock.now();
    let result: Result | void = undefined;
    let failed = false;
    let error: unknown;
    // A signal of its own per reconcile: a pass may have many requests in flight on it (each adds
    // an abort listener), which would otherwise pile up on the process-wide signal.
    const own = new AbortController();
    setMaxListeners(REQUESTS_PER_RECONCILE, own.signal);
    const stop = (): void => own.abort(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    try {
      result = await this.#reconciler.reconcile(key, own.signal);
    } catch (err) {
      failed = true;
      error = err;
    } finally {
      signal.removeEventListener('abort', stop);
    }
    m.time.observe((this.#clock.now() - started) / 1000);
    m.activeWorkers.dec();
    idleCollector.done();
    try {
      this.#handleOutcome(key, failed, error, result, signal);
    } finally {
      this.queue.done(key);
    }
  }

  #handleOutcome(key: string, failed: boolean, error: unknown, result: Result | void, signal: AbortSignal): void {
    const m = this.#metrics;
    const q = this.queue;
    if (failed) {
      m.errors.inc();
      m.total.error.inc();
      const routine = routineOf(error);
      const routineApi = ROUTINE_API_ERRORS.find((r) => inCauses(error, r.test));
      if (isTerminal(error)) {
        m.terminalErrors.inc();
        q.forget(key);
        if (routine) this.#log[routine.level]('Reconcile refused (terminal, not retried)', { ...this.#k(key), reason: routine.reason, err: error });
        else this.#log.error('Reconciler error (terminal, not retried)', { ...this.#k(key), reason: error.reason, err: error });
      } else if (signal.aborted) {
        // Interrupted by shutdown: nothing to retry in this process.
        this.#log.info('Reconcile interrupted by shutdown', { ...this.#k(key), err: error });
      } else if (inCauses(error, isConflict)) {
        // Routine: the pass decided on an object that changed meanwhile; it runs again from fresh state.
        q.addRateLimited(key);
        this.#log.debug('Reconcile conflict; reconciling again from fresh state', { ...this.#k(key), requeues: q.numRequeues(key), err: error });
      } else if (routine) {
        // Expected on the way (waiting for a dependent, a requirement not there yet, a refusal by design): same retry.
        q.addRateLimited(key);
        this.#log[routine.level]('Reconcile not done yet; retrying', { ...this.#k(key), reason: routine.reason, requeues: q.numRequeues(key), err: error });
      } else if (routineApi) {
        // Routine: another writer (or an earlier pass whose answer was lost) created it, or its namespace is going
        // away; the next pass sees the object, or the key's object is gone.
        q.addRateLimited(key);
        this.#log.debug(routineApi.msg, { ...this.#k(key), reason: routineApi.reason, requeues: q.numRequeues(key), err: error });
      } else if (inCauses(error, isRetryable) && q.numRequeues(key) < TRANSIENT_QUIET_RETRIES) {
        // Throttling, a server-side timeout, a 5xx, a dropped connection: the next try usually gets through. Only a
        // run of them is something to act on.
        q.addRateLimited(key);
        this.#log.info('Reconcile met a transient API error; retrying', { ...this.#k(key), requeues: q.numRequeues(key), err: error });
      } else {
        q.addRateLimited(key);
        this.#log.error('Reconciler error', { ...this.#k(key), requeues: q.numRequeues(key), err: error });
      }
      return;
    }
    const after = result?.requeueAfterMs;
    if (after !== undefined && after > 0) {
      q.forget(key);
      q.addAfter(key, after);
      m.total.requeue_after.inc();
    } else if (result?.requeue) {
      q.addRateLimited(key);
      m.total.requeue.inc();
    } else {
      q.forget(key);
      m.total.success.inc();
    }
  }
}

/** How many transient API errors in a row a key may meet before they are logged as errors. */
const TRANSIENT_QUIET_RETRIES = 5;

/** API errors on the way that no one must act on, with what the log says of them (the error or one of its causes). */
const ROUTINE_API_ERRORS = [
  { test: isAlreadyExists, reason: 'AlreadyExists', msg: 'Reconcile found an object already created; reconciling again' },
  { test: isNamespaceTerminating, reason: 'NamespaceTerminating', msg: 'Reconcile met a namespace being deleted; retrying' },
] as const;

/** Whether `test` holds for the error or one of its causes. */
function inCauses(err: unknown, test: (e: unknown) => boolean): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 8; e = (e as { cause?: unknown } | null)?.cause, depth++) {
    if (test(e)) return true;
  }
  return false;
}
