// Group, version, kinds and resource names of the olm.operatorframework.io/v1 API.

export const GroupName = 'olm.operatorframework.io';
export const Version = 'v1';
/** The `apiVersion` every v1 object carries. */
export const GroupVersion = `${GroupName}/${Version}` as const;

export const ClusterCatalogKind = 'ClusterCatalog';
export const ClusterCatalogListKind = 'ClusterCatalogList';
/** Plural resource name, as in `/apis/olm.operatorframework.io/v1/clustercatalogs`. */
export const ClusterCatalogResource = 'clustercatalogs';
export const ClusterCatalogSingular = 'clustercatalog';
/** `metadata.name` of the ClusterCatalog CRD. */
export const ClusterCatalogCRDName = `${ClusterCatalogResource}.${GroupName}` as const;

export const ClusterExtensionKind = 'ClusterExtension';
export const ClusterExtensionListKind = 'ClusterExtensionList';
/** Plural resource name, as in `/apis/olm.operatorframework.io/v1/clusterextensions`. */
export const ClusterExtensionResource = 'clusterextensions';
export const ClusterExtensionSingular = 'clusterextension';
/** `metadata.name` of the ClusterExtension CRD. */
export const ClusterExtensionCRDName = `${ClusterExtensionResource}.${GroupName}` as const;

export const ClusterObjectSetKind = 'ClusterObjectSet';
export const ClusterObjectSetListKind = 'ClusterObjectSetList';
/** Plural resource name, as in `/apis/olm.operatorframework.io/v1/clusterobjectsets` (experimental feature set). */
export const ClusterObjectSetResource = 'clusterobjectsets';
export const ClusterObjectSetSingular = 'clusterobjectset';
/** `metadata.name` of the ClusterObjectSet CRD. */
export const ClusterObjectSetCRDName = `${ClusterObjectSetResource}.${GroupName}` as const;
