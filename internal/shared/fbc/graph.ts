// The upgrade graph as later resolution needs it: per package, its channels with their entries
// (replaces, skips, skipRange, bundle version/release) and each channel's head (the one entry no
// other entry replaces or skips; skipRange adds no edge here, as in opm).

import type { ChannelEntry } from './declcfg.ts';
import { channelHead, type Model, type ModelBundle } from './model.ts';

/** A channel entry (name, replaces, skips, skipRange) with what its bundle says. */
export interface GraphEntry extends ChannelEntry {
  /** Bundle version from its `olm.package` property. */
  readonly version: string;
  /** Bundle release, `""` when none. */
  readonly release: string;
  readonly image: string;
  /** Deprecation message of the bundle, if deprecated. */
  readonly deprecation?: string;
}

export interface ChannelGraph {
  readonly package: string;
  readonly name: string;
  /** In the channel's entry order. */
  readonly entries: readonly GraphEntry[];
  /** The channel head; undefined when there is none or more than one (see `headError`). */
  readonly head: string | undefined;
  readonly headError?: string;
  readonly deprecation?: string;
}

export interface PackageGraph {
  readonly name: string;
  readonly defaultChannel: string;
  readonly channels: ReadonlyMap<string, ChannelGraph>;
  readonly deprecation?: string;
}

function entryOf(b: ModelBundle): GraphEntry {
  const e = {
    name: b.name,
    replaces: b.replaces,
    skips: b.skips,
    skipRange: b.skipRange,
    version: b.version,
    release: b.release,
    image: b.image,
  };
  return b.deprecation ? { ...e, deprecation: b.deprecation.message } : e;
}

/** Upgrade graphs of every package of a (converted, valid) model, by package name. */
export function buildGraphs(model: Model): Map<string, PackageGraph> {
  const out = new Map<string, PackageGraph>();
  for (const pkg of model.values()) {
    const channels = new Map<string, ChannelGraph>();
    for (const ch of pkg.channels.values()) {
      const entries = [...ch.bundles.values()].map(entryOf);
      const h = channelHead(entries);
      const base = { package: pkg.name, name: ch.name, entries, ...(ch.deprecation ? { deprecation: ch.deprecation.message } : {}) };
      channels.set(ch.name, 'head' in h ? { ...base, head: h.head } : { ...base, head: undefined, headError: h.error });
    }
    out.set(pkg.name, {
      name: pkg.name,
      defaultChannel: pkg.defaultChannel?.name ?? '',
      channels,
      ...(pkg.deprecation ? { deprecation: pkg.deprecation.message } : {}),
    });
  }
  return out;
}
