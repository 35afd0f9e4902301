// One replica's catalog content: the image cache of each catalog (`<unpackDir>/<catalog>/`, one
// CachingImagePuller per catalog over one shared RegistryClient) and the CatalogStore that the
// HTTP server reads. The reconciler (leader) and the follower (every replica) both go through
// it; every change to what is served (commit, delete, garbage collection) runs one at a time,
// so a commit can never race a delete or a collection of the same catalog.
import { DNS1123_SUBDOMAIN } from '../../shared/gocompat/index.ts';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CachingImagePuller, forceRemove, type PulledImage, type RegistryClient, type UnpackLimits } from '../../shared/image/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import type { CatalogStore, StoredCatalog } from '../storage/index.ts';

export interface CatalogContentOptions {
  /** Root of the per-catalog image caches (`<cache-dir>/unpack`). */
  readonly unpackDir: string;
  readonly store: CatalogStore;
  /** Shared by every catalog's puller; not closed by this module. */
  readonly registry: RegistryClient;
  /** Unpack limits per image (default: the image client's, 1 GiB and 1,000,000 entries; the wiring adds `--max-catalog-files`). */
  readonly limits?: Partial<UnpackLimits>;
  /** Platform picked from multi-arch catalog images (default: the image client's). */
  readonly platform?: string;
  readonly logger?: Logger;
}

export interface CommitOptions {
  readonly signal?: AbortSignal;
  /** Checked once the commit holds the lock: false skips the commit (the caller's view went stale). */
  readonly still?: () => boolean;
}

export interface CatalogContent {
  /** Pulls `ref` in catalog mode into the catalog's image cache (a digest already cached needs no network). */
  pull(name: string, ref: string, signal?: AbortSignal): Promise<PulledImage>;
  /**
   * Stores the pulled image's FBC as the catalog's served content, then drops the catalog's
   * other cached digests. Resolves undefined when `still` said no.
   */
  commit(name: string, image: PulledImage, options?: CommitOptions): Promise<StoredCatalog | undefined>;
  /** What is served for `name` now (in memory). */
  current(name: string): StoredCatalog | undefined;
  /** True when served content for `name` (of `digest`, when given) exists on disk. */
  exists(name: string, digest?: string): Promise<boolean>;
  /** Removes the served content and the image cache of `name`. */
  delete(name: string): Promise<void>;
  /**
   * Removes the content and image caches of every catalog not in `keep()`, which is evaluated
   * under the lock (so nothing committed after it was computed can be collected by mistake).
   */
  garbageCollect(keep: () => ReadonlySet<string>): Promise<string[]>;
  /** Stops the pulls in flight and waits until they have cleaned up (on shutdown). */
  close(): Promise<void>;
}

// metadata.name of a cluster-scoped object: a DNS-1123 subdomain, so always one safe path component.

function checkName(name: string): string {
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) throw new Error(`invalid catalog name ${JSON.stringify(name)}`);
  return name;
}

export function createCatalogContent(options: CatalogContentOptions): CatalogContent {
  const { store, registry, unpackDir } = options;
  const pullers = new Map<string, CachingImagePuller>();
  let tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after every change queued before it. */
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };

  const pullerFor = (name: string): CachingImagePuller => {
    let p = pullers.get(name);
    if (!p) {
      p = new CachingImagePuller({
        cacheDir: join(unpackDir, checkName(name)),
        registry,
        ...(options.limits && { limits: options.limits }),
        ...(options.platform && { platform: options.platform }),
        ...(options.logger && { logger: options.logger.child({ catalog: name }) }),
      });
      pullers.set(name, p);
    }
    return p;
  };

  /** Empties and removes `<unpackDir>/<name>` (entries are read-only: the puller's gc removes them). */
  const dropImageCache = async (name: string): Promise<void> => {
    await pullerFor(name).gc([]);
    pullers.delete(name);
    await forceRemove(join(unpackDir, name));
  };

  return {
    pull: async (name, ref, signal) => pullerFor(name).pull(ref, { catalog: true, ...(signal && { signal }) }),
    close: async () => void (await Promise.all([...pullers.values()].map((p) => p.close()))),

    commit: (name, image, opts = {}) =>
      serial(async () => {
        if (opts.still && !opts.still()) return undefined;
        if (image.configsDir === undefined) throw new Error(`image ${image.digestRef} was not pulled as a catalog`);
        const stored = await store.store(name, image.digest, image.configsDir, opts.signal);
        await pullerFor(name).gc([image.digestRef]);
        return stored;
      }),

    current: (name) => store.get(name),

    exists: (name, digest) => store.contentExists(name, digest),

    delete: (name) =>
      serial(async () => {
        await store.delete(name);
        await dropImageCache(checkName(name));
      }),

    garbageCollect: (keep) =>
      serial(async () => {
        const live = keep();
        const removed = (await store.garbageCollect(live)).map((n) => `catalogs/${n}`);
        const cached = await readdir(unpackDir).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
          return [];
        });
        for (const name of cached) {
          if (live.has(name)) continue;
          try {
            if (DNS1123_SUBDOMAIN.test(name)) await dropImageCache(name);
            else await forceRemove(join(unpackDir, name)); // bounded: a stray tree may be an unpack's size
            removed.push(`unpack/${name}`);
          } catch (err) {
            options.logger?.warn('could not remove an orphaned image cache', { dir: join(unpackDir, name), err });
          }
        }
        return removed;
      }),
  };
}
