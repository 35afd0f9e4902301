// The seam between catalogd's controller (writer) and its HTTP server (reader).
//
// Content is addressed by catalog name AND the digest it came from, so every replica can pull and
// serve on its own (no leader needed to serve) and a reader never sees a half-written catalog:
// a store writes into a temp dir and renames it into place, then swaps the catalog's current entry.
import type { BlobIndex } from '../../shared/fbc/index.ts';

/** What is stored for one catalog at one digest. */
export interface StoredCatalog {
  /** ClusterCatalog name. */
  readonly name: string;
  /** Manifest digest of the image the content came from (`sha256:…`). */
  readonly digest: string;
  /** Absolute path of `catalog.jsonl` (deterministic JSON lines, catalogd's encoding). */
  readonly jsonlPath: string;
  /** Size of `catalog.jsonl` in bytes. */
  readonly size: number;
  /** When the content was stored (Last-Modified; `status.lastUnpacked` is derived from the unpack). */
  readonly modified: Date;
  /** Strong validator for ETag / If-None-Match: derived from the digest and the encoding. */
  readonly etag: string;
  /** Byte-offset index for `/api/v1/metas` (by schema / package / name). */
  readonly index: BlobIndex;
}

/** Written by the ClusterCatalog controller; read by the HTTP server. */
export interface CatalogStore {
  /**
   * Loads the FBC directory `fbcDir` (the image's configs dir), encodes it and makes it the
   * catalog's current content, atomically. Idempotent for the same (name, digest). Throws an
   * error naming the file and blob when the content cannot be loaded.
   */
  store(name: string, digest: string, fbcDir: string, signal?: AbortSignal): Promise<StoredCatalog>;
  /** The current content, or undefined. Cheap (in memory); the server calls it per request. */
  get(name: string): StoredCatalog | undefined;
  /** True when current content for `name` exists on disk (and, when given, is of `digest`). */
  contentExists(name: string, digest?: string): Promise<boolean>;
  /** Removes everything stored for `name`. */
  delete(name: string): Promise<void>;
  /** Removes every stored catalog whose name is not in `keep`, and stray temp dirs; returns what went. */
  garbageCollect(keep: ReadonlySet<string>): Promise<string[]>;
  /**
   * Calls `listener` with a catalog's name once its current content was replaced or removed (a store of
   * another digest, a delete, a collection), so that readers drop what they keep of the old content
   * (the server's cached answers); returns the unsubscribe. Optional: a store without it is polled by `get`.
   */
  onChange?(listener: (name: string) => void): () => void;
}
