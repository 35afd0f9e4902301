export type * from './types.ts';
export { clusterCatalogCRD, clusterCatalogExperimentalCRD } from './clustercatalog.ts';
export { clusterObjectSetCRD } from './clusterobjectset.ts';
export { clusterExtensionCRD, clusterExtensionExperimentalCRD } from './clusterextension.ts';
export { crdFileName, crds, experimentalCrds, renderAll, renderCRD, renderExperimental } from './render.ts';
