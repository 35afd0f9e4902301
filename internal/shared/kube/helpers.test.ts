import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { hasFinalizer, retryOnConflict } from './helpers.ts';
import { stripManagedFields } from './informer.ts';
import { microTime } from './leader-election.ts';

const conflict = (): ApiError =>
  new ApiError(409, { kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' }, { method: 'PUT', path: '/x' });

describe('retryOnConflict', () => {
  it('runs again after a conflict and returns the first success', async () => {
    const seen: number[] = [];
    const out = await retryOnConflict(async (attempt) => {
      seen.push(attempt);
      if (attempt < 2) throw conflict();
      return 'done';
    });
    expect(out).toBe('done');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('gives up after `attempts` conflicts with the last one', async () => {
    let calls = 0;
    await expect(
      retryOnConflict(
        async () => {
          calls++;
          throw conflict();
        },
        { attempts: 3 },
      ),
    ).rejects.toThrow('the object has been modified');
    expect(calls).toBe(3);
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});

describe('small helpers', () => {
  it('microTime has exactly six fractional digits', () => {
    expect(microTime(new Date(Date.UTC(2026, 10, 22, 7, 40, 0, 123)))).toBe('2026-11-22T07:40:00.123000Z');
    expect(microTime(new Date(Date.UTC(2026, 10, 22, 7, 40, 0, 0)))).toBe('2026-11-22T07:40:00.000000Z');
  });

  it('stripManagedFields drops only managedFields and leaves the original alone', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' }, managedFields: [{ manager: 'm' }] } };
    const stripped = stripManagedFields(obj);
    expect(stripped.metadata).toEqual({ name: 'x', labels: { a: 'b' } });
    expect(obj.metadata.managedFields).toHaveLength(1);
  });

  it('hasFinalizer', () => {
    expect(hasFinalizer({ metadata: { finalizers: ['a/b'] } }, 'a/b')).toBe(true);
    expect(hasFinalizer({ metadata: {} }, 'a/b')).toBe(false);
  });
});
