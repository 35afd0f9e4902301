// Loading a catalog directory as catalogd stores it (declcfg.WalkMetasFS with concurrency 1):
// files in lexical walk order (fs.WalkDir), `.indexignore` honoured, every other file parsed
// whatever its name, blobs kept in file order as canonical JSON. Strict mode (the default) adds
// opm LoadFS's checks: a blob needs a `schema`, and `olm.*` blobs must decode into opm's structs.
// Documents without content (comment-only, blank, `null`) are skipped, as catalogd does.
//
// Memory: files are read and parsed one at a time (the next one is read while the current one is
// parsed); for each blob only its canonical JSON (a Buffer) and a few typed fields survive.

import { lstat, opendir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ExcessiveAliasingError, UnsupportedValueError, canonicalJSON, extractMeta } from './canonical.ts';
import { addBlob, emptyDeclarativeConfig, type DeclarativeConfig, type MutableDeclarativeConfig } from './declcfg.ts';
import { compareGoStrings } from './go.ts';
import { jsonKind } from './gojson.ts';
import { INDEX_IGNORE_FILE, IgnoreMatcher, parseIgnoreFile, type IgnorePatterns } from './ignore.ts';
import { FbcLoadError, msg, type BlobRef } from './messages.ts';
import { DocumentSyntaxError, bytesLookLikeJSON, decodeDocumentBytes, decodeDocuments, looksLikeJSON } from './yaml.ts';

/** One blob of a catalog: catalogd's Meta plus where it came from. */
export interface Meta extends BlobRef {
  /** Canonical JSON of the blob followed by `\n`: exactly one line of catalogd's catalog.jsonl. */
  readonly json: Buffer;
}

export interface LoadOptions {
  /**
   * opm LoadFS checks (default true): a blob without `schema` is an error, and `olm.package`,
   * `olm.channel`, `olm.bundle`, `olm.deprecations` blobs must decode into opm's structs. With
   * false, loading accepts what catalogd's WalkMetasFS accepts and `config` holds only the blobs
   * that decode.
   */
  readonly strict?: boolean;
  readonly signal?: AbortSignal;
}

export interface Catalog {
  /** The directory it was loaded from (or a label for in-memory catalogs). */
  readonly root: string;
  /** Every blob, in catalogd's order (walk order, then document order). */
  readonly metas: readonly Meta[];
  /** The typed view of `olm.package`, `olm.channel`, `olm.bundle` and `olm.deprecations` blobs. */
  readonly config: DeclarativeConfig;
  /** Files parsed (ignored files and `.indexignore` files not counted). */
  readonly files: number;
  /** Total size of those files. */
  readonly sourceBytes: number;
}

interface FileEntry {
  readonly rel: string;
  readonly abs: string;
}

/**
 * The files to parse under `root`, in fs.WalkDir order (entries of a directory sorted by name,
 * directories descended where they sort), minus `.indexignore` files and what they ignore.
 */
export async function listCatalogFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  for await (const f of catalogFiles(root)) out.push(f.rel);
  return out;
}

/** A directory on the walk's current path, and what its `.indexignore` says. */
interface Level {
  readonly rel: string;
  readonly ignore: IgnorePatterns | undefined;
  /** Whether the child being descended sorts before `.indexignore` (so is walked before it). */
  childFirst: boolean;
}

/**
 * The files of `catalogFiles`, as the walk finds them: nothing is kept per file, only the sorted
 * names of the directories on the current path. `.indexignore` files count as they would if every
 * one in the tree were read first and applied in walk order (later ones win): only those of a
 * file's own directory and its ancestors can match it, and their walk order follows from where
 * `.indexignore` sorts among each ancestor's entries.
 */
async function* catalogFiles(root: string): AsyncGenerator<FileEntry> {
  const rootStat = await stat(root);
  if (!rootStat.isDirectory()) throw new FbcLoadError('FBC_READ', msg.notADirectory(root), '.');
  const stack: Level[] = [];

  /** The matcher for files directly in the deepest directory of `stack`, or undefined when no `.indexignore` applies. */
  const matcherHere = (): IgnoreMatcher | undefined => {
    if (!stack.some((l) => l.ignore)) return undefined;
    let order: Level[] = [stack[stack.length - 1]!];
    for (let i = stack.length - 2; i >= 0; i--) {
      const level = stack[i]!;
      order = level.childFirst ? [...order, level] : [level, ...order];
    }
    const m = new IgnoreMatcher();
    for (const l of order) if (l.ignore) m.addPatterns(l.ignore);
    return m;
  };

  async function* visit(absDir: string, relDir: string): AsyncGenerator<FileEntry> {
    // The names (to sort them) and which are directories; entries are read a few at a time.
    const names: string[] = [];
    let dirs = new Uint8Array(64);
    for await (const d of await opendir(absDir, { bufferSize: 128 })) {
      if (names.length === dirs.length) {
        const grown = new Uint8Array(dirs.length * 2);
        grown.set(dirs);
        dirs = grown;
      }
      dirs[names.length] = d.isDirectory() ? 1 : 0;
      names.push(d.name);
    }
    const order = Array.from(names.keys()).sort((a, b) => compareGoStrings(names[a]!, names[b]!));
    const ignoreAt = names.findIndex((n, i) => n === INDEX_IGNORE_FILE && !dirs[i]);
    const ignore = ignoreAt >= 0 ? parseIgnoreFile(relDir, await readFile(join(absDir, INDEX_IGNORE_FILE), 'utf8')) : undefined;
    const level: Level = { rel: relDir, ignore, childFirst: false };
    stack.push(level);
    let matcher: IgnoreMatcher | undefined | null = null; // null: not built yet
    for (const i of order) {
      const name = names[i]!;
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      if (dirs[i]) {
        level.childFirst = compareGoStrings(name, INDEX_IGNORE_FILE) < 0;
        yield* visit(join(absDir, name), rel);
      } else if (name !== INDEX_IGNORE_FILE) {
        if (matcher === null) matcher = matcherHere();
        if (!matcher?.match(rel, false)) yield { rel, abs: join(absDir, name) };
      }
    }
    stack.pop();
  }
  yield* visit(root, '');
}

/** A decoded blob and its Meta. */
interface LoadedBlob {
  readonly meta: Meta;
  /** The decoded document; only valid until the next blob is requested. */
  readonly value: unknown;
}

/** One file: its text (in-memory catalogs) or its bytes (read from disk, decoded per document). */
type FileInput = { readonly rel: string; readonly text: string } | { readonly rel: string; readonly bytes: Buffer };

/** Parses one file into blobs (checks that need no schema knowledge). */
function* blobsOfFile(file: FileInput, strict: boolean): Generator<LoadedBlob> {
  const isJSON = 'text' in file ? looksLikeJSON(file.text) : bytesLookLikeJSON(file.bytes);
  const docs = 'text' in file ? decodeDocuments(file.text) : decodeDocumentBytes(file.bytes);
  for (;;) {
    let next: IteratorResult<{ index: number; line: number; value: unknown }>;
    try {
      next = docs.next();
    } catch (e) {
      if (e instanceof DocumentSyntaxError) {
        const detail = e.kind === 'yaml' ? msg.yamlToJSON(e.message) : e.message;
        throw new FbcLoadError(e.kind === 'yaml' ? 'FBC_YAML_SYNTAX' : 'FBC_JSON_SYNTAX', detail, file.rel, {
          file: file.rel,
          document: e.index,
          line: e.line,
          schema: '',
          package: '',
          name: '',
        });
      }
      throw e;
    }
    if (next.done) return;
    const { index, line, value } = next.value;
    if (value === undefined) continue; // no node: nothing stored (catalogd), skipped here
    const where = { file: file.rel, document: index, line, schema: '', package: '', name: '' };
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new FbcLoadError('FBC_NOT_AN_OBJECT', msg.notAnObject(jsonKind(value)), file.rel, where);
    }
    const meta = value === null ? { schema: '', package: '', name: '' } : extractMeta(value as Record<string, unknown>);
    if ('error' in meta) throw new FbcLoadError(meta.code, meta.error, file.rel, where);
    let canonical: string;
    try {
      canonical = canonicalJSON(value);
    } catch (e) {
      if (!(e instanceof UnsupportedValueError) && !(e instanceof ExcessiveAliasingError)) throw e;
      const detail = isJSON ? e.message : msg.yamlToJSON(e.message);
      const code = e instanceof ExcessiveAliasingError ? 'FBC_YAML_SYNTAX' : 'FBC_UNSUPPORTED_VALUE';
      throw new FbcLoadError(code, detail, file.rel, { ...where, ...meta });
    }
    const m: Meta = { file: file.rel, document: index, line, ...meta, json: lineBuffer(canonical) };
    if (strict && m.schema === '') {
      throw new FbcLoadError('FBC_MISSING_SCHEMA', msg.missingSchema(canonical + '\n'), file.rel, m);
    }
    yield { meta: m, value };
  }
}

/** `json + "\n"` as UTF-8, without building the concatenated string first. */
function lineBuffer(json: string): Buffer {
  const n = Buffer.byteLength(json, 'utf8');
  const buf = Buffer.allocUnsafe(n + 1);
  buf.write(json, 0, 'utf8');
  buf[n] = 0x0a;
  return buf;
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

interface FileBytes {
  readonly rel: string;
  readonly bytes: Buffer;
}

async function* readFiles(files: AsyncIterable<FileEntry>, signal?: AbortSignal): AsyncGenerator<FileBytes> {
  const read = async (f: FileEntry): Promise<FileBytes> => {
    try {
      // Kept as bytes: decodeDocumentBytes turns one document at a time into a string.
      return { rel: f.rel, bytes: await readFile(f.abs) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || (code === undefined && (await lstat(f.abs)).isDirectory())) {
        throw new FbcLoadError('FBC_READ', msg.readIsDirectory(f.rel), f.rel, undefined, { cause: e });
      }
      throw new FbcLoadError('FBC_READ', (e as Error).message, f.rel, undefined, { cause: e });
    }
  };
  const it = files[Symbol.asyncIterator]();
  const readNext = async (): Promise<FileBytes | undefined> => {
    const next = await it.next();
    return next.done ? undefined : read(next.value);
  };
  try {
    // Read one file ahead so disk I/O overlaps with parsing.
    let pending = readNext();
    for (;;) {
      checkAborted(signal);
      const current = await pending;
      if (current === undefined) return;
      pending = readNext();
      pending.catch(() => undefined); // surfaced when awaited
      yield current;
    }
  } finally {
    await it.return?.();
  }
}

async function* walk(root: string, opts: LoadOptions, stats?: { files: number; bytes: number }): AsyncGenerator<LoadedBlob> {
  const strict = opts.strict ?? true;
  for await (const file of readFiles(catalogFiles(root), opts.signal)) {
    if (stats) {
      stats.files++;
      stats.bytes += file.bytes.length;
    }
    yield* blobsOfFile(file, strict);
  }
}

/** Streams the Metas of a catalog directory in catalogd order (catalogd's WalkMetasFS). Throws FbcLoadError. */
export async function* walkMetas(root: string, opts: LoadOptions = {}): AsyncGenerator<Meta> {
  const strict = opts.strict ?? true;
  const scratch = emptyDeclarativeConfig();
  for await (const blob of walk(root, opts)) {
    if (strict) checkSchemaBlob(scratch, blob);
    yield blob.meta;
  }
}

function checkSchemaBlob(cfg: MutableDeclarativeConfig, blob: LoadedBlob): void {
  const failure = addBlob(cfg, blob.meta.schema, blob.value, blob.meta);
  if (failure) throw new FbcLoadError(failure.code, failure.message, blob.meta.file, blob.meta);
  // The scratch config is only for checking; keep it empty.
  cfg.packages.length = cfg.channels.length = cfg.bundles.length = cfg.deprecations.length = 0;
}

/** The metas and typed view of a catalog, and `add` for each blob in order. */
function catalogBuilder(strict: boolean): { metas: Meta[]; config: DeclarativeConfig; add(blob: LoadedBlob): void } {
  const metas: Meta[] = [];
  const config = emptyDeclarativeConfig();
  const add = (blob: LoadedBlob): void => {
    const failure = addBlob(config, blob.meta.schema, blob.value, blob.meta);
    if (failure && strict) throw new FbcLoadError(failure.code, failure.message, blob.meta.file, blob.meta);
    metas.push(blob.meta);
  };
  return { metas, config, add };
}

/** Loads a catalog directory: all blobs as canonical JSON plus the typed declarative config. */
export async function loadCatalog(root: string, opts: LoadOptions = {}): Promise<Catalog> {
  const builder = catalogBuilder(opts.strict ?? true);
  const stats = { files: 0, bytes: 0 };
  for await (const blob of walk(root, opts, stats)) builder.add(blob);
  return { root, metas: builder.metas, config: builder.config, files: stats.files, sourceBytes: stats.bytes };
}

/**
 * Builds a catalog from file contents held in memory: `files` maps relative paths to text, taken
 * in lexical order (no `.indexignore` processing). For tests and for callers that already have
 * the bytes.
 */
export function catalogFromFiles(files: Readonly<Record<string, string>>, opts: LoadOptions & { root?: string } = {}): Catalog {
  const strict = opts.strict ?? true;
  const builder = catalogBuilder(strict);
  let bytes = 0;
  const names = Object.keys(files).sort(compareGoStrings);
  for (const rel of names) {
    const text = files[rel] as string;
    bytes += Buffer.byteLength(text, 'utf8');
    for (const blob of blobsOfFile({ rel, text }, strict)) builder.add(blob);
  }
  return { root: opts.root ?? '<memory>', metas: builder.metas, config: builder.config, files: names.length, sourceBytes: bytes };
}

/** Builds a catalog from already-decoded blobs (one JSON file, one document per blob). */
export function catalogFromBlobs(blobs: readonly unknown[], opts: LoadOptions & { file?: string } = {}): Catalog {
  const file = opts.file ?? 'catalog.json';
  return catalogFromFiles({ [file]: blobs.map((b) => JSON.stringify(b)).join('\n') }, opts);
}
