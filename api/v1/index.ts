// olm.operatorframework.io/v1: ClusterCatalog, ClusterExtension and ClusterObjectSet types, condition vocabulary,
// well-known labels/finalizers, and the CRD schemas the manifests are generated from.
export * from './groupversion.ts';
export * from './conditions.ts';
export * from './labels.ts';
export * from './clustercatalog.ts';
export * from './clusterextension.ts';
export * from './clusterobjectset.ts';
