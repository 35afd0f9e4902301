// The BundleApplier: a bundle's objects become an immutable revision record, then are applied
// phase by phase with server-side apply; once the revision is healthy, what older revisions had
// and this one has not is deleted and the older revisions are archived.
//
// Order of writes, so that a process killed anywhere converges on the next call:
//   1. collision check (reads only)      4. mark the revision Succeeded
//   2. record the revision (chunks, head) 5. prune objects of older active revisions
//   3. apply phases (CRDs: Established)   6. archive older revisions, drop the oldest archived
// Every object is in a record before it exists on the cluster, and nothing is deleted before its
// replacement is applied and healthy. A revision is deleted head first, then its chunks: chunks a
// kill left without their head are swept before the next record, and once per extension per process.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { ClusterExtensionControllerFieldOwner } from '../../../api/v1/index.ts';
import { ignoreNotFound, isConflict, isNoKindMatch, isNotFound, refOf, type KubeClient } from '../../shared/kube/index.ts';
import { mapLimit } from '../../shared/controller/index.ts';
import { noopLogger, realClock, sleepOrThrow, type Clock, type Logger } from '../../shared/toolkit/index.ts';
import type { ApplyOutcome, BundleApplier, BundleRef, InstalledBundle, UninstallOutcome } from '../controller/index.ts';
import { ESTABLISH_REQUESTED, establishAction, probe, probeAll, stuckSince } from './health.ts';
import { describeRemaining, type Remaining } from './teardown.ts';
import { objectKey, PHASE_ORDER, type Phase } from './phases.ts';
import { buildPhases, fingerprint, ownedBy, phasesOf } from './record.ts';
import { RevisionStore, type RevisionHead } from './store.ts';

export interface RevisionApplierOptions {
  /** The controller's own client: revision records are written with it. */
  readonly client: KubeClient;
  /** Namespace of the revision records (operator-controller's own). */
  readonly systemNamespace: string;
  /** Server-side apply field manager of the extension's objects. */
  readonly fieldManager?: string;
  /** How long one call waits for new CRDs to become Established; default 10 s. */
  readonly crdEstablishedTimeoutMs?: number;
  /** Archived revisions kept per extension; default 5 (upstream's retention limit). */
  readonly retainArchived?: number;
  /** Requests in flight at once within a phase (and for collision reads); default 8. */
  readonly concurrency?: number;
  /** Bytes per revision chunk; default (1024-8) KiB. */
  readonly chunkBytes?: number;
  readonly logger?: Logger;
  /** Told of every object a rollout applied (whether or not it is healthy yet), e.g. to watch its kind. */
  readonly applied?: (objects: readonly KubeObject[]) => void;
  /**
   * The ServiceAccountInstalls gate (ours): requests about an extension's objects impersonate its
   * `spec.serviceAccount.name` when it names one. Default false: as upstream v1.11, the field is ignored and `client`
   * is used for everything.
   */
  readonly actAsServiceAccount?: boolean;
  /** Deadlines of its waits and the time of an establish request; default the toolkit's realClock. */
  readonly clock?: Clock;
}

/** Upstream's collision message (Helm's conflict error as operator-controller rewrites it). */
export function collisionMessage(obj: KubeObject): string {
  return `${obj.kind ?? ''} '${obj.metadata.name ?? ''}' already exists in namespace '${obj.metadata.namespace ?? ''}' and cannot be managed by operator-controller`;
}

export class CollisionError extends Error {
  override readonly name = 'CollisionError';
  readonly object: KubeObject;
  constructor(obj: KubeObject) {
    super(collisionMessage(obj));
    this.object = obj;
  }
}

export class RevisionApplier implements BundleApplier {
  readonly store: RevisionStore;
  readonly #client: KubeClient;
  /** The options as given; those read once are read there, with their defaults. */
  readonly #o: RevisionApplierOptions;
  readonly #fieldManager: string;
  readonly #concurrency: number;
  readonly #log: Logger;
  readonly #clock: Clock;
  /** Extensions whose headless chunks this process has swept (a delete that failed half-way clears its entry). */
  readonly #swept = new Set<string>();

  constructor(o: RevisionApplierOptions) {
    this.#client = o.client;
    this.store = new RevisionStore(o.client, o.systemNamespace, o.chunkBytes !== undefined ? { chunkBytes: o.chunkBytes } : {});
    this.#o = o;
    this.#fieldManager = o.fieldManager ?? ClusterExtensionControllerFieldOwner;
    this.#concurrency = Math.max(1, o.concurrency ?? 8);
    this.#log = o.logger ?? noopLogger;
    this.#clock = o.clock ?? realClock;
  }

  /** The client for the extension's objects: with `actAsServiceAccount`, its service account when it names one. */
  clientFor(ext: ClusterExtension): KubeClient {
    const sa = this.#o.actAsServiceAccount ? ext.spec?.serviceAccount?.name : undefined;
    return sa ? this.#client.asServiceAccount(ext.spec!.namespace, sa) : this.#client;
  }

  async installed(ext: ClusterExtension, signal: AbortSignal): Promise<InstalledBundle | undefined> {
    const heads = await this.store.list(ext.metadata.name!, signal);
    const head = heads.filter((h) => h.succeeded && !h.archived).at(-1);
    return head && { ...head.bundle, revision: head.name };
  }

  async apply(ext: ClusterExtension, bundle: BundleRef, objects: readonly KubeObject[], signal: AbortSignal): Promise<ApplyOutcome> {
    const name = ext.metadata.name!;
    const client = this.clientFor(ext);
    const phases = buildPhases(await this.#withNamespaces(client, objects, ext.spec!.namespace), name);
    const fp = fingerprint(bundle, phases);
    let heads = await this.store.list(name, signal);
    let target = heads.at(-1);
    let checked = false;
    if (!target || target.fingerprint !== fp || target.archived) {
      // Nothing is recorded, let alone applied, while an object belongs to someone else.
      await this.#checkCollisions(client, name, phases, signal);
      checked = true;
      await this.#sweep(name, signal, true);
      target = await this.store.create(name, (target?.number ?? 0) + 1, bundle, phases, fp, signal);
      heads = [...heads, target];
      this.#log.info('recorded revision', { clusterExtension: name, revision: target.name, bundle: bundle.name });
    } else if (bundle.properties !== undefined && target.bundle.properties === undefined) {
      // A record from before revisions kept the bundle's properties: add them to its head.
      await this.store.recordProperties(target, bundle.properties, signal);
    }
    return this.#rollout(client, name, target, phases, heads, signal, checked);
  }

  async maintain(ext: ClusterExtension, installed: InstalledBundle, signal: AbortSignal): Promise<ApplyOutcome> {
    const name = ext.metadata.name!;
    const heads = await this.store.list(name, signal);
    const head = heads.find((h) => h.name === installed.revision);
    if (!head) throw new Error(`revision ${installed.revision} of ClusterExtension ${name} not found`);
    const phases = phasesOf(await this.store.read(head, signal));
    return this.#rollout(this.clientFor(ext), name, head, phases, heads, signal);
  }

  /** Deletes chunks without a head: always with `force`, else the first time this process sees `name`. */
  async #sweep(name: string, signal: AbortSignal, force = false): Promise<void> {
    if (!force && this.#swept.has(name)) return;
    await this.store.sweep(name, signal);
    this.#swept.add(name);
  }

  /** Deletes a revision; when that stops half-way (head gone, chunks left) the next pass sweeps. */
  async #deleteRevision(name: string, head: RevisionHead, signal: AbortSignal): Promise<void> {
    await this.store.delete(head, signal).catch((err: unknown) => {
      this.#swept.delete(name);
      throw err;
    });
  }

  /**
   * Deletes every object any revision holds, phase by phase in reverse order (webhooks first,
   * namespaces last), and waits (≤ DELETE_WAIT_MS per call) for each phase's objects to be gone
   * before the next phase is deleted. While an object is still there (finalizers, a CRD whose
   * custom resources are being removed) the call returns `done: false` with one line per such
   * object saying why; the records go only once every object is gone, so a later call picks up
   * where this one stopped.
   */
  async uninstall(ext: ClusterExtension, signal: AbortSignal): Promise<UninstallOutcome> {
    const name = ext.metadata.name!;
    const client = this.clientFor(ext);
    const heads = await this.store.list(name, signal);
    const byPhase = new Map<string, Map<string, KubeObject>>();
    for (const head of heads) {
      for (const phase of phasesOf(await this.store.read(head, signal))) {
        let m = byPhase.get(phase.name);
        if (!m) byPhase.set(phase.name, (m = new Map()));
        for (const obj of phase.objects) m.set(objectKey(obj), obj);
      }
    }
    for (const phase of [...PHASE_ORDER].reverse()) {
      const objects = [...(byPhase.get(phase)?.values() ?? [])];
      if (!objects.length) continue;
      let left = (await mapLimit(objects, this.#concurrency, (obj) => this.#deleteOwned(client, name, obj, signal, true))).filter((o) => o !== undefined);
      const deadline = this.#clock.now() + DELETE_WAIT_MS;
      for (let delay = 50; left.length && this.#clock.now() < deadline; delay = Math.min(delay * 2, 500)) {
        await sleepOrThrow(Math.min(delay, Math.max(0, deadline - this.#clock.now())), signal);
        left = (await mapLimit(left, this.#concurrency, (obj) => this.#stillOwned(client, name, obj, signal))).filter((o) => o !== undefined);
      }
      if (left.length) {
        // Described: the first few (a condition message has room for about 32 KiB).
        const shown = await mapLimit(left.slice(0, MAX_DESCRIBED), this.#concurrency, (obj) => this.#remaining(client, obj, signal));
        const lines = shown.map(describeRemaining);
        if (left.length > shown.length) lines.push(`and ${left.length - shown.length} more`);
        this.#log.info('uninstall waits for objects to be deleted', { clusterExtension: name, phase, objects: lines });
        return { done: false, message: `waiting for ${left.length === 1 ? '1 object' : `${left.length} objects`} to be deleted:\n${lines.join('\n')}` };
      }
    }
    for (const head of heads.reverse()) await this.#deleteRevision(name, head, signal);
    await this.store.sweep(name, signal);
    this.#swept.delete(name);
    this.#log.info('uninstalled', { clusterExtension: name, revisions: heads.length });
    return { done: true };
  }

  async #rollout(
    client: KubeClient,
    name: string,
    head: RevisionHead,
    phases: readonly Phase[],
    heads: readonly RevisionHead[],
    signal: AbortSignal,
    collisionsChecked = false,
  ): Promise<ApplyOutcome> {
    // Also on every later pass: drift repair must not take over an object someone re-created.
    if (!collisionsChecked) await this.#checkCollisions(client, name, phases, signal);
    await this.#sweep(name, signal);
    const applied: KubeObject[] = [];
    try {
      for (const phase of phases) {
        signal.throwIfAborted();
        // Objects of one phase go out together (as upstream applies a phase), a few at a time.
        const inPhase = await mapLimit(phase.objects, this.#concurrency, (obj) => client.apply(obj, { fieldManager: this.#fieldManager, force: true, signal }));
        if (phase.name === 'crds') {
          const latest = await this.#waitEstablished(client, inPhase, signal);
          const waiting = probeAll(latest);
          await this.#establishRequests(client, latest, signal);
          if (waiting.length) return { installed: false, message: waiting.join('\n') };
          inPhase.splice(0, inPhase.length, ...latest);
        }
        applied.push(...inPhase);
      }
    } finally {
      if (applied.length) this.#o.applied?.(applied);
    }
    const problems = probeAll(applied);
    if (problems.length) return { installed: false, message: problems.join('\n') };

    await this.store.markSucceeded(head, signal);
    const older = heads.filter((h) => h.number < head.number && !h.archived);
    if (older.length) {
      const keep = new Set(phases.flatMap((p) => p.objects.map(objectKey)));
      for (const h of older) {
        const gone = phasesOf(await this.store.read(h, signal)).reverse();
        for (const phase of gone) {
          for (const obj of phase.objects) if (!keep.has(objectKey(obj))) await this.#deleteOwned(client, name, obj, signal);
        }
      }
      for (const h of older) await this.store.archive(h, signal);
      this.#log.info('rolled out revision', { clusterExtension: name, revision: head.name, archived: older.map((h) => h.name) });
    }
    const archived = heads.filter((h) => h.number < head.number);
    for (const h of archived.slice(0, Math.max(0, archived.length - (this.#o.retainArchived ?? 5)))) await this.#deleteRevision(name, h, signal);
    return { installed: true };
  }

  /** Objects of namespaced kinds without a namespace go to the install namespace. */
  async #withNamespaces(client: KubeClient, objects: readonly KubeObject[], installNamespace: string): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const obj of objects) {
      if (obj.metadata.namespace || !obj.apiVersion || !obj.kind) {
        out.push(obj);
        continue;
      }
      let namespaced = false;
      try {
        namespaced = (await client.mapping(obj.apiVersion, obj.kind)).namespaced;
      } catch (err) {
        // A kind whose CRD comes with this bundle is not served yet: assume what the renderer gave.
        if (!isNoKindMatch(err)) throw err;
      }
      out.push(namespaced ? { ...obj, metadata: { ...obj.metadata, namespace: installNamespace } } : obj);
    }
    return out;
  }

  async #current(client: KubeClient, obj: KubeObject, signal: AbortSignal): Promise<KubeObject | undefined> {
    return client.get(refOf(obj), { signal }).catch((err: unknown) => {
      if (isNotFound(err) || isNoKindMatch(err)) return undefined;
      throw err;
    });
  }

  async #checkCollisions(client: KubeClient, name: string, phases: readonly Phase[], signal: AbortSignal): Promise<void> {
    const objects = phases.flatMap((p) => p.objects);
    const current = await mapLimit(objects, this.#concurrency, (obj) => this.#current(client, obj, signal));
    // The first in apply order, as a sequential check would report it.
    const i = current.findIndex((c) => c !== undefined && !ownedBy(c, name));
    if (i >= 0) throw new CollisionError(objects[i]!);
  }

  /**
   * Deletes an object only while it still carries this extension's owner labels. With `check`,
   * resolves the object when it is still there afterwards (being deleted), undefined when gone.
   */
  async #deleteOwned(client: KubeClient, name: string, obj: KubeObject, signal: AbortSignal, check = false): Promise<KubeObject | undefined> {
    const current = await this.#current(client, obj, signal);
    if (!current || !ownedBy(current, name)) return undefined;
    if (!current.metadata.deletionTimestamp) {
      await ignoreNotFound(client.delete(refOf(obj), { propagationPolicy: 'Background', preconditions: { uid: current.metadata.uid! }, signal })).catch((err: unknown) => {
        // Replaced since the read (another uid): the next pass looks at the new one.
        if (!isConflict(err)) throw err;
      });
    }
    return check ? this.#stillOwned(client, name, obj, signal) : undefined;
  }

  /** The object as it is now, when it still exists with this extension's owner labels. */
  async #stillOwned(client: KubeClient, name: string, obj: KubeObject, signal: AbortSignal): Promise<KubeObject | undefined> {
    const current = await this.#current(client, obj, signal);
    return current && ownedBy(current, name) ? current : undefined;
  }

  /** What holds a deleted object: its own state, and for a CRD the first few custom resources left. */
  async #remaining(client: KubeClient, obj: KubeObject, signal: AbortSignal): Promise<Remaining> {
    if (obj.kind !== 'CustomResourceDefinition' || !obj.metadata.deletionTimestamp) return { object: obj };
    const spec = (obj as { spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; served?: boolean; storage?: boolean }[] } }).spec;
    const version = spec?.versions?.find((v) => v.storage) ?? spec?.versions?.find((v) => v.served);
    if (!spec?.group || !spec.names?.kind || !version) return { object: obj };
    try {
      const list = await client.list({ apiVersion: `${spec.group}/${version.name}`, kind: spec.names.kind }, { limit: 3, signal });
      const more = list.metadata?.remainingItemCount ?? 0;
      return { object: obj, customResources: { items: list.items, total: list.items.length + more } };
    } catch (err) {
      if (signal.aborted) throw err;
      return { object: obj }; // not allowed to list them, or the kind is no longer served: say what the CRD says
    }
  }

  /**
   * The API server establishes a CRD when it sees an update of one whose names are accepted; if it
   * stopped between accepting the names and establishing (a crash, a kill), nothing updates the
   * CRD again and it stays `Established=False` for good. A CRD whose names were accepted
   * STUCK_CRD_MS ago and is still not Established gets a metadata-only update (an annotation, by
   * a field manager of its own) that makes the API server look at it again; once it is
   * Established the annotation is removed again.
   */
  async #establishRequests(client: KubeClient, crds: readonly KubeObject[], signal: AbortSignal): Promise<void> {
    for (const crd of crds) {
      const action = establishAction(crd, this.#clock.date().getTime());
      if (!action) continue;
      if (action === 'request') {
        this.#log.warn('CRD names were accepted but it is not Established; asking the API server to establish it again', {
          crd: crd.metadata.name,
          namesAcceptedAt: new Date(stuckSince(crd) ?? 0).toISOString(),
        });
      } else {
        this.#log.info('CRD is Established; removing the establish request', { crd: crd.metadata.name });
      }
      const value = action === 'request' ? this.#clock.date().toISOString() : null;
      await ignoreNotFound(client.patch(refOf(crd), 'merge', { metadata: { annotations: { [ESTABLISH_REQUESTED]: value } } }, { fieldManager: `${this.#fieldManager}-establish`, signal }));
    }
  }

  /** Polls CRDs until all are Established or the timeout passes; returns their latest state. */
  async #waitEstablished(client: KubeClient, crds: readonly KubeObject[], signal: AbortSignal): Promise<KubeObject[]> {
    const deadline = this.#clock.now() + (this.#o.crdEstablishedTimeoutMs ?? 10_000);
    let latest = [...crds];
    while (latest.some((c) => probe(c).length) && this.#clock.now() < deadline) {
      await sleepOrThrow(100, signal);
      const fresh: KubeObject[] = [];
      for (const c of latest) fresh.push(probe(c).length ? ((await this.#current(client, c, signal)) ?? c) : c);
      latest = fresh;
    }
    return latest;
  }
}

/** Objects an unfinished uninstall describes by name (the rest are counted). */
const MAX_DESCRIBED = 10;
/** How long one `uninstall` call waits for a phase's deleted objects to disappear. */
const DELETE_WAIT_MS = 5_000;
