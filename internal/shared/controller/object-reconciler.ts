// The one shape of a controller for one kind of object (upstream operator-controller's ClusterExtension and
// ClusterObjectSet controllers, controller-runtime's usual Reconcile):
//
//   cached get → copy → named steps over one state → guard → one status write → result
//
// - The object comes from the informer cache; a key that is gone ends the pass (`forget` drops what the controller
//   kept for it).
// - Steps (steps.ts) change the copy's status; they change its finalizers only through `pass.addFinalizer` /
//   `pass.removeFinalizer`, which write at once (a merge patch carrying the resourceVersion) and keep the copy in step.
// - The guard: a step that changed spec or metadata (other than finalizers and resourceVersion) is a bug; the pass
//   fails without writing anything.
// - Status is written once, at the end, when it differs from the cached one (`semanticEqual`, or the kind's own rule,
//   `statusChanged`), through the status subresource with the resourceVersion the pass started from (or its own
//   finalizer write gave). A 409 Conflict means the pass decided on an old object: nothing is overwritten and the key
//   is reconciled again from fresh state (`{ requeue: true }`, rate limited). A 404, or an object its own finalizer
//   removal let go, ends the pass quietly. Another failed write is `error updating status: <err>`. Then `afterWrite`
//   (e.g. metrics of what was written); the pass's, the write's and its errors are joined as upstream's errors.Join.
// - A step may end the pass with `final`: it settled status itself (`pass.writeStatus`) or status must stay as it is.
// - The resourceVersions of the pass's own writes are kept (`ownWrite`), so the update events they cause need no pass
//   of their own.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { addFinalizer, isConflict, isNotFound, removeFinalizer, semanticEqual, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../observability/index.ts';
import type { Reconciler, Result } from './controller.ts';
import { errorMessage, isTerminal, joinErrors } from './errors.ts';
import { runSteps, type Step, type StepsOutcome } from './steps.ts';

/** What every pass of an object reconciler gives its steps. */
export interface Pass<T extends KubeObject> {
  readonly key: string;
  /** The object the pass started from (read-only): the cached one, or with readYourWrites what was last written. */
  readonly cached: T;
  /** The pass's copy of the cached object. */
  readonly obj: T;
  readonly log: Logger;
  /** Writes the copy's status now, when it changed (for steps that end the pass with `final`). */
  writeStatus(signal: AbortSignal): Promise<void>;
  /** Adds a finalizer now when missing; the copy takes the stored finalizers and resourceVersion. */
  addFinalizer(finalizer: string, signal: AbortSignal): Promise<void>;
  /** Removes a finalizer now when present (an object already gone is fine); the copy follows. */
  removeFinalizer(finalizer: string, signal: AbortSignal): Promise<void>;
}

/** The writes an object reconciler makes; `kubeObjectWriter` is the API server's, tests may give their own. */
export interface ObjectWriter<T extends KubeObject> {
  /** PUTs the object's status (with its resourceVersion); resolves the object as stored when known. */
  updateStatus(obj: T, signal: AbortSignal): Promise<T | void>;
  /** Adds a finalizer (under the object's resourceVersion); resolves the object as stored. For kinds with one. */
  addFinalizer?(obj: T, finalizer: string, signal: AbortSignal): Promise<T>;
  /** Removes a finalizer; resolves the object as stored, or undefined once it is gone. For kinds with one. */
  removeFinalizer?(obj: T, finalizer: string, signal: AbortSignal): Promise<T | undefined>;
}

/** The API server's writes: the status subresource, finalizers by merge patch carrying the resourceVersion. */
export function kubeObjectWriter<T extends KubeObject>(client: KubeClient): Required<ObjectWriter<T>> {
  return {
    updateStatus: (obj, signal) => client.updateStatus<T>(obj, { signal }),
    addFinalizer: (obj, finalizer, signal) => addFinalizer(client, obj, finalizer, { signal }),
    removeFinalizer: (obj, finalizer, signal) => removeFinalizer(client, obj, finalizer, { signal }),
  };
}

export interface ObjectReconcilerOptions<T extends KubeObject, S> {
  /** The kind, for logs and the guard's error. */
  readonly kind: string;
  /** Where the writes go: the API server through a client (`kubeObjectWriter`), or a writer of its own. */
  readonly client?: KubeClient;
  readonly writer?: ObjectWriter<T>;
  /** The cached object for a key (an informer's `get`). */
  readonly get: (key: string) => T | undefined;
  readonly steps: readonly Step<S>[];
  /** The pass's state, built around the pass. */
  readonly state: (pass: Pass<T>) => S;
  readonly logger: Logger;
  /** The log field that names the object (default the kind with a lower-case first letter). */
  readonly logKey?: string;
  /** The pass's copy (default structuredClone). A copy may share the spec: no step changes it. */
  readonly copy?: (cached: T) => T;
  /** A step threw: record the error on the copy's status (default nothing). */
  readonly onThrow?: (obj: T, err: unknown) => void;
  /** A step ended the pass with an error (thrown or returned): record it on the copy's status before the write. */
  readonly onError?: (obj: T, err: unknown) => void;
  /** Whether status changed, so is written (default: not `semanticEqual`; the CSV's is upstream's four-field rule). */
  readonly statusChanged?: (stored: T['status'], out: T['status']) => boolean;
  /** After the write (also a needless or failed one) unless a step was `final` or it conflicted; `wrote`: it wrote. */
  readonly afterWrite?: (state: S, wrote: boolean, signal: AbortSignal) => Promise<void>;
  /** The result when no step gave one (e.g. a periodic resync), or a function of the state; default none. */
  readonly done?: Result | ((state: S) => Result | undefined);
  /**
   * Read your writes: a pass run before the informer has seen this reconciler's last write starts from that write, not
   * the older cached object (for steps that act on what status says, e.g. an InstallPlan's); kept per key while the cache lags.
   */
  readonly readYourWrites?: boolean;
  /** The key left the cache: drop what the controller keeps for it (and clean up what it leaves behind). */
  readonly forget?: (key: string, signal: AbortSignal) => void | Promise<void>;
  /**
   * Log `reconcile starting` and `reconcile ending` (info, naming the object) around every pass, as upstream's
   * ClusterCatalog, ClusterExtension and ClusterObjectSet reconcilers do (what upstream's e2e reads from a leader's log).
   */
  readonly logPasses?: boolean;
}

/** How many of an object's own recent writes are remembered (a pass writes at most a finalizer and its status). */
const OWN_WRITES_KEPT = 4;

export class ObjectReconciler<T extends KubeObject, S> implements Reconciler {
  readonly #o: ObjectReconcilerOptions<T, S>;
  readonly #writer: ObjectWriter<T>;
  readonly #logKey: string;
  /** By key: the resourceVersions its own recent writes gave the object, newest first. */
  readonly #written = new Map<string, string[]>();
  /** readYourWrites: by key, the cached resourceVersion a pass started from and the object its writes left. */
  readonly #latest = new Map<string, { readonly replaced: string; readonly stored: T }>();

  constructor(options: ObjectReconcilerOptions<T, S>) {
    this.#o = options;
    if (!options.writer && !options.client) throw new Error(`${options.kind} reconciler: a client or a writer is needed`);
    this.#writer = options.writer ?? kubeObjectWriter<T>(options.client!);
    this.#logKey = options.logKey ?? options.kind.charAt(0).toLowerCase() + options.kind.slice(1);
  }

  async reconcile(key: string, signal: AbortSignal): Promise<Result | void> {
    if (!this.#o.logPasses) return this.#reconcile(key, signal);
    const log = this.#o.logger.child({ [this.#logKey]: key });
    log.info('reconcile starting');
    try {
      return await this.#reconcile(key, signal);
    } finally {
      log.info('reconcile ending');
    }
  }

  async #reconcile(key: string, signal: AbortSignal): Promise<Result | void> {
    const o = this.#o;
    const inCache = o.get(key);
    if (!inCache) {
      this.#written.delete(key);
      this.#latest.delete(key);
      await o.forget?.(key, signal);
      return;
    }
    const cached = this.#readYourWrites(key, inCache);
    const obj = o.copy ? o.copy(cached) : structuredClone(cached);
    const log = o.logger.child({ [this.#logKey]: key });
    // What the API server holds as far as this pass knows: the cached status, then the one it wrote; whether the
    // object is gone (its last finalizer removed by this pass).
    const known = { status: cached.status as unknown, gone: false, startedFrom: inCache.metadata.resourceVersion ?? '' };
    const pass: Pass<T> = {
      key,
      cached,
      obj,
      log,
      writeStatus: async (s) => void (await this.#writeStatus(key, obj, known, s)),
      addFinalizer: (f, s) => this.#finalizers(key, obj, known, f, 'add', s),
      removeFinalizer: (f, s) => this.#finalizers(key, obj, known, f, 'remove', s),
    };

    const state = o.state(pass);
    let outcome: StepsOutcome | undefined;
    try {
      outcome = await runSteps(o.steps, state, signal);
    } catch (err) {
      o.onThrow?.(obj, err);
      outcome = { err, step: 'unknown' };
    }
    if (!untouched(cached, obj)) throw new Error(`${o.kind} ${key}: a reconcile step changed spec or metadata`);
    if (outcome !== undefined && isConflict(outcome.err)) return this.#conflict(log, outcome.err);
    if (outcome?.final) {
      if (outcome.err !== undefined) throw outcome.err;
      return outcome.result;
    }
    const errs: unknown[] = outcome?.err === undefined ? [] : [outcome.err];
    if (outcome?.err !== undefined) o.onError?.(obj, outcome.err);
    let wrote = false;
    try {
      wrote = await this.#writeStatus(key, obj, known, signal);
    } catch (err) {
      if (isConflict(err)) return this.#conflict(log, err);
      errs.push(new Error(`error updating status: ${errorMessage(err)}`, { cause: err }));
    }
    await o.afterWrite?.(state, wrote, signal).catch((err: unknown) => void errs.push(err));
    if (errs.length > 0) {
      const err = joinErrors(errs);
      if (isTerminal(err)) log.warn(`terminal error; not retrying until the ${o.kind} changes`, { err, step: outcome?.step });
      throw err;
    }
    return outcome?.result ?? (typeof o.done === 'function' ? o.done(state) : o.done);
  }

  /**
   * Whether a pass of this reconciler wrote the object at this resourceVersion: the pass decided with that state, so
   * the update event it causes needs no pass of its own.
   */
  ownWrite(key: string, resourceVersion: string | undefined): boolean {
    return resourceVersion !== undefined && (this.#written.get(key)?.includes(resourceVersion) ?? false);
  }

  #conflict(log: Logger, err: unknown): Result {
    log.debug('the object changed since it was read; reconciling again from fresh state', { err });
    return { requeue: true };
  }

  /** Writes `obj.status` when it changed and the object is there (a 404 is not an error); whether it wrote. */
  async #writeStatus(key: string, obj: T, known: { status: unknown; gone: boolean; startedFrom: string }, signal: AbortSignal): Promise<boolean> {
    const changed = this.#o.statusChanged ? this.#o.statusChanged(known.status as T['status'], obj['status'] as T['status']) : !semanticEqual(known.status ?? null, obj['status'] ?? null);
    if (known.gone || !changed) return false;
    try {
      const written = await this.#writer.updateStatus(obj, signal);
      if (written) {
        this.#wrote(key, written);
        obj.metadata.resourceVersion = written.metadata.resourceVersion;
      }
      if (this.#o.readYourWrites && written) this.#latest.set(key, { replaced: known.startedFrom, stored: written });
      else if (this.#o.readYourWrites) this.#latest.delete(key);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      known.gone = true;
    }
    known.status = structuredClone(obj['status']);
    return !known.gone;
  }

  async #finalizers(key: string, obj: T, known: { gone: boolean }, finalizer: string, change: 'add' | 'remove', signal: AbortSignal): Promise<void> {
    const has = obj.metadata.finalizers?.includes(finalizer) ?? false;
    if (has === (change === 'add')) return;
    const w = this.#writer;
    if (!w.addFinalizer || !w.removeFinalizer) throw new Error(`${this.#o.kind} ${key}: this controller's writer changes no finalizers`);
    const written = change === 'add' ? await w.addFinalizer(obj, finalizer, signal) : await w.removeFinalizer(obj, finalizer, signal);
    if (written) {
      this.#wrote(key, written);
      obj.metadata.finalizers = written.metadata.finalizers;
      obj.metadata.resourceVersion = written.metadata.resourceVersion;
    } else {
      obj.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      known.gone = true;
    }
  }

  /** The object a pass starts from: the cached one, or (readYourWrites) what this reconciler wrote over it. */
  #readYourWrites(key: string, cached: T): T {
    const mine = this.#latest.get(key);
    if (mine && mine.replaced === cached.metadata.resourceVersion) return mine.stored;
    this.#latest.delete(key);
    return cached;
  }

  #wrote(key: string, written: KubeObject): void {
    const rv = written.metadata.resourceVersion;
    if (rv) this.#written.set(key, [rv, ...(this.#written.get(key) ?? [])].slice(0, OWN_WRITES_KEPT));
  }
}

/** Whether the pass left everything but status, finalizers, resourceVersion and managedFields as cached. */
function untouched(before: KubeObject, after: KubeObject): boolean {
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (k === 'status' || k === 'metadata') continue;
    const a = before[k];
    const b = after[k];
    if (a !== b && !semanticEqual(a, b)) return false;
  }
  const { finalizers: _f, resourceVersion: _rv, managedFields: _mf, ...meta } = before.metadata;
  const { finalizers: _f2, resourceVersion: _rv2, managedFields: _mf2, ...meta2 } = after.metadata;
  return semanticEqual(meta, meta2);
}
