// Where a CatalogSource's content comes from. ImageSources: spec.image pulled and unpacked in this
// process with the shared image client (one digest cache per CatalogSource), its FBC loaded and validated
// with the shared FBC code (opm validate's rules, as `opm serve` refuses to serve a catalog that fails
// them); refused content never replaces the last good content. AddressSources: one gRPC channel per spec.address, its connectivity state
// watched (a change calls onChange so the CatalogSource is reconciled), content read when READY.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConnectionState } from '../../../api/operators/index.ts';
import { FbcLoadError, FbcValidationError, catalogProblem, describeProblem, loadCatalog } from '../../shared/fbc/index.ts';
import { CachingImagePuller, type RegistryClient as ImageRegistry } from '../../shared/image/index.ts';
import { collectGarbage, type Logger } from '../../shared/observability/index.ts';
import { RegistryClient, type RegistryClientOptions } from '../registryclient/index.ts';
import { contentFromFbc, contentFromRegistry, type CatalogContent } from './content.ts';
import { realClock, type Clock } from '../../shared/toolkit/index.ts';

export interface LoadedImage {
  /** spec.image as loaded. */
  readonly image: string;
  readonly digest: string;
  readonly content: CatalogContent;
}

/** A catalog image whose content does not load or validate: it is not served, the last good content stays. */
export class CatalogRefusedError extends Error {
  /** spec.image as refused. */
  readonly image: string;

  /** `problem`: in one line (the shared FBC code's `describeProblem`). */
  constructor(image: string, digestRef: string, problem: string) {
    super(`catalog image ${digestRef} refused: ${problem}`);
    this.name = 'CatalogRefusedError';
    this.image = image;
  }
}

export interface ImageSources {
  current(key: string): LoadedImage | undefined;
  /**
   * Pulls `image` (a tag is resolved to its digest); loads and validates the FBC when the digest or image is new.
   * Throws CatalogRefusedError for content that does not load or validate (again, without reloading it, while
   * the tag stays on that digest); `current` is then unchanged.
   */
  load(key: string, image: string, signal?: AbortSignal): Promise<{ readonly loaded: boolean }>;
  /** The last refusal of `image` for this key, until a load of it succeeds. */
  refused(key: string, image: string): CatalogRefusedError | undefined;
  remove(key: string): void;
}

export interface ImageSourcesOptions {
  readonly cacheDir: string;
  readonly registry: ImageRegistry;
  readonly platform?: string;
  readonly logger?: Logger;
  /** Called when a key's served content is replaced or removed. */
  readonly onContent?: (key: string) => void;
  /** The time content is said to be loaded at; default the toolkit's realClock. */
  readonly clock?: Clock;
}

export function imageSources(o: ImageSourcesOptions): ImageSources {
  const loaded = new Map<string, LoadedImage>();
  const refusals = new Map<string, { readonly digest: string; readonly error: CatalogRefusedError }>();
  const pullers = new Map<string, CachingImagePuller>();
  const dirOf = (key: string): string => join(o.cacheDir, ...key.split('/'));
  const pullerFor = (key: string): CachingImagePuller => {
    let p = pullers.get(key);
    if (!p) {
      p = new CachingImagePuller({
        cacheDir: dirOf(key),
        registry: o.registry,
        ...(o.platform && { platform: o.platform }),
        ...(o.logger && { logger: o.logger.child({ catalogSource: key }) }),
      });
      pullers.set(key, p);
    }
    return p;
  };
  // One load per key at a time: the leader's reconciler and the follower share these sources (sources.ts's callers
  // see each load's outcome in order, never an older digest put back over a newer one).
  const loads = new Map<string, Promise<unknown>>();
  const serialized = <T>(key: string, f: () => Promise<T>): Promise<T> => {
    const run = (loads.get(key) ?? Promise.resolve()).catch(() => undefined).then(f);
    loads.set(key, run);
    const settled = (): boolean => loads.get(key) === run && loads.delete(key);
    void run.then(settled, settled);
    return run;
  };
  return {
    current: (key) => loaded.get(key),
    load: (key, image, signal) => serialized(key, () => loadOne(key, image, signal)),
    refused(key, image) {
      const r = refusals.get(key)?.error;
      return r?.image === image ? r : undefined;
    },
    remove(key) {
      if (loaded.delete(key)) o.onContent?.(key);
      refusals.delete(key);
      const p = pullers.get(key);
      if (!p) return;
      pullers.delete(key);
      void p
        .gc([])
        .then(() => rm(dirOf(key), { recursive: true, force: true }))
        .catch((err: unknown) => o.logger?.warn('could not remove a CatalogSource image cache', { catalogSource: key, err }));
    },
  };

  async function loadOne(key: string, image: string, signal: AbortSignal | undefined): Promise<{ readonly loaded: boolean }> {
    const puller = pullerFor(key);
    const pulled = await puller.pull(image, { catalog: true, ...(signal && { signal }) });
    const cur = loaded.get(key);
    if (cur && cur.image === image && cur.digest === pulled.digest) {
      refusals.delete(key);
      return { loaded: false };
    }
    if (!pulled.configsDir) throw new Error(`image ${pulled.digestRef} was not pulled as a catalog`);
    const was = refusals.get(key);
    if (was && was.error.image === image && was.digest === pulled.digest) throw was.error;
    const refuse = (problem: string): never => {
      const error = new CatalogRefusedError(image, pulled.digestRef, problem);
      refusals.set(key, { digest: pulled.digest, error });
      collectGarbage();
      throw error;
    };
    let catalog;
    try {
      catalog = await loadCatalog(pulled.configsDir, signal ? { signal } : {});
    } catch (err) {
      if (err instanceof FbcLoadError || err instanceof FbcValidationError) refuse(describeProblem(err));
      throw err;
    }
    const problem = catalogProblem(catalog);
    if (problem !== undefined) refuse(problem);
    refusals.delete(key);
    loaded.set(key, { image, digest: pulled.digest, content: contentFromFbc(catalog, pulled.digestRef, (o.clock ?? realClock).date()) });
    o.onContent?.(key);
    await puller.gc([pulled.digestRef]);
    collectGarbage(); // the parsed files' garbage, gone at once (shared/observability/memory.ts)
    return { loaded: true };
  }
}

export interface AddressConnection {
  readonly address: string;
  readonly state: ConnectionState;
  /** When the state last changed (or the channel was created): upstream's LastConnect. */
  readonly lastChange: Date;
}

export interface AddressSources {
  ensure(key: string, address: string): AddressConnection;
  /** READY and no content read since it became READY. */
  needsSnapshot(key: string): boolean;
  snapshot(key: string): Promise<void>;
  content(key: string): CatalogContent | undefined;
  remove(key: string): void;
  close(): void;
}

export interface AddressSourcesOptions {
  /** Called on every connectivity state change of a CatalogSource's channel. */
  readonly onChange: (key: string) => void;
  readonly client?: RegistryClientOptions;
  /** Called when a key's served content is replaced or removed. */
  readonly onContent?: (key: string) => void;
  /** The time of connectivity changes and snapshots; default the toolkit's realClock. */
  readonly clock?: Clock;
}

interface Conn {
  address: string;
  state: ConnectionState;
  lastChange: Date;
  readySince?: Date;
  content?: CatalogContent;
  client: RegistryClient;
}

export function addressSources(o: AddressSourcesOptions): AddressSources {
  const conns = new Map<string, Conn>();
  const drop = (key: string): void => {
    const c = conns.get(key);
    if (!c) return;
    c.client.close();
    conns.delete(key);
    if (c.content) o.onContent?.(key);
  };
  return {
    ensure(key, address) {
      const have = conns.get(key);
      if (have && have.address === address) return have;
      drop(key);
      const client = new RegistryClient(address, o.client ?? {});
      const conn: Conn = { address, client, state: client.state(true), lastChange: (o.clock ?? realClock).date() };
      conns.set(key, conn);
      client.watch((state) => {
        if (conns.get(key) !== conn) return;
        conn.state = state;
        conn.lastChange = (o.clock ?? realClock).date();
        if (state === 'READY') conn.readySince = conn.lastChange;
        o.onChange(key);
      });
      return conn;
    },
    needsSnapshot(key) {
      const c = conns.get(key);
      if (!c || c.state !== 'READY') return false;
      return !c.content || (c.readySince !== undefined && Date.parse(c.content.loadedAt) < c.readySince.getTime());
    },
    async snapshot(key) {
      const c = conns.get(key);
      if (!c) return;
      const content = await contentFromRegistry(c.client, c.address, (o.clock ?? realClock).date());
      if (conns.get(key) !== c) return;
      c.content = content;
      o.onContent?.(key);
    },
    content: (key) => conns.get(key)?.content,
    remove: drop,
    close() {
      for (const key of [...conns.keys()]) drop(key);
    },
  };
}
