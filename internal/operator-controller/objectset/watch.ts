// The objects ClusterObjectSets applied, watched (upstream's tracking cache): one informer per kind a revision holds,
// selecting the objects labelled `app.kubernetes.io/managed-by=olm.operatorframework.io`, keeping what the object
// engine decides on (identity, resourceVersion, generation, labels, annotations, owner references, status for the
// probes, and a drift key). A change that may matter re-enqueues the ClusterObjectSet that controls the object, so
// drift is repaired and probes are re-evaluated as soon as a Deployment becomes Available or a PVC is Bound. Not
// re-enqueued: the object as the engine itself wrote it (it decided with the write's answer), and updates that change
// nothing the engine reads (another revision dropping its owner reference, managedFields).
import { createHash } from 'node:crypto';
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import { ClusterObjectSetKind, FieldOwnerPrefix, GroupName, ManagedByLabel } from '../../../api/v1/index.ts';
import { KindInformers, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { groupOf } from '../applier/index.ts';

/** Field of a cached object holding its drift key (see driftKey). */
export const DRIFT_KEY = '__driftKey';

/** The label selector of every object the runtime applies. */
export const MANAGED_SELECTOR = `${ManagedByLabel}=${FieldOwnerPrefix}`;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const controllerRef = (refs: readonly OwnerReference[] | undefined): OwnerReference | undefined => refs?.find((r) => r.controller === true);

/** The ClusterObjectSet that controls an object, by its controller owner reference. */
export function controllingObjectSet(refs: readonly OwnerReference[] | undefined): string | undefined {
  const ref = controllerRef(refs);
  return ref && ref.kind === ClusterObjectSetKind && groupOf(ref.apiVersion) === GroupName ? ref.name : undefined;
}

/**
 * What tells whether an object's body changed since it was applied: for kinds with a metadata.generation (spec/status
 * split), the generation; for the others, a digest of everything but metadata and status. Metadata (labels,
 * annotations, the controller) is compared by the engine against what it wants.
 */
export function driftKey(obj: KubeObject): string {
  if (obj.metadata.generation !== undefined) return `g:${obj.metadata.generation}`;
  const { metadata: _m, status: _s, ...body } = obj;
  return `b:${createHash('sha1').update(JSON.stringify(body)).digest('base64')}`;
}

/** The cached form: metadata the engine decides on, the object's status (for probes) and its drift key. */
function slim(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  let annotations = m.annotations;
  if (annotations && LAST_APPLIED in annotations) {
    const { [LAST_APPLIED]: _lastApplied, ...rest } = annotations;
    annotations = rest;
  }
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    [DRIFT_KEY]: driftKey(obj),
    ...(obj['status'] !== undefined && { status: obj['status'] }),
    metadata: {
      name: m.name,
      ...(m.namespace && { namespace: m.namespace }),
      ...(m.uid && { uid: m.uid }),
      ...(m.resourceVersion && { resourceVersion: m.resourceVersion }),
      ...(m.generation !== undefined && { generation: m.generation }),
      ...(m.deletionTimestamp && { deletionTimestamp: m.deletionTimestamp }),
      ...(m.labels && { labels: m.labels }),
      ...(annotations && { annotations }),
      ...(m.ownerReferences && { ownerReferences: m.ownerReferences }),
    },
  };
}

/** Whether an update changed anything the engine reads: body (drift key), labels, annotations, controller, deletion, status. */
export function mattersToEngine(old: KubeObject, cur: KubeObject): boolean {
  const a = old.metadata;
  const b = cur.metadata;
  if (old[DRIFT_KEY] !== cur[DRIFT_KEY] || a.deletionTimestamp !== b.deletionTimestamp) return true;
  if (controllerRef(a.ownerReferences)?.uid !== controllerRef(b.ownerReferences)?.uid) return true;
  if (JSON.stringify(a.labels ?? {}) !== JSON.stringify(b.labels ?? {})) return true;
  if (JSON.stringify(a.annotations ?? {}) !== JSON.stringify(b.annotations ?? {})) return true;
  return JSON.stringify(old['status'] ?? null) !== JSON.stringify(cur['status'] ?? null);
}

export interface ManagedObjectWatcherOptions {
  readonly client: KubeClient;
  /** Called with the name of the ClusterObjectSet controlling an object that changed. */
  readonly enqueue: (objectSet: string) => void;
  /** Told of every object uid that is deleted (to drop what was remembered about it). */
  readonly deleted?: (uid: string) => void;
  /** Whether the engine itself wrote the object at this resourceVersion (its answer was already acted on). */
  readonly ownWrite?: (uid: string, resourceVersion: string) => boolean;
  readonly logger?: Logger;
}

/** Metadata of the managed objects by kind, and the events that bring their ClusterObjectSet back. */
export class ManagedObjectWatcher extends KindInformers<KubeObject> {
  constructor(o: ManagedObjectWatcherOptions) {
    super({
      client: o.client,
      labelSelector: MANAGED_SELECTOR,
      transform: slim,
      what: 'managed',
      ...(o.logger && { logger: o.logger }),
      onEvent: (type, cur, old) => {
        const uid = cur.metadata.uid ?? '';
        if (type === 'delete') {
          if (uid) o.deleted?.(uid);
        } else {
          if (type === 'update' && old && !mattersToEngine(old, cur)) return;
          if (o.ownWrite?.(uid, cur.metadata.resourceVersion ?? '')) return;
        }
        const owner = controllingObjectSet(cur.metadata.ownerReferences) ?? controllingObjectSet(old?.metadata.ownerReferences);
        if (owner) o.enqueue(owner);
      },
    });
  }
}
