export type * from './types.ts';
export { clusterCatalogCRD } from './clustercatalog.ts';
export { clusterExtensionCRD } from './clusterextension.ts';
export { crdFileName, crds, renderAll, renderCRD } from './render.ts';
