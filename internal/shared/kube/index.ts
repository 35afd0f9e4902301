// The Kubernetes client layer: configuration, a dynamic client over undici, informers with an
// indexed cache, read-modify-write helpers and Lease-based leader election. See README.md.
export type { Credentials, LoadOptions, TlsOptions } from './config.ts';
export { ClusterAccess, loadKubeConfig } from './config.ts';
export type { ApiWarning, ConnectionOptions, HttpMethod, HttpRequest, WarningHandler } from './transport.ts';
export { Connection, parseWarningHeader } from './transport.ts';
export type { ResourceMapping } from './restmapper.ts';
export { RESTMapper } from './restmapper.ts';
export type {
  ApplyOptions,
  ClientOptions,
  DeleteOptions,
  Impersonation,
  ListOptions,
  PatchOptions,
  PatchType,
  RequestOptions,
  WatchOptions,
  WriteOptions,
} from './client.ts';
export { APPLY_CONTENT_TYPE, KubeClient, PATCH_CONTENT_TYPES } from './client.ts';
export type { KubeConfigErrorCode, StatusReason } from './errors.ts';
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
  isNetworkError,
  isNoKindMatch,
  isNotFound,
  isRetryable,
  reasonForCode,
  reasonOf,
} from './errors.ts';
export type { FieldSelectorInput, LabelSelectorInput } from './selectors.ts';
export { fieldSelectorString, labelSelectorString } from './selectors.ts';
export type { CacheReader, IndexFn } from './cache.ts';
export { Indexer, NAMESPACE_INDEX, byNamespace } from './cache.ts';
export type { InformerEventType, InformerExtras, InformerHandler, InformerOptions, InformerStats } from './informer.ts';
export { Informer, informers, stripManagedFields } from './informer.ts';
export type { KindInformersOptions } from './kind-informers.ts';
export { KindInformers } from './kind-informers.ts';
export type { Mutation, RetryOptions, StatusUpdateOptions } from './helpers.ts';
export type { EventOptions, EventRecorder } from './events.ts';
export { eventRecorder } from './events.ts';
export { addFinalizer, hasFinalizer, removeFinalizer, retryOnConflict, updateStatus } from './helpers.ts';
export type { ElectionOutcome, Lease, LeaseSpec, LeaderElectionOptions } from './leader-election.ts';
export { LeaderElector, microTime } from './leader-election.ts';
export type { BackoffOptions } from './backoff.ts';
export { Backoff } from './backoff.ts';
export type { KindRef, ObjectRef, WatchEvent, WatchEventType } from './types.ts';
export { cacheKey, objectRef, refOf } from './types.ts';
export type { LabelMatcher } from './labels.ts';
export { LabelSelectorError, labelSelectorAsSelector, parseLabelSelector, parseSelector, labelValueErrors, labelsEverything, qualifiedNameErrors } from './labels.ts';
export { semanticEqual } from './equality.ts';
export type { Secret } from './secret.ts';
export { SECRET_KIND } from './secret.ts';
export { isOwnedBy, nonBlockingOwnerReference } from './owners.ts';
