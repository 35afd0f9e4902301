// How much one unpack may read and write: the limits every pull checks (apply.ts) and their defaults (puller.ts).
import type { UnpackLimitKind } from './errors.ts';

export interface UnpackLimits {
  /** Decompressed bytes read across all layers. */
  readonly maxBytes: number;
  /** Tar entries across all layers. */
  readonly maxEntries: number;
  /** Files (regular files, symlinks, hardlinks) written across all layers; default: no limit but `maxEntries`. */
  readonly maxFiles?: number;
  /** How each limit is changed, added to its message (e.g. `change it with catalogd's --max-catalog-files flag`). */
  readonly hints?: { readonly [K in UnpackLimitKind]?: string };
}

export const DEFAULT_UNPACK_LIMITS: UnpackLimits = { maxBytes: 1024 ** 3, maxEntries: 1_000_000 };
