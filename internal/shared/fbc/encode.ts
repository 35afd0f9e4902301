// catalogd's storage format: catalog.jsonl is every blob's canonical JSON, one per line, in load
// order; index.json maps schema, package and name to [offset, length] sections of that file.
// A query (?schema=&package=&name=) is the intersection of the given dimensions, in file order.
// Blobs keep their own Buffers, so encoding copies nothing: the file is the list of chunks.

import { sortedGoStrings } from './go.ts';
import type { Meta } from './load.ts';

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

type Section = readonly [offset: number, length: number];

/** catalogd's index (internal/catalogd/storage/index.go) plus the entry list it was built from. */
export class BlobIndex {
  readonly entries: readonly BlobIndexEntry[];
  private readonly bySchema = new Map<string, number[]>();
  private readonly byPackage = new Map<string, number[]>();
  private readonly byName = new Map<string, number[]>();

  constructor(entries: readonly BlobIndexEntry[]) {
    this.entries = entries;
    const put = (m: Map<string, number[]>, key: string, i: number): void => {
      if (key === '') return; // empty values are not indexed
      const list = m.get(key);
      if (list) list.push(i);
      else m.set(key, [i]);
    };
    entries.forEach((e, i) => {
      put(this.bySchema, e.schema, i);
      put(this.byPackage, e.package, i);
      put(this.byName, e.name, i);
    });
  }

  /**
   * The entries matching every given (non-empty) dimension, in file order. As in catalogd, a
   * query without schema starts from every blob that has a schema; a query with no dimension at
   * all is the whole file (callers serve `/api/v1/all` for it) and returns every entry.
   */
  query(q: MetasQuery): BlobIndexEntry[] {
    const schema = q.schema ?? '';
    const pkg = q.package ?? '';
    const name = q.name ?? '';
    if (schema === '' && pkg === '' && name === '') return [...this.entries];
    const lists: (readonly number[])[] = [];
    if (schema !== '') lists.push(this.bySchema.get(schema) ?? []);
    if (pkg !== '') lists.push(this.byPackage.get(pkg) ?? []);
    if (name !== '') lists.push(this.byName.get(name) ?? []);
    // Walk the shortest list and check the other dimensions on the entry itself: being in a
    // key's list is the same as having that value, and this costs O(shortest list) per query
    // (no set of a big list such as every olm.bundle is built per request).
    let first = lists[0] ?? [];
    for (const l of lists) if (l.length < first.length) first = l;
    const out: BlobIndexEntry[] = [];
    for (const i of first) {
      const e = this.entries[i] as BlobIndexEntry;
      if (schema === '' ? e.schema === '' : e.schema !== schema) continue;
      if ((pkg !== '' && e.package !== pkg) || (name !== '' && e.name !== name)) continue;
      out.push(e);
    }
    return out; // the per-key lists are in file order, so the result is too
  }

  /** catalogd's index.json: `{"by_schema":{…},"by_package":{…},"by_name":{…}}` with `[offset,length]` sections. */
  toCatalogdJSON(): string {
    const dim = (m: Map<string, number[]>): Record<string, Section[]> => {
      const out: Record<string, Section[]> = {};
      for (const key of sortedGoStrings(m.keys())) {
        out[key] = (m.get(key) ?? []).map((i) => {
          const e = this.entries[i] as BlobIndexEntry;
          return [e.offset, e.length] as const;
        });
      }
      return out;
    };
    const json = JSON.stringify({ by_schema: dim(this.bySchema), by_package: dim(this.byPackage), by_name: dim(this.byName) });
    return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') + '\n';
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
  const entries: BlobIndexEntry[] = new Array<BlobIndexEntry>(c.metas.length);
  let offset = 0;
  c.metas.forEach((m, i) => {
    chunks[i] = m.json;
    entries[i] = { index: i, offset, length: m.json.length, schema: m.schema, package: m.package, name: m.name };
    offset += m.json.length;
  });
  return { chunks, byteLength: offset, index: new BlobIndex(entries) };
}

/** The bytes of some index entries of an encoded catalog, concatenated in the given order. */
export function sliceEntries(encoded: EncodedCatalog, entries: readonly BlobIndexEntry[]): Buffer {
  return Buffer.concat(entries.map((e) => encoded.chunks[e.index] ?? Buffer.alloc(0)));
}
