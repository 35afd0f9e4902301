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
// fbc: <err>`. The pass runs as named steps on the shared ObjectReconciler (shared/controller): status is computed on
// a copy and written once, at the end, only when it changed; a conflict re-runs the pass from fresh state.
import {
  DeleteServerCacheFinalizer,
  SourceTypeImage,
  AvailabilityModeUnavailable,
  type ClusterCatalog,
  type ClusterCatalogStatus,
} from '../../../api/v1/index.ts';
import {
  ObjectReconciler,
  TerminalError,
  errorMessage,
  isTerminal,
  realClock,
  sanitizeNetworkError,
  withContext,
  type Pass,
  type Reconciler,
  type Result,
  type Step,
  type StepOutcome,
} from '../../shared/controller/index.ts';
import { isImageError, type PulledImage } from '../../shared/image/index.ts';
import { hasFinalizer, semanticEqual } from '../../shared/kube/index.ts';
import { collectGarbage, noopLogger, type Logger } from '../../shared/observability/index.ts';
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
  /** Wall clock in ms (default the toolkit's realClock; the setup passes the ManagerContext's clock). */
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

/** What one pass knows. */
interface CatalogPass {
  readonly pass: Pass<ClusterCatalog>;
  readonly cat: ClusterCatalog;
  readonly name: string;
  readonly gen: number | undefined;
  /** The pass's one clock reading (condition transition times). */
  readonly date: Date;
}

/** A pass that ends here: no requeue (as upstream's empty ctrl.Result). */
const DONE: StepOutcome = { result: {} };

/** The copy's status, created when a step first writes to it (a catalog without status that needs none gets none). */
const statusOf = (c: ClusterCatalog): ClusterCatalogStatus => (c.status ??= {});

export function newClusterCatalogReconciler(options: ClusterCatalogReconcilerOptions): ClusterCatalogReconciler {
  return new CatalogReconciler(options);
}

class CatalogReconciler implements ClusterCatalogReconciler {
  readonly #o: ClusterCatalogReconcilerOptions;
  readonly #now: () => number;
  readonly #minuteMs: number;
  readonly #random: () => number;
  readonly #memory = new Map<string, Unpacked>();
  readonly #object: ObjectReconciler<ClusterCatalog, CatalogPass>;

  constructor(o: ClusterCatalogReconcilerOptions) {
    this.#o = o;
    this.#now = o.now ?? ((): number => realClock.date().getTime());
    this.#minuteMs = o.minuteMs ?? 60_000;
    this.#random = o.random ?? Math.random;
    const steps: Step<CatalogPass>[] = [
      { name: 'handleUnavailable', run: (s, signal) => this.#handleUnavailable(s, signal) },
      { name: 'handleDeletion', run: (s, signal) => this.#handleDeletion(s, signal) },
      { name: 'ensureFinalizer', run: (s, signal) => this.#ensureFinalizer(s, signal) },
      { name: 'checkServed', run: (s) => this.#checkServed(s) },
      { name: 'unpack', run: (s, signal) => this.#unpack(s, signal) },
    ];
    const forget = (c: ClusterCatalog): void => void this.#memory.delete(c.metadata.name ?? '');
    this.#object = new ObjectReconciler<ClusterCatalog, CatalogPass>({
      kind: 'ClusterCatalog',
      logKey: 'catalog',
      writer: o.api,
      get: (key) => o.catalogs.get(key),
      steps,
      logger: o.logger ?? noopLogger,
      state: (pass) => ({ pass, cat: pass.obj, name: pass.obj.metadata.name ?? '', gen: pass.obj.metadata.generation, date: new Date(this.#now()) }),
      // Any error forgets the memory, so the next attempt unpacks again.
      onThrow: forget,
      onError: forget,
      forget: (key) => void this.#memory.delete(key),
      logPasses: true,
    });
  }

  remembered(name: string): Readonly<Unpacked> | undefined {
    return this.#memory.get(name);
  }

  reconcile(key: string, signal: AbortSignal): Promise<Result | void> {
    return this.#object.reconcile(key, signal);
  }

  /** availabilityMode Unavailable: content and cache deleted, Serving False/UserSpecifiedUnavailable, finalizer removed. */
  async #handleUnavailable(s: CatalogPass, signal: AbortSignal): Promise<StepOutcome | undefined> {
    if (s.cat.spec.availabilityMode !== AvailabilityModeUnavailable) return undefined;
    const deleted = await this.#deleteCache(s);
    if (deleted !== undefined) return { err: deleted };
    setUserSpecifiedUnavailable(statusOf(s.cat), s.gen, s.date);
    return (await finalizerWrite('removing', () => s.pass.removeFinalizer(DeleteServerCacheFinalizer, signal))) ?? DONE;
  }

  /** Being deleted (finalizer present): content and cache deleted, Serving False/Unavailable, finalizer removed. */
  async #handleDeletion(s: CatalogPass, signal: AbortSignal): Promise<StepOutcome | undefined> {
    if (!s.cat.metadata.deletionTimestamp) return undefined;
    if (!hasFinalizer(s.cat, DeleteServerCacheFinalizer)) return DONE;
    const deleted = await this.#deleteCache(s);
    if (deleted !== undefined) return { err: new Error(`finalizer ${JSON.stringify(DeleteServerCacheFinalizer)} failed: ${errorMessage(deleted)}`, { cause: deleted }) };
    const removeFailed = await finalizerWrite('removing', () => s.pass.removeFinalizer(DeleteServerCacheFinalizer, signal));
    if (removeFailed) return removeFailed;
    setNotServing(statusOf(s.cat), s.gen, s.date);
    return DONE;
  }

  /** No finalizer yet: add it and stop (the update event brings the key back). */
  async #ensureFinalizer(s: CatalogPass, signal: AbortSignal): Promise<StepOutcome | undefined> {
    if (hasFinalizer(s.cat, DeleteServerCacheFinalizer)) return undefined;
    return (await finalizerWrite('ensuring', () => s.pass.addFinalizer(DeleteServerCacheFinalizer, signal))) ?? DONE;
  }

  /** Nothing to do while what is served is current: requeue at the next poll. */
  async #checkServed(s: CatalogPass): Promise<StepOutcome | undefined> {
    const remembered = this.#memory.get(s.name);
    const why = await this.#unpackReason(s, remembered);
    if (why === undefined && remembered) return { result: this.#nextPoll(remembered.lastSuccessfulPoll, s.cat) };
    this.#o.logger?.info(`unpack required: ${why}`, { catalog: s.name });
    return undefined;
  }

  /** Pull (catalog mode) → store → Progressing True/Succeeded, Serving True/Available, resolvedSource, urls. */
  async #unpack(s: CatalogPass, signal: AbortSignal): Promise<StepOutcome> {
    const { cat, name, gen, date } = s;
    const status = statusOf(cat);
    const { content } = this.#o;
    const fail = (err: Error): StepOutcome => {
      setProgressing(status, gen, err, date);
      return { err };
    };
    if (cat.spec.source.type !== SourceTypeImage) return fail(new TerminalError('Blocked', `unknown source type ${JSON.stringify(cat.spec.source.type)}`));
    const image = cat.spec.source.image;
    if (!image) return fail(new TerminalError('Blocked', `error parsing ClusterCatalog ${JSON.stringify(name)}, image source is nil`));

    let pulled: PulledImage;
    try {
      pulled = await content.pull(name, image.ref, signal);
    } catch (err) {
      return fail(withContext(pullError(err), 'source catalog content'));
    }
    try {
      await content.commit(name, pulled, { signal });
    } catch (err) {
      return fail(new Error(`error storing fbc: ${errorMessage(err)}`, { cause: err }));
    }
    collectGarbage(); // the pull's buffers and the parse's objects, gone at once (shared/observability/memory.ts)
    const baseUrl = this.#o.baseUrl(name);
    setProgressing(status, gen, undefined, date);
    setServing(status, { ref: pulled.digestRef, unpackedAt: pulled.unpackedAt, baseUrl }, gen, date);
    const lastSuccessfulPoll = this.#now();
    this.#memory.set(name, { ref: pulled.digestRef, digest: pulled.digest, unpackedAt: pulled.unpackedAt, lastSuccessfulPoll, observedGeneration: gen });
    this.#o.logger?.info('unpacked and stored catalog', { catalog: name, ref: pulled.digestRef, fromCache: pulled.fromCache });
    return { result: this.#nextPoll(lastSuccessfulPoll, cat) };
  }

  /** Deletes served content and the image cache; on failure Progressing says why and the error is returned. */
  async #deleteCache(s: CatalogPass): Promise<unknown> {
    try {
      await this.#o.content.delete(s.name);
    } catch (err) {
      setProgressing(statusOf(s.cat), s.gen, err, s.date);
      return err;
    }
    setNotServing(statusOf(s.cat), s.gen, s.date);
    this.#memory.delete(s.name);
    return undefined;
  }

  /** Why the catalog must be unpacked now, or undefined when what is served is current. */
  async #unpackReason(s: CatalogPass, remembered: Unpacked | undefined): Promise<string | undefined> {
    const { cat, name } = s;
    if (!remembered) return 'no cached catalog metadata found for this catalog';
    if (!(await this.#o.content.exists(name, remembered.digest))) return 'no stored content found for this catalog';
    const status = cat.status ?? {};
    const expected = structuredClone(status);
    clearUnknownConditions(expected);
    const date = new Date(this.#now());
    setServing(expected, { ref: remembered.ref, unpackedAt: remembered.unpackedAt, baseUrl: this.#o.baseUrl(name) }, remembered.observedGeneration, date);
    setProgressing(expected, remembered.observedGeneration, undefined, date);
    if (!semanticEqual(status, expected)) return 'current ClusterCatalog status differs from expected status';
    if (cat.metadata.generation !== remembered.observedGeneration) return 'catalog generation differs from observed generation';
    const poll = this.#pollMs(cat);
    if (poll !== undefined && remembered.lastSuccessfulPoll + poll < this.#now()) return 'poll duration has elapsed';
    return undefined;
  }

  #pollMs(c: ClusterCatalog): number | undefined {
    const minutes = c.spec.source.image?.pollIntervalMinutes;
    return minutes === undefined || minutes === null ? undefined : minutes * this.#minuteMs;
  }

  #nextPoll(lastPoll: number, c: ClusterCatalog): Result {
    const poll = c.spec.source.type === SourceTypeImage ? this.#pollMs(c) : undefined;
    if (poll === undefined) return {};
    const jittered = poll + this.#random() * POLL_JITTER_FACTOR * poll;
    return { requeueAfterMs: Math.max(1, Math.ceil(lastPoll + jittered - this.#now())) };
  }
}

/** A finalizer write; its failure (`error ensuring finalizer: …`, `error removing finalizer: …`) ends the pass. */
function finalizerWrite(what: 'ensuring' | 'removing', write: () => Promise<unknown>): Promise<StepOutcome | undefined> {
  return write().then(
    () => undefined,
    (err: unknown) => ({ err: new Error(`error ${what} finalizer: ${errorMessage(err)}`, { cause: err }) }),
  );
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
