// ClusterCatalog: a file-based catalog made available to the cluster (spec + status).
// Field set and optionality follow the standard CRD in ./schema/clustercatalog.ts.
import type { Condition, KubeObject, List, ObjectMeta } from '../meta/v1.ts';

/** The only source type: an OCI image. */
export const SourceTypeImage = 'Image';
export type SourceType = typeof SourceTypeImage;

/** Catalog content is served (the default). */
export const AvailabilityModeAvailable = 'Available';
/** Catalog content is not served; clients treat the catalog as absent. */
export const AvailabilityModeUnavailable = 'Unavailable';
export type AvailabilityMode = typeof AvailabilityModeAvailable | typeof AvailabilityModeUnavailable;

/** Value the API server fills in for an omitted `spec.priority`. */
export const DefaultPriority = 0;

export interface ImageSource {
  /** Tag- or digest-based image reference, at most 1000 characters. */
  ref: string;
  /** Poll interval in minutes (>= 1); forbidden with a digest-based `ref`. Absent: never polled. */
  pollIntervalMinutes?: number;
}

/** Union discriminated by `type`; `image` is set exactly when `type` is Image. */
export interface CatalogSource {
  type: SourceType;
  image?: ImageSource;
}

export interface ClusterCatalogSpec {
  source: CatalogSource;
  /** Tie-breaker between catalogs, int32; higher wins. Defaulted to 0 by the API server. */
  priority?: number;
  /** Defaulted to `Available` by the API server. */
  availabilityMode?: AvailabilityMode;
}

export interface ResolvedImageSource {
  /** Digest-based reference of the image that was unpacked. */
  ref: string;
}

export interface ResolvedCatalogSource {
  type: SourceType;
  image: ResolvedImageSource;
}

export interface ClusterCatalogURLs {
  /** http(s) URL of the catalog content server for this catalog; endpoints live below it. */
  base: string;
}

export interface ClusterCatalogStatus {
  /** Keyed by `type`: Serving and Progressing. */
  conditions?: Condition[];
  resolvedSource?: ResolvedCatalogSource;
  urls?: ClusterCatalogURLs;
  /** RFC 3339 time at which the current content was unpacked. */
  lastUnpacked?: string;
}

export interface ClusterCatalog extends KubeObject {
  metadata: ObjectMeta;
  spec: ClusterCatalogSpec;
  status?: ClusterCatalogStatus;
}

export type ClusterCatalogList = List<ClusterCatalog>;
