// The ClusterObjectSet reconciler (upstream's ClusterObjectSetReconciler, operator-controller
// controllers/clusterobjectset_controller.go, v1.11): named steps over one copy of the cached object, one status
// write at the end (with the resourceVersion the pass started from, so a conflict re-runs the pass from fresh state),
// and a guard that no step changed spec or metadata other than finalizers.
//
//   deleting           → release the teardown finalizer (the objects go with their owner, by garbage collection)
//   referenced Secret mutable                  → Progressing False/Blocked (no retry until something changes)
//   phases resolved (inline objects, Secret refs) and their digests; digests differ from status.observedPhases
//                                              → Progressing False/Blocked
//   Archived           → tear down what no later revision took over; then Progressing False/Archived,
//                        Available Unknown/Archived, and the finalizer released
//   Active             → teardown finalizer; watches on the objects' kinds; phases applied in order (engine.ts):
//       invalid objects / collisions          → Progressing True/Retrying, again in 10 s
//       rolling out                           → Progressing True/RollingOut, Available False/ProbeFailure (or RollingOut)
//       complete                              → earlier active revisions archived; Progressing True/Succeeded,
//                                               Available True/ProbesSucceeded, Succeeded True (latched)
//   Past spec.progressDeadlineMinutes without success, every non-terminal Progressing becomes
//   False/ProgressDeadlineExceeded "Revision has not rolled out for N minute(s). Last status: <message>".
import type { Condition } from '../../../api/meta/v1.ts';
import {
  BundleVersionKey,
  ClusterObjectSetKind,
  ClusterObjectSetReasonArchived,
  ClusterObjectSetReasonBlocked,
  ClusterObjectSetReasonProbeFailure,
  ClusterObjectSetReasonProbesSucceeded,
  ClusterObjectSetReasonReconciling,
  ClusterObjectSetReasonRetrying,
  ClusterObjectSetTypeAvailable,
  ClusterObjectSetTypeProgressing,
  ClusterObjectSetTypeSucceeded,
  GroupVersion,
  LifecycleStateActive,
  LifecycleStateArchived,
  OwnerNameKey,
  ReasonProgressDeadlineExceeded,
  ReasonRollingOut,
  ReasonSucceeded,
  TeardownFinalizer,
  type ClusterObjectSet,
  type ObservedPhase,
} from '../../../api/v1/index.ts';
import {
  ObjectReconciler,
  errorMessage,
  findCondition,
  realClock,
  setCondition,
  type Pass,
  type StepOutcome,
} from '../../shared/controller/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { LogFields, Logger } from '../../shared/observability/index.ts';
import { msUntilDeadline } from './deadline.ts';
import { collisionReport, inTransition, objectTitle, phaseComplete, revisionComplete, StaleError, type RevisionEngine, type RevisionIdentity } from './engine.ts';
import { probesReadBeyondStatus, progressionProber } from './probes.ts';
import { mutableSecretsProblem, observedPhasesProblem, referencedSecrets, resolvePhases, type ResolvedPhase, type SecretReader } from './resolve.ts';

/** How soon a revision with collisions or invalid objects is looked at again (upstream: a flat 10 s). */
export const RETRY_COLLISION_MS = 10_000;
/** How soon an archived revision whose objects are still being deleted is looked at again. */
export const RETRY_TEARDOWN_MS = 5_000;

export interface ClusterObjectSetReconcilerOptions {
  readonly client: KubeClient;
  /** The cached ClusterObjectSet for a key (an informer's `get`). */
  readonly get: (key: string) => ClusterObjectSet | undefined;
  /** Every cached ClusterObjectSet labelled owner-name=`owner`. */
  readonly byOwner: (owner: string) => readonly ClusterObjectSet[];
  readonly engine: RevisionEngine;
  /** Starts watches on the kinds of a revision's objects (their changes re-enqueue the revision). */
  readonly watch: (objects: readonly { apiVersion?: string; kind?: string; metadata: object }[]) => void;
  /** A Secret with its data (resolving a revision's refs). */
  readonly readSecret: SecretReader;
  /** A Secret's uid and `immutable` at least (a cache may answer); default readSecret. */
  readonly secretMeta?: SecretReader;
  /** Where Secret refs without a namespace point. */
  readonly systemNamespace: string;
  readonly logger: Logger;
  /** Wall-clock milliseconds (deadlines are counted from creationTimestamp); default the toolkit's realClock. */
  readonly now?: () => number;
}

/** What one pass knows; the steps fill it in order. */
interface PassState {
  readonly pass: Pass<ClusterObjectSet>;
  readonly cos: ClusterObjectSet;
  readonly log: Logger;
  /** Milliseconds before the deadline; undefined without one. */
  readonly deadlineLeftMs: number | undefined;
  /** Each referenced Secret read at most once per pass, and only when the phases must be resolved again. */
  readonly readSecret: SecretReader;
  readonly secretMeta: SecretReader;
  phases?: ResolvedPhase[];
  prober?: ReturnType<typeof progressionProber>;
  rev?: RevisionIdentity;
  applied?: Awaited<ReturnType<RevisionEngine['reconcile']>>;
  siblings?: ClusterObjectSet[];
}

const set = (cos: ClusterObjectSet, type: string, status: Condition['status'], reason: string, message: string): boolean =>
  setCondition(((cos.status ??= {}).conditions ??= []), { type, status, reason, message, observedGeneration: cos.metadata.generation ?? 0 });

/** Progressing=True with `reason`, unless the deadline passed and the reason is not Succeeded. */
function markProgressing(s: PassState, reason: string, message: string): void {
  if (reason !== ReasonSucceeded && s.deadlineLeftMs !== undefined && s.deadlineLeftMs <= 0) {
    set(
      s.cos,
      ClusterObjectSetTypeProgressing,
      'False',
      ReasonProgressDeadlineExceeded,
      `Revision has not rolled out for ${s.cos.spec?.progressDeadlineMinutes ?? 0} minute(s). Last status: ${message}`,
    );
    return;
  }
  set(s.cos, ClusterObjectSetTypeProgressing, 'True', reason, message);
}

/** upstream's setRetryingConditions: Progressing Retrying, and Available Unknown/Reconciling once Available exists. */
function markRetrying(s: PassState, message: string): void {
  markProgressing(s, ClusterObjectSetReasonRetrying, message);
  if (findCondition(s.cos.status?.conditions, ClusterObjectSetTypeAvailable)) set(s.cos, ClusterObjectSetTypeAvailable, 'Unknown', ClusterObjectSetReasonReconciling, message);
}

const markBlocked = (cos: ClusterObjectSet, message: string): void => void set(cos, ClusterObjectSetTypeProgressing, 'False', ClusterObjectSetReasonBlocked, message);

function markArchived(cos: ClusterObjectSet): boolean {
  const msg = 'revision is archived';
  const a = set(cos, ClusterObjectSetTypeProgressing, 'False', ClusterObjectSetReasonArchived, msg);
  const b = set(cos, ClusterObjectSetTypeAvailable, 'Unknown', ClusterObjectSetReasonArchived, msg);
  return a || b;
}

/**
 * The pass's copy: the cached spec; its own metadata (steps only assign finalizers and resourceVersion) and status
 * (conditions are changed in place, observedPhases assigned).
 */
function passCopy(cached: ClusterObjectSet): ClusterObjectSet {
  const status = cached.status;
  return {
    ...cached,
    metadata: { ...cached.metadata },
    ...(status !== undefined && { status: { ...status, ...(status.conditions && { conditions: status.conditions.map((c) => ({ ...c })) }) } }),
  };
}

/**
 * The ClusterObjectSet controller's reconciler: the shared object reconciler over the steps below (its `ownWrite` tells
 * whether a pass of it wrote the ClusterObjectSet at a resourceVersion, so the event that write causes needs no pass).
 */
export class ClusterObjectSetReconciler extends ObjectReconciler<ClusterObjectSet, PassState> {
  readonly #o: ClusterObjectSetReconcilerOptions;
  readonly #now: () => number;
  /**
   * By ClusterObjectSet uid: its resolved phases (owner label added) and digests, for its generation and the uids of
   * the Secrets its refs read. Phases are immutable and so are the Secrets, so while neither changed a pass reuses
   * them — and the engine its per-object work on them.
   */
  readonly #resolved = new Map<string, { readonly key: string; readonly phases: ResolvedPhase[]; readonly observed: ObservedPhase[] }>();

  constructor(o: ClusterObjectSetReconcilerOptions) {
    super({
      kind: ClusterObjectSetKind,
      client: o.client,
      get: o.get,
      steps: [
        { name: 'handleDeletion', run: (s, signal) => this.#handleDeletion(s, signal) },
        { name: 'checkSecrets', run: (s) => this.#checkSecrets(s) },
        { name: 'resolvePhases', run: (s) => this.#resolvePhases(s) },
        { name: 'archive', run: (s, signal) => this.#archive(s, signal) },
        { name: 'ensureFinalizer', run: (s, signal) => this.#ensureFinalizer(s, signal) },
        { name: 'apply', run: (s, signal) => this.#apply(s, signal) },
        { name: 'report', run: (s, signal) => this.#report(s, signal) },
      ],
      logger: o.logger,
      logPasses: true,
      copy: passCopy,
      state: (pass) => this.#state(pass),
      forget: (key) => {
        for (const [uid, r] of this.#resolved) if (r.key.startsWith(`${key}|`)) this.#resolved.delete(uid);
      },
    });
    this.#o = o;
    this.#now = o.now ?? ((): number => realClock.date().getTime());
  }

  #state(pass: Pass<ClusterObjectSet>): PassState {
    const reads = new Map<string, ReturnType<SecretReader>>();
    const readSecret: SecretReader = (namespace, name) => {
      const key = `${namespace}/${name}`;
      let r = reads.get(key);
      if (!r) reads.set(key, (r = this.#o.readSecret(namespace, name)));
      return r;
    };
    const cos = pass.obj;
    return { pass, cos, log: pass.log, deadlineLeftMs: msUntilDeadline(cos, this.#now()), readSecret, secretMeta: this.#o.secretMeta ?? readSecret };
  }

  /** Deleting: release the teardown finalizer (the objects go with their owner, by garbage collection). */
  async #handleDeletion(s: PassState, signal: AbortSignal): Promise<StepOutcome | undefined> {
    if (!s.cos.metadata.deletionTimestamp) return undefined;
    await s.pass.removeFinalizer(TeardownFinalizer, signal);
    return {};
  }

  /** Blocked takes precedence over ProgressDeadlineExceeded: it tells the user what to fix. */
  async #checkSecrets(s: PassState): Promise<StepOutcome | undefined> {
    const mutable = await mutableSecretsProblem(s.cos, this.#o.systemNamespace, s.secretMeta);
    if (mutable === undefined) return undefined;
    s.log.info('referenced Secret is mutable; blocked', { problem: mutable });
    markBlocked(s.cos, mutable);
    return {};
  }

  async #resolvePhases(s: PassState): Promise<StepOutcome | undefined> {
    const { cos } = s;
    try {
      const resolved = await this.#resolve(cos, s.secretMeta, s.readSecret);
      s.phases = resolved.phases;
      s.prober = progressionProber(cos.spec?.progressionProbes);
      const stored = cos.status?.observedPhases ?? [];
      if (stored.length === 0) {
        if (resolved.observed.length > 0) (cos.status ??= {}).observedPhases = resolved.observed;
      } else {
        const changed = observedPhasesProblem(stored, resolved.observed);
        if (changed !== undefined) {
          s.log.info('resolved phases changed; blocked', { problem: changed });
          markBlocked(cos, changed);
          return {};
        }
      }
    } catch (err) {
      markRetrying(s, errorMessage(err));
      return { err: new Error(`converting to revision: ${errorMessage(err)}`, { cause: err }) };
    }
    s.rev = {
      name: cos.metadata.name ?? '',
      uid: cos.metadata.uid ?? '',
      number: cos.spec?.revision ?? 0,
      ...(cos.metadata.finalizers && { finalizers: cos.metadata.finalizers }),
    };
    return undefined;
  }

  /** Archived: tear down what no later revision took over; then the conditions, and the finalizer on the next pass. */
  async #archive(s: PassState, signal: AbortSignal): Promise<StepOutcome | undefined> {
    if (s.cos.spec?.lifecycleState !== LifecycleStateArchived) return undefined;
    const rev = s.rev!;
    let td;
    try {
      td = await this.#o.engine.teardown(rev, s.phases!, signal);
    } catch (err) {
      const msg = `error archiving revision: ${errorMessage(err)}`;
      markRetrying({ ...s, deadlineLeftMs: undefined }, msg);
      return { err: new Error(msg, { cause: err }) };
    }
    if (!td.complete) {
      markRetrying({ ...s, deadlineLeftMs: undefined }, 'removing revision resources that are not owned by another revision');
      return { result: { requeueAfterMs: RETRY_TEARDOWN_MS } };
    }
    // Conditions first; the finalizer goes on the next pass.
    if (markArchived(s.cos)) return { result: { requeue: true } };
    await s.pass.removeFinalizer(TeardownFinalizer, signal);
    // Done with: what it resolved is not kept (a later pass, rare for an archived revision, resolves again).
    this.#resolved.delete(rev.uid);
    return {};
  }

  async #ensureFinalizer(s: PassState, signal: AbortSignal): Promise<undefined> {
    await s.pass.addFinalizer(TeardownFinalizer, signal);
    this.#o.watch(s.phases!.flatMap((p) => p.objects.map((o) => o.object)));
    return undefined;
  }

  /** The phases applied in order by the engine; a StaleError (decided on data that changed meanwhile) runs again. */
  async #apply(s: PassState, signal: AbortSignal): Promise<StepOutcome | undefined> {
    const { cos } = s;
    s.siblings = this.#activeSiblings(cos);
    try {
      s.applied = await this.#o.engine.reconcile(s.rev!, s.phases!, {
        probe: s.prober!,
        probeReadsBeyondStatus: probesReadBeyondStatus(cos.spec?.progressionProbes),
        siblings: new Set(s.siblings.map((c) => c.metadata.uid ?? '')),
        signal,
      });
    } catch (err) {
      if (err instanceof StaleError) {
        // Nothing to report: run again from fresh state.
        s.log.debug('object changed while applied; reconciling again', { reason: err.message });
        return { final: true, result: { requeue: true } };
      }
      markRetrying(s, `reconciling object: ${errorMessage(err)}`);
      return { err: new Error(`revision reconcile: ${errorMessage(err)}`, { cause: err }) };
    }
    return undefined;
  }

  /** What the engine did, in conditions: invalid objects and collisions retry; complete archives earlier revisions. */
  async #report(s: PassState, signal: AbortSignal): Promise<StepOutcome | undefined> {
    const { cos } = s;
    const res = s.applied!;
    const retry = (logMessage: string, fields: LogFields, message: string): StepOutcome => {
      s.log.info(logMessage, fields);
      markRetrying(s, message);
      return { result: { requeueAfterMs: RETRY_COLLISION_MS } };
    };
    if (res.validationError !== undefined) {
      return retry('revision validation failed; retrying in 10s', { problem: res.validationError }, `revision validation error: ${res.validationError}`);
    }
    for (const [i, p] of res.phases.entries()) {
      if (p.validationError !== undefined) {
        return retry('phase validation failed; retrying in 10s', { phase: i, problem: p.validationError }, `phase ${i} validation error: ${p.validationError}`);
      }
      const collisions = p.objects.filter((o) => o.action === 'Collision').map(collisionReport);
      if (collisions.length) {
        return retry('object collision; retrying in 10s', { phase: i, collisions: collisions.length }, `revision object collisions in phase ${i}\n${collisions.join('\n\n')}`);
      }
    }

    const version = cos.metadata.annotations?.[BundleVersionKey] ?? '';
    if (inTransition(res)) markProgressing(s, ReasonRollingOut, `Revision ${version} is rolling out.`);
    if (revisionComplete(res)) {
      for (const previous of s.siblings!.filter((c) => (c.spec?.revision ?? 0) < s.rev!.number)) {
        await this.#o.client.patch(
          { apiVersion: GroupVersion, kind: ClusterObjectSetKind, name: previous.metadata.name! },
          'merge',
          { spec: { lifecycleState: LifecycleStateArchived } },
          { signal },
        );
      }
      markProgressing(s, ReasonSucceeded, `Revision ${version} has rolled out.`);
      set(cos, ClusterObjectSetTypeAvailable, 'True', ClusterObjectSetReasonProbesSucceeded, 'Objects are available and pass all probes.');
      set(cos, ClusterObjectSetTypeSucceeded, 'True', ReasonSucceeded, 'Revision succeeded rolling out.');
      return {};
    }
    const failures: string[] = [];
    for (const p of res.phases) {
      if (phaseComplete(p)) continue;
      const failing = p.objects.find((o) => o.probe.status !== 'True');
      if (failing) failures.push(`Object ${objectTitle(failing.object)}: ${failing.probe.messages.join(' and ')}`);
    }
    if (failures.length) set(cos, ClusterObjectSetTypeAvailable, 'False', ClusterObjectSetReasonProbeFailure, failures.join('\n'));
    else set(cos, ClusterObjectSetTypeAvailable, 'False', ReasonRollingOut, `Revision ${version} is rolling out.`);
    markProgressing(s, ReasonRollingOut, `Revision ${version} is rolling out.`);
    if (s.deadlineLeftMs !== undefined && s.deadlineLeftMs > 0) return { result: { requeueAfterMs: s.deadlineLeftMs } };
    return {};
  }

  /**
   * The revision's phases resolved, with the controller's own addition made after the digest (every object carries the
   * owner-name label of its revision); reused while the generation and the referenced Secrets' uids are the same.
   */
  async #resolve(cos: ClusterObjectSet, meta: SecretReader, read: SecretReader): Promise<{ phases: ResolvedPhase[]; observed: ObservedPhase[] }> {
    const refs: string[] = [];
    for (const { namespace, name } of referencedSecrets(cos, this.#o.systemNamespace)) refs.push(`${namespace}/${name}@${(await meta(namespace, name))?.metadata.uid ?? ''}`);
    const uid = cos.metadata.uid ?? cos.metadata.name ?? '';
    const key = `${cos.metadata.name}|${cos.metadata.generation ?? 0}|${refs.join(',')}`;
    const known = this.#resolved.get(uid);
    if (known?.key === key) return known;
    const resolved = await resolvePhases(cos, this.#o.systemNamespace, read);
    const owner = cos.metadata.labels?.[OwnerNameKey] ?? '';
    for (const p of resolved.phases) for (const o of p.objects) o.object.metadata.labels = { ...o.object.metadata.labels, [OwnerNameKey]: owner };
    this.#resolved.set(uid, { key, ...resolved });
    return resolved;
  }

  /** The other active, not deleted revisions of the same extension (upstream's listSiblingRevisions). */
  #activeSiblings(cos: ClusterObjectSet): ClusterObjectSet[] {
    const owner = cos.metadata.labels?.[OwnerNameKey];
    if (owner === undefined) return [];
    return this.#o
      .byOwner(owner)
      .filter((c) => c.metadata.name !== cos.metadata.name && c.spec?.lifecycleState === LifecycleStateActive && !c.metadata.deletionTimestamp);
  }
}
