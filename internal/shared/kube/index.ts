// The Kubernetes client layer: configuration, a dynamic client over node:https, informers with an
// indexed cache, read-modify-write helpers and Lease-based leader election. See README.md.
export type { Credentials, LoadOptions } from './config.ts';
export { loadKubeConfig } from './config.ts';
export type { ApiWarning, ConnectionOptions, HttpMethod } from './transport.ts';
export { Connection, parseWarningHeader } from './transport.ts';
export type { ApplyOptions, DeleteOptions, PatchOptions, PatchType, WatchOptions, WriteOptions } from './client.ts';
export { KubeClient } from './client.ts';
export type { StatusReason } from './errors.ts';
export {
  ApiError,
  KubeConfigError,
  NetworkError,
  NoKindMatchError,
  ignoreNotFound,
  isAlreadyExists,
  isApiError,
  isBadRequest,
  isConflict,
  isForbidden,
  isNamespaceTerminating,
  isGone,
  isInvalid,
  isNoKindMatch,
  isNotFound,
  isRetryable,
} from './errors.ts';
export { labelSelectorString } from './selectors.ts';
export type { CacheReader, IndexFn } from './cache.ts';
export { Indexer, NAMESPACE_INDEX, byNamespace } from './cache.ts';
export type { InformerEventType } from './informer.ts';
export { Informer, informers, stripManagedFields } from './informer.ts';
export { KindInformers } from './kind-informers.ts';
export type { EventRecorder } from './events.ts';
export { eventRecorder } from './events.ts';
export { addFinalizer, hasFinalizer, removeFinalizer, retryOnConflict, updateStatus } from './helpers.ts';
export type { Lease } from './leader-election.ts';
export { LeaderElector, microTime } from './leader-election.ts';
export { Backoff } from './backoff.ts';
export type { ObjectRef, WatchEvent, WatchEventType } from './types.ts';
export { cacheKey, objectRef, refOf } from './types.ts';
export type { LabelMatcher } from './labels.ts';
export { LabelSelectorError, labelSelectorAsSelector, parseLabelSelector, parseSelector, labelsEverything } from './labels.ts';
export { semanticEqual } from './equality.ts';
export type { Secret } from './secret.ts';
export { SECRET_KIND } from './secret.ts';
export { isOwnedBy, nonBlockingOwnerReference } from './owners.ts';
