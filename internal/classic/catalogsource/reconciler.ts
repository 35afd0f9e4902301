// The CatalogSource reconcile as small functions, in upstream's order (syncCatalogSources:
// validate the source type → configmap → registry server → connection), computing the whole status
// first and writing it once, only when it changed.
import { isDeepStrictEqual } from 'node:util';
import {
  CatalogSourceConfigMapError,
  CatalogSourceIntervalInvalidError,
  CatalogSourceRegistryServerError,
  CatalogSourceSpecInvalidError,
  ConnectionStateReady,
  ConnectionStateTransientFailure,
  SourceTypeConfigmap,
  SourceTypeGrpc,
  SourceTypeInternal,
  type CatalogSource,
  type CatalogSourceStatus,
} from '../../../api/operators/index.ts';
import type { Reconciler, Result } from '../../shared/controller/index.ts';
import { errorMessage, splitKey } from '../../shared/controller/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import type { CatalogContent } from './content.ts';
import { pollInterval } from './interval.ts';
import type { CatalogSourceMetrics } from './metrics.ts';
import type { AddressSources, ImageSources } from './sources.ts';

/** The message for `sourceType: configmap` / `internal` (ours: upstream serves them from a ConfigMap registry Pod). */
export const configMapUnsupportedMessage = (sourceType: string): string =>
  `sourceType ${sourceType} is not supported: this OLM serves catalogs only from sourceType grpc (spec.image or spec.address); publish the ConfigMap's manifests as a file-based catalog image`;

/** upstream's validateSourceType messages. */
export function sourceTypeProblem(cs: CatalogSource): string | undefined {
  const t = cs.spec.sourceType;
  switch (t) {
    case SourceTypeInternal:
    case SourceTypeConfigmap:
      return cs.spec.configMap ? undefined : `configmap name unset: must be set for sourcetype: ${t}`;
    case SourceTypeGrpc:
      return cs.spec.image || cs.spec.address ? undefined : `image and address unset: at least one must be set for sourcetype: ${t}`;
    default:
      return `unknown sourcetype: ${t}`;
  }
}

export interface CatalogSourceReconcilerOptions {
  readonly get: (key: string) => CatalogSource | undefined;
  readonly writeStatus: (cs: CatalogSource, status: CatalogSourceStatus, signal: AbortSignal) => Promise<void>;
  readonly images: ImageSources;
  readonly addresses: AddressSources;
  readonly metrics?: CatalogSourceMetrics;
  readonly now?: () => Date;
  /** Re-check of a READY source (default 10 min, upstream's ready timeout). */
  readonly readyRecheckMs?: number;
  /** Re-check of a source that is not READY (default 10 s, upstream's timeout). */
  readonly notReadyRecheckMs?: number;
  readonly logger?: Logger;
}

interface Outcome {
  readonly status: CatalogSourceStatus;
  readonly requeueAfterMs?: number;
}

/** What the reconciler keeps per CatalogSource and what later work reads. */
export interface ContentRegistry {
  get(namespace: string, name: string): CatalogContent | undefined;
}

export function newCatalogSourceReconciler(o: CatalogSourceReconcilerOptions): Reconciler & ContentRegistry {
  const now = o.now ?? ((): Date => new Date());
  const readyMs = o.readyRecheckMs ?? 10 * 60_000;
  const notReadyMs = o.notReadyRecheckMs ?? 10_000;
  const recheck = (state: string): number => (state === ConnectionStateReady ? readyMs : notReadyMs);

  const forget = (key: string): void => {
    const { namespace = '', name } = splitKey(key);
    o.images.remove(key);
    o.addresses.remove(key);
    o.metrics?.forget(namespace, name);
  };

  /** spec.image: pull (tag → digest; a known digest needs no download), load on a new digest, poll on schedule. */
  const syncImage = async (key: string, cs: CatalogSource, base: CatalogSourceStatus, signal: AbortSignal): Promise<Outcome> => {
    o.addresses.remove(key);
    const image = cs.spec.image ?? '';
    const poll = cs.spec.updateStrategy?.registryPoll;
    const interval = poll ? pollInterval(poll.interval) : undefined;
    const current = o.images.current(key);
    const t = now();
    const lastPoll = cs.status?.latestImageRegistryPoll ?? cs.metadata.creationTimestamp;
    const due = interval !== undefined && (!lastPoll || Date.parse(lastPoll) + interval.ms <= t.getTime());
    const status: CatalogSourceStatus = { ...base };
    if (cs.status?.latestImageRegistryPoll) status.latestImageRegistryPoll = cs.status.latestImageRegistryPoll;
    const stale = !current || current.image !== image;
    if (stale || due) {
      try {
        const r = await o.images.load(key, image, signal);
        if (r.loaded) o.metrics?.snapshot(cs.metadata.namespace ?? '', cs.metadata.name ?? '');
      } catch (err) {
        const message = oneLine(errorMessage(err));
        o.logger?.info('catalog image not loaded', { catalogSource: key, image, err: message });
        if (interval) status.latestImageRegistryPoll = t.toISOString();
        status.reason = CatalogSourceRegistryServerError;
        status.message = message;
        const was = cs.status?.connectionState;
        const since = was?.lastObservedState === ConnectionStateTransientFailure && was.lastConnect ? was.lastConnect : t.toISOString();
        status.connectionState = { lastObservedState: ConnectionStateTransientFailure, lastConnect: since };
        return { status, requeueAfterMs: interval ? Math.min(notReadyMs, interval.ms) : notReadyMs };
      }
      if (interval) status.latestImageRegistryPoll = t.toISOString();
    }
    const loaded = o.images.current(key)!;
    status.connectionState = { lastObservedState: ConnectionStateReady, lastConnect: loaded.content.loadedAt };
    if (interval?.error) {
      status.reason = CatalogSourceIntervalInvalidError;
      status.message = interval.error;
    }
    if (!interval) return { status };
    const next = Date.parse(status.latestImageRegistryPoll ?? t.toISOString()) + interval.ms - t.getTime();
    return { status, requeueAfterMs: Math.max(next, 1000) };
  };

  /** spec.address: one gRPC channel per CatalogSource; its state goes into connectionState; content loaded when READY. */
  const syncAddress = async (key: string, cs: CatalogSource, base: CatalogSourceStatus): Promise<Outcome> => {
    o.images.remove(key);
    const address = cs.spec.address ?? '';
    const conn = o.addresses.ensure(key, address);
    const status: CatalogSourceStatus = {
      ...base,
      registryService: { protocol: 'grpc', createdAt: cs.status?.registryService?.createdAt ?? now().toISOString() },
      connectionState: { address, lastObservedState: conn.state, lastConnect: conn.lastChange.toISOString() },
    };
    if (conn.state === ConnectionStateReady && o.addresses.needsSnapshot(key)) {
      try {
        await o.addresses.snapshot(key);
        o.metrics?.snapshot(cs.metadata.namespace ?? '', cs.metadata.name ?? '');
      } catch (err) {
        o.logger?.info('registry snapshot failed', { catalogSource: key, address, err: errorMessage(err) });
        return { status, requeueAfterMs: notReadyMs };
      }
    }
    return { status, requeueAfterMs: recheck(conn.state) };
  };

  const desired = async (key: string, cs: CatalogSource, signal: AbortSignal): Promise<Outcome> => {
    // Everything but conditions is recomputed (upstream's SetError("", nil) on a copy).
    const base: CatalogSourceStatus = cs.status?.conditions ? { conditions: cs.status.conditions } : {};
    const problem = sourceTypeProblem(cs);
    if (problem) {
      forget(key);
      return { status: { ...base, reason: CatalogSourceSpecInvalidError, message: problem } };
    }
    if (cs.spec.sourceType !== SourceTypeGrpc) {
      forget(key);
      return { status: { ...base, reason: CatalogSourceConfigMapError, message: configMapUnsupportedMessage(cs.spec.sourceType) } };
    }
    // As upstream: the image wins when both are set.
    return cs.spec.image ? syncImage(key, cs, base, signal) : syncAddress(key, cs, base);
  };

  return {
    get: (namespace, name) => {
      const key = `${namespace}/${name}`;
      return o.images.current(key)?.content ?? o.addresses.content(key);
    },
    async reconcile(key, signal): Promise<Result | void> {
      const cs = o.get(key);
      if (!cs) {
        forget(key);
        return;
      }
      const { status, requeueAfterMs } = await desired(key, cs, signal);
      if (status.connectionState) o.metrics?.setState(cs.metadata.namespace ?? '', cs.metadata.name ?? '', status.connectionState.lastObservedState);
      if (!isDeepStrictEqual(stripUndefined(cs.status ?? {}), stripUndefined(status))) await o.writeStatus(cs, status, signal);
      return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
    },
  };
}

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();
const stripUndefined = (v: CatalogSourceStatus): unknown => JSON.parse(JSON.stringify(v)) as unknown;
