// catalogd's storage format: catalog.jsonl is every blob's canonical JSON, one per line, in load
// order; index.json maps schema, package and name to [offset, length] sections of that file.
// A query (?schema=&package=&name=) is the intersection of the given dimensions, in file order.
// Blobs keep their own Buffers, so encoding copies nothing: the file is the list of chunks.

import { compareGoStrings, ownString } from './go.ts';
import type { Meta } from './load.ts';
import { goJSONString } from '../gocompat/index.ts';

/** One blob's place in catalog.jsonl. `length` includes the trailing newline. */
export interface BlobIndexEntry {
  /** Position of the blob in the catalog (and in `EncodedCatalog.chunks`). */
  readonly index: number;
  readonly offset: number;
  readonly length: number;
  readonly schema: string;
  readonly package: string;
  readonly name: string;
}

export interface MetasQuery {
  readonly schema?: string;
  readonly package?: string;
  readonly name?: string;
}

/** A byte range of catalog.jsonl. */
export interface Section {
  readonly offset: number;
  readonly length: number;
}

const DIMENSIONS = 3; // schema, package, name
const NONE = -1;

/** The columns a BlobIndex is made of (see BlobIndexBuilder). */
interface Columns {
  readonly count: number;
  readonly offsets: Float64Array;
  readonly lengths: Float64Array;
  /** Per blob and dimension (schema, package, name): the value's id, or NONE for ''. */
  readonly ids: Int32Array;
  /** Every distinct non-empty value, in Go string order; an id is a position here. */
  readonly values: readonly string[];
  /** Per dimension: `order[start[id] .. start[id+1])` are the blobs with that value, in file order. */
  readonly start: readonly Int32Array[];
  readonly order: readonly Int32Array[];
}

/**
 * Collects blobs in file order and builds their BlobIndex. What it keeps does not grow with
 * objects per blob: a few typed-array columns (offset, length, three value ids: 32 bytes a blob)
 * and each distinct value once.
 */
export class BlobIndexBuilder {
  #count = 0;
  #offsets = new Float64Array(256);
  #lengths = new Float64Array(256);
  #ids = new Int32Array(256 * DIMENSIONS);
  readonly #valueIds = new Map<string, number>();
  readonly #values: string[] = [];

  get count(): number {
    return this.#count;
  }

  /** One blob, after every blob before it in catalog.jsonl. */
  add(offset: number, length: number, schema: string, pkg: string, name: string): void {
    if (this.#count === this.#offsets.length) {
      const grow = <T extends Float64Array | Int32Array>(a: T, n: number): T => {
        const b = new (a.constructor as new (n: number) => T)(n);
        b.set(a);
        return b;
      };
      const n = this.#count * 2;
      this.#offsets = grow(this.#offsets, n);
      this.#lengths = grow(this.#lengths, n);
      this.#ids = grow(this.#ids, n * DIMENSIONS);
    }
    const i = this.#count++;
    this.#offsets[i] = offset;
    this.#lengths[i] = length;
    this.#ids[i * DIMENSIONS] = this.#id(schema);
    this.#ids[i * DIMENSIONS + 1] = this.#id(pkg);
    this.#ids[i * DIMENSIONS + 2] = this.#id(name);
  }

  #id(value: string): number {
    if (value === '') return NONE; // empty values are not indexed
    let id = this.#valueIds.get(value);
    if (id === undefined) {
      id = this.#values.length;
      const own = ownString(value);
      this.#values.push(own);
      this.#valueIds.set(own, id);
    }
    return id;
  }

  /** The index; the builder is not used afterwards. */
  finish(): BlobIndex {
    const count = this.#count;
    // Ids in Go string order of their values, so that keys come out sorted.
    const byOrder = this.#values.map((_, id) => id).sort((a, b) => compareGoStrings(this.#values[a]!, this.#values[b]!));
    const renumber = new Int32Array(this.#values.length);
    byOrder.forEach((old, id) => (renumber[old] = id));
    const values = byOrder.map((old) => this.#values[old]!);
    const ids = this.#ids.slice(0, count * DIMENSIONS);
    for (let k = 0; k < ids.length; k++) if (ids[k] !== NONE) ids[k] = renumber[ids[k]!]!;
    const start: Int32Array[] = [];
    const order: Int32Array[] = [];
    for (let d = 0; d < DIMENSIONS; d++) {
      // Counting sort by value id; blobs stay in file order within a value.
      const st = new Int32Array(values.length + 1);
      for (let i = 0; i < count; i++) {
        const id = ids[i * DIMENSIONS + d]!;
        if (id !== NONE) st[id + 1]!++;
      }
      for (let v = 0; v < values.length; v++) st[v + 1]! += st[v]!;
      const next = st.slice(0, values.length);
      const ord = new Int32Array(st[values.length]!);
      for (let i = 0; i < count; i++) {
        const id = ids[i * DIMENSIONS + d]!;
        if (id !== NONE) ord[next[id]!++] = i;
      }
      start.push(st);
      order.push(ord);
    }
    return new BlobIndex({ count, offsets: this.#offsets.slice(0, count), lengths: this.#lengths.slice(0, count), ids, values, start, order });
  }
}

/**
 * catalogd's index (internal/catalogd/storage/index.go): blobs by schema, package and name, as
 * byte ranges of catalog.jsonl. Kept as typed columns and each distinct value once (about 50
 * bytes a blob plus its distinct names), not an object per blob; entries are made on demand.
 */
export class BlobIndex {
  readonly #c: Columns;

  constructor(entries: readonly BlobIndexEntry[] | Columns) {
    if (Array.isArray(entries)) {
      const b = new BlobIndexBuilder();
      for (const e of entries as readonly BlobIndexEntry[]) b.add(e.offset, e.length, e.schema, e.package, e.name);
      this.#c = b.finish().#c;
    } else {
      this.#c = entries as Columns;
    }
  }

  /** Number of blobs. */
  get size(): number {
    return this.#c.count;
  }

  /** Every entry, in file order (made on each call: prefer `size`, `query` or `sections`). */
  get entries(): BlobIndexEntry[] {
    return Array.from({ length: this.#c.count }, (_, i) => this.entry(i));
  }

  /** The entry of blob `i` (its position in the catalog). */
  entry(i: number): BlobIndexEntry {
    const c = this.#c;
    const value = (d: number): string => {
      const id = c.ids[i * DIMENSIONS + d]!;
      return id === NONE ? '' : c.values[id]!;
    };
    return { index: i, offset: c.offsets[i]!, length: c.lengths[i]!, schema: value(0), package: value(1), name: value(2) };
  }

  /** The id of `value`, or undefined when no blob has it. */
  #idOf(value: string): number | undefined {
    const values = this.#c.values;
    let lo = 0;
    let hi = values.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = compareGoStrings(values[mid]!, value);
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /**
   * The positions of the blobs matching every given (non-empty) dimension, in file order. As in
   * catalogd, a query without schema starts from every blob that has a schema; a query with no
   * dimension at all is the whole file (callers serve `/api/v1/all` for it) and returns every blob.
   */
  #match(q: MetasQuery): Iterable<number> {
    const c = this.#c;
    const want = [q.schema ?? '', q.package ?? '', q.name ?? ''];
    if (want.every((w) => w === '')) return Array.from({ length: c.count }, (_, i) => i);
    const wantIds: number[] = [];
    // Walk the shortest list and check the other dimensions on the blob itself: this costs
    // O(shortest list) per query (no set of a big list such as every olm.bundle is built).
    let best: { d: number; from: number; to: number } | undefined;
    for (let d = 0; d < DIMENSIONS; d++) {
      if (want[d] === '') {
        wantIds.push(NONE);
        continue;
      }
      const id = this.#idOf(want[d]!);
      if (id === undefined) return [];
      wantIds.push(id);
      const from = c.start[d]![id]!;
      const to = c.start[d]![id + 1]!;
      if (!best || to - from < best.to - best.from) best = { d, from, to };
    }
    const { d: bd, from, to } = best!;
    const order = c.order[bd]!;
    const out: number[] = [];
    for (let k = from; k < to; k++) {
      const i = order[k]!;
      let ok = true;
      for (let d = 0; d < DIMENSIONS && ok; d++) {
        const id = c.ids[i * DIMENSIONS + d]!;
        // schema: '' means "has a schema"; the other dimensions: '' means any.
        if (wantIds[d] === NONE) ok = d !== 0 || id !== NONE;
        else ok = id === wantIds[d];
      }
      if (ok) out.push(i);
    }
    return out;
  }

  /** The entries matching every given (non-empty) dimension, in file order (see `#match`). */
  query(q: MetasQuery): BlobIndexEntry[] {
    return Array.from(this.#match(q), (i) => this.entry(i));
  }

  /** The byte ranges of the matching blobs, in file order, adjacent ones merged. */
  sections(q: MetasQuery): Section[] {
    const c = this.#c;
    const out: { offset: number; length: number }[] = [];
    for (const i of this.#match(q)) {
      const offset = c.offsets[i]!;
      const length = c.lengths[i]!;
      const last = out[out.length - 1];
      if (last && last.offset + last.length === offset) last.length += length;
      else out.push({ offset, length });
    }
    return out;
  }

  /**
   * catalogd's index.json, `{"by_schema":{…},"by_package":{…},"by_name":{…}}` with
   * `[offset,length]` sections, keys in Go order, in pieces (for writing it out without building
   * the whole text).
   */
  *catalogdJSON(): Generator<string> {
    const c = this.#c;
    const names = ['by_schema', 'by_package', 'by_name'];
    for (let d = 0; d < DIMENSIONS; d++) {
      yield `${d === 0 ? '{' : ','}"${names[d]!}":{`;
      const st = c.start[d]!;
      const order = c.order[d]!;
      let first = true;
      for (let id = 0; id < c.values.length; id++) {
        if (st[id] === st[id + 1]) continue;
        let piece = `${first ? '' : ','}${goJSONString(c.values[id]!, { html: false })}:[`;
        for (let k = st[id]!; k < st[id + 1]!; k++) {
          const i = order[k]!;
          piece += `${k === st[id] ? '' : ','}[${c.offsets[i]!},${c.lengths[i]!}]`;
        }
        yield piece + ']';
        first = false;
      }
      yield '}';
    }
    yield '}\n';
  }

  /** catalogd's index.json as one string. */
  toCatalogdJSON(): string {
    let out = '';
    for (const piece of this.catalogdJSON()) out += piece;
    return out;
  }
}

export interface EncodedCatalog {
  /** catalog.jsonl as a list of chunks (one per blob, shared with the Metas, not copied). */
  readonly chunks: readonly Buffer[];
  readonly byteLength: number;
  readonly index: BlobIndex;
}

/** Lays the blobs out as catalog.jsonl and indexes them. */
export function encodeJsonl(c: { readonly metas: readonly Meta[] }): EncodedCatalog {
  const chunks: Buffer[] = new Array<Buffer>(c.metas.length);
  const index = new BlobIndexBuilder();
  let offset = 0;
  c.metas.forEach((m, i) => {
    chunks[i] = m.json;
    index.add(offset, m.json.length, m.schema, m.package, m.name);
    offset += m.json.length;
  });
  return { chunks, byteLength: offset, index: index.finish() };
}
