// LocalDirStore: catalogd's served content on the local disk, one directory per catalog and digest:
//
//   <root>/<catalog>/<algorithm>/<encoded>/catalog.jsonl   every blob, catalogd's encoding
//                                          index.json      catalogd's by_schema/by_package/by_name
//                                          content.json    {catalog, digest, encoding, stored}
//   <root>/.<catalog>-XXXXXX/                              a store in progress (or a crash's leftover)
//
// A store streams the FBC directory's blobs (internal/shared/fbc walkMetas, catalogd semantics:
// strict false) straight into a temp dir, renames it into place, and only then swaps the
// catalog's in-memory entry; the catalog's other digests are removed after the swap. A reader
// that already opened the old catalog.jsonl keeps reading it (an open fd outlives the unlink).
// Stores, deletes and collections of one catalog run one at a time.
//
// Restart: `load()` (called by every async method, and by the process at start so `get` serves
// at once) registers what is on disk — per catalog the newest complete entry — rebuilding the
// index from index.json, and removes stray temp dirs and older entries. A later store of the same
// (catalog, digest) re-registers that entry without re-encoding.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type * as Fbc from '../../shared/fbc/index.ts';
import type { BlobIndex } from '../../shared/fbc/index.ts';
import { noopLogger, type Logger } from '../../shared/observability/index.ts';
import { realClock, type Clock } from '../../shared/toolkit/index.ts';
import { digestPath, isCatalogName } from './names.ts';
import type { CatalogStore, StoredCatalog } from './types.ts';

export const CATALOG_FILE = 'catalog.jsonl';
export const INDEX_FILE = 'index.json';
export const CONTENT_FILE = 'content.json';
/**
 * Version of the bytes this code writes for a digest (catalog.jsonl + index.json). Part of the
 * ETag; an entry on disk written with another version is re-encoded, not reused.
 */
export const ENCODING_VERSION = 1;
/**
 * The FBC library, imported on first use (a store, or stored content found at start): a replica with nothing stored
 * yet starts without parsing it (its loader and YAML parser are ~130 KiB of code; bench/footprint.ts).
 */
const fbc = (): Promise<typeof Fbc> => import('../../shared/fbc/index.ts');

/** Bytes gathered before one write to catalog.jsonl. */
const WRITE_BATCH = 1 << 20;

export interface LocalDirStoreOptions {
  /** `<cache-dir>/catalogs`; created when missing. */
  readonly root: string;
  readonly logger?: Logger;
  /** The time an entry records as `stored`; default the toolkit's realClock. */
  readonly clock?: Clock;
}

/** content.json: what a finished entry records about itself. */
interface ContentRecord {
  readonly catalog: string;
  readonly digest: string;
  readonly encoding: number;
  /** RFC 3339 time of the store (Last-Modified). */
  readonly stored: string;
}

export class LocalDirStore implements CatalogStore {
  readonly root: string;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #current = new Map<string, StoredCatalog>();
  readonly #listeners = new Set<(name: string) => void>();
  /** Temp dirs of stores in progress: garbage collection leaves them alone. */
  readonly #inflight = new Set<string>();
  readonly #locks = new Map<string, Promise<unknown>>();
  #loading: Promise<StoredCatalog[]> | undefined;

  constructor(options: LocalDirStoreOptions) {
    this.root = options.root;
    this.#log = options.logger ?? noopLogger;
    this.#clock = options.clock ?? realClock;
  }

  /**
   * Registers what is on disk (idempotent; every other async method awaits it first). Call it at
   * process start so the server serves stored content before the first reconcile. Resolves to
   * the entries found.
   */
  load(): Promise<StoredCatalog[]> {
    this.#loading ??= this.#recover().catch((err: unknown) => {
      this.#loading = undefined;
      throw err;
    });
    return this.#loading;
  }

  get(name: string): StoredCatalog | undefined {
    return this.#current.get(name);
  }

  async store(name: string, digest: string, fbcDir: string, signal?: AbortSignal): Promise<StoredCatalog> {
    if (!isCatalogName(name)) throw new Error(`invalid catalog name ${JSON.stringify(name)}`);
    const target = join(this.root, name, digestPath(digest));
    await this.load();
    return this.#locked(name, async () => {
      const current = this.#current.get(name);
      if (current?.digest === digest && (await isFile(current.jsonlPath))) return current;
      const existing = await readEntry(target, name, digest);
      if (existing) {
        this.#swap(name, existing);
        await this.#removeOthers(name, target);
        this.#log.info('serving stored catalog content', { catalog: name, digest });
        return existing;
      }
      const started = performance.now();
      const stored = await this.#write(name, digest, fbcDir, target, signal);
      this.#swap(name, stored);
      await this.#removeOthers(name, target);
      this.#log.info('stored catalog content', {
        catalog: name,
        digest,
        blobs: stored.index.size,
        bytes: stored.size,
        durationMs: Math.round(performance.now() - started),
      });
      return stored;
    });
  }

  async contentExists(name: string, digest?: string): Promise<boolean> {
    await this.load();
    const current = this.#current.get(name);
    if (!current || (digest !== undefined && current.digest !== digest)) return false;
    return (await isFile(current.jsonlPath)) && (await isFile(join(dirname(current.jsonlPath), INDEX_FILE)));
  }

  async delete(name: string): Promise<void> {
    if (!isCatalogName(name)) return; // nothing can be stored under such a name
    await this.load();
    await this.#remove(name);
  }

  /** Stops serving `name` and removes its directory, under its lock. */
  #remove(name: string): Promise<void> {
    return this.#locked(name, async () => {
      this.#swap(name, undefined);
      await rm(join(this.root, name), { recursive: true, force: true });
    });
  }

  async garbageCollect(keep: ReadonlySet<string>): Promise<string[]> {
    await this.load();
    const removed: string[] = [];
    for (const entry of await readdir(this.root)) {
      const path = join(this.root, entry);
      if (entry.startsWith('.')) {
        if (this.#inflight.has(path)) continue;
        await rm(path, { recursive: true, force: true });
        removed.push(entry);
      } else if (!keep.has(entry)) {
        await this.#remove(entry);
        removed.push(entry);
      }
    }
    if (removed.length) this.#log.info('removed stored catalog content', { removed });
    return removed;
  }

  onChange(listener: (name: string) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Makes `stored` (or nothing) the current content of `name`, and tells the listeners when that changed it. */
  #swap(name: string, stored: StoredCatalog | undefined): void {
    const old = this.#current.get(name);
    if (stored) this.#current.set(name, stored);
    else this.#current.delete(name);
    if (old === undefined || old === stored) return;
    for (const listener of this.#listeners) {
      try {
        listener(name);
      } catch (err) {
        this.#log.warn('a content change listener failed', { catalog: name, err });
      }
    }
  }

  /** Runs `fn` after every earlier operation on `name`. */
  #locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.#locks.get(name) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#locks.set(name, tail);
    void tail.then(() => {
      if (this.#locks.get(name) === tail) this.#locks.delete(name);
    });
    return run;
  }

  /** Encodes `fbcDir` into a temp dir and renames it to `target`. The previous content stays until then. */
  async #write(name: string, digest: string, fbcDir: string, target: string, signal?: AbortSignal): Promise<StoredCatalog> {
    await mkdir(this.root, { recursive: true });
    const tmp = join(this.root, `.${name}-${randomBytes(6).toString('hex')}`);
    this.#inflight.add(tmp);
    try {
      await mkdir(tmp);
      const { size, index } = await writeJsonl(join(tmp, CATALOG_FILE), fbcDir, signal);
      await writePieces(join(tmp, INDEX_FILE), index.catalogdJSON());
      const stored = this.#clock.date();
      const record: ContentRecord = { catalog: name, digest, encoding: ENCODING_VERSION, stored: stored.toISOString() };
      await writeFile(join(tmp, CONTENT_FILE), JSON.stringify(record) + '\n');
      signal?.throwIfAborted();
      await mkdir(dirname(target), { recursive: true });
      await rm(target, { recursive: true, force: true }); // an entry of another encoding version
      await rename(tmp, target);
      return makeStored(name, digest, target, size, stored, index);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    } finally {
      this.#inflight.delete(tmp);
    }
  }

  /** Removes every entry of `name` except `keep` (and directories left empty). */
  async #removeOthers(name: string, keep: string): Promise<void> {
    const dir = join(this.root, name);
    for (const alg of await readdirOrEmpty(dir)) {
      const algDir = join(dir, alg);
      const left = (await readdirOrEmpty(algDir)).filter((enc) => join(algDir, enc) !== keep);
      for (const enc of left) await rm(join(algDir, enc), { recursive: true, force: true });
      if (!keep.startsWith(algDir + '/')) await rm(algDir, { recursive: true, force: true });
    }
  }

  async #recover(): Promise<StoredCatalog[]> {
    await mkdir(this.root, { recursive: true });
    const found: StoredCatalog[] = [];
    for (const name of await readdir(this.root)) {
      const dir = join(this.root, name);
      if (name.startsWith('.')) {
        if (this.#inflight.has(dir)) continue;
        await rm(dir, { recursive: true, force: true });
        this.#log.info('removed a leftover temp dir', { dir });
        continue;
      }
      if (!isCatalogName(name) || !(await isDir(dir))) continue; // not ours; garbage collection decides
      let newest: StoredCatalog | undefined;
      for (const alg of await readdirOrEmpty(dir)) {
        for (const enc of await readdirOrEmpty(join(dir, alg))) {
          const entry = await readEntry(join(dir, alg, enc), name, `${alg}:${enc}`);
          if (entry && (!newest || entry.modified > newest.modified)) newest = entry;
        }
      }
      if (!newest) {
        await rm(dir, { recursive: true, force: true });
        continue;
      }
      await this.#locked(name, async () => {
        if (this.#current.has(name)) return; // a store won the race
        this.#current.set(name, newest);
        await this.#removeOthers(name, dirname(newest.jsonlPath));
      });
      found.push(newest);
    }
    if (found.length) this.#log.info('serving stored catalog content', { catalogs: found.map((s) => `${s.name}@${s.digest}`) });
    return found;
  }
}

function makeStored(name: string, digest: string, dir: string, size: number, modified: Date, index: BlobIndex): StoredCatalog {
  return {
    name,
    digest,
    jsonlPath: join(dir, CATALOG_FILE),
    size,
    modified,
    etag: `"${digest}.v${ENCODING_VERSION}"`,
    index,
  };
}

/** Streams the catalog's blobs into `path` (catalogd's catalog.jsonl) and indexes them. */
async function writeJsonl(path: string, fbcDir: string, signal?: AbortSignal): Promise<{ size: number; index: BlobIndex }> {
  const fh = await open(path, 'wx');
  try {
    const { BlobIndexBuilder, walkMetas } = await fbc();
    const entries = new BlobIndexBuilder();
    let batch: Buffer[] = [];
    let batched = 0;
    let offset = 0;
    const flush = async (): Promise<void> => {
      const buf = batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch, batched);
      batch = [];
      batched = 0;
      for (let done = 0; done < buf.length; ) done += (await fh.write(buf, done, buf.length - done)).bytesWritten;
    };
    for await (const meta of walkMetas(fbcDir, { strict: false, signal })) {
      entries.add(offset, meta.json.length, meta.schema, meta.package, meta.name);
      offset += meta.json.length;
      batch.push(meta.json);
      batched += meta.json.length;
      if (batched >= WRITE_BATCH) await flush();
    }
    if (batched > 0) await flush();
    await fh.sync();
    return { size: offset, index: entries.finish() };
  } finally {
    await fh.close();
  }
}

/** Writes text given in pieces (index.json), in 1 MiB writes, then `fsync`s. */
async function writePieces(path: string, pieces: Iterable<string>): Promise<void> {
  const fh = await open(path, 'wx');
  try {
    let pending = '';
    const flush = async (): Promise<void> => {
      const buf = Buffer.from(pending, 'utf8');
      pending = '';
      for (let done = 0; done < buf.length; ) done += (await fh.write(buf, done, buf.length - done)).bytesWritten;
    };
    for (const piece of pieces) {
      pending += piece;
      if (pending.length >= WRITE_BATCH) await flush();
    }
    if (pending.length) await flush();
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** A finished entry at `dir` for (name, digest) in this encoding version, or undefined. */
async function readEntry(dir: string, name: string, digest: string): Promise<StoredCatalog | undefined> {
  try {
    const record = JSON.parse(await readFile(join(dir, CONTENT_FILE), 'utf8')) as Partial<ContentRecord>;
    if (record.catalog !== name || record.digest !== digest || record.encoding !== ENCODING_VERSION) return undefined;
    const modified = new Date(record.stored ?? '');
    if (Number.isNaN(modified.getTime())) return undefined;
    const size = (await stat(join(dir, CATALOG_FILE))).size;
    const index = await indexFromCatalogdJSON(await readFile(join(dir, INDEX_FILE), 'utf8'), size);
    return makeStored(name, digest, dir, size, modified, index);
  } catch {
    return undefined; // missing or damaged: not an entry
  }
}

type Sections = Record<string, [number, number][]>;

/**
 * Rebuilds a BlobIndex from catalogd's index.json. Blobs that no dimension indexes (no schema,
 * package or name) are not in it; no query can return them anyway.
 */
export async function indexFromCatalogdJSON(json: string, fileSize: number): Promise<BlobIndex> {
  const { BlobIndex } = await fbc();
  const parsed = JSON.parse(json) as { by_schema?: Sections; by_package?: Sections; by_name?: Sections };
  const byOffset = new Map<number, { offset: number; length: number; schema: string; package: string; name: string }>();
  const fill = (dim: Sections | undefined, field: 'schema' | 'package' | 'name'): void => {
    for (const [key, sections] of Object.entries(dim ?? {})) {
      for (const [offset, length] of sections) {
        if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length <= 0 || offset + length > fileSize) {
          throw new Error(`index section [${offset},${length}] is outside catalog.jsonl (${fileSize} bytes)`);
        }
        let e = byOffset.get(offset);
        if (!e) byOffset.set(offset, (e = { offset, length, schema: '', package: '', name: '' }));
        e[field] = key;
      }
    }
  };
  fill(parsed.by_schema, 'schema');
  fill(parsed.by_package, 'package');
  fill(parsed.by_name, 'name');
  const entries = [...byOffset.values()].sort((a, b) => a.offset - b.offset).map((e, index) => ({ index, ...e }));
  return new BlobIndex(entries);
}

const isFile = async (path: string): Promise<boolean> => (await stat(path).catch(() => undefined))?.isFile() ?? false;
const isDir = async (path: string): Promise<boolean> => (await stat(path).catch(() => undefined))?.isDirectory() ?? false;

function readdirOrEmpty(dir: string): Promise<string[]> {
  return readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [];
    throw err;
  });
}
