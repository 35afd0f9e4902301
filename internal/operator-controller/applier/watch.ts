// Drift repair without waiting for a resync: one informer per kind the applier has applied,
// selecting the objects labelled as owned by a ClusterExtension, that re-enqueues the owner when
// one of its objects is deleted or changed by someone (upstream's content manager watches the same
// way). Caches keep only identity, labels, generation, a digest of the annotations and the health
// probe's verdict, so a cluster with thousands of installed objects costs little memory.
//
// Which updates count: a delete; a change of labels or annotations; for kinds with a
// metadata.generation (spec/status split) a new generation; for kinds without one (ConfigMaps,
// RBAC, …) every update; and a status update that changes what the health probe says (a
// Deployment becoming unavailable, a CRD becoming Established), so `Available` follows at once.
// Other status-only updates (replica counts moving, heartbeats) are ignored.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ClusterExtensionKind, OwnerKindKey, OwnerNameKey, RevisionNameKey } from '../../../api/v1/index.ts';
import { KindInformers, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { probe } from './health.ts';

export interface OwnedObjectWatcherOptions {
  /** The controller's own client (watches need list/watch on every kind a bundle holds). */
  readonly client: KubeClient;
  /** Called with a ClusterExtension's name when one of its objects drifted. */
  readonly enqueue: (extension: string) => void;
  readonly logger?: Logger;
}

/** What the cache keeps of an owned object. */
interface Slim extends KubeObject {
  readonly annotationsDigest: string;
  /** What the health probe says of it ('' when healthy or when its kind has no probe). */
  readonly health: string;
}

const selector = `${OwnerKindKey}=${ClusterExtensionKind},!${RevisionNameKey}`;

function slim(obj: KubeObject): Slim {
  const m = obj.metadata;
  const annotations = m.annotations ? createHash('sha1').update(JSON.stringify(m.annotations)).digest('base64') : '';
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name: m.name,
      ...(m.namespace && { namespace: m.namespace }),
      ...(m.uid && { uid: m.uid }),
      ...(m.resourceVersion && { resourceVersion: m.resourceVersion }),
      ...(m.generation !== undefined && { generation: m.generation }),
      ...(m.labels && { labels: m.labels }),
    },
    annotationsDigest: annotations,
    health: probe(obj).join('; '),
  } as Slim;
}

/** Whether an update of an owned object may have undone what the applier wrote. */
export function drifted(old: Slim | undefined, cur: Slim): boolean {
  if (!old) return true;
  if (old.annotationsDigest !== cur.annotationsDigest || old.health !== cur.health) return true;
  if (JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(cur.metadata.labels ?? {})) return true;
  const gen = cur.metadata.generation;
  return gen === undefined || gen !== old.metadata.generation;
}

/** The installed objects by kind, and the drift events that bring their ClusterExtension back. */
export class OwnedObjectWatcher extends KindInformers<Slim> {
  constructor(o: OwnedObjectWatcherOptions) {
    super({
      client: o.client,
      labelSelector: selector,
      transform: slim,
      what: 'installed',
      ...(o.logger && { logger: o.logger }),
      onEvent: (type, cur, old) => {
        if (type === 'add' || (type === 'update' && !drifted(old, cur))) return;
        const owner = cur.metadata.labels?.[OwnerNameKey];
        if (owner) o.enqueue(owner);
      },
    });
  }
}
