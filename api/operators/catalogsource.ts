// CatalogSource (operators.coreos.com/v1alpha1): where classic packages come from. Field set and
// optionality follow ./schema/catalogsource.ts; constants are upstream's (operator-framework/api
// catalogsource_types.go, grpc-go connectivity states).
import type { Condition, KubeObject, List, ObjectMeta } from '../meta/v1.ts';
import type { Icon, KubeValue } from './common.ts';

export const SourceTypeInternal = 'internal';
export const SourceTypeConfigmap = 'configmap';
export const SourceTypeGrpc = 'grpc';
export type SourceType = typeof SourceTypeInternal | typeof SourceTypeConfigmap | typeof SourceTypeGrpc;

/** `status.reason` values (upstream's CatalogSource ConditionReasons). */
export const CatalogSourceSpecInvalidError = 'SpecInvalidError';
export const CatalogSourceConfigMapError = 'ConfigMapError';
export const CatalogSourceRegistryServerError = 'RegistryServerError';
export const CatalogSourceIntervalInvalidError = 'InvalidIntervalError';
export type CatalogSourceReason =
  | typeof CatalogSourceSpecInvalidError
  | typeof CatalogSourceConfigMapError
  | typeof CatalogSourceRegistryServerError
  | typeof CatalogSourceIntervalInvalidError;

/** `status.connectionState.lastObservedState`: grpc-go's connectivity.State.String(). */
export const ConnectionStateIdle = 'IDLE';
export const ConnectionStateConnecting = 'CONNECTING';
export const ConnectionStateReady = 'READY';
export const ConnectionStateTransientFailure = 'TRANSIENT_FAILURE';
export const ConnectionStateShutdown = 'SHUTDOWN';
export type ConnectionState =
  | typeof ConnectionStateIdle
  | typeof ConnectionStateConnecting
  | typeof ConnectionStateReady
  | typeof ConnectionStateTransientFailure
  | typeof ConnectionStateShutdown;

/** Used when `updateStrategy.registryPoll.interval` does not parse (upstream's DefaultRegistryPollDuration). */
export const DefaultRegistryPollDurationMs = 15 * 60_000;

export const SecurityConfigLegacy = 'legacy';
export const SecurityConfigRestricted = 'restricted';

export interface ExtractContentConfig {
  cacheDir?: string;
  catalogDir: string;
}

export interface GrpcPodConfig {
  affinity?: KubeValue;
  extractContent?: ExtractContentConfig;
  /** A resource.Quantity: a number or a string such as `512Mi`. */
  memoryTarget?: number | string;
  nodeSelector?: Record<string, string>;
  priorityClassName?: string;
  securityContextConfig?: typeof SecurityConfigLegacy | typeof SecurityConfigRestricted;
  tolerations?: KubeValue[];
}

export interface RegistryPoll {
  /** A Go duration (`10m`, `45s`); unparsable values fall back to 15m with InvalidIntervalError. */
  interval?: string;
}

export interface UpdateStrategy {
  registryPoll?: RegistryPoll;
}

export interface CatalogSourceSpec {
  sourceType: SourceType | string;
  address?: string;
  configMap?: string;
  description?: string;
  displayName?: string;
  grpcPodConfig?: GrpcPodConfig;
  icon?: Icon;
  image?: string;
  /** Higher wins during resolution; 0 when absent. */
  priority?: number;
  publisher?: string;
  secrets?: string[];
  updateStrategy?: UpdateStrategy;
}

export interface ConfigMapResourceReference {
  lastUpdateTime?: string;
  name: string;
  namespace: string;
  resourceVersion?: string;
  uid?: string;
}

export interface RegistryServiceStatus {
  createdAt?: string;
  port?: string;
  protocol?: string;
  serviceName?: string;
  serviceNamespace?: string;
}

export interface GRPCConnectionState {
  address?: string;
  lastConnect?: string;
  lastObservedState: ConnectionState | string;
}

export interface CatalogSourceStatus {
  conditions?: Condition[];
  configMapReference?: ConfigMapResourceReference;
  connectionState?: GRPCConnectionState;
  latestImageRegistryPoll?: string;
  message?: string;
  reason?: CatalogSourceReason | string;
  registryService?: RegistryServiceStatus;
}

export interface CatalogSource extends KubeObject {
  metadata: ObjectMeta;
  spec: CatalogSourceSpec;
  status?: CatalogSourceStatus;
}

export type CatalogSourceList = List<CatalogSource>;
