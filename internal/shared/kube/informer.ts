// An informer keeps an indexed, up-to-date cache of one kind and reports every change.
//
//   list (paged) ──▶ cache + 'add' events ──▶ watch from the list's resourceVersion ──┐
//        ▲                                                                           │ events, bookmarks
//        └── 410 Gone (HTTP or ERROR event): relist, diff the cache ◀────────────────┤ move the resourceVersion on
//                                                       clean close (timeoutSeconds) ┘ re-watch at once
//   any other failure (connection refused, 5xx, a silent watch caught by the watchdog):
//   wait with jittered exponential backoff (0.8 s → 30 s), then resume the watch from the last
//   resourceVersion (or list again if no list has succeeded yet).
//
// A relist reports what the watch missed: 'add' for new keys, 'update' when the resourceVersion
// moved, 'delete' (with the last known object) for keys that vanished. Handler exceptions are
// logged and counted, never swallowed and never allowed to stop the informer.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import { noopLogger, raceAbort, realClock, sleep, type Logger } from '../toolkit/index.ts';
import { byNamespace, Indexer, NAMESPACE_INDEX, type CacheReader, type IndexFn } from './cache.ts';
import type { KubeClient } from './client.ts';
import { isGone } from './errors.ts';
import type { FieldSelectorInput, LabelSelectorInput } from './selectors.ts';
import { cacheKey, type KindRef, type WatchEvent } from './types.ts';

export type InformerEventType = 'add' | 'update' | 'delete';
/** `old` is the previously cached object for updates (and for deletes, when it was cached). */
export type InformerHandler<T> = (type: InformerEventType, obj: T, old?: T) => void;

export interface InformerOptions<T extends KubeObject> {
  readonly client: KubeClient;
  readonly apiVersion: string;
  readonly kind: string;
  /** Watch one namespace only; default all. */
  readonly namespace?: string;
  readonly labelSelector?: LabelSelectorInput;
  readonly fieldSelector?: FieldSelectorInput;
  /** Items per list request; default 500. */
  readonly pageSize?: number;
  /** Applied to every object before it is cached, e.g. `stripManagedFields`. */
  readonly transform?: (obj: T) => T;
  readonly logger?: Logger;
  readonly backoff?: BackoffOptions;
  /** Server-side watch timeout, drawn at random from [min, max] seconds per watch; default [300, 600]. */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** A watch that sends nothing (not even a bookmark) for this long is dropped; default its timeout + 30 s. */
  readonly watchdogMs?: number;
}

/** Counters for logs, metrics and tests. */
export interface InformerStats {
  /** Lists that completed (the first one included). */
  readonly lists: number;
  /** Relists forced by 410 Gone. */
  readonly relists: number;
  /** Watch requests started. */
  readonly watches: number;
  /** Failures followed by a backoff. */
  readonly failures: number;
  /** Watches dropped because they went silent. */
  readonly watchdogResets: number;
  /** Exceptions thrown by event handlers. */
  readonly handlerErrors: number;
}

/** A copy of the object without metadata.managedFields (which can be most of its size). */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** What an informer needs besides its kind, for `informers()`: its log name (default `<kind>s`, lower case). */
export type InformerExtras<T extends KubeObject> = Partial<Omit<InformerOptions<T>, 'client' | 'apiVersion' | 'kind' | 'logger'>> & {
  readonly name?: string;
};

/**
 * The one way a process builds its informers: `const informer = informers(client, logger)`, then
 * `informer<T>(apiVersion, kind, { … })` — managedFields stripped unless another transform is given, a child logger
 * `{ informer: name }`.
 */
export function informers(client: KubeClient, logger: Logger): <T extends KubeObject>(apiVersion: string, kind: string, extra?: InformerExtras<T>) => Informer<T> {
  return <T extends KubeObject>(apiVersion: string, kind: string, extra: InformerExtras<T> = {}): Informer<T> => {
    const { name, ...options } = extra;
    return new Informer<T>({
      client,
      apiVersion,
      kind,
      transform: stripManagedFields,
      ...options,
      logger: logger.child({ informer: name ?? `${kind.toLowerCase()}s` }),
    });
  };
}

class WatchSilentError extends Error {
  override readonly name = 'WatchSilentError';
}

export class Informer<T extends KubeObject = KubeObject> implements CacheReader<T> {
  /** `<kind>` or `<kind> in <namespace>`, for logs. */
  readonly name: string;
  readonly #opts: InformerOptions<T>;
  readonly #kindRef: KindRef;
  readonly #store = new Indexer<T>();
  readonly #handlers = new Set<InformerHandler<T>>();
  readonly #log: Logger;
  readonly #backoff: Backoff;
  /** Settles once: resolved by the first list, rejected by stop() before it. */
  readonly #sync: { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void };
  #stats = { lists: 0, relists: 0, watches: 0, failures: 0, watchdogResets: 0, handlerErrors: 0 };
  #resourceVersion: string | undefined;
  #synced = false;
  #abort: AbortController | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;

  constructor(options: InformerOptions<T>) {
    this.#opts = options;
    this.#kindRef = options.namespace
      ? { apiVersion: options.apiVersion, kind: options.kind, namespace: options.namespace }
      : { apiVersion: options.apiVersion, kind: options.kind };
    this.name = options.namespace ? `${options.kind} in ${options.namespace}` : options.kind;
    this.#log = options.logger ?? noopLogger;
    this.#backoff = new Backoff(options.backoff);
    this.#store.addIndex(NAMESPACE_INDEX, byNamespace as IndexFn<T>);
    let resolve = (): void => undefined;
    let reject: (err: Error) => void = () => undefined;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    promise.catch(() => undefined); // a stop nobody waited for
    this.#sync = { promise, resolve, reject };
  }

  /**
   * Subscribes to changes; returns the unsubscribe function. A handler added after objects are
   * cached is first called with 'add' for each of them, before this returns.
   */
  onEvent(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    for (const obj of this.#store.list()) this.#call(handler, 'add', obj, undefined);
    return () => void this.#handlers.delete(handler);
  }

  /** Starts listing and watching in the background (idempotent). */
  start(): void {
    if (this.#loop) return;
    if (this.#stopped) throw new Error(`informer ${this.name} was stopped; make a new one`);
    this.#abort = new AbortController();
    this.#loop = this.#run(this.#abort.signal).catch((err: unknown) => this.#log.error('informer loop ended unexpectedly', { informer: this.name, err }));
  }

  /** Stops watching; resolves once the loop has ended. Pending waitForSync calls reject. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort?.abort(new Error(`informer ${this.name} stopped`));
    this.#sync.reject(new Error(`informer ${this.name} stopped before it synced`));
    await this.#loop;
  }

  /** True once the first list is cached and its 'add' events delivered. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves when synced; rejects when `signal` aborts or the informer stops first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (this.#stopped) return Promise.reject(new Error(`informer ${this.name} stopped before it synced`));
    return raceAbort(this.#sync.promise, signal);
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  get stats(): InformerStats {
    return { ...this.#stats };
  }

  get(key: string): T | undefined {
    return this.#store.get(key);
  }

  list(): T[] {
    return this.#store.list();
  }

  keys(): string[] {
    return this.#store.keys();
  }

  /** Adds an index (objects already cached are indexed at once). `namespace` exists from the start. */
  addIndex(name: string, fn: IndexFn<T>): void {
    this.#store.addIndex(name, fn);
  }

  byIndex(name: string, value: string): T[] {
    return this.#store.byIndex(name, value);
  }

  async #run(signal: AbortSignal): Promise<void> {
    let listed = false;
    let goneInARow = 0;
    while (!signal.aborted) {
      let delay = 0;
      try {
        if (!listed) {
          await this.#list(signal);
          listed = true;
          this.#backoff.reset();
        }
        const { events, ms } = await this.#watch(signal);
        goneInARow = 0;
        // A watch the server ends at once with nothing to say is a failure in disguise; don't spin.
        if (events === 0 && ms < 1000) delay = this.#backoff.next();
        else this.#backoff.reset();
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err)) {
          this.#stats.relists++;
          listed = false;
          this.#log.info('resourceVersion too old, relisting', { informer: this.name, resourceVersion: this.#resourceVersion, reason: (err as Error).message });
          if (goneInARow++ > 0) delay = this.#backoff.next();
        } else {
          this.#stats.failures++;
          delay = this.#backoff.next();
          this.#log.warn(listed ? 'watch failed; resuming after backoff' : 'list failed; retrying after backoff', {
            informer: this.name,
            err,
            attempt: this.#backoff.attempts,
            retryInMs: delay,
          });
        }
      }
      if (delay > 0) await sleep(delay, signal);
    }
  }

  /** Lists every page and makes the cache equal to the result, reporting the differences. */
  async #list(signal: AbortSignal): Promise<void> {
    const o = this.#opts;
    const list = await o.client.listAll<T>(this.#kindRef, {
      signal,
      pageSize: o.pageSize ?? 500,
      ...(o.labelSelector !== undefined && { labelSelector: o.labelSelector }),
      ...(o.fieldSelector !== undefined && { fieldSelector: o.fieldSelector }),
    });
    if (signal.aborted) return;
    const fresh = new Map<string, T>();
    for (const item of list.items) {
      const obj = this.#transform(item);
      fresh.set(cacheKey(obj), obj);
    }
    for (const key of this.#store.keys()) {
      if (fresh.has(key)) continue;
      const old = this.#store.delete(key);
      if (old) this.#dispatch('delete', old, old);
    }
    for (const [key, obj] of fresh) {
      const old = this.#store.set(key, obj);
      if (!old) this.#dispatch('add', obj, undefined);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#dispatch('update', obj, old);
    }
    this.#resourceVersion = list.metadata.resourceVersion;
    this.#stats.lists++;
    this.#log.debug('listed', { informer: this.name, items: fresh.size, resourceVersion: this.#resourceVersion });
    if (!this.#synced) {
      this.#synced = true;
      this.#sync.resolve();
    }
  }

  /** One watch from the current resourceVersion, until the server ends it; throws on failure. */
  async #watch(signal: AbortSignal): Promise<{ events: number; ms: number }> {
    const o = this.#opts;
    const [min, max] = o.watchTimeoutSeconds ?? [300, 600];
    const timeoutSeconds = Math.round(min + Math.random() * (max - min));
    const silentMs = o.watchdogMs ?? timeoutSeconds * 1000 + 30_000;
    const local = new AbortController();
    const onAbort = (): void => local.abort(signal.reason);
    // stop() may have run between the list and this watch: an abort listener added to an
    // already-aborted signal never fires, so look first.
    if (signal.aborted) return { events: 0, ms: 0 };
    signal.addEventListener('abort', onAbort, { once: true });
    let silent = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        silent = true;
        local.abort(new WatchSilentError(`watch sent nothing for ${silentMs} ms`));
      }, silentMs);
    };
    const started = realClock.now();
    let events = 0;
    this.#stats.watches++;
    arm();
    try {
      const stream = o.client.watch<T>(this.#kindRef, {
        signal: local.signal,
        timeoutSeconds,
        allowWatchBookmarks: true,
        ...(this.#resourceVersion !== undefined && { resourceVersion: this.#resourceVersion }),
        ...(o.labelSelector !== undefined && { labelSelector: o.labelSelector }),
        ...(o.fieldSelector !== undefined && { fieldSelector: o.fieldSelector }),
      });
      for await (const ev of stream) {
        arm();
        events++;
        this.#apply(ev);
      }
    } catch (err) {
      if (!silent) throw err;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    if (silent) {
      this.#stats.watchdogResets++;
      throw new WatchSilentError(`watch of ${this.name} sent nothing (not even a bookmark) for ${silentMs} ms; reconnecting`);
    }
    return { events, ms: Math.round(realClock.now() - started) };
  }

  #apply(ev: WatchEvent<T>): void {
    const rv = ev.object?.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      if (rv) this.#resourceVersion = rv;
      return;
    }
    const obj = this.#transform(ev.object);
    const key = cacheKey(obj);
    if (ev.type === 'DELETED') {
      const old = this.#store.delete(key);
      this.#dispatch('delete', obj, old);
    } else {
      const old = this.#store.set(key, obj);
      if (old) this.#dispatch('update', obj, old);
      else this.#dispatch('add', obj, undefined);
    }
    if (rv) this.#resourceVersion = rv;
  }

  #transform(obj: T): T {
    return this.#opts.transform ? this.#opts.transform(obj) : obj;
  }

  #dispatch(type: InformerEventType, obj: T, old: T | undefined): void {
    for (const h of [...this.#handlers]) this.#call(h, type, obj, old);
  }

  #call(handler: InformerHandler<T>, type: InformerEventType, obj: T, old: T | undefined): void {
    try {
      const result: unknown = handler(type, obj, old);
      if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
        (result as PromiseLike<unknown>).then(undefined, (err: unknown) => this.#handlerFailed(err, type, obj));
      }
    } catch (err) {
      this.#handlerFailed(err, type, obj);
    }
  }

  #handlerFailed(err: unknown, type: InformerEventType, obj: T): void {
    this.#stats.handlerErrors++;
    this.#log.error('informer event handler threw', { informer: this.name, event: type, key: cacheKey(obj), err });
  }
}
