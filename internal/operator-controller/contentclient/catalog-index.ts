// An in-memory catalog, per package: what the content client keeps for one catalog digest and
// what the offline CLI builds from catalog directories.
//
// Memory: each package's JSONL lines are kept, grouped by package, in one Buffer (about the
// catalog's JSONL size: blobs without a package are dropped) — or, with `CatalogIndexBuilder.toFile`,
// in a file written as the lines arrive (upstream keeps its cache on disk too) and read by package on
// use — plus a Map of package → byte ranges. A package is decoded on first use and kept in a small LRU
// (bounded by count and by the decoded packages' JSONL bytes), so hot packages cost one Map lookup and
// the catalog never sits in memory both as text and as objects. `npm run bench -- content-client`
// measures it.
import { close, closeSync, open, readSync, unlink, writevSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Catalog, LoadOptions } from '../../shared/fbc/index.ts';
import { loadCatalog } from '../../shared/fbc/index.ts';
import { errorMessage, tryOrThrow } from '../../shared/toolkit/index.ts';
import { EMPTY_CONTENT, blobMeta, decodePackage, packageKeyOf } from './decode.ts';
import { ContentClientError, msg } from './messages.ts';
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

/**
 * A package's lines: byte ranges [start, end) as flat pairs, in the order the lines came. One range in memory (the
 * lines are grouped there); in a file written as the lines arrived, one range per run of the package's lines
 * (one in all for catalogd's answers, which give a package's blobs one after another).
 */
type Ranges = readonly number[];

const rangesBytes = (r: Ranges): number => {
  let n = 0;
  for (let i = 0; i < r.length; i += 2) n += r[i + 1]! - r[i]!;
  return n;
};

/** Where an index's lines are: the bytes of some ranges on demand, and how many of them sit in memory. */
interface Lines {
  readonly inMemory: number;
  read(ranges: Ranges): Buffer;
}

/** Grouped lines in one Buffer: a package is one range of it. */
const memoryLines = (data: Buffer): Lines => ({ inMemory: data.length, read: (r) => data.subarray(r[0], r[1]) });

/**
 * Lines in a file that is already unlinked: nothing is left on disk when the process dies, and the
 * space is freed once the index is garbage collected (its descriptor closed by the registry below).
 */
const openFiles = new FinalizationRegistry<number>((fd) => close(fd, () => undefined));

function fileLines(fd: number, owner: object): Lines {
  openFiles.register(owner, fd);
  return {
    inMemory: 0,
    read(ranges) {
      const buf = Buffer.allocUnsafe(rangesBytes(ranges));
      let at = 0;
      for (let i = 0; i < ranges.length; i += 2) {
        for (let pos = ranges[i]!; pos < ranges[i + 1]!; ) {
          const n = readSync(fd, buf, at, ranges[i + 1]! - pos, pos);
          if (n === 0) throw new Error(`catalog cache file ended ${ranges[i + 1]! - pos} bytes short`);
          at += n;
          pos += n;
        }
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
  /** package → its ranges in #lines. */
  readonly #ranges: Map<string, Ranges>;
  readonly #cache = new Map<string, Cached>();
  #cacheBytes = 0;
  readonly #maxEntries: number;
  readonly #maxBytes: number;

  /** `data`: the grouped lines in memory, or the descriptor of an unlinked file holding them (closed when this index is collected). */
  constructor(data: Buffer | { readonly fd: number }, ranges: Map<string, Ranges>, stats: { jsonlBytes: number; blobs: number }, opts: CatalogIndexOptions = {}) {
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
    return r ? this.#lines.read(r) : Buffer.alloc(0);
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
    const content = decodePackage(this.#lines.read(r).toString('utf8'));
    this.#remember(name, { content, bytes: rangesBytes(r) });
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
const unlinkAsync = promisify(unlink);
/** Lines a file-backed builder holds before writing them out (and the chunks they are views of). */
const FILE_WRITE_BYTES = 256 * 1024;
/** Buffers per writev (IOV_MAX). */
const IOV_MAX = 1024;

/** Writes `bufs` in order at `position`: writev batches of at most IOV_MAX buffers, short writes continued. */
function writeAllSync(fd: number, bufs: Buffer[], position: number): void {
  let at = position;
  for (let i = 0; i < bufs.length; ) {
    const batch = bufs.slice(i, i + IOV_MAX);
    let n = writevSync(fd, batch, at);
    at += n;
    while (i < bufs.length && n >= bufs[i]!.length) n -= bufs[i++]!.length;
    if (n > 0) bufs[i] = bufs[i]!.subarray(n);
  }
}

/** Where a file-backed builder writes: the descriptor, what is written, and the lines waiting to be. */
interface FileOut {
  readonly fd: number;
  written: number;
  pending: Buffer[];
  pendingBytes: number;
  readonly ranges: Map<string, number[]>;
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
 * package. In memory (`new CatalogIndexBuilder()`), `finish()` copies the kept lines into one Buffer
 * grouped by package, so the chunks are released. A line that is not a JSON object with string meta
 * fields fails with upstream's `error parsing catalog contents: …`.
 */
export class CatalogIndexBuilder {
  readonly #opts: CatalogIndexOptions;
  /** Set by `toFile`: the lines go to a file as they come instead of into #groups. */
  #out: FileOut | undefined;
  /** Pieces of a line that started in an earlier chunk. */
  #partial: Buffer[] = [];
  readonly #groups = new Map<string, Buffer[]>();
  #bytes = 0;
  #blobs = 0;
  #finished = false;

  constructor(opts: CatalogIndexOptions = {}) {
    this.#opts = opts;
  }

  /**
   * A builder whose kept lines go to a new file at `path` as they arrive (synchronous writes of FILE_WRITE_BYTES into
   * the page cache, as the reads on use are synchronous) instead of being held until `finish`: a catalog costs its
   * package ranges and one write's worth of lines while it downloads, not its size (the chunks held until `finish` were
   * the whole catalog in buffers at once, and glibc kept them once freed: operator-controller stayed 10–15 MiB higher
   * after fetching certified-operators, bench/footprint.ts). The file is unlinked at once (nothing is left on disk by a
   * killed process) and read through its descriptor, which the index `finish` gives closes when it is garbage
   * collected, or `discard` closes. Open and write errors are upstream's `error writing catalog metadata to file: …`.
   */
  static async toFile(path: string, opts: CatalogIndexOptions = {}): Promise<CatalogIndexBuilder> {
    const fd = await openAsync(path, 'wx+', 0o600).catch((e: unknown) => {
      throw new ContentClientError(msg.writingCache(errorMessage(e)), { cause: e });
    });
    await unlinkAsync(path).catch((e: NodeJS.ErrnoException) => {
      // Gone already is as good (another process emptying a shared cache directory): the descriptor still reads it.
      if (e.code === 'ENOENT') return;
      closeSync(fd);
      throw new ContentClientError(msg.writingCache(errorMessage(e)), { cause: e });
    });
    const b = new CatalogIndexBuilder(opts);
    b.#out = { fd, written: 0, pending: [], pendingBytes: 0, ranges: new Map() };
    return b;
  }

  /** Bytes of kept lines held in memory now (file-backed: those not yet written). */
  get heldBytes(): number {
    return this.#out ? this.#out.pendingBytes : [...this.#groups.values()].flat().reduce((n, l) => n + l.length, 0);
  }

  /** Gives up a file-backed build (a failed download): its file is closed, which frees its space. */
  discard(): void {
    const out = this.#out;
    this.#finished = true;
    this.#out = undefined;
    if (out) closeSync(out.fd);
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

  /**
   * Ends the input (a last line without its newline taken) and gives the index: in memory, the kept lines copied
   * into one Buffer grouped by package; file-backed, the last lines written and the file's descriptor handed over.
   */
  finish(): CatalogIndex {
    if (this.#finished) throw new Error('CatalogIndexBuilder: finish called twice');
    // #line adds the missing newline.
    if (this.#partial.length > 0) this.#line(Buffer.concat(this.#partial.splice(0)));
    this.#finished = true;
    const stats = { jsonlBytes: this.#bytes, blobs: this.#blobs };
    const out = this.#out;
    if (out) {
      this.#out = undefined;
      try {
        this.#flush(out);
      } catch (e) {
        closeSync(out.fd);
        throw e;
      }
      if (out.written > 0) return new CatalogIndex({ fd: out.fd }, out.ranges, stats, this.#opts);
      closeSync(out.fd);
      return new CatalogIndex(Buffer.alloc(0), out.ranges, stats, this.#opts);
    }
    const ranges = new Map<string, Ranges>();
    let size = 0;
    for (const [pkg, lines] of this.#groups) {
      const start = size;
      for (const l of lines) size += l.length;
      ranges.set(pkg, [start, size]);
    }
    const data = Buffer.allocUnsafeSlow(size);
    let at = 0;
    for (const lines of this.#groups.values()) for (const l of lines) at += l.copy(data, at);
    this.#groups.clear();
    return new CatalogIndex(data, ranges, stats, this.#opts);
  }

  /** Writes a file-backed builder's pending lines. */
  #flush(out: FileOut): void {
    if (out.pendingBytes === 0) return;
    tryOrThrow(() => writeAllSync(out.fd, out.pending, out.written), (e) => new ContentClientError(msg.writingCache(errorMessage(e)), { cause: e }));
    out.written += out.pendingBytes;
    out.pending = [];
    out.pendingBytes = 0;
  }

  #line(line: Buffer): void {
    if (isBlank(line)) return;
    const blob: unknown = tryOrThrow(() => JSON.parse(line.toString('utf8')), (e) => new ContentClientError(msg.parsingContents(errorMessage(e))));
    const meta = blobMeta(blob);
    if ('error' in meta) throw new ContentClientError(msg.parsingContents(meta.error));
    this.#blobs++;
    const last = line[line.length - 1] === NL ? line : Buffer.concat([line, Buffer.from('\n')]);
    this.#file(packageKeyOf(meta), last);
  }

  #file(pkg: string, line: Buffer): void {
    // Blobs outside any package sit at the root of upstream's cache, where no package lookup reads them.
    if (pkg === '') return;
    const out = this.#out;
    if (out) {
      const start = out.written + out.pendingBytes;
      const ranges = out.ranges.get(pkg);
      if (!ranges) out.ranges.set(pkg, [start, start + line.length]);
      else if (ranges[ranges.length - 1] === start) ranges[ranges.length - 1] = start + line.length;
      else ranges.push(start, start + line.length);
      out.pending.push(line);
      out.pendingBytes += line.length;
      if (out.pendingBytes >= FILE_WRITE_BYTES) this.#flush(out);
      return;
    }
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
  const chunks = typeof source === 'string' ? [Buffer.from(source, 'utf8')] : source instanceof Uint8Array ? [source] : source;
  for await (const chunk of chunks) b.push(chunk);
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
