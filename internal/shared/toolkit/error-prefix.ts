// Errors that say where they happened: the one "try this; on failure, put what was being done in front" helper.

/** What `run` returns; when it throws, an Error `<prefix>: <its message>` with the thrown value as its cause. */
export function withErrorPrefix<T>(prefix: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw new Error(`${prefix}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
