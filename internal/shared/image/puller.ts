// ImagePuller: reference → verified, unpacked, read-only directory, cached by manifest digest.
//
// Cache layout (one process owns a cache root):
//   <cacheDir>/sha256-<hex>[-<profile>]/meta.json   digestRef, labels, platform, unpack time
//   <cacheDir>/sha256-<hex>[-<profile>]/fs/         the unpacked filesystem (read-only)
//   <cacheDir>/.tmp-*                                unpacks in progress (renamed into place when done)
// `<profile>` is a short hash of what was kept (catalog mode, filter) and is absent for a
// full unpack, so the same digest unpacked two ways gives two entries.
//
// A digest reference found in the cache is served without touching the network; a tag is
// resolved first (one manifest GET). Concurrent pulls of one entry share one download; the
// shared work is aborted only when every caller waiting on it has aborted.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CredentialProvider } from './auth.ts';
import { digestProblem, digestToPathComponent, sha256 } from './digest.ts';
import {
  CATALOG_CONFIGS_LABEL,
  ImageError,
  markTerminal,
  MissingCatalogLabelError,
  type ImageErrorCode,
} from './errors.ts';
import { DEFAULT_UNPACK_LIMITS, type UnpackLimits } from './limits.ts';
import { isTarLayerMediaType } from './media-types.ts';
import { DEFAULT_PLATFORM, formatPlatform, parsePlatform, type Platform } from './platform.ts';
import { canonicalReference, parseReference, type ImageReference } from './reference.ts';
import { RegistryClient, type RegistryClientOptions, type ResolvedImage } from './registry.ts';
import { forceRemove, makeReadOnly, unlessMissing } from './tree.ts';
import { noopLogger, raceAbort, realClock, type Clock, type Logger } from '../toolkit/index.ts';

export interface PullOptions {
  /**
   * A catalog image: keep only the directory named by the config label
   * `operators.operatorframework.io.index.configs.v1` (MissingCatalogLabelError without it).
   */
  readonly catalog?: boolean;
  /** Keep only entries at or under these image paths, e.g. `['/manifests', '/metadata']`. */
  readonly filter?: readonly string[];
  /** Platform to pick from a manifest list / index (default: the puller's, linux/amd64). */
  readonly platform?: Platform | string;
  /** Credentials for this pull (e.g. from a pull Secret); default: the registry client's. */
  readonly credentials?: CredentialProvider;
  readonly signal?: AbortSignal;
}

export interface PulledImage {
  /** The reference as asked for. */
  readonly ref: string;
  /** `name@digest`, e.g. `quay.io/ns/catalog@sha256:…`: the canonical reference. */
  readonly digestRef: string;
  /** Digest of the top-level manifest or index. */
  readonly digest: string;
  /** Root of the unpacked (filtered) filesystem; read-only. */
  readonly dir: string;
  /** Catalog images: absolute path of the directory the configs label names. */
  readonly configsDir?: string;
  /** Config labels of the image. */
  readonly labels: Readonly<Record<string, string>>;
  readonly mediaType: string;
  /** The platform picked from an index; undefined for a single-platform image. */
  readonly platform?: Platform;
  /** When this entry was unpacked. */
  readonly unpackedAt: Date;
  /** True when no download was needed. */
  readonly fromCache: boolean;
}

/** The seam the controllers depend on. */
export interface ImagePuller {
  pull(ref: string, opts?: PullOptions): Promise<PulledImage>;
}

export interface CachingImagePullerOptions {
  /** Directory owned by this puller; created when missing. */
  readonly cacheDir: string;
  /** A client, or options for the client this puller makes (and closes). */
  readonly registry?: RegistryClient | RegistryClientOptions;
  /** Unpack limits; default 1 GiB of decompressed bytes and 1,000,000 entries per image. */
  readonly limits?: Partial<UnpackLimits>;
  /** Largest zstd window accepted (default 128 MiB). */
  readonly maxZstdWindowBytes?: number;
  /** Default platform (default linux/amd64). */
  readonly platform?: Platform | string;
  /** Layers downloaded at once (default 3). */
  readonly layerConcurrency?: number;
  readonly logger?: Logger;
  /** Time of a pull's log line and of an entry's `unpackedAt`; default the toolkit's realClock. */
  readonly clock?: Clock;
}

interface EntryMeta {
  readonly digestRef: string;
  readonly digest: string;
  readonly mediaType: string;
  readonly labels: Record<string, string>;
  readonly platform?: Platform;
  readonly configsPath?: string;
  readonly unpackedAt: string;
}

interface InFlight {
  readonly promise: Promise<PulledImage>;
  readonly controller: AbortController;
  waiters: number;
}

/** Errors about an image's content: terminal when the image was named by digest (it cannot change). */
const CONTENT_ERRORS: ReadonlySet<ImageErrorCode> = new Set<ImageErrorCode>([
  'UnsafeLayerEntry',
  'UnpackLimitExceeded',
  'CorruptLayer',
  'UnsupportedMediaType',
  'UnsupportedCompression',
  'InvalidManifest',
  'InvalidCatalogLabel',
  'MissingCatalogLabel',
  'NoMatchingPlatform',
]);

const META = 'meta.json';
const FS = 'fs';
const TMP_PREFIX = '.tmp-';
const TRASH_PREFIX = '.trash-';

export class CachingImagePuller implements ImagePuller {
  readonly cacheDir: string;
  readonly client: RegistryClient;
  private readonly ownsClient: boolean;
  private readonly limits: UnpackLimits;
  private readonly maxZstdWindowBytes: number | undefined;
  private readonly platform: Platform;
  private readonly layerConcurrency: number;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly inflight = new Map<string, InFlight>();
  private closing: Promise<void> | undefined;
  private readonly tmpInUse = new Set<string>();
  private ready: Promise<void> | undefined;

  constructor(options: CachingImagePullerOptions) {
    this.cacheDir = options.cacheDir;
    this.ownsClient = !(options.registry instanceof RegistryClient);
    this.client =
      options.registry instanceof RegistryClient
        ? options.registry
        : new RegistryClient({ ...options.registry, ...(options.logger ? { logger: options.logger } : {}) });
    this.limits = { ...DEFAULT_UNPACK_LIMITS, ...options.limits };
    this.maxZstdWindowBytes = options.maxZstdWindowBytes;
    this.platform = toPlatform(options.platform) ?? DEFAULT_PLATFORM;
    this.layerConcurrency = Math.max(1, options.layerConcurrency ?? 3);
    this.log = options.logger ?? noopLogger;
    this.clock = options.clock ?? realClock;
  }

  /**
   * Stops every pull in flight and waits until each has cleaned up after itself (a caller that gave up on a pull
   * returns at once, while the unpack it started still removes its temporary directory), then closes the client
   * when this puller made it. After close, nothing writes under the cache directory.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const flights = [...this.inflight.values()];
      for (const f of flights) f.controller.abort(new Error('the image puller is closing'));
      await Promise.allSettled(flights.map((f) => f.promise));
      if (this.ownsClient) await this.client.close();
    })();
    return this.closing;
  }

  async pull(refText: string, opts: PullOptions = {}): Promise<PulledImage> {
    const ref = parseReference(refText);
    const platform = toPlatform(opts.platform) ?? this.platform;
    const profile = profileOf(opts, formatPlatform(platform) === formatPlatform(this.platform) ? undefined : platform);
    await this.ensureDir();
    if (ref.digest) {
      const hit = await this.readEntry(entryName(ref.digest, profile), refText);
      if (hit) return hit;
    }
    let resolved: ResolvedImage;
    try {
      resolved = await this.client.resolve(ref, {
        platform,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.credentials ? { credentials: opts.credentials } : {}),
      });
    } catch (err) {
      throw markTerminal(err, isContentError(err) && ref.digest !== undefined);
    }
    const name = entryName(resolved.digest, profile);
    const hit = await this.readEntry(name, refText);
    if (hit) return hit;
    return this.shared(name, opts.signal, (signal) => this.unpack(ref, refText, resolved, name, opts, signal));
  }

  /** Removes every cache entry of `digest` (`sha256:…` or `name@sha256:…`); true when one existed. */
  async delete(digest: string): Promise<boolean> {
    const d = digestOnly(digest);
    const prefix = digestToPathComponent(d);
    let removed = false;
    for (const name of await this.entries()) {
      if (name === prefix || name.startsWith(`${prefix}-`)) {
        await this.removeEntry(name);
        removed = true;
      }
    }
    return removed;
  }

  /**
   * Removes entries whose digest is not in `keep` (digests or digest references), and leftovers
   * of interrupted unpacks. Entries being unpacked right now are kept. Returns what was removed.
   */
  async gc(keep: Iterable<string>): Promise<string[]> {
    const keepPrefixes = new Set([...keep].map((k) => digestToPathComponent(digestOnly(k))));
    const removed: string[] = [];
    for (const name of (await unlessMissing(readdir(this.cacheDir))) ?? []) {
      if (this.inflight.has(name) || this.tmpInUse.has(name)) continue;
      if (name.startsWith(TMP_PREFIX) || name.startsWith(TRASH_PREFIX)) {
        await forceRemove(join(this.cacheDir, name));
        removed.push(name);
        continue;
      }
      const digestPart = /^(sha256-[a-f0-9]{64}|sha512-[a-f0-9]{128})(?:-[a-z0-9]+)?$/.exec(name)?.[1];
      if (digestPart === undefined || keepPrefixes.has(digestPart)) continue;
      await this.removeEntry(name);
      removed.push(name);
    }
    return removed;
  }

  /** The cached images. */
  async list(): Promise<PulledImage[]> {
    const out: PulledImage[] = [];
    for (const name of await this.entries()) {
      const hit = await this.readEntry(name, '');
      if (hit) out.push({ ...hit, ref: hit.digestRef });
    }
    return out;
  }

  private async entries(): Promise<string[]> {
    return ((await unlessMissing(readdir(this.cacheDir))) ?? []).filter((n) => !n.startsWith('.'));
  }

  private ensureDir(): Promise<void> {
    this.ready ??= mkdir(this.cacheDir, { recursive: true }).then(() => undefined);
    return this.ready;
  }

  private async removeEntry(name: string): Promise<void> {
    const trash = join(this.cacheDir, `${TRASH_PREFIX}${randomBytes(6).toString('hex')}`);
    try {
      await rename(join(this.cacheDir, name), trash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await forceRemove(trash);
    this.log.debug('removed image cache entry', { entry: name });
  }

  private async readEntry(name: string, refText: string): Promise<PulledImage | undefined> {
    const dir = join(this.cacheDir, name);
    let meta: EntryMeta;
    try {
      meta = JSON.parse(await readFile(join(dir, META), 'utf8')) as EntryMeta;
      if (!(await lstat(join(dir, FS))).isDirectory()) throw new Error('no fs directory');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !(await lstat(dir).catch(() => undefined))) {
        return undefined;
      }
      this.log.warn('discarding unreadable image cache entry', { entry: name, err });
      await this.removeEntry(name);
      return undefined;
    }
    return toPulled(meta, join(dir, FS), refText, true);
  }

  private async shared(key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<PulledImage>): Promise<PulledImage> {
    signal?.throwIfAborted();
    let f = this.inflight.get(key);
    if (!f) {
      const controller = new AbortController();
      const promise = work(controller.signal).finally(() => this.inflight.delete(key));
      promise.catch(() => undefined); // a waiter-less failure is not an unhandled rejection
      f = { promise, controller, waiters: 0 };
      this.inflight.set(key, f);
    }
    const flight = f;
    flight.waiters++;
    try {
      return await raceAbort(flight.promise, signal);
    } finally {
      flight.waiters--;
      if (flight.waiters === 0 && signal?.aborted) flight.controller.abort(signal.reason);
    }
  }

  private async unpack(
    ref: ImageReference,
    refText: string,
    resolved: ResolvedImage,
    name: string,
    opts: PullOptions,
    signal: AbortSignal,
  ): Promise<PulledImage> {
    const started = this.clock.now();
    const digestRef = canonicalReference(ref, resolved.digest);
    const tmp = await mkdtemp(join(this.cacheDir, TMP_PREFIX));
    const tmpName = tmp.slice(this.cacheDir.length + 1);
    this.tmpInUse.add(tmpName);
    const downloads = new AbortController();
    const onAbort = (): void => downloads.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // Blobs come from where the manifest came from (a registries.conf mirror or location); names stay `ref`'s.
    const ctx = {
      signal: downloads.signal,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      ...(resolved.source ? { source: resolved.source } : {}),
    };
    const pending: Promise<void>[] = [];
    try {
      this.log.info('pulling image', { ref: refText, digest: resolved.digest });
      const manifest = resolved.manifest;
      const config = parseConfig(await this.client.getBlob(ref, manifest.config, ctx), `${ref.name}@${manifest.config.digest}`);
      const labels = config.labels;
      const { applyLayer, decompressedStream, newUnpackState, PathSelector, sniffFile, verifySymlinks } = await import('./layers.ts');

      let keep = PathSelector.all();
      let configsPath: string | undefined;
      if (opts.catalog) {
        const label = labels[CATALOG_CONFIGS_LABEL];
        if (label === undefined || label.trim() === '') throw new MissingCatalogLabelError();
        configsPath = cleanImagePath(label, `label ${CATALOG_CONFIGS_LABEL}`);
        keep = keep.and([configsPath]);
      }
      if (opts.filter?.length) keep = keep.and(opts.filter);
      for (const layer of manifest.layers) {
        if (!isTarLayerMediaType(layer.mediaType)) {
          throw new ImageError('UnsupportedMediaType', `${ref.name}: layer ${layer.digest} has unsupported media type ${JSON.stringify(layer.mediaType)}`);
        }
      }

      const blobs = join(tmp, 'blobs');
      const root = join(tmp, FS);
      await mkdir(blobs);
      await mkdir(root);
      const run = limiter(this.layerConcurrency);
      const files = manifest.layers.map((_, i) => join(blobs, String(i)));
      manifest.layers.forEach((layer, i) => {
        const p = run(() => this.client.downloadBlob(ref, layer, files[i] ?? '', ctx));
        p.catch(() => undefined);
        pending.push(p);
      });
      const state = newUnpackState();
      for (const [i, layer] of manifest.layers.entries()) {
        const file = files[i] ?? '';
        await pending[i];
        downloads.signal.throwIfAborted();
        const compression = await sniffFile(file);
        if (compression === 'bzip2' || compression === 'xz') {
          throw new ImageError('UnsupportedCompression', `layer ${layer.digest}: ${compression} compression is not supported`);
        }
        this.log.debug('applying layer', { digest: layer.digest, compression, size: layer.size });
        await applyLayer(
          decompressedStream(file, compression, this.maxZstdWindowBytes ? { maxWindowBytes: this.maxZstdWindowBytes } : {}),
          { root, layerDigest: layer.digest, keep, limits: this.limits, state, signal: downloads.signal },
        );
        await rm(file, { force: true });
      }
      await verifySymlinks(root, state);
      if (configsPath !== undefined && configsPath !== '') {
        const st = await lstat(join(root, configsPath)).catch(() => undefined);
        if (!st?.isDirectory()) {
          throw new ImageError(
            'InvalidCatalogLabel',
            `catalog image label ${JSON.stringify(CATALOG_CONFIGS_LABEL)} names ${JSON.stringify(labels[CATALOG_CONFIGS_LABEL])}, which is not a directory in the image`,
          );
        }
      }
      await makeReadOnly(root);
      await rm(blobs, { recursive: true, force: true });
      const platform = resolved.platform;
      const meta: EntryMeta = {
        digestRef,
        digest: resolved.digest,
        mediaType: resolved.mediaType,
        labels,
        ...(platform ? { platform } : {}),
        ...(configsPath !== undefined ? { configsPath } : {}),
        unpackedAt: this.clock.date().toISOString(),
      };
      await writeFile(join(tmp, META), `${JSON.stringify(meta, null, 2)}\n`);
      const final = join(this.cacheDir, name);
      try {
        await rename(tmp, final);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
        await forceRemove(tmp); // someone else finished first; theirs is as good
        const other = await this.readEntry(name, refText);
        if (other) return { ...other, fromCache: false };
        throw err;
      }
      this.log.info('pulled image', {
        ref: refText,
        digestRef,
        layers: manifest.layers.length,
        bytes: state.bytesWritten,
        ms: Math.round(this.clock.now() - started),
      });
      return toPulled(meta, join(final, FS), refText, false);
    } catch (err) {
      downloads.abort(err);
      await Promise.allSettled(pending);
      await forceRemove(tmp).catch((e: unknown) => this.log.warn('could not remove unpack directory', { dir: tmp, err: e }));
      throw markTerminal(err, isContentError(err) && ref.digest !== undefined);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.tmpInUse.delete(tmpName);
    }
  }
}

/** The ImagePuller for this project's controllers. */
export const createImagePuller = (options: CachingImagePullerOptions): CachingImagePuller => new CachingImagePuller(options);

function toPulled(meta: EntryMeta, dir: string, refText: string, fromCache: boolean): PulledImage {
  return {
    ref: refText || meta.digestRef,
    digestRef: meta.digestRef,
    digest: meta.digest,
    dir,
    ...(meta.configsPath !== undefined ? { configsDir: meta.configsPath === '' ? dir : join(dir, meta.configsPath) } : {}),
    labels: meta.labels,
    mediaType: meta.mediaType,
    ...(meta.platform ? { platform: meta.platform } : {}),
    unpackedAt: new Date(meta.unpackedAt),
    fromCache,
  };
}

function isContentError(err: unknown): boolean {
  return err instanceof ImageError && CONTENT_ERRORS.has(err.code);
}

function toPlatform(p: Platform | string | undefined): Platform | undefined {
  return typeof p === 'string' ? parsePlatform(p) : p;
}

function digestOnly(text: string): string {
  const d = text.includes('@') ? text.slice(text.lastIndexOf('@') + 1) : text;
  const problem = digestProblem(d);
  if (problem) throw new ImageError('InvalidDigest', `${JSON.stringify(text)}: ${problem}`, { terminal: true });
  return d;
}

function entryName(digest: string, profile: string): string {
  return profile ? `${digestToPathComponent(digest)}-${profile}` : digestToPathComponent(digest);
}

/**
 * '' for a full unpack for the puller's platform; otherwise a short hash of what is kept and,
 * when it is not the default, the platform (an index digest names every platform's image).
 */
function profileOf(opts: PullOptions, platform: Platform | undefined): string {
  const filter = opts.filter?.length ? [...opts.filter].map((p) => cleanImagePath(p, 'filter path')).sort() : undefined;
  if (!opts.catalog && !filter && !platform) return '';
  const p = platform ? formatPlatform(platform) : '';
  return sha256(JSON.stringify({ catalog: opts.catalog === true, filter: filter ?? [], platform: p })).slice(7, 19);
}

/** `/configs/` → `configs`; refuses `..`. */
function cleanImagePath(p: string, what: string): string {
  const parts = p.split('/').filter((c) => c !== '' && c !== '.');
  if (parts.includes('..') || p.includes('\0')) {
    throw new ImageError('InvalidCatalogLabel', `${what} ${JSON.stringify(p)} must be a path inside the image`, { terminal: true });
  }
  return parts.join('/');
}

function parseConfig(bytes: Buffer, where: string): { labels: Record<string, string> } {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new ImageError('InvalidManifest', `image config ${where}: not valid JSON: ${(err as Error).message}`);
  }
  const raw = (json as { config?: { Labels?: unknown } } | null)?.config?.Labels;
  const labels: Record<string, string> = {};
  if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) if (typeof v === 'string') labels[k] = v;
  }
  return { labels };
}

/** Runs at most `n` of the functions it is given at once, the others in the order they came. */
function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (fn) => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => queue.push(resolve)); // a finishing call hands its slot over
    try {
      return await fn();
    } finally {
      const next = queue.shift();
      if (next) next();
      else active--;
    }
  };
}
