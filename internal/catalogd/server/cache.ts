// A bounded LRU of metas answers. Stored content never changes under a path (a new digest is a
// new directory), so an answer keyed by catalog.jsonl's path and the query stays right for as
// long as that entry is served; answers of replaced entries just age out. A hit costs no read,
// no allocation and no file descriptor.

export interface AnswerCache {
  get(key: string): Buffer | undefined;
  /** Keeps `value` unless it alone exceeds the budget; evicts the least recently used. */
  set(key: string, value: Buffer): void;
  /** Bytes held. */
  readonly bytes: number;
}

/** Answers up to this size are cached. */
export const MAX_CACHED_ANSWER = 256 * 1024;

export function answerCache(maxBytes: number): AnswerCache {
  const entries = new Map<string, Buffer>(); // insertion order = recency order
  let bytes = 0;
  return {
    get(key) {
      const v = entries.get(key);
      if (v !== undefined) {
        entries.delete(key);
        entries.set(key, v);
      }
      return v;
    },
    set(key, value) {
      if (value.length > maxBytes || value.length > MAX_CACHED_ANSWER) return;
      const old = entries.get(key);
      if (old) {
        bytes -= old.length;
        entries.delete(key);
      }
      entries.set(key, value);
      bytes += value.length;
      for (const [k, v] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= v.length;
      }
    },
    get bytes() {
      return bytes;
    },
  };
}
