// Public surface of internal/publish. See README.md.
export type { PublishOptions } from './publish.ts';
export { bundleImage, catalogImage, publishBundle, publishCatalog, PublishContentError } from './publish.ts';
