// catalogd's controllers: the ClusterCatalog reconciler (leader), the content follower (every
// replica), garbage collection of orphaned content, and the global pull secret. See README.md.
export { kubeCatalogApi } from './api.ts';
export type { CatalogContent } from './content.ts';
export { createCatalogContent } from './content.ts';
export type { ContentFollower } from './follower.ts';
export { newContentFollower } from './follower.ts';
export { garbageCollector } from './gc.ts';
export type { ClusterCatalogReconciler } from './reconciler.ts';
export { newClusterCatalogReconciler } from './reconciler.ts';
