// The content follower: every replica (leader or not) holds the content of every CatalogSource, so each replica's
// package server answers the same. It loads content into the same ImageSources / AddressSources the leader's
// reconciler uses (one copy per process), and writes nothing: no status, no Events.
//
// While this replica's CatalogSource controller runs (it holds the lease), the follower stands aside: the reconciler
// loads, polls and writes status itself, from the content the follower already holds (a replica that becomes leader
// drops nothing). A replica that is not the leader:
// - spec.image: loads the image when it holds no content for it, and pulls the tag again whenever the leader's
//   `status.connectionState.lastConnect` (when the leader's served content was loaded) changes — the leader found a new
//   digest on a poll —, so it does not poll on its own; a digest already held is not loaded again;
// - spec.address: its own gRPC channel, a snapshot each time it becomes READY, as the leader does (upstream's package
//   server replicas each read the registry Service themselves);
// - a CatalogSource gone, of another source type or invalid: its content dropped.
import { ConnectionStateReady, SourceTypeGrpc, type CatalogSource } from '../../../api/operators/index.ts';
import { Controller, errorMessage, type EventSource, type RateLimiter, type Result } from '../../shared/controller/index.ts';
import type { Logger, Metrics } from '../../shared/observability/index.ts';
import { oneLine } from '../../shared/toolkit/index.ts';
import { sourceTypeProblem } from './reconciler.ts';
import { CatalogRefusedError, type AddressSources, type ImageSources } from './sources.ts';

export interface ContentFollowerOptions {
  readonly catalogSources: EventSource<CatalogSource> & {
    get(key: string): CatalogSource | undefined;
    keys(): string[];
    waitForSync(signal?: AbortSignal): Promise<void>;
  };
  readonly images: ImageSources;
  readonly addresses: AddressSources;
  /** True while this replica's CatalogSource controller runs. */
  readonly leading: () => boolean;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly rateLimiter?: RateLimiter<string>;
  /** Re-check of a source that could not be read (default 10 s, as the leader). */
  readonly notReadyRecheckMs?: number;
}

export interface ContentFollower {
  readonly controller: Controller;
  /** One pass for one CatalogSource key (what the controller runs). */
  reconcile(key: string, signal: AbortSignal): Promise<Result | void>;
  /** Waits for the CatalogSource cache, then follows until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export function newContentFollower(o: ContentFollowerOptions): ContentFollower {
  const { catalogSources, images, addresses, leading } = o;
  const readyMs = 10 * 60_000; // a READY spec.address source looked at again, as the leader
  const notReadyMs = o.notReadyRecheckMs ?? 10_000;
  // Per CatalogSource: the image and the leader's lastConnect this replica last loaded for.
  const followed = new Map<string, string>();
  const log = o.logger?.child({ controller: 'catalogsource-content' });

  const drop = (key: string): void => {
    followed.delete(key);
    images.remove(key);
    addresses.remove(key);
  };

  async function followImage(key: string, cs: CatalogSource, image: string, signal: AbortSignal): Promise<Result | void> {
    addresses.remove(key);
    const mark = `${image} ${cs.status?.connectionState?.lastConnect ?? ''}`;
    const current = images.current(key);
    if (current?.image === image && followed.get(key) === mark) return;
    try {
      if ((await images.load(key, image, signal)).loaded) log?.info('serving catalog content the leader serves', { catalogSource: key, image });
      followed.set(key, mark);
    } catch (err) {
      // Content the leader refuses too: the last good content stays, tried again when the leader's changes.
      if (err instanceof CatalogRefusedError && images.current(key)?.image === image) {
        followed.set(key, mark);
        return;
      }
      log?.info('catalog image not loaded', { catalogSource: key, image, err: oneLine(errorMessage(err)) });
      return { requeueAfterMs: notReadyMs };
    }
  }

  async function followAddress(key: string, address: string): Promise<Result> {
    followed.delete(key);
    images.remove(key);
    const conn = addresses.ensure(key, address);
    if (conn.state === ConnectionStateReady && addresses.needsSnapshot(key)) {
      try {
        await addresses.snapshot(key);
      } catch (err) {
        log?.info('registry snapshot failed', { catalogSource: key, address, err: oneLine(errorMessage(err)) });
        return { requeueAfterMs: notReadyMs };
      }
    }
    return { requeueAfterMs: conn.state === ConnectionStateReady ? readyMs : notReadyMs };
  }

  async function reconcile(key: string, signal: AbortSignal): Promise<Result | void> {
    if (leading()) return;
    const cs = catalogSources.get(key);
    if (!cs || cs.metadata.deletionTimestamp || sourceTypeProblem(cs) || cs.spec.sourceType !== SourceTypeGrpc) return drop(key);
    // As the leader: the image wins when both are set.
    if (cs.spec.image) return followImage(key, cs, cs.spec.image, signal);
    return followAddress(key, cs.spec.address ?? '');
  }

  const controller = new Controller({
    name: 'catalogsource-content',
    ...(o.logger && { logger: o.logger }),
    ...(o.metrics && { metrics: o.metrics }),
    ...(o.rateLimiter && { rateLimiter: o.rateLimiter }),
    // every CatalogSource looked at again every 10 minutes, to heal anything missed
    resync: { periodMs: 10 * 60_000, keys: () => catalogSources.keys() },
    reconciler: { reconcile },
  });
  controller.watch(catalogSources);

  return {
    controller,
    reconcile,
    async run(signal) {
      try {
        await catalogSources.waitForSync(signal);
      } catch {
        return; // stopped before the cache synced
      }
      await controller.start(signal);
    },
  };
}
