// olm.operatorframework.io/v1: ClusterCatalog and ClusterExtension types, condition vocabulary,
// well-known labels/finalizers, and the CRD schemas the manifests are generated from.
export * from './groupversion.ts';
export * from './conditions.ts';
export * from './labels.ts';
export * from './clustercatalog.ts';
export * from './clusterextension.ts';
