// Bounded concurrency for the reconcilers' fan-out (applying a phase's objects, pulling a namespace's bundles).

/**
 * `items.map(fn)` with at most `limit` calls pending at once; results in input order. After a call fails no new call
 * starts, the calls in flight are waited for, and the first failure is thrown. A caller that wants every item run
 * whatever fails catches inside `fn` (the permissions preflight records the failure and counts it as allowed).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  return out;
}
