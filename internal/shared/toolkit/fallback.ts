// Values that may fail to compute: a fallback where failing only means "none", or the error wrapped with context.
import { errorMessage } from './text.ts';

/** What `run` returns, or `fallback` when it throws: a parse or check whose failure only means "none" (or "no"). */
export function tryOr<T, F>(run: () => T, fallback: F): T | F {
  try {
    return run();
  } catch {
    return fallback;
  }
}

/** What `run` returns; when it throws, `wrap` of the error is thrown instead (a message with context, the error as cause). */
export function tryOrThrow<T>(run: () => T, wrap: (err: Error) => unknown): T {
  try {
    return run();
  } catch (err) {
    throw wrap(err as Error);
  }
}

/** What `run` returns; when it throws, an Error `<prefix>: <its message>` with the thrown value as its cause. */
export function withErrorPrefix<T>(prefix: string, run: () => T): T {
  return tryOrThrow(run, (err) => new Error(`${prefix}: ${errorMessage(err)}`, { cause: err }));
}
