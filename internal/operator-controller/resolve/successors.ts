// Upgrade edges (upstream catalogmetadata/filter/successors.go): from the installed bundle a
// candidate is allowed when a channel entry for it replaces the installed bundle, lists it in
// skips, or has a skipRange (blang) containing the installed version; staying on the installed
// version/release is always allowed. One hop per resolution.
import type { ChannelEntry, DeclChannel } from '../../shared/fbc/index.ts';
import { parseBlang, parseBlangRange, type BlangRange, type Version } from '../../shared/semver/index.ts';
import { memoize, tryOr, tryOrThrow } from '../../shared/toolkit/index.ts';
import { msg } from './messages.ts';
import { compareVersionRelease, installedVersionRelease, type VersionRelease } from './version-release.ts';

/** What successors need of the installed bundle (status.install.bundle). */
export interface InstalledBundleMetadata {
  readonly name: string;
  readonly version: string;
  /** Present only with BundleReleaseSupport; `""` is an explicit empty release. */
  readonly release?: string | undefined;
}

/** A bundle as the predicates see it: its name and its version/release (an Error when unreadable). */
export interface Candidate {
  readonly name: string;
  readonly versionRelease: VersionRelease | Error;
}

/** Why an entry makes a bundle a successor of the installed one. */
export type SuccessorEdge =
  | { readonly kind: 'replaces'; readonly channel: string }
  | { readonly kind: 'skips'; readonly channel: string }
  | { readonly kind: 'skipRange'; readonly channel: string; readonly skipRange: string };

/**
 * blang ParseRange of a skipRange, or null when blang refuses it (successors.go ignores those); skipRange strings
 * repeat across entries and resolutions, so each is parsed once.
 */
export const parseSkipRange = memoize((skipRange: string): BlangRange | null => tryOr(() => parseBlangRange(skipRange), null), 10_000);

/** The first edge (in channel and entry order) by which `entry` follows the installed bundle. */
function entryEdge(entry: ChannelEntry, channel: string, installedName: string, installedVersion: Version): SuccessorEdge | undefined {
  if (entry.replaces === installedName) return { kind: 'replaces', channel };
  if (entry.skips.includes(installedName)) return { kind: 'skips', channel };
  if (entry.skipRange !== '') {
    const range = parseSkipRange(entry.skipRange);
    // blang's range functions do not panic on well-formed input; a BLANG_RANGE_PANIC (an empty
    // `||` group upstream would crash on) counts as no match here.
    if (tryOr(() => range !== null && range(installedVersion), false)) return { kind: 'skipRange', channel, skipRange: entry.skipRange };
  }
  return undefined;
}

/**
 * legacySuccessor: for a candidate name, the edge from the installed bundle, if any. Throws
 * `error parsing installed bundle version: <blang error>`.
 */
export function legacySuccessor(installed: InstalledBundleMetadata, channels: readonly DeclChannel[]): (name: string) => SuccessorEdge | undefined {
  const installedVersion = tryOrThrow(() => parseBlang(installed.version), (err) => new Error(msg.parsingInstalledVersion(err.message), { cause: err }));
  // Entries by bundle name, in channel then entry order (the order upstream scans them).
  const byName = new Map<string, { entry: ChannelEntry; channel: string }[]>();
  for (const ch of channels) {
    for (const entry of ch.entries) {
      let list = byName.get(entry.name);
      if (!list) byName.set(entry.name, (list = []));
      list.push({ entry, channel: ch.name });
    }
  }
  return (name) => {
    for (const { entry, channel } of byName.get(name) ?? []) {
      const edge = entryEdge(entry, channel, installed.name, installedVersion);
      if (edge) return edge;
    }
    return undefined;
  };
}

/** filter.ExactVersionRelease: same version (build ignored) and release. */
export function exactVersionRelease(expect: VersionRelease): (c: Candidate) => boolean {
  return (c) => !(c.versionRelease instanceof Error) && compareVersionRelease(expect, c.versionRelease) === 0;
}

/** How a candidate relates to the installed bundle; `undefined` when it is neither. */
export type SuccessorReason = SuccessorEdge | { readonly kind: 'installed' };

/**
 * SuccessorsOf(installed, channels): OR(legacySuccessor, ExactVersionRelease(installed)).
 * Returns a function giving the reason a candidate is allowed (undefined: not allowed). Throws the
 * installed bundle's parse errors with upstream's wording.
 */
export function successorsOf(installed: InstalledBundleMetadata, channels: readonly DeclChannel[]): (c: Candidate) => SuccessorReason | undefined {
  const installedVR = installedVersionRelease(installed);
  const edges = tryOrThrow(() => legacySuccessor(installed, channels), (err) => new Error(msg.successorsPredicate(err.message), { cause: err }));
  const same = exactVersionRelease(installedVR);
  return (c) => edges(c.name) ?? (same(c) ? { kind: 'installed' } : undefined);
}
