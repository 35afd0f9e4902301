import { describe, expect, it } from 'vitest';
import type { ClusterObjectSet } from '../../../api/v1/index.ts';
import { ItemExponentialFailureRateLimiter } from '../../shared/controller/index.ts';
import { DeadlineAwareRateLimiter, msUntilDeadline } from './deadline.ts';

const created = Date.parse('2026-11-27T10:00:00Z');
const cos = (over: Partial<ClusterObjectSet['spec']> = {}, status: ClusterObjectSet['status'] = {}, meta: Record<string, unknown> = {}): ClusterObjectSet => ({
  metadata: { name: 'c', creationTimestamp: '2026-11-27T10:00:00Z', ...meta },
  spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', progressDeadlineMinutes: 10, ...over },
  status,
});

describe('progress deadline', () => {
  it('counts from creation; none without minutes, once succeeded, archived or being deleted', () => {
    expect(msUntilDeadline(cos(), created + 60_000)).toBe(9 * 60_000);
    expect(msUntilDeadline(cos(), created + 11 * 60_000)).toBe(-60_000);
    expect(msUntilDeadline(cos({ progressDeadlineMinutes: 0 }), created)).toBeUndefined();
    expect(msUntilDeadline(cos({}, { conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded', message: '', lastTransitionTime: '' }] }), created)).toBeUndefined();
    expect(msUntilDeadline(cos({ lifecycleState: 'Archived' }), created)).toBeUndefined();
    expect(msUntilDeadline(cos({}, {}, { deletionTimestamp: '2026-11-27T10:01:00Z' }), created)).toBeUndefined();
  });

  it('caps the backoff at the time left, retries once at once past the deadline, then backs off', () => {
    let now = created;
    const delegate = new ItemExponentialFailureRateLimiter<string>(60_000, 600_000);
    const limiter = new DeadlineAwareRateLimiter(delegate, () => cos(), () => now);
    now = created + 9.5 * 60_000;
    expect(limiter.when('c')).toBe(30_000);
    now = created + 10 * 60_000 + 1;
    expect(limiter.when('c')).toBe(0);
    expect(limiter.when('c')).toBe(240_000);
    limiter.forget('c');
    expect(limiter.numRequeues('c')).toBe(0);
    expect(limiter.when('c')).toBe(0);
  });
});
