// An indexed object store, keyed `namespace/name` (or `name`): what an informer keeps. Indexes
// map a value to the keys of the objects an index function returns it for, and stay current as
// objects come and go. Objects handed out are the cached ones: treat them as read-only.
import type { KubeObject } from '../../../api/meta/v1.ts';

/** Values an object is found under in an index, e.g. obj => [obj.spec.serviceAccount.name]. */
export type IndexFn<T> = (obj: T) => readonly string[];

/** Index every object by its namespace (client-go's cache.NamespaceIndex). */
export const NAMESPACE_INDEX = 'namespace';
export const byNamespace: IndexFn<KubeObject> = (obj) => (obj.metadata.namespace ? [obj.metadata.namespace] : []);

/** Read access to a cache; informers implement it. */
export interface CacheReader<T> {
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  byIndex(index: string, value: string): T[];
}

export class Indexer<T> implements CacheReader<T> {
  readonly #items = new Map<string, T>();
  /** index name → its function and value → keys */
  readonly #indices = new Map<string, { readonly fn: IndexFn<T>; readonly keys: Map<string, Set<string>> }>();

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  /** Adds an index; objects already stored are indexed at once. Names are unique. */
  addIndex(name: string, fn: IndexFn<T>): void {
    if (this.#indices.has(name)) throw new Error(`index "${name}" already exists`);
    const index = { fn, keys: new Map<string, Set<string>>() };
    this.#indices.set(name, index);
    for (const [key, obj] of this.#items) for (const v of fn(obj)) addTo(index.keys, v, key);
  }

  /** Objects an index lists under `value` (unknown index: an Error, as it is a programming mistake). */
  byIndex(name: string, value: string): T[] {
    const index = this.#indices.get(name);
    if (!index) throw new Error(`index "${name}" does not exist`);
    return [...(index.keys.get(value) ?? [])].map((k) => this.#items.get(k)).filter((obj) => obj !== undefined);
  }

  /** Stores `obj` under `key`; returns what was there. */
  set(key: string, obj: T): T | undefined {
    const old = this.#items.get(key);
    if (old !== undefined) this.#unindex(key, old);
    this.#items.set(key, obj);
    for (const { fn, keys } of this.#indices.values()) for (const v of fn(obj)) addTo(keys, v, key);
    return old;
  }

  /** Removes `key`; returns what was there. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  #unindex(key: string, obj: T): void {
    for (const { fn, keys: index } of this.#indices.values()) {
      for (const v of fn(obj)) {
        const keys = index.get(v);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(v);
      }
    }
  }
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}
