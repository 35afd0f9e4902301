// The CatalogSource reconcile as named steps on the shared ObjectReconciler, in upstream's order (syncCatalogSources:
// validate the source type → configmap → registry server → connection), computing the whole status first and
// writing it once, only when it changed; a conflict re-runs the pass from fresh state.
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
import { ObjectReconciler, errorMessage, splitKey, type Pass, type Reconciler, type StepOutcome } from '../../shared/controller/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import { noopLogger, type Logger } from '../../shared/observability/index.ts';
import type { CatalogContent } from './content.ts';
import { pollInterval } from './interval.ts';
import type { CatalogSourceMetrics } from './metrics.ts';
import { CatalogRefusedError, type AddressSources, type ImageSources } from './sources.ts';
import { oneLine, realClock, type Clock } from '../../shared/toolkit/index.ts';

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
  /** Where status goes: the API server. */
  readonly client: KubeClient;
  readonly images: ImageSources;
  readonly addresses: AddressSources;
  readonly metrics?: CatalogSourceMetrics;
  /** Re-check of a source that is not READY (default 10 s, upstream's timeout). */
  readonly notReadyRecheckMs?: number;
  readonly logger?: Logger;
  /** The wall time of polls and the registry service's createdAt; default the toolkit's realClock. */
  readonly clock?: Clock;
}

/** What one pass knows. */
interface SourcePass {
  readonly key: string;
  readonly cs: CatalogSource;
  /** Everything but conditions is recomputed (upstream's SetError("", nil) on a copy). */
  readonly base: CatalogSourceStatus;
}

/** What the reconciler keeps per CatalogSource and what later work reads. */
export interface ContentRegistry {
  get(namespace: string, name: string): CatalogContent | undefined;
  /**
   * Subscribes to content changes: `listener` is called (synchronously, after the change) whenever a CatalogSource's
   * served content is replaced (a new load or snapshot) or removed; returns the unsubscribe function.
   */
  onChange?(listener: (namespace: string, name: string) => void): () => void;
}

export function newCatalogSourceReconciler(o: CatalogSourceReconcilerOptions): Reconciler & ContentRegistry {
  const readyMs = 10 * 60_000; // a READY source looked at again: upstream's ready timeout
  const notReadyMs = o.notReadyRecheckMs ?? 10_000;

  function forget(key: string): void {
    const { namespace = '', name } = splitKey(key);
    o.images.remove(key);
    o.addresses.remove(key);
    o.metrics?.forget(namespace, name);
  }

  /** The pass's status is `status`: the connection state to the metrics, then the pass ends. */
  function end(s: SourcePass, status: CatalogSourceStatus, requeueAfterMs?: number): StepOutcome {
    const { cs } = s;
    if (status.connectionState) o.metrics?.setState(cs.metadata.namespace ?? '', cs.metadata.name ?? '', status.connectionState.lastObservedState);
    cs.status = status;
    return requeueAfterMs !== undefined ? { result: { requeueAfterMs } } : {};
  }

  function validateSourceType(s: SourcePass): StepOutcome | undefined {
    const problem = sourceTypeProblem(s.cs);
    if (!problem) return undefined;
    forget(s.key);
    return end(s, { ...s.base, reason: CatalogSourceSpecInvalidError, message: problem });
  }

  function refuseConfigMap(s: SourcePass): StepOutcome | undefined {
    if (s.cs.spec.sourceType === SourceTypeGrpc) return undefined;
    forget(s.key);
    return end(s, { ...s.base, reason: CatalogSourceConfigMapError, message: configMapUnsupportedMessage(s.cs.spec.sourceType) });
  }

  /**
   * spec.image: pull (tag → digest; a known digest needs no download), load and validate on a new digest, poll on
   * schedule. Refused content (it does not load or validate: upstream's registry Pod would not serve it) with no
   * content before: TRANSIENT_FAILURE, as upstream's failing registry; with content before: still READY from it
   * (as upstream's update Pod that never becomes ready leaves the serving one), the refusal in the message.
   */
  async function syncImage(s: SourcePass, signal: AbortSignal): Promise<StepOutcome | undefined> {
    const { key, cs } = s;
    if (!cs.spec.image) return undefined;
    o.addresses.remove(key);
    const image = cs.spec.image;
    const poll = cs.spec.updateStrategy?.registryPoll;
    const interval = poll ? pollInterval(poll.interval) : undefined;
    const current = o.images.current(key);
    const t = (o.clock ?? realClock).date();
    const lastPoll = cs.status?.latestImageRegistryPoll ?? cs.metadata.creationTimestamp;
    const due = interval !== undefined && (!lastPoll || Date.parse(lastPoll) + interval.ms <= t.getTime());
    const status: CatalogSourceStatus = { ...s.base };
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
        if (!(err instanceof CatalogRefusedError && o.images.current(key))) return failed(s, status, message, t, interval?.ms);
      }
      if (interval) status.latestImageRegistryPoll = t.toISOString();
    }
    const loaded = o.images.current(key)!;
    status.connectionState = { lastObservedState: ConnectionStateReady, lastConnect: loaded.content.loadedAt };
    if (interval?.error) {
      status.reason = CatalogSourceIntervalInvalidError;
      status.message = interval.error;
    }
    const refused = o.images.refused(key, image);
    if (refused) {
      status.reason = CatalogSourceRegistryServerError;
      status.message = `${refused.message}; serving the last good content, ${loaded.content.origin}`;
    }
    // A refused spec.image change is tried again soon; a refused poll waits for the next poll.
    if (refused && loaded.image !== image) return end(s, status, interval ? Math.min(notReadyMs, interval.ms) : notReadyMs);
    if (!interval) return end(s, status);
    const next = Date.parse(status.latestImageRegistryPoll ?? t.toISOString()) + interval.ms - t.getTime();
    return end(s, status, Math.max(next, 1000));
  }

  /** No content to serve: TRANSIENT_FAILURE, RegistryServerError and why; tried again soon. */
  function failed(s: SourcePass, status: CatalogSourceStatus, message: string, t: Date, intervalMs: number | undefined): StepOutcome {
    status.reason = CatalogSourceRegistryServerError;
    status.message = message;
    const was = s.cs.status?.connectionState;
    const since = was?.lastObservedState === ConnectionStateTransientFailure && was.lastConnect ? was.lastConnect : t.toISOString();
    status.connectionState = { lastObservedState: ConnectionStateTransientFailure, lastConnect: since };
    return end(s, status, intervalMs !== undefined ? Math.min(notReadyMs, intervalMs) : notReadyMs);
  }

  /** spec.address: one gRPC channel per CatalogSource; its state goes into connectionState; content loaded when READY. */
  async function syncAddress(s: SourcePass): Promise<StepOutcome> {
    const { key, cs } = s;
    o.images.remove(key);
    const address = cs.spec.address ?? '';
    const conn = o.addresses.ensure(key, address);
    const status: CatalogSourceStatus = {
      ...s.base,
      registryService: { protocol: 'grpc', createdAt: cs.status?.registryService?.createdAt ?? (o.clock ?? realClock).date().toISOString() },
      connectionState: { address, lastObservedState: conn.state, lastConnect: conn.lastChange.toISOString() },
    };
    if (conn.state === ConnectionStateReady && o.addresses.needsSnapshot(key)) {
      try {
        await o.addresses.snapshot(key);
        o.metrics?.snapshot(cs.metadata.namespace ?? '', cs.metadata.name ?? '');
      } catch (err) {
        o.logger?.info('registry snapshot failed', { catalogSource: key, address, err: errorMessage(err) });
        return end(s, status, notReadyMs);
      }
    }
    return end(s, status, conn.state === ConnectionStateReady ? readyMs : notReadyMs);
  }

  const object = new ObjectReconciler<CatalogSource, SourcePass>({
    kind: 'CatalogSource',
    client: o.client,
    get: o.get,
    steps: [
      { name: 'validateSourceType', run: async (s) => validateSourceType(s) },
      { name: 'refuseConfigMap', run: async (s) => refuseConfigMap(s) },
      // As upstream: the image wins when both are set.
      { name: 'syncImage', run: syncImage },
      { name: 'syncAddress', run: syncAddress },
    ],
    logger: o.logger ?? noopLogger,
    state: (pass: Pass<CatalogSource>) => ({
      key: pass.key,
      cs: pass.obj,
      base: pass.obj.status?.conditions ? { conditions: pass.obj.status.conditions } : {},
    }),
    forget,
  });
  return {
    get(namespace, name) {
      const key = `${namespace}/${name}`;
      return o.images.current(key)?.content ?? o.addresses.content(key);
    },
    reconcile: (key, signal) => object.reconcile(key, signal),
  };
}

