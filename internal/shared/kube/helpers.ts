// Read-modify-write helpers over the client: retry on 409 Conflict (finalizers), status writes through the
// status subresource, finalizers added and removed under a resourceVersion precondition.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { Backoff } from './backoff.ts';
import { sleep } from '../toolkit/index.ts';
import type { KubeClient } from './client.ts';
import { semanticEqual } from './equality.ts';
import { ignoreNotFound, isConflict } from './errors.ts';
import { refOf, type ObjectRef } from './types.ts';

export interface RetryOptions {
  /** Tries in all; default 5 (client-go's retry.DefaultRetry). */
  readonly attempts?: number;
  readonly signal?: AbortSignal;
}

/**
 * Runs `fn` and runs it again (a fresh read inside it, please) while it fails with 409 Conflict,
 * up to `attempts` times; the last conflict is rethrown. Other errors are rethrown at once.
 */
export async function retryOnConflict<R>(fn: (attempt: number) => Promise<R>, options: RetryOptions = {}): Promise<R> {
  const attempts = options.attempts ?? 5;
  // 10 ms before the second try, then ×2 with jitter.
  const backoff = new Backoff({ initialMs: 10, maxMs: 1000 });
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isConflict(err) || attempt + 1 >= attempts || options.signal?.aborted) throw err;
    }
    await sleep(backoff.next(), options.signal);
  }
}

/** Changes `obj` in place; return false to say nothing needs writing. */
export type Mutation<T> = (obj: T) => void | boolean | Promise<void | boolean>;

export interface StatusUpdateOptions<T> {
  /** The object as last seen (e.g. from an informer); saves the read. Not modified. */
  readonly current?: T;
  readonly fieldManager?: string;
  readonly signal?: AbortSignal;
}

/**
 * Writes status through the status subresource: applies `mutate` to a copy of `current` (or to a fresh read) and PUTs
 * it to `/status` with that object's resourceVersion. No write happens when `mutate` returns false or leaves `.status`
 * as it was (`semanticEqual`). A 409 Conflict is the caller's: status computed from an older object never overwrites a
 * newer one — the controller reconciles again from fresh state (controller-runtime's Status().Update). Resolves the
 * object as stored.
 */
export async function updateStatus<T extends KubeObject>(
  client: KubeClient,
  ref: ObjectRef,
  mutate: Mutation<T>,
  options: StatusUpdateOptions<T> = {},
): Promise<T> {
  const obj = options.current ? structuredClone(options.current) : await client.get<T>(ref, options);
  const before = structuredClone(obj['status'] ?? null);
  const changed = await mutate(obj);
  if (changed === false || semanticEqual(obj['status'] ?? null, before)) return obj;
  return client.updateStatus<T>(obj, { signal: options.signal, fieldManager: options.fieldManager });
}

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/**
 * Adds a finalizer with a merge patch that carries the object's resourceVersion (so a concurrent
 * change makes it fail with 409 and it is retried from a fresh read). Resolves the object.
 */
export function addFinalizer<T extends KubeObject>(client: KubeClient, obj: T, finalizer: string, options: RetryOptions = {}): Promise<T> {
  return changeFinalizers(client, obj, options, (list) => (list.includes(finalizer) ? undefined : [...list, finalizer]));
}

/** Removes a finalizer the same way; resolves undefined if the object is gone (or went away once freed). */
export function removeFinalizer<T extends KubeObject>(client: KubeClient, obj: T, finalizer: string, options: RetryOptions = {}): Promise<T | undefined> {
  return ignoreNotFound(changeFinalizers(client, obj, options, (list) => (list.includes(finalizer) ? list.filter((f) => f !== finalizer) : undefined)));
}

async function changeFinalizers<T extends KubeObject>(
  client: KubeClient,
  obj: T,
  options: RetryOptions,
  change: (list: readonly string[]) => string[] | undefined,
): Promise<T> {
  const ref = refOf(obj);
  return retryOnConflict(async (attempt) => {
    const current = attempt === 0 ? obj : await client.get<T>(ref, options);
    const next = change(current.metadata.finalizers ?? []);
    if (!next) return current;
    const patch = { metadata: { finalizers: next, resourceVersion: current.metadata.resourceVersion } };
    return client.patch<T>(ref, 'merge', patch, { signal: options.signal });
  }, options);
}
