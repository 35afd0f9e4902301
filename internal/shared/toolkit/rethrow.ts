// A step whose failure is reported with context: the error it throws, wrapped.

/** What `run` returns; when it throws, `wrap` of the error is thrown instead (a message with context, the error as cause). */
export function tryOrThrow<T>(run: () => T, wrap: (err: Error) => unknown): T {
  try {
    return run();
  } catch (err) {
    throw wrap(err as Error);
  }
}
