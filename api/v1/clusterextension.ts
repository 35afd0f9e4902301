// ClusterExtension: a package to install from the cluster's catalogs (spec + status).
// Field set and optionality follow the experimental CRD in ./schema/clusterextension.ts (the standard
// one without spec.config, spec.progressDeadlineMinutes, status.activeRevisions and
// status.install.bundle.release).
import type { Condition, KubeObject, LabelSelector, List } from '../meta/v1.ts';

/** The only install source type: ClusterCatalogs. */
export const SourceTypeCatalog = 'Catalog';
export type SourceConfigType = typeof SourceTypeCatalog;

/** Only upgrade along the edges the catalog defines (the default). */
export const UpgradeConstraintPolicyCatalogProvided = 'CatalogProvided';
/** Ignore the catalog's upgrade edges: any version that matches may be installed, downgrades too. */
export const UpgradeConstraintPolicySelfCertified = 'SelfCertified';
export type UpgradeConstraintPolicy =
  | typeof UpgradeConstraintPolicyCatalogProvided
  | typeof UpgradeConstraintPolicySelfCertified;

/** Skip the CRD upgrade safety check. */
export const CRDUpgradeSafetyEnforcementNone = 'None';
/** Run the CRD upgrade safety check and block unsafe upgrades (the behaviour when unset). */
export const CRDUpgradeSafetyEnforcementStrict = 'Strict';
export type CRDUpgradeSafetyEnforcement =
  | typeof CRDUpgradeSafetyEnforcementNone
  | typeof CRDUpgradeSafetyEnforcementStrict;

/**
 * @deprecated Ignored, as upstream v1.11 (#2770); see ClusterExtensionSpec.serviceAccount.
 */
export interface ServiceAccountReference {
  name?: string;
}

export interface CatalogFilter {
  /** Package to install; immutable. */
  packageName: string;
  /** Masterminds semver constraint, at most 64 characters. Absent: the newest version. */
  version?: string;
  /** Restricts candidates and upgrade edges to these channels (at most 256). */
  channels?: string[];
  /** Picks the ClusterCatalogs to consider; absent: all catalogs. */
  selector?: LabelSelector;
  /** Defaulted to `CatalogProvided` by the API server. */
  upgradeConstraintPolicy?: UpgradeConstraintPolicy;
}

/** Union discriminated by `sourceType`; `catalog` is set exactly when `sourceType` is Catalog. */
export interface SourceConfig {
  sourceType: SourceConfigType;
  catalog?: CatalogFilter;
}

export interface CRDUpgradeSafetyPreflightConfig {
  enforcement: CRDUpgradeSafetyEnforcement;
}

export interface PreflightConfig {
  crdUpgradeSafety: CRDUpgradeSafetyPreflightConfig;
}

export interface ClusterExtensionInstallConfig {
  preflight?: PreflightConfig;
}

/** The only configuration source: the inline object. */
export const ConfigTypeInline = 'Inline';

/** Experimental CRD only: the bundle configuration (registry+v1: watchNamespace, deploymentConfig). */
export interface ClusterExtensionConfig {
  configType: typeof ConfigTypeInline;
  inline?: Record<string, unknown>;
}

export interface ClusterExtensionSpec {
  /** Namespace the extension's namespaced objects go to by default; must exist; immutable. */
  namespace: string;
  /**
   * Deprecated and ignored, as upstream v1.11: every extension installs as operator-controller itself. Only
   * operator-controller's ServiceAccountInstalls gate (ours, off by default) honours it: the account (in `namespace`)
   * must exist, a preflight lists its missing permissions, and every apply, prune and delete impersonates it.
   */
  serviceAccount?: ServiceAccountReference;
  source: SourceConfig;
  install?: ClusterExtensionInstallConfig;
  /** Experimental CRD only. */
  config?: ClusterExtensionConfig;
  /** Experimental CRD only (BoxcutterRuntime): 10..720 minutes a revision may take to roll out; absent: no deadline. */
  progressDeadlineMinutes?: number;
}

export interface BundleMetadata {
  name: string;
  version: string;
  /**
   * Experimental CRD only (BundleReleaseSupport): the bundle's release, a re-publication of the same version.
   * Set when the installed bundle has one; the standard CRD prunes it.
   */
  release?: string;
}

export interface ClusterExtensionInstallStatus {
  bundle: BundleMetadata;
}

/** Experimental CRD only (BoxcutterRuntime): one ClusterObjectSet of the extension that is not archived. */
export interface RevisionStatus {
  name: string;
  /** The revision's Progressing and Available while it has not succeeded. */
  conditions?: Condition[];
}

export interface ClusterExtensionStatus {
  /** Keyed by `type`: Installed, Progressing and the deprecation conditions. */
  conditions?: Condition[];
  /** Present once a bundle is installed. */
  install?: ClusterExtensionInstallStatus;
  /** Experimental CRD only (BoxcutterRuntime): the installed revision, then those rolling out, oldest first. */
  activeRevisions?: RevisionStatus[];
}

export interface ClusterExtension extends KubeObject {
  spec?: ClusterExtensionSpec;
  status?: ClusterExtensionStatus;
}

export type ClusterExtensionList = List<ClusterExtension>;
