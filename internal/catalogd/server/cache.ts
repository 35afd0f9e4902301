// A bounded LRU of metas answers, budgeted by body bytes. handlers.ts keys an answer by the
// request target and keeps with it the StoredCatalog it was read from: stored content never
// changes under an entry (a new digest is a new entry), so the answer is right for as long as
// that entry is the one served; answers of replaced entries just age out. A hit costs no read,
// no allocation and no file descriptor.

export interface AnswerCache<V extends { readonly length: number } = Buffer> {
  get(key: string): V | undefined;
  /** Keeps `value` unless it alone exceeds the budget; evicts the least recently used. */
  set(key: string, value: V): void;
  /** The values held, least recently used first. */
  values(): IterableIterator<V>;
  /** Drops every entry `pred` picks. */
  deleteWhere(pred: (key: string, value: V) => boolean): void;
  /** Bytes held. */
  readonly bytes: number;
}

/** Answers up to this size are cached. */
export const MAX_CACHED_ANSWER = 256 * 1024;

export function answerCache<V extends { readonly length: number } = Buffer>(maxBytes: number): AnswerCache<V> {
  const entries = new Map<string, V>(); // insertion order = recency order
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
    values: () => entries.values(),
    deleteWhere(pred) {
      for (const [k, v] of entries) {
        if (!pred(k, v)) continue;
        entries.delete(k);
        bytes -= v.length;
      }
    },
    get bytes() {
      return bytes;
    },
  };
}
