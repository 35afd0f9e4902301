// The objects ClusterObjectSets applied, watched (upstream's tracking cache): one informer per kind a revision holds,
// selecting the objects labelled `app.kubernetes.io/managed-by=olm.operatorframework.io`, keeping only the metadata the
// object engine decides on (identity, resourceVersion, generation, labels, the revision annotation, owner references).
// Any change of such an object re-enqueues the ClusterObjectSet that controls it, so drift is repaired and probes are
// re-evaluated as soon as a Deployment becomes Available or a PVC is Bound.
import { createHash } from 'node:crypto';
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import { ClusterObjectSetKind, FieldOwnerPrefix, GroupName, ManagedByLabel, ObjectRevisionAnnotation } from '../../../api/v1/index.ts';
import { KindInformers, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { groupOf } from '../applier/index.ts';

/** Field of a cached object holding its drift key (see driftKey). */
export const DRIFT_KEY = '__driftKey';

/** The label selector of every object the runtime applies. */
export const MANAGED_SELECTOR = `${ManagedByLabel}=${FieldOwnerPrefix}`;

/** The ClusterObjectSet that controls an object, by its controller owner reference. */
export function controllingObjectSet(refs: readonly OwnerReference[] | undefined): string | undefined {
  const ref = refs?.find((r) => r.controller === true);
  return ref && ref.kind === ClusterObjectSetKind && groupOf(ref.apiVersion) === GroupName ? ref.name : undefined;
}

/**
 * What tells whether an object changed since it was applied: for kinds with a metadata.generation (spec/status
 * split), the generation and a digest of labels, annotations, owner references and deletion; for the others, the
 * resourceVersion (any write). Status-only updates of the former do not change it.
 */
export function driftKey(obj: KubeObject): string {
  const m = obj.metadata;
  if (m.generation === undefined) return `rv:${m.resourceVersion ?? ''}`;
  const meta = createHash('sha1').update(JSON.stringify([m.labels ?? {}, m.annotations ?? {}, m.ownerReferences ?? [], m.deletionTimestamp ?? ''])).digest('base64');
  return `g:${m.generation}:${meta}`;
}

/** The cached form: metadata the engine decides on, the object's status (for probes) and its drift key. */
function slim(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  const revision = m.annotations?.[ObjectRevisionAnnotation];
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
      ...(revision !== undefined && { annotations: { [ObjectRevisionAnnotation]: revision } }),
      ...(m.ownerReferences && { ownerReferences: m.ownerReferences }),
    },
  };
}

export interface ManagedObjectWatcherOptions {
  readonly client: KubeClient;
  /** Called with the name of the ClusterObjectSet controlling an object that changed. */
  readonly enqueue: (objectSet: string) => void;
  /** Told of every object uid that is deleted (to drop what was remembered about it). */
  readonly deleted?: (uid: string) => void;
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
        if (type === 'update' && old?.metadata.resourceVersion === cur.metadata.resourceVersion) return;
        if (type === 'delete' && cur.metadata.uid) o.deleted?.(cur.metadata.uid);
        const owner = controllingObjectSet(cur.metadata.ownerReferences) ?? controllingObjectSet(old?.metadata.ownerReferences);
        if (owner) o.enqueue(owner);
      },
    });
  }
}
