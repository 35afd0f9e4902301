// The content follower: every replica (leader or not) serves what the leader last unpacked, so a
// non-leader does not answer 404 for a catalog that is Serving. It watches ClusterCatalogs and
// makes this replica's store hold the digest named by `status.resolvedSource.image.ref`, pulling
// it by digest itself (verified against the digest, so every replica serves identical bytes).
// Nothing is served for a catalog that is gone, being deleted, Unavailable, or not resolved yet.
//
// While this replica's reconciler runs (it holds the lease), the follower stands aside: the
// reconciler already stores every digest before it writes it to status, and two writers of one
// store could otherwise put an older digest back. It reads status only; it writes nothing to
// the API server.
//
// `ready` is a Cache for the manager: synced once every catalog resolved at start-up has been
// tried once (stored, or failed), so a new replica joins the Service with content to serve.
import { AvailabilityModeUnavailable, type ClusterCatalog } from '../../../api/v1/index.ts';
import { Controller, TerminalError, type EventSource, type RateLimiter } from '../../shared/controller/index.ts';
import { isImageError } from '../../shared/image/index.ts';
import type { Cache } from '../../shared/manager/index.ts';
import type { Logger, Metrics } from '../../shared/observability/index.ts';
import { raceAbort } from '../../shared/toolkit/index.ts';
import type { CatalogContent } from './content.ts';

export interface ContentFollowerOptions {
  readonly catalogs: EventSource<ClusterCatalog> & {
    get(name: string): ClusterCatalog | undefined;
    keys(): string[];
    waitForSync(signal?: AbortSignal): Promise<void>;
  };
  readonly content: CatalogContent;
  /** True while this replica's ClusterCatalog reconciler runs. */
  readonly leading: () => boolean;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** Default: client-go's default controller rate limiter. */
  readonly rateLimiter?: RateLimiter<string>;
}

/** Every catalog is looked at again this often, to heal anything missed. */
const RESYNC_MS = 10 * 60_000;
/** `ready` turns synced after this long at the latest, whatever is left. */
const INITIAL_SYNC_TIMEOUT_MS = 120_000;

export interface ContentFollower {
  readonly controller: Controller;
  /** Waits for the ClusterCatalog cache, then runs the follower until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Synced once the catalogs resolved at start-up have each been tried once. */
  readonly ready: Cache;
}

/** The digest reference this replica should serve for `catalog`, or undefined for "nothing". */
export function desiredRef(catalog: ClusterCatalog | undefined): string | undefined {
  if (!catalog || catalog.metadata.deletionTimestamp) return undefined;
  if (catalog.spec.availabilityMode === AvailabilityModeUnavailable) return undefined;
  const ref = catalog.status?.resolvedSource?.image?.ref;
  return ref && ref.includes('@') ? ref : undefined;
}

export function newContentFollower(options: ContentFollowerOptions): ContentFollower {
  const { catalogs, content, leading } = options;
  const log = options.logger;
  const initial = initialSync(INITIAL_SYNC_TIMEOUT_MS, log);

  async function follow(name: string, signal: AbortSignal): Promise<void> {
    if (leading()) return;
    const want = desiredRef(catalogs.get(name));
    if (want === undefined) {
      if (content.current(name) !== undefined || (await content.exists(name))) {
        await content.delete(name);
        log?.info('stopped serving catalog', { catalog: name });
      }
      return;
    }
    const digest = want.slice(want.lastIndexOf('@') + 1);
    if (content.current(name)?.digest === digest && (await content.exists(name, digest))) return;
    const image = await content.pull(name, want, signal).catch((err: unknown) => {
      throw isImageError(err) && err.terminal ? new TerminalError('Blocked', err.message, { cause: err }) : err;
    });
    const still = (): boolean => !leading() && desiredRef(catalogs.get(name)) === want;
    const stored = await content.commit(name, image, { signal, still });
    if (stored) log?.info('serving catalog content resolved by the leader', { catalog: name, ref: want });
  }

  const controller = new Controller({
    name: 'clustercatalog-content',
    logger: log,
    metrics: options.metrics,
    rateLimiter: options.rateLimiter,
    resync: { periodMs: RESYNC_MS, keys: () => catalogs.keys() },
    reconciler: {
      async reconcile(name, signal) {
        try {
          await follow(name, signal);
        } finally {
          initial.tried(name);
        }
      },
    },
  });
  controller.watch(catalogs);

  return {
    controller,
    ready: initial.cache,
    async run(signal) {
      const synced = await catalogs.waitForSync(signal).then(() => true, () => false);
      if (!synced) return; // stopped before the cache synced
      initial.begin(catalogs.keys().filter((k) => desiredRef(catalogs.get(k)) !== undefined));
      await controller.start(signal);
      initial.end();
    },
  };
}

/** The start-up gate behind `ready`: the keys still to try, and the waiters. */
function initialSync(timeoutMs: number, log: Logger | undefined) {
  let pending: Set<string> | undefined;
  let synced = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let resolveSynced = (): void => undefined;
  const syncedOnce = new Promise<void>((resolve) => (resolveSynced = resolve));
  const finish = (): void => {
    if (synced) return;
    synced = true;
    if (timer) clearTimeout(timer);
    resolveSynced();
  };
  const cache: Cache = {
    start: () => undefined,
    stop: async () => finish(),
    hasSynced: () => synced,
    waitForSync: (signal) => (synced ? Promise.resolve() : raceAbort(syncedOnce, signal)),
  };
  return {
    cache,
    begin(keys: string[]): void {
      pending = new Set(keys);
      if (pending.size === 0) return finish();
      timer = setTimeout(() => {
        log?.warn('serving before every catalog was tried once', { left: [...(pending ?? [])] });
        finish();
      }, timeoutMs);
      timer.unref?.();
    },
    tried(key: string): void {
      if (!pending || synced) return;
      pending.delete(key);
      if (pending.size === 0) finish();
    },
    end: finish,
  };
}
