// Well-known label and annotation keys, finalizers and server-side-apply field owners of OLM v1.
// They are observable on the cluster (and read back by the controllers), so they are API.

// ---- ClusterCatalog --------------------------------------------------------------------------

/**
 * Label every ClusterCatalog carries, whose value is the catalog's own `metadata.name`.
 *
 * It exists so that a ClusterExtension can pick one catalog by name through its label selector:
 * `spec.source.catalog.selector.matchLabels["olm.operatorframework.io/metadata.name"]: <catalog>`.
 * The API server sets it on create and update (upstream uses a mutating webhook of catalogd; we
 * use a MutatingAdmissionPolicy, added with its own issue); users should not set it themselves.
 */
export const MetadataNameLabel = 'olm.operatorframework.io/metadata.name';

// ---- Objects installed for a ClusterExtension ------------------------------------------------

/** Kind of the owner of an applied object; always `ClusterExtension`. */
export const OwnerKindKey = 'olm.operatorframework.io/owner-kind';
/** Name of the ClusterExtension that owns an applied object. */
export const OwnerNameKey = 'olm.operatorframework.io/owner-name';
/** Package of the installed bundle (release / revision metadata). */
export const PackageNameKey = 'olm.operatorframework.io/package-name';
/** Name of the installed bundle (release / revision metadata). */
export const BundleNameKey = 'olm.operatorframework.io/bundle-name';
/** Version of the installed bundle (release / revision metadata). */
export const BundleVersionKey = 'olm.operatorframework.io/bundle-version';
/** Release of the installed bundle, when the bundle has one (release / revision metadata). */
export const BundleReleaseKey = 'olm.operatorframework.io/bundle-release';
/** Image reference of the installed bundle (release / revision metadata). */
export const BundleReferenceKey = 'olm.operatorframework.io/bundle-reference';
/** Name of the revision an object or Secret belongs to. */
export const RevisionNameKey = 'olm.operatorframework.io/revision-name';
/** Marks a revision that was created from an existing Helm release. */
export const MigratedFromHelmKey = 'olm.operatorframework.io/migrated-from-helm';
/**
 * Ours: marks a ClusterObjectSet made from a revision record of the standard runtime (revision Secrets) when
 * BoxcutterRuntime was turned on (the counterpart of upstream's migrated-from-helm).
 */
export const MigratedFromRevisionSecretsKey = 'olm.operatorframework.io/migrated-from-revision-secrets';
/**
 * Annotation on a ClusterObjectSet revision 1 that the OLM v0→v1 migration (library-olm; `kubectl olm migrate`) made
 * from a classic Subscription's installed CSV before the ClusterExtension existed: operator-controller adopts it as
 * the extension's revision 1 when the extension resolves to the same bundle (upstream operator-controller #2936).
 */
export const MigratedFromSubscriptionKey = 'olm.operatorframework.io/migrated-from-subscription';
/** Annotation holding the bundle's properties (JSON), copied onto revisions. */
export const PropertiesAnnotation = 'olm.properties';
/** `type` of the Secrets that hold externalised revision objects. */
export const ObjectDataSecretType = 'olm.operatorframework.io/object-data';

// ---- Finalizers ------------------------------------------------------------------------------

/** ClusterExtension: remove the bundle's unpack directory before the object goes away. */
export const CleanupUnpackCacheFinalizer = 'olm.operatorframework.io/cleanup-unpack-cache';
/** ClusterExtension: stop the drift watches of the installed objects. */
export const CleanupContentManagerCacheFinalizer = 'olm.operatorframework.io/cleanup-contentmanager-cache';
/** ClusterCatalog: delete the stored catalog content the HTTP server serves. */
export const DeleteServerCacheFinalizer = 'olm.operatorframework.io/delete-server-cache';
/** ClusterObjectSet (experimental): tear the revision's objects down. */
export const TeardownFinalizer = 'olm.operatorframework.io/teardown';

// ---- Server-side apply field owners ----------------------------------------------------------

/** Prefix of every field manager name the controllers use. */
export const FieldOwnerPrefix = 'olm.operatorframework.io';
/**
 * Field manager of ClusterObjectSets the ClusterExtension controller writes, and of objects applied for a
 * ClusterExtension revision by the standard runtime.
 */
export const ClusterExtensionControllerFieldOwner = `${FieldOwnerPrefix}/clusterextension-controller`;

// ---- ClusterObjectSet runtime (experimental, BoxcutterRuntime) -------------------------------

/** Annotation on every object a ClusterObjectSet applied: the revision number that last applied it. */
export const ObjectRevisionAnnotation = `${FieldOwnerPrefix}/revision`;
/** Label on every object a ClusterObjectSet applied (boxcutter's managed-by label, valued with the field owner prefix). */
export const ManagedByLabel = 'app.kubernetes.io/managed-by';
