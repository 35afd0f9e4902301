// Public surface of internal/shared/image: what other folders may import.

export type { ImagePuller, PulledImage, CachingImagePullerOptions } from './puller.ts';
export { CachingImagePuller, createImagePuller } from './puller.ts';
export { loadCaDir, readCertificateDir, watchCaPool } from './ca.ts';
export type { CaPool, CaPoolWatcher, CaSource } from './ca.ts';

export type { ImageReference } from './reference.ts';
export { parseReference } from './reference.ts';

export type { Platform } from './platform.ts';
export { DEFAULT_PLATFORM, parsePlatform } from './platform.ts';

export type { Credential, CredentialProvider } from './auth.ts';
export { anonymous, credentialsFromSecretData, loadUserCredentials, parseDockerConfig } from './auth.ts';

export type { BlobSource, ImageManifest, RegistryClientOptions, UploadProgress } from './registry.ts';
export { RegistryClient } from './registry.ts';

export { loadRegistriesConf, RegistriesConf, SYSTEM_REGISTRIES_CONF } from './registries-conf.ts';

export type { BuildImageOptions, ImageRuntime } from './build.ts';
export { buildImage } from './build.ts';
export type { PushableImage, PushImageOptions, PushResult } from './push.ts';
export { pushImage } from './push.ts';

export {
  CATALOG_CONFIGS_LABEL,
  DigestMismatchError,
  ImageError,
  isImageError,
  MissingCatalogLabelError,
  UnpackLimitError,
  UnsafeLayerEntryError,
} from './errors.ts';

export type { UnpackLimits } from './limits.ts';
/** The layer pipeline (applyLayer, PathSelector, decompressedStream, sniffFile, …), loaded on first use: see layers.ts. */
export { loadLayerPipeline } from './load-layers.ts';
export { MediaTypes } from './media-types.ts';
export { sha256 } from './digest.ts';
export { forceRemove, makeReadOnly } from './tree.ts';
