// Waiting that an AbortSignal can end. Two sleeps, because callers want two things on abort: a loop that checks
// `signal.aborted` itself wants the wait to just end (`sleep`); a step whose caller must not carry on wants the
// abort thrown (`sleepOrThrow`).

/**
 * Resolves after `ms`, or at once — without rejecting — when `signal` aborts (or has already aborted). The timer
 * and the listener are removed either way.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Resolves after `ms`; rejects with `signal.reason` when `signal` aborts first (at once when it has already
 * aborted). The timer and the listener are removed either way.
 */
export function sleepOrThrow(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves when `signal` aborts; at once when it has already aborted. Never rejects. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Settles as `promise` does, or rejects with `signal.reason` when `signal` aborts first (at once when it has already
 * aborted): the caller stops waiting, `promise` runs on. The listener is removed either way.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
