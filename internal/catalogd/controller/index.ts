// catalogd's controllers: the ClusterCatalog reconciler (leader), the content follower (every
// replica), garbage collection of orphaned content, and the global pull secret. See README.md.
export type { CatalogApi } from './api.ts';
export { kubeCatalogApi } from './api.ts';
export type { CatalogContent, CatalogContentOptions, CommitOptions } from './content.ts';
export { createCatalogContent } from './content.ts';
export type { ContentFollower, ContentFollowerOptions } from './follower.ts';
export { desiredRef, newContentFollower } from './follower.ts';
export type { GarbageCollectorOptions } from './gc.ts';
export { garbageCollector } from './gc.ts';
export type { ClusterCatalogReconciler, ClusterCatalogReconcilerOptions } from './reconciler.ts';
export { POLL_JITTER_FACTOR, newClusterCatalogReconciler } from './reconciler.ts';
export { MessageServing, MessageSucceeded, MessageUserSpecifiedUnavailable } from './status.ts';
