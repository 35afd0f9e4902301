// How one revision's objects reach the cluster and leave it: the rules of upstream's runtime (package-operator's
// boxcutter `machinery`, v0.14, which operator-controller v1.11 runs ClusterObjectSets with), on our Kubernetes client.
//
// Reconcile, per object (revision n, owner = the ClusterObjectSet):
//   - the object gets the label app.kubernetes.io/managed-by=olm.operatorframework.io, the annotation
//     olm.operatorframework.io/revision=n and a controller owner reference to the ClusterObjectSet;
//   - absent → created (POST, so an object we could not see is never overwritten); AlreadyExists → read and go on;
//   - controlled by this revision → server-side applied (field manager olm.operatorframework.io, force), which also
//     repairs drift and drops fields a newer revision no longer holds; user fields of other managers stay;
//   - controlled by a sibling revision of the same extension: newer (its revision annotation > n) → left, "Progressed";
//     older → adopted (its owner reference kept, controller moved to us; it drops the reference when archived);
//   - no controller: adopted with collisionProtection IfNoController or None, unless the object was ours once (it
//     carries the revision annotation: the garbage collector may be about to delete it) → collision;
//   - controlled by anything else: adopted only with None, else a collision naming the owner.
//   Writes carry the resourceVersion they were decided on, so a decision made on stale data fails with a conflict and
//   is made again from fresh data.
// A phase is complete when none of its objects collided and each passes the progress probe; the revision goes
// phase by phase and stops at the first incomplete one. Teardown goes phase by phase in reverse: an object another
// revision took over only loses our owner reference; one still ours is deleted and waited for.
import { createHash } from 'node:crypto';
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import { ClusterObjectSetKind, FieldOwnerPrefix, GroupVersion, ManagedByLabel, ObjectRevisionAnnotation, type CollisionProtection } from '../../../api/v1/index.ts';
import { mapLimit } from '../../shared/controller/index.ts';
import { goJSONValue } from '../../shared/gocompat/index.ts';
import { isAlreadyExists, isBadRequest, isConflict, isInvalid, isNotFound, refOf, type KubeClient } from '../../shared/kube/index.ts';
import { groupOf, versionOf } from '../applier/index.ts';
import type { Prober, ProbeResult } from './probes.ts';
import type { ResolvedPhase } from './resolve.ts';
import { DRIFT_KEY, driftKey } from './watch.ts';

export type Action = 'Created' | 'Updated' | 'Recovered' | 'Progressed' | 'Idle' | 'Collision';

export interface ObjectResult {
  readonly action: Action;
  /** The object as last seen (the API server's answer to the write, or the live object). */
  readonly object: KubeObject;
  readonly probe: ProbeResult;
  /** The controller that made it a collision, when there is one. */
  readonly conflictingOwner?: OwnerReference;
}

export interface PhaseResult {
  readonly name: string;
  /** A problem with the phase's objects the API server refused as invalid (upstream: phase validation). */
  readonly validationError?: string;
  readonly objects: readonly ObjectResult[];
}

export interface RevisionResult {
  readonly phaseNames: readonly string[];
  /** Problems found before anything is written (object metadata, phase names, duplicates). */
  readonly validationError?: string;
  /** The phases acted on, in order; the last may be incomplete. */
  readonly phases: readonly PhaseResult[];
}

/** The revision being applied. */
export interface RevisionIdentity {
  readonly name: string;
  readonly uid: string;
  readonly number: number;
  /** Finalizers of the ClusterObjectSet (the garbage collector's `orphan` changes teardown). */
  readonly finalizers?: readonly string[];
}

/** Metadata of managed objects as the watch cache has them (undefined: not cached, ask the API server). */
export type MetaCache = (apiVersion: string, kind: string, namespace: string | undefined, name: string) => KubeObject | undefined;

/** Whether the watch cache of a kind is synced (an object it lacks is not there as a managed object). */
export type CacheSynced = (apiVersion: string, kind: string) => boolean;

/** A decision made on stale data: the object changed between reading and writing. Retry from fresh data. */
export class StaleError extends Error {
  override readonly name = 'StaleError';
}

export const phaseComplete = (p: PhaseResult): boolean =>
  p.validationError === undefined && p.objects.every((r) => r.action !== 'Collision' && r.probe.status === 'True');
/** Some phase still moving: objects handed to a newer revision or colliding, or phases not reached yet. */
export function inTransition(r: RevisionResult): boolean {
  for (const p of r.phases) {
    if (p.validationError !== undefined || p.objects.every((o) => o.action === 'Progressed')) continue;
    if (p.objects.some((o) => o.action === 'Collision' || o.action === 'Progressed')) return true;
  }
  if (r.validationError !== undefined) return false;
  return r.phases.length < r.phaseNames.length;
}
export const revisionComplete = (r: RevisionResult): boolean => r.phases.length === r.phaseNames.length && r.phases.every(phaseComplete);

/** `group/version, Kind=Kind ns/name`, as boxcutter's ObjectRef prints. */
export function objectRefString(obj: KubeObject): string {
  return `${groupOf(obj.apiVersion)}/${versionOf(obj.apiVersion)}, Kind=${obj.kind ?? ''} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** `Kind.group/version ns/name` (core: `Kind.v1`), the way results name an object. */
export function objectTitle(obj: KubeObject): string {
  return `${obj.kind ?? ''}.${obj.apiVersion ?? ''} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

const ownerRefString = (r: OwnerReference): string =>
  `&OwnerReference{Kind:${r.kind},Name:${r.name},UID:${r.uid},APIVersion:${r.apiVersion},Controller:*${String(r.controller ?? false)},BlockOwnerDeletion:*${String(r.blockOwnerDeletion ?? false)},}`;

/** boxcutter's report of a collision (ObjectResultCollision.String without comparison details). */
export function collisionReport(r: ObjectResult): string {
  let out = `Object ${objectTitle(r.object)}\nAction: "Collision"\n`;
  if (r.probe.messages.length) out += `Probes:\n- progress: ${r.probe.status === 'True' ? 'Succeeded' : r.probe.status === 'False' ? 'Failed' : 'Unknown'}\n` + r.probe.messages.map((m) => `  - ${m}\n`).join('');
  out += `Conflicting Owner: ${r.conflictingOwner ? ownerRefString(r.conflictingOwner) : 'nil'}\n`;
  return out;
}

/** boxcutter's static revision checks (validation.RevisionValidator): object metadata, phase names, duplicates. */
export function validateRevision(name: string, number: number, phases: readonly ResolvedPhase[]): string | undefined {
  const seen = new Map<string, string[]>();
  for (const p of phases) {
    for (const { object } of p.objects) {
      const key = objectRefString(object);
      const list = seen.get(key) ?? [];
      if (!list.includes(p.name)) list.push(p.name);
      seen.set(key, list);
    }
  }
  const phaseErrors: string[] = [];
  for (const p of phases) {
    const objectErrors: string[] = [];
    for (const { object } of p.objects) {
      const errs = metadataErrors(object);
      if (errs.length) objectErrors.push(`${objectRefString(object)}: ${errs.join(', ')}`);
    }
    for (const [key, names] of seen) {
      if (names.length > 1 && names.includes(p.name)) objectErrors.push(`${key}: duplicate object found in phases: ${[...names].sort().join(', ')}`);
    }
    const nameProblem = dns1035LabelProblems(p.name);
    const problems = [...(nameProblem.length ? [`phase name invalid: ${nameProblem.join(', ')}`] : []), ...objectErrors];
    if (problems.length) phaseErrors.push(`phase "${p.name}": ${problems.join(', ')}`);
  }
  return phaseErrors.length ? `revision "${name}" (${number}): ${phaseErrors.join(', ')}` : undefined;
}

function metadataErrors(obj: KubeObject): string[] {
  const errs: string[] = [];
  if (!versionOf(obj.apiVersion)) errs.push('apiVersion: Required value: must not be empty');
  if (!obj.kind) errs.push('kind: Required value: must not be empty');
  const m = obj.metadata;
  if (m.uid) errs.push('metadata.uid: Forbidden: must be empty');
  if ((m.generation ?? 0) > 0) errs.push('metadata.generation: Forbidden: must be empty');
  if (m.generateName) errs.push('metadata.generateName: Forbidden: must be empty');
  if (m.finalizers?.length) errs.push('metadata.finalizers: Forbidden: must be empty');
  if (m.ownerReferences?.length) errs.push('metadata.ownerReferences: Forbidden: must be empty');
  if (m.resourceVersion) errs.push('metadata.resourceVersion: Forbidden: must be empty');
  return errs;
}

/** apimachinery's IsDNS1035Label messages. */
function dns1035LabelProblems(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v)) {
    out.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return out;
}

const controllerOf = (refs: readonly OwnerReference[] | undefined): OwnerReference | undefined => refs?.find((r) => r.controller === true);
const revisionOf = (obj: KubeObject): number => {
  const v = obj.metadata.annotations?.[ObjectRevisionAnnotation];
  const n = v === undefined || v === '' ? 0 : Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : 0;
};

export interface ObjectEngineOptions {
  readonly client: KubeClient;
  readonly cache: MetaCache;
  /** Absent: the cache is never trusted to say an object is gone. */
  readonly synced?: CacheSynced;
  /** How many objects of one phase are written at once (default 8). */
  readonly concurrency?: number;
}

export interface ReconcileOptions {
  readonly probe: Prober;
  /** Whether probing an object needs more than its cached metadata and status (see probesReadBeyondStatus). */
  readonly probeReadsBeyondStatus?: (obj: KubeObject) => boolean;
  /** UIDs of the other active revisions of the same extension (handover is not a collision). */
  readonly siblings: ReadonlySet<string>;
  readonly signal?: AbortSignal;
}

/** What the engine remembers of an object it wrote: for which revision, what it wrote, and what it then looked like. */
interface Applied {
  readonly revision: string;
  readonly desired: string;
  readonly drift: string;
  readonly resourceVersion: string;
}

/** Whether the object carries every label and annotation the desired form sets, with the same values, and is not being deleted. */
function metadataHolds(actual: KubeObject, desired: KubeObject): boolean {
  const a = actual.metadata;
  if (a.deletionTimestamp) return false;
  for (const [k, v] of Object.entries(desired.metadata.labels ?? {})) if (a.labels?.[k] !== v) return false;
  for (const [k, v] of Object.entries(desired.metadata.annotations ?? {})) if (a.annotations?.[k] !== v) return false;
  return true;
}

export class RevisionEngine {
  readonly #client: KubeClient;
  readonly #cache: MetaCache;
  readonly #synced: CacheSynced;
  readonly #concurrency: number;
  /**
   * By object uid: the last write of this process. An object the same revision already applied with the same content,
   * its body unchanged since (its drift key) and its labels and annotations still as wanted, is left as it is ("Idle",
   * as upstream's comparator finds it) and probed from the watch cache, so a pass caused by a status change costs no
   * write. Changes by others to what the engine does not set (another controller's annotation, another revision's
   * owner reference) are no drift.
   */
  readonly #applied = new Map<string, Applied>();
  readonly #desired = new WeakMap<KubeObject, { readonly rev: string; readonly number: number; readonly desired: KubeObject; readonly hash: string; readonly ours: OwnerReference }>();

  constructor(o: ObjectEngineOptions) {
    this.#client = o.client;
    this.#cache = o.cache;
    this.#synced = o.synced ?? (() => false);
    this.#concurrency = o.concurrency ?? 8;
  }

  /** Applies the phases in order until one is incomplete. Errors of objects are gathered per phase and thrown. */
  async reconcile(rev: RevisionIdentity, phases: readonly ResolvedPhase[], o: ReconcileOptions): Promise<RevisionResult> {
    const phaseNames = phases.map((p) => p.name);
    const validationError = validateRevision(rev.name, rev.number, phases);
    if (validationError !== undefined) return { phaseNames, validationError, phases: [] };
    const results: PhaseResult[] = [];
    for (const phase of phases) {
      const res = await this.#reconcilePhase(rev, phase, o);
      results.push(res);
      if (!phaseComplete(res)) break;
    }
    return { phaseNames, phases: results };
  }

  async #reconcilePhase(rev: RevisionIdentity, phase: ResolvedPhase, o: ReconcileOptions): Promise<PhaseResult> {
    const errors: Error[] = [];
    const invalid: string[] = [];
    const settled = await mapLimit(phase.objects, this.#concurrency, async ({ object, collisionProtection }) => {
      try {
        return await this.reconcileObject(rev, object, collisionProtection, o);
      } catch (err) {
        if (err instanceof StaleError) throw err;
        if (isInvalid(err) || isBadRequest(err)) invalid.push(`${objectRefString(object)}: ${(err as Error).message}`);
        else errors.push(new Error(`reconciling ${objectRefString(object)}: ${(err as Error).message}`, { cause: err }));
        return undefined;
      }
    });
    if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'), { cause: errors[0] });
    const objects = settled.filter((r): r is ObjectResult => r !== undefined);
    return { name: phase.name, objects, ...(invalid.length && { validationError: `phase "${phase.name}": ${invalid.join(', ')}` }) };
  }

  /**
   * An object as revision `rev` writes it — the managed-by label, the revision annotation, the controller reference —
   * and its hash; worked out once per input object (the reconciler hands the same objects to every pass of a revision).
   */
  #desiredOf(rev: RevisionIdentity, object: KubeObject): { readonly desired: KubeObject; readonly hash: string; readonly ours: OwnerReference } {
    const known = this.#desired.get(object);
    if (known && known.rev === rev.uid && known.number === rev.number) return known;
    const ours: OwnerReference = { apiVersion: GroupVersion, kind: ClusterObjectSetKind, name: rev.name, uid: rev.uid, controller: true, blockOwnerDeletion: true };
    // New metadata over the input object's body (shared: nothing here or in the client changes it).
    const desired: KubeObject = {
      ...object,
      metadata: {
        ...object.metadata,
        labels: { ...object.metadata.labels, [ManagedByLabel]: FieldOwnerPrefix },
        annotations: { ...object.metadata.annotations, [ObjectRevisionAnnotation]: String(rev.number) },
        ownerReferences: [ours],
      },
    };
    const made = { rev: rev.uid, number: rev.number, desired, ours, hash: createHash('sha1').update(goJSONValue(desired, true)).digest('base64') };
    this.#desired.set(object, made);
    return made;
  }

  /** One object brought to what revision `rev` wants, or refused as a collision. */
  async reconcileObject(rev: RevisionIdentity, object: KubeObject, protection: CollisionProtection, o: ReconcileOptions): Promise<ObjectResult> {
    const prepared = this.#desiredOf(rev, object);
    const { ours } = prepared;
    // Writes change their copy's metadata (resourceVersion, owner references); the prepared object stays as it is.
    const desired = (): KubeObject => ({ ...prepared.desired, metadata: { ...prepared.desired.metadata } });
    const withProbe = (action: Action, obj: KubeObject, conflictingOwner?: OwnerReference): ObjectResult => ({
      action,
      object: obj,
      probe: o.probe(obj),
      ...(conflictingOwner && { conflictingOwner }),
    });

    const target = prepared.desired;
    let actual = this.#cache(target.apiVersion ?? '', target.kind ?? '', target.metadata.namespace, target.metadata.name ?? '');
    if (!actual) {
      try {
        const created = await this.#client.create(desired(), { fieldManager: FieldOwnerPrefix, ...(o.signal && { signal: o.signal }) });
        this.#remember(rev, prepared.hash, created);
        return withProbe('Created', created);
      } catch (err) {
        if (!isAlreadyExists(err)) throw new Error(`creating resource: ${(err as Error).message}`, { cause: err });
      }
      actual = await this.#client.get(refOf(target), o.signal ? { signal: o.signal } : {});
    }

    const ctrl = controllerOf(actual.metadata.ownerReferences);
    const current = actual;
    const collision = async (owner?: OwnerReference): Promise<ObjectResult> => withProbe('Collision', await this.#full(current, o.signal), owner);
    const adopt = async (): Promise<ObjectResult> => withProbe('Updated', this.#remember(rev, prepared.hash, await this.#adopt(desired(), current, ours, o.signal)));
    if (!ctrl) return protection === 'Prevent' || revisionOf(actual) !== 0 ? collision() : adopt();
    if (ctrl.uid === rev.uid) {
      const seen = this.#applied.get(actual.metadata.uid ?? '');
      const drift = (actual[DRIFT_KEY] as string | undefined) ?? driftKey(actual);
      if (seen && seen.revision === rev.uid && seen.desired === prepared.hash && seen.drift === drift && metadataHolds(actual, prepared.desired)) {
        const probed = o.probeReadsBeyondStatus?.(actual) ? await this.#full(actual, o.signal, true) : actual;
        return withProbe('Idle', probed);
      }
      return withProbe('Updated', this.#remember(rev, prepared.hash, await this.#apply(desired(), actual, o.signal)));
    }
    if (!o.siblings.has(ctrl.uid)) return protection !== 'None' ? collision(ctrl) : adopt();
    // A sibling revision: a newer one has taken the object over, an older one hands it over.
    const theirs = revisionOf(actual);
    if (theirs > rev.number) return withProbe('Progressed', await this.#full(actual, o.signal));
    return theirs < rev.number ? adopt() : collision(ctrl);
  }

  /** Notes what revision `rev` wrote (the API server's answer); returns it. */
  #remember(rev: RevisionIdentity, desiredHash: string, written: KubeObject): KubeObject {
    const uid = written.metadata.uid;
    if (uid) this.#applied.set(uid, { revision: rev.uid, desired: desiredHash, drift: driftKey(written), resourceVersion: written.metadata.resourceVersion ?? '' });
    return written;
  }

  /** Whether this engine's last write of the object gave it this resourceVersion (its answer was already acted on). */
  ownWrite(uid: string, resourceVersion: string): boolean {
    return resourceVersion !== '' && this.#applied.get(uid)?.resourceVersion === resourceVersion;
  }

  /** Forgets an object (deleted): the next write to one of that name starts afresh. */
  forget(uid: string): void {
    this.#applied.delete(uid);
  }

  /** The full object when `obj` is only cached metadata (and status). */
  async #full(obj: KubeObject, signal?: AbortSignal, always = false): Promise<KubeObject> {
    if (!always && obj[DRIFT_KEY] === undefined) return obj;
    return this.#client.get(refOf(obj), signal ? { signal } : {}).catch((err: unknown) => {
      throw isNotFound(err) ? new StaleError(`${objectRefString(obj)} is gone`) : err;
    });
  }

  /** Takes an object over: its owner references are kept, none as controller any more, and this revision becomes its controller. */
  async #adopt(desired: KubeObject, actual: KubeObject, ours: OwnerReference, signal?: AbortSignal): Promise<KubeObject> {
    const kept = (actual.metadata.ownerReferences ?? []).filter((r) => r.uid !== ours.uid).map((r) => ({ ...r, controller: false }));
    desired.metadata.ownerReferences = [...kept, ours];
    return this.#apply(desired, actual, signal);
  }

  async #apply(desired: KubeObject, actual: KubeObject, signal?: AbortSignal): Promise<KubeObject> {
    desired.metadata.resourceVersion = actual.metadata.resourceVersion;
    return this.#client.apply(desired, { fieldManager: FieldOwnerPrefix, force: true, ...(signal && { signal }) }).catch((err: unknown) => {
      throw isConflict(err) || isNotFound(err) ? new StaleError(`${objectRefString(desired)} changed while it was applied: ${(err as Error).message}`) : err;
    });
  }

  /**
   * Removes what revision `rev` holds, phases in reverse: true when nothing of it is left. Objects another revision
   * controls only lose our owner reference; with the garbage collector orphaning the revision's dependents (the
   * `orphan` finalizer) objects keep existing and only lose the runtime's label and annotation.
   */
  async teardown(rev: RevisionIdentity, phases: readonly ResolvedPhase[], signal?: AbortSignal): Promise<{ complete: boolean; waiting: string[] }> {
    for (const phase of [...phases].reverse()) {
      const waiting: string[] = [];
      await mapLimit(phase.objects, this.#concurrency, async ({ object }) => {
        if (!(await this.#teardownObject(rev, object, signal))) waiting.push(objectRefString(object));
      });
      if (waiting.length) return { complete: false, waiting };
    }
    return { complete: true, waiting: [] };
  }

  async #teardownObject(rev: RevisionIdentity, object: KubeObject, signal?: AbortSignal): Promise<boolean> {
    const ref = refOf(object);
    // The watch cache answers for objects the runtime labelled; anything else is read from the API server.
    let actual = this.#cache(object.apiVersion ?? '', object.kind ?? '', object.metadata.namespace, object.metadata.name ?? '');
    // Not among the managed objects of a synced cache: gone, or no longer labelled as ours (not ours to delete).
    if (!actual && this.#synced(object.apiVersion ?? '', object.kind ?? '') && !rev.finalizers?.includes('orphan')) return true;
    actual ??= await this.#client.get(ref, signal ? { signal } : {}).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw new Error(`getting object before deletion: ${(err as Error).message}`, { cause: err });
    });
    if (!actual) return true;
    if (rev.finalizers?.includes('orphan')) {
      if (!(ManagedByLabel in (actual.metadata.labels ?? {})) && !(ObjectRevisionAnnotation in (actual.metadata.annotations ?? {}))) return true;
      await this.#client.patch(ref, 'merge', { metadata: { labels: { [ManagedByLabel]: null }, annotations: { [ObjectRevisionAnnotation]: null } } }, signal ? { signal } : {});
      return true;
    }
    const ctrl = controllerOf(actual.metadata.ownerReferences);
    if (revisionOf(actual) !== rev.number && ctrl?.uid !== rev.uid) {
      const refs = actual.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === rev.uid)) return true;
      // The list is replaced whole: only if it is still the one read (the cache may lag). Gone is done; a conflict retries.
      const patch = { metadata: { resourceVersion: actual.metadata.resourceVersion, ownerReferences: refs.filter((r) => r.uid !== rev.uid) } };
      return this.#client.patch(ref, 'merge', patch, signal ? { signal } : {}).then(
        () => true,
        (err: unknown) => (isNotFound(err) ? true : isConflict(err) ? false : Promise.reject(err)),
      );
    }
    if (actual.metadata.deletionTimestamp) return false;
    const preconditions = { ...(actual.metadata.uid && { uid: actual.metadata.uid }), ...(actual.metadata.resourceVersion && { resourceVersion: actual.metadata.resourceVersion }) };
    // Deleted: wait until it is gone. Gone already is done; a conflict retries.
    return this.#client.delete(ref, { preconditions, ...(signal && { signal }) }).then(
      () => false,
      (err: unknown) => (isNotFound(err) ? true : isConflict(err) ? false : Promise.reject(new Error(`deleting object: ${(err as Error).message}`, { cause: err }))),
    );
  }
}
