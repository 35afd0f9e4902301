export type * from './types.ts';
export { clusterCatalogCRD } from './clustercatalog.ts';
export { clusterExtensionCRD, clusterExtensionExperimentalCRD } from './clusterextension.ts';
export { crdFileName, crds, experimentalCrds, renderAll, renderCRD, renderExperimental } from './render.ts';
