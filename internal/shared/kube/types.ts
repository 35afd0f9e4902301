// Small shapes shared by the files of this folder.
import type { KubeObject } from '../../../api/meta/v1.ts';

/** Names one object: its type (apiVersion + kind) and, for namespaced kinds, its namespace. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** Names a collection: a kind, optionally narrowed to one namespace. */
export interface KindRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
}

/** The ref of an object that carries apiVersion, kind and metadata.name. */
export function refOf(obj: KubeObject): ObjectRef {
  const { apiVersion, kind } = obj;
  const name = obj.metadata.name;
  if (!apiVersion || !kind || !name) {
    throw new TypeError(`object needs apiVersion, kind and metadata.name (got ${apiVersion ?? '?'} ${kind ?? '?'} "${name ?? ''}")`);
  }
  return obj.metadata.namespace ? { apiVersion, kind, name, namespace: obj.metadata.namespace } : { apiVersion, kind, name };
}

/** The ref of an object as it is: a missing apiVersion, kind or name is '' (refOf throws instead). */
export const objectRef = (o: KubeObject): ObjectRef => ({ apiVersion: o.apiVersion ?? '', kind: o.kind ?? '', name: o.metadata.name ?? '', ...(o.metadata.namespace && { namespace: o.metadata.namespace }) });

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's cache key). */
export function cacheKey(obj: { readonly metadata?: { readonly name?: string; readonly namespace?: string } }): string {
  const name = obj.metadata?.name ?? '';
  return obj.metadata?.namespace ? `${obj.metadata.namespace}/${name}` : name;
}

/** ERROR lines of a watch stream are not events: the watch rejects with an ApiError instead. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** One line of a watch stream. A BOOKMARK carries only metadata.resourceVersion. */
export interface WatchEvent<T extends KubeObject = KubeObject> {
  readonly type: WatchEventType;
  readonly object: T;
}
