// Public surface of internal/shared/image: what other folders may import.

export type { ImagePuller, PulledImage, PullOptions, CachingImagePullerOptions } from './puller.ts';
export { CachingImagePuller, createImagePuller } from './puller.ts';
export { readCertificateDir } from './ca.ts';

export type { ImageReference } from './reference.ts';
export { parseReference, formatReference, canonicalReference, DEFAULT_DOMAIN } from './reference.ts';

export type { Platform } from './platform.ts';
export { DEFAULT_PLATFORM, parsePlatform, formatPlatform, platformMatches } from './platform.ts';

export type { Credential, CredentialProvider, Challenge } from './auth.ts';
export {
  anonymous,
  chainCredentials,
  credentialsFromSecretData,
  loadUserCredentials,
  normalizeAuthKey,
  parseChallenges,
  parseDockerConfig,
  userCredentialFiles,
} from './auth.ts';

export type {
  BlobSource,
  Descriptor,
  FetchedManifest,
  ImageIndex,
  ImageManifest,
  PushContext,
  RegistryClientOptions,
  RequestContext,
  ResolvedImage,
  UploadProgress,
} from './registry.ts';
export { RegistryClient, MAX_CONFIG_BYTES, MAX_MANIFEST_BYTES } from './registry.ts';

export type { LoadRegistriesConfOptions, PullFromMirror, PullSource, RegistryConfig, RegistryEndpoint } from './registries-conf.ts';
export {
  loadRegistriesConf,
  parseRegistriesConf,
  RegistriesConf,
  RegistriesConfError,
  refMatchingPrefix,
  SYSTEM_REGISTRIES_CONF,
} from './registries-conf.ts';

export type { BuildImageOptions, BuiltImage, BuiltLayer, LayerContent } from './build.ts';
export { buildImage, imageConfig } from './build.ts';
export type { PushableImage, PushImageOptions, PushResult } from './push.ts';
export { pushImage } from './push.ts';

export type { ImageErrorCode, ImageErrorOptions } from './errors.ts';
export {
  CATALOG_CONFIGS_LABEL,
  DigestMismatchError,
  ImageError,
  InvalidReferenceError,
  isImageError,
  MissingCatalogLabelError,
  RegistryHttpError,
  UnpackLimitError,
  UnsafeLayerEntryError,
} from './errors.ts';

export type { UnpackLimits } from './limits.ts';
export { DEFAULT_UNPACK_LIMITS } from './limits.ts';
export type { UnpackState, ApplyLayerOptions } from './apply.ts';
export type { Compression } from './compression.ts';
/** The layer pipeline (applyLayer, PathSelector, decompressedStream, sniffFile, …), loaded on first use: see layers.ts. */
export { loadLayerPipeline } from './load-layers.ts';
export { MediaTypes } from './media-types.ts';
export { digestProblem, parseDigest, sha256 } from './digest.ts';
export { forceRemove, makeReadOnly } from './tree.ts';
