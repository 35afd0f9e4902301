// Every failure of this folder is an ImageError with a stable `code` (match on it, not on text)
// and a `terminal` flag: true when retrying the same pull cannot help (a malformed reference,
// or content that is wrong in an image addressed by digest and so can never change). The
// caller decides what terminal means for it (catalogd/operator-controller make it a
// TerminalError); this folder never imports the controller.

export type ImageErrorCode =
  | 'InvalidReference'
  | 'InvalidDigest'
  | 'ManifestNotFound'
  | 'BlobNotFound'
  | 'Unauthorized'
  | 'Denied'
  | 'TooManyRequests'
  | 'RegistryUnavailable'
  | 'RegistryError'
  | 'InsecureRegistry'
  | 'DigestMismatch'
  | 'SizeMismatch'
  | 'TooLarge'
  | 'InvalidManifest'
  | 'UnsupportedMediaType'
  | 'NoMatchingPlatform'
  | 'UnsupportedCompression'
  | 'CorruptLayer'
  | 'UnsafeLayerEntry'
  | 'UnpackLimitExceeded'
  | 'MissingCatalogLabel'
  | 'InvalidCatalogLabel'
  | 'InvalidCredentials'
  | 'RegistryBlocked'
  | 'CacheError'
  | 'InvalidLayerContent';

const BRAND = Symbol.for('olmv1.image.ImageError');

export interface ImageErrorOptions extends ErrorOptions {
  readonly terminal?: boolean;
}

export class ImageError extends Error {
  override readonly name: string = 'ImageError';
  readonly code: ImageErrorCode;
  /** True when retrying the same pull cannot succeed. */
  readonly terminal: boolean;

  constructor(code: ImageErrorCode, message: string, options: ImageErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.terminal = options.terminal ?? false;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== ImageError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

export const isImageError = (err: unknown): err is ImageError => err instanceof ImageError;

/** `error parsing image reference "<ref>": <why>` (upstream's wording); always terminal. */
export class InvalidReferenceError extends ImageError {
  override readonly name = 'InvalidReferenceError';
  readonly reference: string;
  constructor(reference: string, why: string) {
    super('InvalidReference', `error parsing image reference ${JSON.stringify(reference)}: ${why}`, { terminal: true });
    this.reference = reference;
  }
}

/** An HTTP answer from a registry (or its token server) that is not what was asked for. */
export class RegistryHttpError extends ImageError {
  override readonly name = 'RegistryHttpError';
  readonly status: number;
  readonly url: string;
  constructor(code: ImageErrorCode, status: number, url: string, message: string, options: ImageErrorOptions = {}) {
    super(code, message, options);
    this.status = status;
    this.url = url;
  }
}

/** Bytes whose sha256 differs from the digest that names them. */
export class DigestMismatchError extends ImageError {
  override readonly name = 'DigestMismatchError';
  readonly expected: string;
  readonly actual: string;
  constructor(what: string, expected: string, actual: string) {
    super('DigestMismatch', `${what}: digest mismatch: expected ${expected}, got ${actual}`);
    this.expected = expected;
    this.actual = actual;
  }
}

/** A tar entry this folder refuses to write; names the layer and the entry. */
export class UnsafeLayerEntryError extends ImageError {
  override readonly name = 'UnsafeLayerEntryError';
  readonly layerDigest: string;
  readonly entryPath: string;
  readonly reason: string;
  constructor(layerDigest: string, entryPath: string, reason: string, options: ImageErrorOptions = {}) {
    super('UnsafeLayerEntry', `layer ${layerDigest}: refusing entry ${JSON.stringify(entryPath)}: ${reason}`, options);
    this.layerDigest = layerDigest;
    this.entryPath = entryPath;
    this.reason = reason;
  }
}

/** Which unpack limit was crossed. */
export type UnpackLimitKind = 'bytes' | 'entries' | 'files';

/**
 * The decompressed size, the number of entries or the number of files went over the configured
 * limit; unpacking stopped there. The message says what was exceeded (the running total, not one
 * entry's size), at which entry, and the limit.
 */
export class UnpackLimitError extends ImageError {
  override readonly name = 'UnpackLimitError';
  readonly layerDigest: string;
  readonly entryPath: string;
  readonly kind: UnpackLimitKind;
  readonly limit: number;
  /** The total that exceeded (or would have exceeded) the limit. */
  readonly total: number;
  constructor(layerDigest: string, entryPath: string, kind: UnpackLimitKind, limit: number, total: number, detail: string, options: ImageErrorOptions = {}) {
    super('UnpackLimitExceeded', `layer ${layerDigest}: entry ${JSON.stringify(entryPath)}: ${detail}`, options);
    this.layerDigest = layerDigest;
    this.entryPath = entryPath;
    this.kind = kind;
    this.limit = limit;
    this.total = total;
  }
}

export const CATALOG_CONFIGS_LABEL = 'operators.operatorframework.io.index.configs.v1';

/**
 * The config of a catalog image has no `operators.operatorframework.io.index.configs.v1` label.
 * Terminal when the image was named by digest (a tag might later point at a good image).
 */
export class MissingCatalogLabelError extends ImageError {
  override readonly name = 'MissingCatalogLabelError';
  constructor(options: ImageErrorOptions = {}) {
    super('MissingCatalogLabel', `catalog image is missing the required label ${JSON.stringify(CATALOG_CONFIGS_LABEL)}`, options);
  }
}

/** Marks `err` terminal in place when it is an ImageError and `terminal` is true; returns it. */
export function markTerminal<T>(err: T, terminal: boolean): T {
  if (terminal && err instanceof ImageError && !err.terminal) {
    Object.defineProperty(err, 'terminal', { value: true, enumerable: true });
  }
  return err;
}
