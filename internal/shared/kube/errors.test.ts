import { describe, expect, it } from 'vitest';
import type { Status } from '../../../api/meta/v1.ts';
import {
  ApiError,
  NetworkError,
  NoKindMatchError,
  ignoreNotFound,
  isAlreadyExists,
  isApiError,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isRetryable,
  reasonForCode,
} from './errors.ts';

const req = { method: 'GET', path: '/api/v1/namespaces/x/configmaps/y' };
const err = (code: number, status: Partial<Status> = {}): ApiError => new ApiError(code, { kind: 'Status', status: 'Failure', code, ...status }, req);

describe('ApiError classification', () => {
  it.each([
    { name: 'NotFound', e: err(404, { reason: 'NotFound' }), notFound: true, conflict: false, exists: false, forbidden: false, gone: false, invalid: false },
    { name: '404 without reason', e: err(404), notFound: true, conflict: false, exists: false, forbidden: false, gone: false, invalid: false },
    { name: 'Conflict', e: err(409, { reason: 'Conflict' }), notFound: false, conflict: true, exists: false, forbidden: false, gone: false, invalid: false },
    { name: 'AlreadyExists is a 409 but not a conflict', e: err(409, { reason: 'AlreadyExists' }), notFound: false, conflict: false, exists: true, forbidden: false, gone: false, invalid: false },
    { name: 'Forbidden', e: err(403, { reason: 'Forbidden' }), notFound: false, conflict: false, exists: false, forbidden: true, gone: false, invalid: false },
    { name: 'Expired (watch too old)', e: err(410, { reason: 'Expired' }), notFound: false, conflict: false, exists: false, forbidden: false, gone: true, invalid: false },
    { name: 'Gone', e: err(410, { reason: 'Gone' }), notFound: false, conflict: false, exists: false, forbidden: false, gone: true, invalid: false },
    { name: 'Invalid', e: err(422, { reason: 'Invalid' }), notFound: false, conflict: false, exists: false, forbidden: false, gone: false, invalid: true },
  ])('$name', ({ e, notFound, conflict, exists, forbidden, gone, invalid }) => {
    expect([isNotFound(e), isConflict(e), isAlreadyExists(e), isForbidden(e), isGone(e), isInvalid(e)]).toEqual([
      notFound,
      conflict,
      exists,
      forbidden,
      gone,
      invalid,
    ]);
  });

  it('keeps the server message verbatim and the request it answered', () => {
    const e = err(404, { reason: 'NotFound', message: 'configmaps "y" not found' });
    expect(e.message).toBe('configmaps "y" not found');
    expect([e.code, e.reason, e.method, e.path]).toEqual([404, 'NotFound', 'GET', req.path]);
  });

  it('describes an answer without a message by its code', () => {
    expect(err(503).message).toBe('GET /api/v1/namespaces/x/configmaps/y: HTTP 503 ServiceUnavailable');
    expect(reasonForCode(418)).toBe('Unknown');
  });

  it('is recognised by brand, not only by prototype', () => {
    const look = Object.assign(Object.create(null) as object, { [Symbol.for('olmv1.kube.ApiError')]: true });
    expect(isApiError(look)).toBe(true);
    expect(isApiError(new Error('x'))).toBe(false);
  });

  it('says which failures are worth retrying', () => {
    expect(isRetryable(new NetworkError('connect ECONNREFUSED', 'ECONNREFUSED'))).toBe(true);
    expect(isRetryable(new NetworkError('reset', 'UND_ERR_SOCKET'))).toBe(true);
    expect(isRetryable(new NetworkError('bad cert', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'))).toBe(false);
    expect(isRetryable(err(503))).toBe(true);
    expect(isRetryable(err(429, { reason: 'TooManyRequests' }))).toBe(true);
    expect(isRetryable(err(504, { reason: 'Timeout' }))).toBe(true);
    expect(isRetryable(err(404))).toBe(false);
    expect(isRetryable(err(409, { reason: 'Conflict' }))).toBe(false);
    expect(isRetryable(new Error('boom'))).toBe(false);
  });

  it('words a discovery miss like upstream', () => {
    expect(new NoKindMatchError('example.com/v1', 'Widget').message).toBe('no matches for kind "Widget" in version "example.com/v1"');
  });

  it('ignoreNotFound turns only NotFound into undefined', async () => {
    await expect(ignoreNotFound(Promise.reject(err(404)))).resolves.toBeUndefined();
    await expect(ignoreNotFound(Promise.resolve(7))).resolves.toBe(7);
    await expect(ignoreNotFound(Promise.reject(err(403)))).rejects.toThrow(ApiError);
  });
});
