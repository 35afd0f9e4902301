// Public surface of internal/publish. See README.md.
export type { PublishOptions } from './publish.ts';
export {
  BUNDLE_MEDIATYPE_ANNOTATION,
  bundleImage,
  CATALOG_CONFIGS_DIR,
  catalogImage,
  publishBundle,
  publishCatalog,
  PublishContentError,
  REGISTRY_V1,
} from './publish.ts';
