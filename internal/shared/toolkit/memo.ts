// A pure function of a string, computed once per argument: for texts that repeat on every pass (version ranges).

/**
 * `compute` remembered per argument, for at most `limit` arguments (then forgotten all at once and remembered
 * afresh). A `compute` that throws remembers nothing: the next call tries again.
 */
export function memoize<T>(compute: (key: string) => T, limit: number): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    if (cache.has(key)) return cache.get(key) as T;
    const value = compute(key);
    if (cache.size >= limit) cache.clear();
    cache.set(key, value);
    return value;
  };
}
