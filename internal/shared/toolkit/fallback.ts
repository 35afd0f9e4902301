// A value that may fail to compute, where failing only means "none".

/** What `run` returns, or `fallback` when it throws: a parse or check whose failure only means "none" (or "no"). */
export function tryOr<T, F>(run: () => T, fallback: F): T | F {
  try {
    return run();
  } catch {
    return fallback;
  }
}
