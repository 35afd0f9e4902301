// GraphQL queries over the catalogs a CatalogStore serves (upstream's CachedGraphQLService):
// one schema per catalog, derived from its stored content at its digest and kept until that
// content changes or the catalog goes; each query reads only the blobs it lists, by the store's
// byte-offset index.
//
//   const queries = createCatalogQueries({ store, logger });
//   const store2 = withGraphQLSchemas(store, queries);  // schema built at store time, dropped on delete/GC
//   const json = await queries.execute('operatorhubio', '{ olmpackages(limit: 5) { name } }');
//
// execute() answers what upstream's handler encodes: graphql-go's Result as JSON (`data` with
// its keys sorted at every level, then `errors` with message, locations and path), with
// json.Encoder's HTML escaping. Errors before execution leave `data` null: a query that does
// not parse (`query parse error: …`) or breaks a bound (limits.ts) — both checked before the
// catalog is looked at, as upstream does — and a query the schema rejects.
import { closeSync, openSync, readSync } from 'node:fs';
import { GraphQLError, execute, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { BlobIndexEntry } from '../../shared/fbc/index.ts';
import { noopLogger, type Logger } from '../../shared/observability/index.ts';
import type { CatalogStore, StoredCatalog } from '../storage/index.ts';
import { isObject } from '../../shared/toolkit/index.ts';
import { discoverShape, type CatalogShape } from './discover.ts';
import { complexityError } from './limits.ts';
import { SchemaBuildError, buildSchema, type BlobReader } from './schema.ts';

export interface CatalogQueries {
  /**
   * Runs `query` against the catalog's current content and resolves to the JSON of the result
   * (no trailing newline). Rejects with an error whose `code` is `ENOENT` when the catalog has
   * no content, and with other errors when its schema cannot be had.
   */
  execute(catalog: string, query: string): Promise<string>;
  /** Builds the schema of this content now (or finds it built); rejects with the build error. */
  prepare(stored: StoredCatalog): Promise<void>;
  /** Drops what is kept for a catalog. */
  forget(catalog: string): void;
  /** Catalogs with a schema kept or being built. */
  readonly catalogs: () => string[];
}

export interface CatalogQueriesOptions {
  readonly store: Pick<CatalogStore, 'get'>;
  readonly logger?: Logger;
}

/** One catalog's schema at one content. */
interface Built {
  readonly stored: StoredCatalog;
  readonly shape: CatalogShape;
  readonly schema: GraphQLSchema;
  /** Index entries per schema, in file order, taken from the index when first listed. */
  readonly bySchema: Map<string, readonly BlobIndexEntry[]>;
  /** Validation errors of documents already seen (by query text). */
  readonly validated: Bounded<readonly GraphQLError[]>;
}

interface Kept {
  readonly stored: StoredCatalog;
  readonly built: Promise<Built>;
}

type Parsed = { readonly doc: DocumentNode } | { readonly error: string };

/** Parsed query documents kept, by query text (and validation results per schema). */
const DOCUMENT_CACHE_SIZE = 256;

/** A small map that forgets its oldest entry beyond DOCUMENT_CACHE_SIZE. */
class Bounded<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    this.delete(key);
    super.set(key, value);
    if (this.size > DOCUMENT_CACHE_SIZE) this.delete(this.keys().next().value as string);
    return this;
  }
}

/** Queries longer than this are parsed every time rather than kept. */
const MAX_CACHED_QUERY = 16 * 1024;

const sameContent = (a: StoredCatalog, b: StoredCatalog): boolean => a === b || (a.jsonlPath === b.jsonlPath && a.digest === b.digest && a.size === b.size);

const notFound = (catalog: string): Error => Object.assign(new Error(`catalog ${JSON.stringify(catalog)} has no content`), { code: 'ENOENT' });

const isMissingFile = (err: unknown): boolean => (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

export function createCatalogQueries(options: CatalogQueriesOptions): CatalogQueries {
  const { store } = options;
  const log = options.logger ?? noopLogger;
  const kept = new Map<string, Kept>();
  const documents = new Bounded<Parsed>();

  const build = async (stored: StoredCatalog): Promise<Built> => {
    const started = performance.now();
    const shape = await discoverShape(stored.jsonlPath, stored.index.entries);
    const schema = buildSchema(shape);
    log.info('built GraphQL schema', {
      catalog: stored.name,
      digest: stored.digest,
      schemas: shape.schemas.size,
      durationMs: Math.round(performance.now() - started),
    });
    return { stored, shape, schema, bySchema: new Map(), validated: new Bounded() };
  };

  /** The schema of `stored`: kept, being built, or built now (one build per content at a time). */
  const schemaOf = (stored: StoredCatalog): Promise<Built> => {
    const k = kept.get(stored.name);
    if (k && sameContent(k.stored, stored)) return k.built;
    const built = build(stored);
    const entry: Kept = { stored, built };
    kept.set(stored.name, entry);
    built.catch(() => {
      if (kept.get(stored.name) === entry) kept.delete(stored.name);
    });
    return built;
  };

  const parsed = (query: string): Parsed => {
    const hit = documents.get(query);
    if (hit) return hit;
    let result: Parsed;
    try {
      const doc = parse(query);
      const problem = complexityError(doc);
      result = problem === undefined ? { doc } : { error: problem };
    } catch (err) {
      result = { error: `query parse error: ${(err as Error).message}` };
    }
    if (query.length <= MAX_CACHED_QUERY) documents.set(query, result);
    return result;
  };

  const validated = (built: Built, query: string, doc: DocumentNode): readonly GraphQLError[] => {
    let errors = built.validated.get(query);
    if (errors === undefined) {
      errors = validate(built.schema, doc);
      if (query.length <= MAX_CACHED_QUERY) built.validated.set(query, errors);
    }
    return errors;
  };

  return {
    async execute(catalog, query) {
      const p = parsed(query);
      if ('error' in p) return encodeResult({ errors: [new GraphQLError(p.error)] }, true);
      // The content can be replaced while its schema is built: then the new content is taken.
      for (let attempt = 0; ; attempt++) {
        const stored = store.get(catalog);
        if (!stored) {
          kept.delete(catalog);
          throw notFound(catalog);
        }
        let built: Built;
        let fd: number;
        try {
          built = await schemaOf(stored);
          const errors = validated(built, query, p.doc);
          if (errors.length > 0) return encodeResult({ errors }, true);
          fd = openSync(stored.jsonlPath, 'r');
        } catch (err) {
          if (isMissingFile(err) && attempt < 2 && store.get(catalog) !== stored) continue;
          throw err;
        }
        try {
          const result = execute({ schema: built.schema, document: p.doc, contextValue: reader(built, fd) });
          if (result instanceof Promise) throw new Error('GraphQL execution did not complete synchronously');
          return encodeResult(result, false);
        } finally {
          closeSync(fd);
        }
      }
    },
    prepare: async (stored) => void (await schemaOf(stored)),
    forget: (catalog) => void kept.delete(catalog),
    catalogs: () => [...kept.keys()],
  };
}

/** Entries longer than this are not read (upstream's bound on one blob). */
const MAX_BLOB_BYTES = 16 << 20;

/** Reads pages of blobs of `built`'s catalog from the open `fd`. */
function reader(built: Built, fd: number): BlobReader {
  return {
    read(schema, offset, limit) {
      let all = built.bySchema.get(schema);
      if (all === undefined) {
        all = built.stored.index.query({ schema });
        built.bySchema.set(schema, all);
      }
      const page = all.slice(offset, offset + limit);
      if (page.length === 0) return [];
      try {
        return readBlobs(fd, page);
      } catch (err) {
        throw new Error(`error loading objects for schema ${schema}: ${(err as Error).message}`, { cause: err });
      }
    },
  };
}

/** The blobs of `entries` (file order), read with as few reads as touching entries allow, parsed. */
function readBlobs(fd: number, entries: readonly BlobIndexEntry[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let i = 0;
  while (i < entries.length) {
    // A run of entries that follow each other in the file is one read.
    const first = entries[i] as BlobIndexEntry;
    let j = i + 1;
    let end = first.offset + first.length;
    while (j < entries.length && (entries[j] as BlobIndexEntry).offset === end) end += (entries[j++] as BlobIndexEntry).length;
    for (let k = i; k < j; k++) {
      const e = entries[k] as BlobIndexEntry;
      if (e.length <= 0 || e.length > MAX_BLOB_BYTES) throw new Error(`invalid section length ${e.length} at offset ${e.offset}`);
    }
    const buf = Buffer.allocUnsafe(end - first.offset);
    for (let done = 0; done < buf.length; ) {
      const n = readSync(fd, buf, done, buf.length - done, first.offset + done);
      if (n === 0) throw new Error(`error reading section at offset ${first.offset + done}: unexpected end of file`);
      done += n;
    }
    for (let k = i; k < j; k++) {
      const e = entries[k] as BlobIndexEntry;
      const at = e.offset - first.offset;
      try {
        const blob: unknown = JSON.parse(buf.toString('utf8', at, at + e.length));
        if (isObject(blob)) out.push(blob);
      } catch {
        // a blob that does not parse is skipped, as upstream's loader does
      }
    }
    i = j;
  }
  return out;
}

/**
 * graphql-go's Result through json.Encoder (without its newline): `{"data":…,"errors":[…]}`,
 * data's keys sorted (Go maps), errors as FormattedError (message, locations — `[]` when there
 * are none —, path when set), `<>&` escaped. `dataNull`: errors before execution, data is null.
 */
export function encodeResult(result: ExecutionResult, dataNull: boolean): string {
  let out = '{"data":' + (dataNull || result.data === undefined || result.data === null ? 'null' : encodeData(result.data));
  const errors = result.errors ?? [];
  if (errors.length > 0) out += ',"errors":[' + errors.map(encodeError).join(',') + ']';
  out += '}';
  return GO_ESCAPED.test(out) ? out.replace(GO_ESCAPED_ALL, (c) => GO_ESCAPES[c] ?? c) : out;
}

function encodeError(e: GraphQLError): string {
  const locations = (e.locations ?? []).map((l) => `{"line":${l.line},"column":${l.column}}`).join(',');
  let out = `{"message":${JSON.stringify(e.message)},"locations":[${locations}]`;
  if (e.path !== undefined && e.path.length > 0) out += `,"path":${JSON.stringify(e.path)}`;
  return out + '}';
}

/** Characters json.Encoder escapes that JSON.stringify leaves (they only occur inside strings). */
const GO_ESCAPED = /[<>&\u2028\u2029]/;
const GO_ESCAPED_ALL = /[<>&\u2028\u2029]/g;
const GO_ESCAPES: Readonly<Record<string, string>> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * An execution's data as JSON with every object's keys sorted (response keys are GraphQL names,
 * ASCII, so code-unit order is Go's); escaping is left to encodeResult's single pass.
 */
function encodeData(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) return `[${v.map(encodeData).join(',')}]`;
      const obj = v as Record<string, unknown>;
      return `{${Object.keys(obj)
        .sort()
        .map((k) => `"${k}":${encodeData(obj[k])}`)
        .join(',')}}`;
    }
    default:
      return 'null';
  }
}

/** What a store gets wrapped with when the schema is built at store time. */
export function withGraphQLSchemas(store: CatalogStore, queries: CatalogQueries): CatalogStore {
  return {
    async store(name, digest, fbcDir, signal) {
      const stored = await store.store(name, digest, fbcDir, signal);
      try {
        await queries.prepare(stored);
      } catch (err) {
        // Upstream removes the content it just stored when its schema cannot be built.
        queries.forget(name);
        const why = err instanceof SchemaBuildError ? `error building GraphQL schema: ${err.message}` : `error loading catalog schema: ${(err as Error).message}`;
        let message = `failed to pre-build GraphQL schema for catalog ${JSON.stringify(name)}: ${why}`;
        try {
          // (only that content: a store of another digest since then is left alone)
          if (store.get(name)?.jsonlPath === stored.jsonlPath) await store.delete(name);
        } catch (removeErr) {
          message += ` (rollback also failed: ${(removeErr as Error).message})`;
        }
        throw new Error(message, { cause: err });
      }
      return stored;
    },
    get: (name) => store.get(name),
    contentExists: (name, digest) => store.contentExists(name, digest),
    async delete(name) {
      queries.forget(name);
      await store.delete(name);
    },
    async garbageCollect(keep) {
      const gone = await store.garbageCollect(keep);
      for (const name of gone) queries.forget(name);
      return gone;
    },
    onChange: (listener) => store.onChange?.(listener) ?? (() => undefined),
  };
}
