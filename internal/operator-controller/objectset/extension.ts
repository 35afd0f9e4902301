// The ClusterExtension side of the ClusterObjectSet runtime (upstream's Boxcutter applier and revision generator,
// operator-controller internal/operator-controller/applier/boxcutter.go + secretpacker.go, v1.11): a rendered bundle
// becomes the desired revision; when it differs from the newest one (a server-side apply onto it is refused as
// invalid, since phases are immutable) it becomes a new ClusterObjectSet `<extension>-<n+1>` whose objects live in
// immutable Secrets; the revisions are read back as "installed" (the newest that succeeded) and "rolling out".
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Condition, KubeObject } from '../../../api/meta/v1.ts';
import {
  BundleVersionKey,
  ClusterExtensionControllerFieldOwner,
  ClusterExtensionKind,
  ClusterObjectSetKind,
  ClusterObjectSetTypeSucceeded,
  GroupVersion,
  LifecycleStateArchived,
  MigratedFromRevisionSecretsKey,
  MigratedFromSubscriptionKey,
  ObjectDataSecretType,
  OwnerKindKey,
  OwnerNameKey,
  PackageNameKey,
  ReasonSucceeded,
  RevisionNameKey,
  type ClusterExtension,
  type ClusterObjectSet,
  type ClusterObjectSetPhase,
  type CollisionProtection,
  type ProgressionProbe,
} from '../../../api/v1/index.ts';
import { isTrue, setCondition } from '../../shared/controller/index.ts';
import { goJSONValue } from '../../shared/gocompat/index.ts';
import { isAlreadyExists, isInvalid, ignoreNotFound, isNotFound, SECRET_KIND, type KubeClient, type Secret } from '../../shared/kube/index.ts';
import { noopLogger, type Logger } from '../../shared/observability/index.ts';
import { bundleAnnotations, bundleFromAnnotations, RevisionStore, sanitize, sortIntoPhases } from '../applier/index.ts';
import type { BundleRef, RevisionMetadata, RevisionStates, UninstallOutcome } from '../controller/index.ts';

/** Archived revisions kept per extension (upstream's ClusterObjectSetRetentionLimit). */
export const RETENTION_LIMIT = 5;
/** Objects above this size are gzip'd before they go into a Secret; no Secret holds more data than this. */
export const MAX_SECRET_DATA_BYTES = 900 * 1024;

const COS = { apiVersion: GroupVersion, kind: ClusterObjectSetKind } as const;

const groupKindProbe = (group: string, kind: string, assertions: ProgressionProbe['assertions']): ProgressionProbe => ({
  selector: { type: 'GroupKind', groupKind: { group, kind } },
  assertions,
});
const ready: ProgressionProbe['assertions'][number] = { type: 'ConditionEqual', conditionEqual: { type: 'Ready', status: 'True' } };
const rolledOut: ProgressionProbe['assertions'] = [
  { type: 'FieldsEqual', fieldsEqual: { fieldA: 'status.updatedReplicas', fieldB: 'status.replicas' } },
  { type: 'ConditionEqual', conditionEqual: { type: 'Available', status: 'True' } },
];

/** The probes every revision of an extension carries (upstream's defaultProgressionProbes, in its order). */
export const DEFAULT_PROGRESSION_PROBES: readonly ProgressionProbe[] = [
  groupKindProbe('apiextensions.k8s.io', 'CustomResourceDefinition', [{ type: 'ConditionEqual', conditionEqual: { type: 'Established', status: 'True' } }]),
  groupKindProbe('cert-manager.io', 'Certificate', [ready]),
  groupKindProbe('cert-manager.io', 'Issuer', [ready]),
  groupKindProbe('', 'Namespace', [{ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value: 'Active' } }]),
  groupKindProbe('', 'PersistentVolumeClaim', [{ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value: 'Bound' } }]),
  groupKindProbe('apps', 'StatefulSet', rolledOut),
  groupKindProbe('apps', 'Deployment', rolledOut),
];

/** The desired revision of a bundle, with its objects inline (not yet named or numbered). */
export function desiredRevision(ext: ClusterExtension, bundle: BundleRef, objects: readonly KubeObject[], collisionProtection: CollisionProtection = 'Prevent'): ClusterObjectSet {
  const extension = ext.metadata.name ?? '';
  const perObject = { [BundleVersionKey]: bundle.version, [PackageNameKey]: bundle.package };
  const phases = sortIntoPhases(
    objects.map((o) => {
      const s = sanitize(o, extension);
      const { ['kubectl.kubernetes.io/last-applied-configuration']: _lastApplied, ...annotations } = s.metadata.annotations ?? {};
      s.metadata.annotations = { ...annotations, ...perObject };
      return s;
    }),
  );
  const deadline = ext.spec?.progressDeadlineMinutes ?? 0;
  return {
    ...COS,
    metadata: {
      labels: { [OwnerKindKey]: ClusterExtensionKind, [OwnerNameKey]: extension },
      annotations: bundleAnnotations(bundle),
      ownerReferences: [
        { apiVersion: GroupVersion, kind: ClusterExtensionKind, name: extension, uid: ext.metadata.uid ?? '', blockOwnerDeletion: true, controller: true },
      ],
    },
    spec: {
      lifecycleState: 'Active',
      revision: 0,
      collisionProtection,
      phases: phases.map((p) => ({ name: p.name, objects: p.objects.map((object) => ({ object: object as KubeObject })) })),
      progressionProbes: structuredClone([...DEFAULT_PROGRESSION_PROBES]),
      ...(deadline > 0 && { progressDeadlineMinutes: deadline }),
    },
  };
}

/**
 * upstream's SecretPacker: every inline object serialized (JSON, keys sorted; gzip when above 900 KiB) under the
 * key base64url(sha256(data)); Secrets filled up to 900 KiB, named `<revision>-<first 16 hex of sha256 of their
 * sorted keys and values>`, immutable, typed `olm.operatorframework.io/object-data`, labelled with the revision and
 * owner; the phases' objects replaced by `ref`s. Equal content gives equal Secrets and refs.
 */
export function packIntoSecrets(phases: readonly ClusterObjectSetPhase[], revision: string, owner: string, namespace: string): { phases: ClusterObjectSetPhase[]; secrets: Secret[] } {
  const secrets: Secret[] = [];
  let current = new Map<string, Buffer>();
  let size = 0;
  let pending: { phase: number; object: number; key: string }[] = [];
  const out: ClusterObjectSetPhase[] = phases.map((p) => ({ ...p, objects: p.objects.map((o) => ({ ...o })) }));
  const finalize = (): void => {
    if (current.size === 0) return;
    const keys = [...current.keys()].sort();
    const h = createHash('sha256');
    for (const k of keys) h.update(k).update(current.get(k)!);
    const name = `${revision}-${h.digest('hex').slice(0, 16)}`;
    secrets.push({
      ...SECRET_KIND,
      metadata: { name, namespace, labels: { [RevisionNameKey]: revision, [OwnerNameKey]: owner } },
      immutable: true,
      type: ObjectDataSecretType,
      data: Object.fromEntries(keys.map((k) => [k, current.get(k)!.toString('base64')])),
    });
    for (const p of pending) {
      const o = out[p.phase]!.objects[p.object]!;
      delete o.object;
      o.ref = { name, namespace, key: p.key };
    }
    current = new Map();
    size = 0;
    pending = [];
  };
  phases.forEach((phase, pi) =>
    phase.objects.forEach((o, oi) => {
      if (!o.object) return;
      let data = Buffer.from(goJSONValue(o.object, true));
      if (data.length > MAX_SECRET_DATA_BYTES) data = gzipSync(data, { level: 9 });
      if (data.length > MAX_SECRET_DATA_BYTES) {
        throw new Error(
          `object in phase ${pi} index ${oi} exceeds maximum Secret data size (${data.length} bytes > ${MAX_SECRET_DATA_BYTES} bytes) even after compression`,
        );
      }
      const key = createHash('sha256').update(data).digest('base64url');
      if (!current.has(key)) {
        if (size + data.length > MAX_SECRET_DATA_BYTES && current.size > 0) finalize();
        current.set(key, data);
        size += data.length;
      }
      pending.push({ phase: pi, object: oi, key });
    }),
  );
  finalize();
  return { phases: out, secrets };
}

const revisionNumber = (c: ClusterObjectSet): number => c.spec?.revision ?? 0;

/** What a revision says of itself: its bundle (from its annotations) and conditions. */
export function revisionMetadata(c: ClusterObjectSet): RevisionMetadata {
  return {
    name: c.metadata.name ?? '',
    bundle: bundleFromAnnotations(c.metadata.annotations) ?? { package: '', name: '', version: '', image: '' },
    conditions: (c.status?.conditions ?? []) as readonly Condition[],
  };
}

/**
 * Whether an extension's only revision is one the OLM v0→v1 migration made that it takes over as its revision 1
 * (upstream operator-controller #2936): revision 1, annotated migrated-from-subscription, Succeeded, controlled by
 * nothing else, and recording the very bundle the extension resolved to — package, bundle name, version, image
 * reference and release (absent on both sides counts as equal). Anything else follows the normal path (a new
 * revision when the objects differ).
 */
export function adoptableMigratedRevision(ext: ClusterExtension, revisions: readonly ClusterObjectSet[], bundle: BundleRef): ClusterObjectSet | undefined {
  if (revisions.length !== 1) return undefined;
  const c = revisions[0]!;
  const a = c.metadata.annotations ?? {};
  if (revisionNumber(c) !== 1 || a[MigratedFromSubscriptionKey] === undefined || c.spec?.lifecycleState === LifecycleStateArchived) return undefined;
  if (!isTrue(c.status?.conditions, ClusterObjectSetTypeSucceeded)) return undefined;
  const controller = c.metadata.ownerReferences?.find((r) => r.controller === true);
  if (controller && controller.uid !== ext.metadata.uid) return undefined;
  const recorded = bundleFromAnnotations(a);
  if (!recorded) return undefined;
  const same =
    recorded.package === bundle.package &&
    recorded.name === bundle.name &&
    recorded.version === bundle.version &&
    recorded.image === bundle.image &&
    (recorded.release ?? '') === (bundle.release ?? '');
  return same ? c : undefined;
}

/** upstream's BoxcutterRevisionStatesGetter: the newest non-archived revision that succeeded, and the others. */
export function revisionStates(revisions: readonly ClusterObjectSet[]): RevisionStates {
  let installed: RevisionMetadata | undefined;
  const rollingOut: RevisionMetadata[] = [];
  for (const c of [...revisions].sort((a, b) => revisionNumber(a) - revisionNumber(b))) {
    if (c.spec?.lifecycleState === LifecycleStateArchived) continue;
    if (isTrue(c.status?.conditions, ClusterObjectSetTypeSucceeded)) installed = revisionMetadata(c);
    else rollingOut.push(revisionMetadata(c));
  }
  return { ...(installed && { installed }), rollingOut };
}

export interface ExtensionObjectSetsOptions {
  readonly client: KubeClient;
  /** Where the objects' Secrets go (operator-controller's namespace). */
  readonly systemNamespace: string;
  /**
   * The extension's ClusterObjectSets from an informer (as upstream reads them from its cache); absent: listed from
   * the API server. A stale answer is safe: writing a revision that already exists with the same content is a no-op.
   */
  readonly cached?: (extension: string) => readonly ClusterObjectSet[];
  readonly logger?: Logger;
}

/**
 * What an extension's last pass found: the newest revision holding exactly the desired objects, at its generation, the
 * digest of what was desired, and whether every Secret of that revision was seen owned by it.
 */
interface Current {
  readonly cos: string;
  readonly generation: number;
  readonly digest: string;
  readonly secretsOwned: boolean;
}

/** The ClusterExtension controller's view of an extension's ClusterObjectSets. */
export class ExtensionObjectSets {
  readonly #client: KubeClient;
  readonly #ns: string;
  readonly #log: Logger;
  readonly #store: RevisionStore;
  readonly #cached: ((extension: string) => readonly ClusterObjectSet[]) | undefined;
  /** By extension uid (see Current). While revision and desire are unchanged, a pass does not pack or apply again. */
  readonly #current = new Map<string, Current>();

  constructor(o: ExtensionObjectSetsOptions) {
    this.#client = o.client;
    this.#ns = o.systemNamespace;
    this.#log = o.logger ?? noopLogger;
    this.#store = new RevisionStore(o.client, o.systemNamespace);
    this.#cached = o.cached;
  }

  /** The extension's revisions, oldest first. */
  async list(extension: string, signal?: AbortSignal): Promise<ClusterObjectSet[]> {
    const items = this.#cached
      ? [...this.#cached(extension)]
      : (await this.#client.list<ClusterObjectSet>(COS, { labelSelector: `${OwnerNameKey}=${extension}`, ...(signal && { signal }) })).items;
    return items.sort((a, b) => revisionNumber(a) - revisionNumber(b));
  }

  async revisionStates(ext: ClusterExtension, signal?: AbortSignal): Promise<RevisionStates> {
    return revisionStates(await this.list(ext.metadata.name ?? '', signal));
  }

  /**
   * Makes the bundle's objects the extension's newest revision: nothing when the newest revision already holds
   * exactly them (the server-side apply onto it succeeds), else — once `preflight` passed — revision n+1 (Secrets
   * first, then the ClusterObjectSet, then the Secrets' owner references), after deleting archived revisions beyond
   * the retention limit.
   */
  async apply(ext: ClusterExtension, bundle: BundleRef, objects: readonly KubeObject[], signal?: AbortSignal, preflight?: () => Promise<void>): Promise<void> {
    const extension = ext.metadata.name ?? '';
    const extUid = ext.metadata.uid ?? extension;
    const existing = await this.list(extension, signal);
    const desired = desiredRevision(ext, bundle, objects);
    const digest = createHash('sha256').update(goJSONValue([desired.metadata, desired.spec], true)).digest('base64');
    const migrated = adoptableMigratedRevision(ext, existing, bundle);
    if (migrated) return this.#adopt(ext, migrated, signal);
    const current = existing.at(-1);
    if (current) {
      const seen = this.#current.get(extUid);
      const same = seen !== undefined && seen.cos === current.metadata.uid && seen.generation === (current.metadata.generation ?? 0) && seen.digest === digest;
      const succeeded = isTrue(current.status?.conditions, ClusterObjectSetTypeSucceeded);
      if (same && succeeded) return;
      try {
        const applied = same
          ? current
          : await this.#client.apply<ClusterObjectSet>(this.#named(desired, current.metadata.name!, revisionNumber(current), extension).cos, {
              fieldManager: ClusterExtensionControllerFieldOwner,
              force: true,
              ...(signal && { signal }),
            });
        const uid = applied.metadata.uid ?? '';
        // Secrets get their owner right after the revision is created; until it succeeded, make sure once per process
        // (crash recovery).
        const secretsOwned = succeeded || (seen?.cos === uid && seen.secretsOwned) || (await this.#ownSecrets(current, signal));
        this.#current.set(extUid, { cos: uid, generation: applied.metadata.generation ?? 0, digest, secretsOwned });
        return;
      } catch (err) {
        if (!isInvalid(err)) throw new Error(`patching ${current.metadata.name} Revision: ${(err as Error).message}`, { cause: err });
      }
    }
    await preflight?.();
    const n = (current ? revisionNumber(current) : 0) + 1;
    await this.#collectGarbage(existing, signal);
    const created = await this.#create(this.#named(desired, `${extension}-${n}`, n, extension), signal);
    this.#current.set(extUid, { cos: created.metadata.uid ?? '', generation: created.metadata.generation ?? 0, digest, secretsOwned: true });
  }

  /**
   * A migrated revision 1 becomes the extension's own: the extension is made its controller owner (so it goes with
   * the extension); its spec, and so its objects, are left as they are. Nothing is written once the owner is set.
   */
  async #adopt(ext: ClusterExtension, cos: ClusterObjectSet, signal?: AbortSignal): Promise<void> {
    const uid = ext.metadata.uid ?? '';
    if (cos.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === uid)) return;
    const extension = ext.metadata.name ?? '';
    const refs = [
      ...(cos.metadata.ownerReferences ?? []),
      { apiVersion: GroupVersion, kind: ClusterExtensionKind, name: extension, uid, blockOwnerDeletion: true, controller: true },
    ];
    // The resourceVersion makes the write conditional: an owner set meanwhile is not overwritten (409, pass re-run).
    const patch = { metadata: { resourceVersion: cos.metadata.resourceVersion, ownerReferences: refs } };
    await this.#client.patch({ ...COS, name: cos.metadata.name! }, 'merge', patch, signal ? { signal } : {}).catch((err: unknown) => {
      throw new Error(`adopting migrated revision ${cos.metadata.name}: ${(err as Error).message}`, { cause: err });
    });
    this.#log.info('adopted the revision migrated from a Subscription', { clusterExtension: extension, revision: cos.metadata.name });
  }

  #named(desired: ClusterObjectSet, name: string, n: number, extension: string): { cos: ClusterObjectSet; secrets: Secret[] } {
    const packed = packIntoSecrets(desired.spec!.phases ?? [], name, extension, this.#ns);
    const cos = structuredClone(desired);
    cos.metadata.name = name;
    cos.spec!.revision = n;
    cos.spec!.phases = packed.phases;
    return { cos, secrets: packed.secrets };
  }

  async #create({ cos, secrets }: { cos: ClusterObjectSet; secrets: Secret[] }, signal?: AbortSignal): Promise<ClusterObjectSet> {
    for (const s of secrets) {
      await this.#client.create(s, signal ? { signal } : {}).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw new Error(`creating ref Secret "${s.metadata.name}": ${(err as Error).message}`, { cause: err });
      });
    }
    const applyOptions = { fieldManager: ClusterExtensionControllerFieldOwner, force: true, ...(signal && { signal }) };
    const created = await this.#client.apply<ClusterObjectSet>(cos, applyOptions).catch((err: unknown) => {
      throw new Error(`creating new Revision: ${(err as Error).message}`, { cause: err });
    });
    await this.#ownSecrets(created, signal);
    return created;
  }

  /** Every Secret of a revision gets the revision as its controller owner; true when done. */
  async #ownSecrets(cos: ClusterObjectSet, signal?: AbortSignal): Promise<boolean> {
    const uid = cos.metadata.uid;
    if (!uid) return false;
    const secrets = await this.#client.list<Secret>({ ...SECRET_KIND, namespace: this.#ns }, { labelSelector: `${RevisionNameKey}=${cos.metadata.name}`, ...(signal && { signal }) });
    for (const s of secrets.items) {
      if (s.type !== ObjectDataSecretType || s.metadata.ownerReferences?.some((r) => r.uid === uid)) continue;
      const refs = [...(s.metadata.ownerReferences ?? []), { ...COS, name: cos.metadata.name!, uid, controller: true, blockOwnerDeletion: true }];
      await this.#client.patch({ ...SECRET_KIND, namespace: this.#ns, name: s.metadata.name! }, 'merge', { metadata: { ownerReferences: refs } }, signal ? { signal } : {});
    }
    return true;
  }

  async #collectGarbage(revisions: readonly ClusterObjectSet[], signal?: AbortSignal): Promise<void> {
    for (const [i, r] of revisions.entries()) {
      if (i >= revisions.length - RETENTION_LIMIT || r.spec?.lifecycleState !== LifecycleStateArchived) continue;
      await this.#client.delete({ ...COS, name: r.metadata.name! }, signal ? { signal } : {}).catch((err: unknown) => {
        if (!isNotFound(err)) throw new Error(`deleting archived revision: ${(err as Error).message}`, { cause: err });
      });
    }
  }

  /**
   * Deletes the extension's revisions; done once they are gone. Foreground deletion keeps each revision until the
   * garbage collector has removed its objects, so "done" means the objects are gone too.
   */
  async uninstall(ext: ClusterExtension, signal?: AbortSignal): Promise<UninstallOutcome> {
    this.#current.delete(ext.metadata.uid ?? ext.metadata.name ?? '');
    const revisions = await this.list(ext.metadata.name ?? '', signal);
    if (revisions.length === 0) return { done: true };
    for (const r of revisions) {
      if (r.metadata.deletionTimestamp) continue;
      await ignoreNotFound(this.#client.delete({ ...COS, name: r.metadata.name! }, { propagationPolicy: 'Foreground', ...(signal && { signal }) }));
    }
    return { done: false, message: `waiting for ClusterObjectSets ${revisions.map((r) => r.metadata.name).join(', ')} and their objects to be deleted` };
  }

  /**
   * An extension installed by the standard runtime moves to ClusterObjectSets (as upstream moves Helm releases):
   * when it has no ClusterObjectSet yet and its newest succeeded revision record exists, that record becomes
   * revision 1 with collision protection None (so it adopts the objects in place, nothing re-created), labelled
   * migrated-from-revision-secrets, and marked Succeeded at once, since it describes a working installation. The
   * records stay where they are. Idempotent: a revision 1 created by an interrupted migration gets its status.
   */
  async migrate(ext: ClusterExtension, signal?: AbortSignal): Promise<void> {
    const extension = ext.metadata.name ?? '';
    const existing = await this.list(extension, signal);
    if (existing.length > 0) {
      const first = existing.find((c) => revisionNumber(c) === 1);
      if (first && first.metadata.labels?.[MigratedFromRevisionSecretsKey] === 'true' && !isTrue(first.status?.conditions, ClusterObjectSetTypeSucceeded)) {
        await this.#markMigrated(first, signal);
      }
      return;
    }
    const heads = (await this.#store.list(extension, signal)).filter((h) => !h.archived && h.succeeded);
    const head = heads.at(-1);
    if (!head) return;
    const record = await this.#store.read(head, signal);
    const objects = record.spec.phases.flatMap((p) => p.objects.map((o) => o.object));
    const desired = desiredRevision(ext, head.bundle, objects, 'None');
    desired.metadata.labels = { ...desired.metadata.labels, [MigratedFromRevisionSecretsKey]: 'true' };
    const created = await this.#create(this.#named(desired, `${extension}-1`, 1, extension), signal);
    this.#log.info('moved the installed revision to a ClusterObjectSet', { clusterExtension: extension, from: head.name, to: created.metadata.name });
    await this.#markMigrated(created, signal);
  }

  async #markMigrated(cos: ClusterObjectSet, signal?: AbortSignal): Promise<void> {
    const fresh = structuredClone(cos);
    fresh.status ??= {};
    fresh.status.conditions ??= [];
    setCondition(fresh.status.conditions, {
      type: ClusterObjectSetTypeSucceeded,
      status: 'True',
      reason: ReasonSucceeded,
      message: 'Revision succeeded - migrated from revision records',
      observedGeneration: fresh.metadata.generation ?? 0,
    });
    await this.#client.updateStatus(fresh, signal ? { signal } : {});
  }
}
