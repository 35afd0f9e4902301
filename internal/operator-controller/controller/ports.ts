// The seams of the ClusterExtension pipeline. Each stage is one small interface, implemented in its
// own folder (resolve, render, applier, preflights, the image puller) and adapted in ../setup.ts;
// the reconciler only strings them together and owns the status.
import type { Condition, KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import type { DeprecationEntryInfo } from '../status/index.ts';

/** A bundle as resolution names it. */
export interface BundleRef {
  readonly package: string;
  readonly name: string;
  readonly version: string;
  /** status.install.bundle.release, only with the BundleReleaseSupport gate. */
  readonly release?: string;
  /** Bundle image reference (`olm.bundle` image). */
  readonly image: string;
  /**
   * The bundle's properties as its CSV's `olm.properties` annotation holds them (metadata/properties.yaml merged
   * in), a JSON array: recorded on the revision as upstream's ClusterObjectSet carries it, for OpenShift's upgrade
   * gating. Absent when the bundle has none, and on records written before it was kept.
   */
  readonly properties?: string;
}

/** What the cluster says is installed (read back from the applier's revision records). */
export interface InstalledBundle extends BundleRef {
  /** The revision record holding its objects. */
  readonly revision: string;
}

export interface Resolution {
  readonly bundle: BundleRef;
  /** The catalog it came from. */
  readonly catalog: string;
  /** `olm.deprecations` entries of the package in that catalog (empty when none). */
  readonly deprecations: readonly DeprecationEntryInfo[];
}

export interface BundleResolver {
  /** Throws with upstream's resolution error text when nothing fits. */
  resolve(ext: ClusterExtension, installed: BundleRef | undefined, signal: AbortSignal): Promise<Resolution>;
  /**
   * Whether any ClusterCatalog matches the extension's selector (for the installed-bundle fallback); throws when it
   * cannot tell (an invalid selector), and the extension then retries as when catalogs exist.
   */
  catalogsExist(ext: ClusterExtension): boolean;
}

export interface BundleUnpacker {
  /** The bundle image unpacked to a read-only directory (cached by digest). */
  unpack(image: string, signal: AbortSignal): Promise<string>;
}

export interface RenderRequest {
  readonly installNamespace: string;
  readonly watchNamespace?: string;
  /** The bundle configuration (`spec.config.inline`), validated against the bundle's schema. */
  readonly config?: unknown;
}

/** A rendered bundle: the objects to apply, and the bundle's properties (`BundleRef.properties`). */
export interface RenderedBundle {
  readonly objects: KubeObject[];
  readonly properties?: string;
}

export interface BundleRenderer {
  /** Plain manifests of a registry+v1 bundle directory; throws a TerminalError for an invalid bundle. */
  render(dir: string, request: RenderRequest): Promise<RenderedBundle>;
}

/**
 * The service account an extension installs as (`spec.serviceAccount`) under our ServiceAccountInstalls gate, checked
 * before anything else is read: upstream's token getter (removed in v1.11, #2770) refused a missing one before the
 * install state was even looked at. Without the gate there is none: the field is ignored, as upstream.
 */
export interface InstallerIdentity {
  /** Throws a `ServiceAccountNotFoundError` when the named account, or the namespace holding it, is not there. */
  check(ext: ClusterExtension, signal: AbortSignal): Promise<void>;
}

/** Upstream's authentication.ServiceAccountNotFoundError (removed in v1.11), with its text. */
export class ServiceAccountNotFoundError extends Error {
  override readonly name = 'ServiceAccountNotFoundError';
  constructor(serviceAccountName: string, serviceAccountNamespace: string) {
    super(`service account "${serviceAccountName}" not found in namespace "${serviceAccountNamespace}": unable to authenticate with the Kubernetes cluster.`);
  }
}

export interface InstallPreflight {
  /** Throws (with every problem in the message) when the objects must not be applied. */
  check(ext: ClusterExtension, objects: readonly KubeObject[], signal: AbortSignal): Promise<void>;
}

export interface ApplyOutcome {
  /** Every object applied and healthy enough to call the bundle installed. */
  readonly installed: boolean;
  /** Why not yet, when not installed (e.g. waiting for a CRD to be Established). */
  readonly message?: string;
}

export interface UninstallOutcome {
  /** Every object the extension installed is gone (not only asked to go) and its records are deleted. */
  readonly done: boolean;
  /** What is still being deleted and why, one line per object (when not done). */
  readonly message?: string;
}

export interface BundleApplier {
  installed(ext: ClusterExtension, signal: AbortSignal): Promise<InstalledBundle | undefined>;
  apply(ext: ClusterExtension, bundle: BundleRef, objects: readonly KubeObject[], signal: AbortSignal): Promise<ApplyOutcome>;
  /** Re-applies what is installed without a new bundle (catalogs gone: keep it healthy). */
  maintain(ext: ClusterExtension, installed: InstalledBundle, signal: AbortSignal): Promise<ApplyOutcome>;
  /** Deletes what the extension installed; call again until `done` (objects with finalizers take their time). */
  uninstall(ext: ClusterExtension, signal: AbortSignal): Promise<UninstallOutcome>;
}

/** One ClusterObjectSet of an extension (BoxcutterRuntime): its name, the bundle it holds, its conditions. */
export interface RevisionMetadata {
  readonly name: string;
  readonly bundle: BundleRef;
  readonly conditions: readonly Condition[];
}

/** An extension's revisions that are not archived: the newest that succeeded, and the others, oldest first. */
export interface RevisionStates {
  readonly installed?: RevisionMetadata;
  readonly rollingOut: readonly RevisionMetadata[];
}

/**
 * The ClusterExtension side of the ClusterObjectSet runtime (BoxcutterRuntime): revisions are ClusterObjectSets that
 * their own controller rolls out; the extension's controller writes them and reads their state back.
 */
export interface ObjectSetApplier {
  /** Moves an extension installed by the standard runtime to ClusterObjectSets (once; idempotent). */
  migrate(ext: ClusterExtension, signal: AbortSignal): Promise<void>;
  revisionStates(ext: ClusterExtension, signal: AbortSignal): Promise<RevisionStates>;
  /**
   * Makes the objects the newest revision (a new ClusterObjectSet when they differ from the newest one); `preflight`
   * runs first when, and only when, a new revision is about to be made (upstream skips preflights for an unchanged
   * revision) and stops it by throwing.
   */
  apply(ext: ClusterExtension, bundle: BundleRef, objects: readonly KubeObject[], signal: AbortSignal, preflight?: () => Promise<void>): Promise<void>;
  /** Deletes the extension's revisions; call again until `done`. */
  uninstall(ext: ClusterExtension, signal: AbortSignal): Promise<UninstallOutcome>;
}
