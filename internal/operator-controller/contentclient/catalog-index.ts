// An in-memory catalog, per package: what the content client keeps for one catalog digest and
// what the offline CLI builds from catalog directories.
//
// Memory: each package's JSONL lines are kept, grouped by package, in one Buffer (about the
// catalog's JSONL size: blobs without a package are dropped) — or, with `finishToFile`, in a file
// (upstream keeps its cache on disk too) read by package on use — plus a Map of package → byte
// range. A package is decoded on first use and kept in a small LRU (bounded by count and by the
// decoded packages' JSONL bytes), so hot packages cost one Map lookup and the catalog never sits in
// memory both as text and as objects. `npm run bench -- content-client` measures it.
import { close, closeSync, open, readSync, unlink, writev } from 'node:fs';
import { promisify } from 'node:util';
import type { Catalog, LoadOptions } from '../../shared/fbc/index.ts';
import { loadCatalog } from '../../shared/fbc/index.ts';
import { EMPTY_CONTENT, blobMeta, decodePackage, packageKeyOf } from './decode.ts';
import { ContentClientError, errorText, msg } from './messages.ts';
import type { PackageContent } from './types.ts';

export interface CatalogIndexOptions {
  /** Decoded packages kept (default 128). */
  readonly cacheEntries?: number;
  /** JSONL bytes of the decoded packages kept (default 4 MiB; the last package is always kept). */
  readonly cacheBytes?: number;
}

const DEFAULT_CACHE_ENTRIES = 128;
const DEFAULT_CACHE_BYTES = 4 * 1024 * 1024;

interface Cached {
  readonly content: PackageContent;
  readonly bytes: number;
}

/** Where an index's grouped lines are: bytes [start, end) on demand, and how many of them sit in memory. */
interface Lines {
  readonly inMemory: number;
  slice(start: number, end: number): Buffer;
}

const memoryLines = (data: Buffer): Lines => ({ inMemory: data.length, slice: (start, end) => data.subarray(start, end) });

/**
 * Lines in a file that is already unlinked: nothing is left on disk when the process dies, and the
 * space is freed once the index is garbage collected (its descriptor closed by the registry below).
 */
const openFiles = new FinalizationRegistry<number>((fd) => close(fd, () => undefined));

function fileLines(fd: number, owner: object): Lines {
  openFiles.register(owner, fd);
  return {
    inMemory: 0,
    slice(start, end) {
      const buf = Buffer.allocUnsafe(end - start);
      for (let done = 0; done < buf.length; ) {
        const n = readSync(fd, buf, done, buf.length - done, start + done);
        if (n === 0) throw new Error(`catalog cache file ended ${buf.length - done} bytes short`);
        done += n;
      }
      return buf;
    },
  };
}

/** One catalog's content, grouped by package. Read-only once built. */
export class CatalogIndex {
  /** Bytes of JSONL taken in (the size the memory target is measured against). */
  readonly jsonlBytes: number;
  /** Blobs taken in. */
  readonly blobs: number;
  readonly #lines: Lines;
  /** package → [start, end) in #lines. */
  readonly #ranges: Map<string, readonly [number, number]>;
  readonly #cache = new Map<string, Cached>();
  #cacheBytes = 0;
  readonly #maxEntries: number;
  readonly #maxBytes: number;

  /** `data`: the grouped lines in memory, or the descriptor of an unlinked file holding them (closed when this index is collected). */
  constructor(data: Buffer | { readonly fd: number }, ranges: Map<string, readonly [number, number]>, stats: { jsonlBytes: number; blobs: number }, opts: CatalogIndexOptions = {}) {
    this.#lines = Buffer.isBuffer(data) ? memoryLines(data) : fileLines(data.fd, this);
    this.#ranges = ranges;
    this.jsonlBytes = stats.jsonlBytes;
    this.blobs = stats.blobs;
    this.#maxEntries = Math.max(1, opts.cacheEntries ?? DEFAULT_CACHE_ENTRIES);
    this.#maxBytes = opts.cacheBytes ?? DEFAULT_CACHE_BYTES;
  }

  /** Package names (the `olm.package` name or the `package` field of their blobs), in first-seen order. */
  packageNames(): string[] {
    return [...this.#ranges.keys()];
  }

  hasPackage(name: string): boolean {
    return this.#ranges.has(name);
  }

  /** Bytes held in memory for package lines (excluding the LRU of decoded packages; 0 when they are in a file). */
  get retainedBytes(): number {
    return this.#lines.inMemory;
  }

  /** The package's JSONL lines as stored (empty when absent). */
  packageJsonl(name: string): Buffer {
    const r = this.#ranges.get(name);
    return r ? this.#lines.slice(r[0], r[1]) : Buffer.alloc(0);
  }

  /** Everything the catalog says about `name`; all lists empty when it has no such package. */
  getPackage(name: string): PackageContent {
    const hit = this.#cache.get(name);
    if (hit) {
      this.#cache.delete(name); // most recently used last
      this.#cache.set(name, hit);
      return hit.content;
    }
    const r = this.#ranges.get(name);
    if (!r) return EMPTY_CONTENT;
    const content = decodePackage(this.#lines.slice(r[0], r[1]).toString('utf8'));
    this.#remember(name, { content, bytes: r[1] - r[0] });
    return content;
  }

  #remember(name: string, c: Cached): void {
    this.#cache.set(name, c);
    this.#cacheBytes += c.bytes;
    for (const [k, v] of this.#cache) {
      if (this.#cache.size <= 1) break;
      if (this.#cache.size <= this.#maxEntries && this.#cacheBytes <= this.#maxBytes) break;
      this.#cache.delete(k);
      this.#cacheBytes -= v.bytes;
    }
  }
}

const NL = 0x0a;
const openAsync = promisify(open);
const writevAsync = promisify(writev);
const unlinkAsync = promisify(unlink);

/** Writes `bufs` in order from offset 0: writev batches of at most IOV_MAX (1024) buffers, short writes continued. */
async function writeAll(fd: number, bufs: Buffer[]): Promise<void> {
  let at = 0;
  for (let i = 0; i < bufs.length; ) {
    const batch = bufs.slice(i, i + 1024);
    const { bytesWritten } = await writevAsync(fd, batch, at);
    at += bytesWritten;
    let n = bytesWritten;
    while (i < bufs.length && n >= bufs[i]!.length) n -= bufs[i++]!.length;
    if (n > 0) bufs[i] = bufs[i]!.subarray(n);
  }
}

const isBlank = (b: Buffer): boolean => {
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== NL) return false;
  }
  return true;
};

/**
 * Builds a CatalogIndex from catalogd's `/api/v1/all` body fed chunk by chunk: lines are split
 * on `\n` (a line may span chunks), each decoded once for its meta fields and filed under its
 * package. `finish()` copies the kept lines into one Buffer grouped by package, so the chunks
 * are released. A line that is not a JSON object with string meta fields fails with upstream's
 * `error parsing catalog contents: …`.
 */
export class CatalogIndexBuilder {
  readonly #opts: CatalogIndexOptions;
  /** Pieces of a line that started in an earlier chunk. */
  #partial: Buffer[] = [];
  readonly #groups = new Map<string, Buffer[]>();
  #bytes = 0;
  #blobs = 0;
  #finished = false;

  constructor(opts: CatalogIndexOptions = {}) {
    this.#opts = opts;
  }

  push(chunk: Uint8Array): void {
    if (this.#finished) throw new Error('CatalogIndexBuilder: push after finish');
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#bytes += buf.length;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(NL, start);
      if (nl < 0) break;
      const piece = buf.subarray(start, nl + 1);
      if (this.#partial.length > 0) {
        this.#partial.push(piece);
        this.#line(Buffer.concat(this.#partial));
        this.#partial = [];
      } else {
        this.#line(piece);
      }
      start = nl + 1;
    }
    // Copy the tail: holding a subarray would keep the whole chunk alive for one short line.
    if (start < buf.length) this.#partial.push(Buffer.from(buf.subarray(start)));
  }

  /** Adds one blob whose meta fields are already known (a loaded catalog's `Meta`). */
  addBlob(pkg: string, line: Buffer): void {
    this.#bytes += line.length;
    this.#blobs++;
    this.#file(pkg, line);
  }

  finish(): CatalogIndex {
    const { ranges, size } = this.#layout();
    const data = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (const lines of this.#groups.values()) for (const l of lines) at += l.copy(data, at);
    this.#groups.clear();
    return new CatalogIndex(data, ranges, { jsonlBytes: this.#bytes, blobs: this.#blobs }, this.#opts);
  }

  /**
   * As `finish`, with the grouped lines written to a new file at `path` instead of a Buffer: the file is unlinked
   * once written and read through its descriptor, so memory holds only the ranges and the decoded-package LRU.
   */
  async finishToFile(path: string): Promise<CatalogIndex> {
    const { ranges, size } = this.#layout();
    const fd = await openAsync(path, 'wx+', 0o600);
    try {
      const lines = [...this.#groups.values()].flat();
      this.#groups.clear();
      await writeAll(fd, lines);
      // Gone already is as good (another process emptying a shared cache directory): the descriptor still reads it.
      await unlinkAsync(path).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    } catch (err) {
      closeSync(fd);
      await unlinkAsync(path).catch(() => undefined);
      throw err;
    }
    if (size === 0) {
      closeSync(fd);
      return new CatalogIndex(Buffer.alloc(0), ranges, { jsonlBytes: this.#bytes, blobs: this.#blobs }, this.#opts);
    }
    return new CatalogIndex({ fd }, ranges, { jsonlBytes: this.#bytes, blobs: this.#blobs }, this.#opts);
  }

  /** Ends the input (a last line without its newline taken) and gives each package's range in group order. */
  #layout(): { ranges: Map<string, readonly [number, number]>; size: number } {
    if (this.#finished) throw new Error('CatalogIndexBuilder: finish called twice');
    if (this.#partial.length > 0) {
      const last = Buffer.concat(this.#partial);
      this.#partial = [];
      this.#line(Buffer.concat([last, Buffer.from('\n')]));
    }
    this.#finished = true;
    const ranges = new Map<string, readonly [number, number]>();
    let at = 0;
    for (const [pkg, lines] of this.#groups) {
      const start = at;
      for (const l of lines) at += l.length;
      ranges.set(pkg, [start, at]);
    }
    return { ranges, size: at };
  }

  #line(line: Buffer): void {
    if (isBlank(line)) return;
    let blob: unknown;
    try {
      blob = JSON.parse(line.toString('utf8'));
    } catch (e) {
      throw new ContentClientError(msg.parsingContents(errorText(e)));
    }
    const meta = blobMeta(blob);
    if ('error' in meta) throw new ContentClientError(msg.parsingContents(meta.error));
    this.#blobs++;
    const last = line[line.length - 1] === NL ? line : Buffer.concat([line, Buffer.from('\n')]);
    this.#file(packageKeyOf(meta), last);
  }

  #file(pkg: string, line: Buffer): void {
    // Blobs outside any package sit at the root of upstream's cache, where no package lookup reads them.
    if (pkg === '') return;
    let list = this.#groups.get(pkg);
    if (!list) this.#groups.set(pkg, (list = []));
    list.push(line);
  }
}

/** Builds an index from catalogd JSONL: a whole body, or its chunks as they arrive. */
export async function indexFromJsonl(
  source: string | Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  opts: CatalogIndexOptions = {},
): Promise<CatalogIndex> {
  const b = new CatalogIndexBuilder(opts);
  if (typeof source === 'string') b.push(Buffer.from(source, 'utf8'));
  else if (source instanceof Uint8Array) b.push(source);
  else if (Symbol.asyncIterator in source) for await (const chunk of source) b.push(chunk);
  else for (const chunk of source) b.push(chunk);
  return b.finish();
}

/** Builds an index from a catalog loaded with internal/shared/fbc (its lines are catalogd's). */
export function indexFromCatalog(catalog: Pick<Catalog, 'metas'>, opts: CatalogIndexOptions = {}): CatalogIndex {
  const b = new CatalogIndexBuilder(opts);
  for (const m of catalog.metas) b.addBlob(packageKeyOf(m), m.json);
  return b.finish();
}

/** Loads a catalog directory (`loadCatalog`) and indexes it; the loaded catalog is not kept. */
export async function indexFromDirectory(dir: string, opts: CatalogIndexOptions & LoadOptions = {}): Promise<CatalogIndex> {
  return indexFromCatalog(await loadCatalog(dir, opts), opts);
}
