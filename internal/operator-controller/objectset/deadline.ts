// spec.progressDeadlineMinutes: how long a revision may take to roll out, counted from its creation (upstream's
// durationUntilDeadline and deadlineAwareRateLimiter, operator-controller controllers/progress_deadline.go).
import { ClusterObjectSetTypeSucceeded, LifecycleStateArchived, type ClusterObjectSet } from '../../../api/v1/index.ts';
import { isTrue, realClock, type RateLimiter } from '../../shared/controller/index.ts';

/**
 * Milliseconds left before the deadline (negative once it passed), or undefined when there is none: no
 * progressDeadlineMinutes, the revision already succeeded (a latch: a revision repairing drift later is not held to
 * it), it is archived, or it is being deleted.
 */
export function msUntilDeadline(cos: ClusterObjectSet, nowMs: number): number | undefined {
  const minutes = cos.spec?.progressDeadlineMinutes ?? 0;
  if (minutes <= 0) return undefined;
  if (isTrue(cos.status?.conditions, ClusterObjectSetTypeSucceeded)) return undefined;
  if (cos.spec?.lifecycleState === LifecycleStateArchived) return undefined;
  if (cos.metadata.deletionTimestamp) return undefined;
  const created = Date.parse(cos.metadata.creationTimestamp ?? '');
  if (Number.isNaN(created)) return undefined;
  return created + minutes * 60_000 - nowMs;
}

/**
 * Caps a delegate's backoff at the time left before a revision's deadline, so ProgressDeadlineExceeded is reported
 * on time while retries back off; once the deadline passed, one immediate retry, then the delegate's backoff.
 */
export class DeadlineAwareRateLimiter implements RateLimiter<string> {
  readonly #delegate: RateLimiter<string>;
  readonly #get: (key: string) => ClusterObjectSet | undefined;
  readonly #now: () => number;
  readonly #pastDeadline = new Set<string>();

  constructor(delegate: RateLimiter<string>, get: (key: string) => ClusterObjectSet | undefined, now: () => number = () => realClock.date().getTime()) {
    this.#delegate = delegate;
    this.#get = get;
    this.#now = now;
  }

  when(key: string): number {
    const backoff = this.#delegate.when(key);
    const cos = this.#get(key);
    const left = cos ? msUntilDeadline(cos, this.#now()) : undefined;
    if (left === undefined) return backoff;
    if (left > 0) return Math.min(left, backoff);
    if (!this.#pastDeadline.has(key)) {
      this.#pastDeadline.add(key);
      return 0;
    }
    return backoff;
  }

  forget(key: string): void {
    this.#delegate.forget(key);
    this.#pastDeadline.delete(key);
  }

  numRequeues(key: string): number {
    return this.#delegate.numRequeues(key);
  }
}
