// The ClusterCatalog reconciler (runs on the leader only), with upstream's semantics
// (operator-controller internal/catalogd/controllers/core/clustercatalog_controller.go):
//
//   availabilityMode Unavailable → delete content + image cache, Serving=False/UserSpecifiedUnavailable,
//                                  Progressing=True/Succeeded, no resolvedSource/urls/lastUnpacked, finalizer removed
//   being deleted                → (finalizer present) delete content + image cache, Serving=False/Unavailable,
//                                  finalizer removed
//   no finalizer yet             → add it and stop (the update event brings the key back)
//   nothing to do                → requeue at the next poll (pollIntervalMinutes + up to 1 % jitter)
//   otherwise                    → pull (catalog mode) → store → Progressing=True/Succeeded, Serving=True/Available,
//                                  resolvedSource.image.ref = repo@digest, urls.base, lastUnpacked
//
// "Nothing to do" needs a memory of the last successful unpack (per catalog, in this process), the
// content on disk, a status equal to what that memory implies, the same generation and no poll
// due. Any error forgets the memory, so the next attempt unpacks again. Pull errors are
// `source catalog content: <err>` (Retrying; Blocked when terminal), store errors `error storing
// fbc: <err>`. Status is computed on a copy and written once, at the end, only when it changed.
import {
  DeleteServerCacheFinalizer,
  SourceTypeImage,
  AvailabilityModeUnavailable,
  type ClusterCatalog,
  type ClusterCatalogStatus,
} from '../../../api/v1/index.ts';
import {
  TerminalError,
  errorMessage,
  isTerminal,
  sanitizeNetworkError,
  withContext,
  type Reconciler,
  type Result,
} from '../../shared/controller/index.ts';
import { isImageError, type PulledImage } from '../../shared/image/index.ts';
import { hasFinalizer, semanticEqual } from '../../shared/kube/index.ts';
import { collectGarbage, type Logger } from '../../shared/observability/index.ts';
import type { CatalogApi } from './api.ts';
import type { CatalogContent } from './content.ts';
import {
  clearUnknownConditions,
  setNotServing,
  setProgressing,
  setServing,
  setUserSpecifiedUnavailable,
} from './status.ts';

/** wait.Jitter factor of the poll requeue: the delay is poll × [1, 1.01). */
export const POLL_JITTER_FACTOR = 0.01;

export interface ClusterCatalogReconcilerOptions {
  /** The informer cache of ClusterCatalogs (key = name). */
  readonly catalogs: { get(name: string): ClusterCatalog | undefined };
  readonly api: CatalogApi;
  readonly content: CatalogContent;
  /** `<scheme>://<external-address>/catalogs/<name>`. */
  readonly baseUrl: (name: string) => string;
  /** Wall clock in ms (default Date.now). */
  readonly now?: () => number;
  /** Length of one `pollIntervalMinutes` minute in ms (default 60,000; tests shorten it). */
  readonly minuteMs?: number;
  /** [0, 1) (default Math.random); drives the poll jitter. */
  readonly random?: () => number;
  readonly logger?: Logger;
}

/** What this process remembers of a catalog's last successful unpack. */
interface Unpacked {
  readonly ref: string;
  readonly digest: string;
  readonly unpackedAt: Date;
  readonly lastSuccessfulPoll: number;
  readonly observedGeneration: number | undefined;
}

export interface ClusterCatalogReconciler extends Reconciler {
  /** The remembered unpack of `name`, for tests and logs. */
  remembered(name: string): Readonly<Unpacked> | undefined;
}

export function newClusterCatalogReconciler(options: ClusterCatalogReconcilerOptions): ClusterCatalogReconciler {
  const { api, content } = options;
  const now = options.now ?? Date.now;
  const minuteMs = options.minuteMs ?? 60_000;
  const random = options.random ?? Math.random;
  const memory = new Map<string, Unpacked>();
  const log = options.logger;

  const pollMs = (c: ClusterCatalog): number | undefined => {
    const minutes = c.spec.source.image?.pollIntervalMinutes;
    return minutes === undefined || minutes === null ? undefined : minutes * minuteMs;
  };

  const nextPoll = (lastPoll: number, c: ClusterCatalog): Result => {
    const poll = c.spec.source.type === SourceTypeImage ? pollMs(c) : undefined;
    if (poll === undefined) return {};
    const jittered = poll + random() * POLL_JITTER_FACTOR * poll;
    return { requeueAfterMs: Math.max(1, Math.ceil(lastPoll + jittered - now())) };
  };

  /** Deletes served content and the image cache; on failure Progressing says why. */
  const deleteCache = async (c: ClusterCatalog, status: ClusterCatalogStatus, date: Date): Promise<void> => {
    const name = c.metadata.name ?? '';
    try {
      await content.delete(name);
    } catch (err) {
      setProgressing(status, c.metadata.generation, err, date);
      throw err;
    }
    setNotServing(status, c.metadata.generation, date);
    memory.delete(name);
  };

  async function reconcileCatalog(cat: ClusterCatalog, status: ClusterCatalogStatus, signal: AbortSignal): Promise<{ result: Result; catalog: ClusterCatalog | undefined }> {
    let c: ClusterCatalog | undefined = cat;
    const name = cat.metadata.name ?? '';
    const gen = cat.metadata.generation;
    const date = new Date(now());

    if (cat.spec.availabilityMode === AvailabilityModeUnavailable) {
      await deleteCache(cat, status, date);
      setUserSpecifiedUnavailable(status, gen, date);
      try {
        c = await api.removeFinalizer(cat, DeleteServerCacheFinalizer, signal);
      } catch (err) {
        throw new Error(`error removing finalizer: ${errorMessage(err)}`, { cause: err });
      }
      return { result: {}, catalog: c };
    }

    if (cat.metadata.deletionTimestamp) {
      if (!hasFinalizer(cat, DeleteServerCacheFinalizer)) return { result: {}, catalog: c };
      try {
        await deleteCache(cat, status, date);
      } catch (err) {
        throw new Error(`finalizer ${JSON.stringify(DeleteServerCacheFinalizer)} failed: ${errorMessage(err)}`, { cause: err });
      }
      try {
        c = await api.removeFinalizer(cat, DeleteServerCacheFinalizer, signal);
      } catch (err) {
        throw new Error(`error removing finalizer: ${errorMessage(err)}`, { cause: err });
      }
      setNotServing(status, gen, date);
      return { result: {}, catalog: c };
    }

    try {
      const ensured = await api.addFinalizer(cat, DeleteServerCacheFinalizer, signal);
      c = ensured.catalog;
      if (ensured.added) return { result: {}, catalog: c };
    } catch (err) {
      throw new Error(`error ensuring finalizer: ${errorMessage(err)}`, { cause: err });
    }

    const remembered = memory.get(name);
    const why = await unpackReason(cat, status, remembered);
    if (why === undefined && remembered) return { result: nextPoll(remembered.lastSuccessfulPoll, cat), catalog: c };
    log?.info(`unpack required: ${why}`, { catalog: name });

    if (cat.spec.source.type !== SourceTypeImage) {
      const err = new TerminalError('Blocked', `unknown source type ${JSON.stringify(cat.spec.source.type)}`);
      setProgressing(status, gen, err, date);
      throw err;
    }
    const image = cat.spec.source.image;
    if (!image) {
      const err = new TerminalError('Blocked', `error parsing ClusterCatalog ${JSON.stringify(name)}, image source is nil`);
      setProgressing(status, gen, err, date);
      throw err;
    }

    let pulled: PulledImage;
    try {
      pulled = await content.pull(name, image.ref, signal);
    } catch (err) {
      const e = withContext(pullError(err), 'source catalog content');
      setProgressing(status, gen, e, date);
      throw e;
    }
    try {
      await content.commit(name, pulled, { signal });
    } catch (err) {
      const e = new Error(`error storing fbc: ${errorMessage(err)}`, { cause: err });
      setProgressing(status, gen, e, date);
      throw e;
    }
    collectGarbage(); // the pull's buffers and the parse's objects, gone at once (shared/observability/memory.ts)
    const baseUrl = options.baseUrl(name);
    setProgressing(status, gen, undefined, date);
    setServing(status, { ref: pulled.digestRef, unpackedAt: pulled.unpackedAt, baseUrl }, gen, date);
    const lastSuccessfulPoll = now();
    memory.set(name, { ref: pulled.digestRef, digest: pulled.digest, unpackedAt: pulled.unpackedAt, lastSuccessfulPoll, observedGeneration: gen });
    log?.info('unpacked and stored catalog', { catalog: name, ref: pulled.digestRef, fromCache: pulled.fromCache });
    return { result: nextPoll(lastSuccessfulPoll, cat), catalog: c };
  }

  /** Why the catalog must be unpacked now, or undefined when what is served is current. */
  async function unpackReason(c: ClusterCatalog, status: ClusterCatalogStatus, remembered: Unpacked | undefined): Promise<string | undefined> {
    const name = c.metadata.name ?? '';
    if (!remembered) return 'no cached catalog metadata found for this catalog';
    if (!(await content.exists(name, remembered.digest))) return 'no stored content found for this catalog';
    const expected = structuredClone(status);
    clearUnknownConditions(expected);
    const date = new Date(now());
    setServing(expected, { ref: remembered.ref, unpackedAt: remembered.unpackedAt, baseUrl: options.baseUrl(name) }, remembered.observedGeneration, date);
    setProgressing(expected, remembered.observedGeneration, undefined, date);
    if (!semanticEqual(status, expected)) return 'current ClusterCatalog status differs from expected status';
    if (c.metadata.generation !== remembered.observedGeneration) return 'catalog generation differs from observed generation';
    const poll = pollMs(c);
    if (poll !== undefined && remembered.lastSuccessfulPoll + poll < now()) return 'poll duration has elapsed';
    return undefined;
  }

  return {
    remembered: (name) => memory.get(name),

    async reconcile(key, signal) {
      const cached = options.catalogs.get(key);
      if (!cached) {
        memory.delete(key);
        return;
      }
      const catalog = structuredClone(cached);
      const status: ClusterCatalogStatus = structuredClone(cached.status ?? {});
      let outcome: { result: Result; catalog: ClusterCatalog | undefined } | undefined;
      let error: unknown;
      try {
        outcome = await reconcileCatalog(catalog, status, signal);
      } catch (err) {
        error = err;
        memory.delete(key);
      }
      const target = outcome ? outcome.catalog : catalog;
      if (target && !semanticEqual(cached.status ?? {}, status)) {
        try {
          await api.writeStatus(target, status, signal);
        } catch (err) {
          const e = new Error(`error updating status: ${errorMessage(err)}`, { cause: err });
          error = error === undefined ? e : joined(error, e);
        }
      }
      if (error !== undefined) throw error;
      return outcome?.result;
    },
  };
}

/**
 * An image error as the controller sees it: terminal image errors (bad references; content
 * errors of digest-pinned images) become TerminalError(Blocked); messages lose ephemeral
 * `read tcp a->b: ` parts so that a retried network error does not rewrite status each time.
 */
function pullError(err: unknown): Error {
  const message = sanitizeNetworkError(err);
  if (isImageError(err) && err.terminal) return new TerminalError('Blocked', message, { cause: err });
  if (isTerminal(err)) return err;
  return new Error(message, { cause: err });
}

/** errors.Join: both messages on two lines; terminal only when the first is. */
function joined(first: unknown, second: Error): Error {
  const message = `${errorMessage(first)}\n${second.message}`;
  return isTerminal(first) ? new TerminalError(first.reason, message, { cause: first }) : new Error(message, { cause: first });
}
