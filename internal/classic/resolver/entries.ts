// Catalog entries as the classic resolver sees them (OLM R/cache Entry + SourceInfo), and
// upstream's orderings: catalogs (R/cache sortableSnapshots), channels (sortBundles) and the
// replaces chain within a channel (sortChannel), with their error texts.
import { parseBlangRange, parseTolerant, type BlangRange, type Version } from '../../shared/semver/index.ts';
import { tryOr } from '../../shared/toolkit/index.ts';

export interface CatalogKey {
  readonly name: string;
  readonly namespace: string;
}
export const catalogString = (k: CatalogKey): string => `${k.name}/${k.namespace}`;
export const EXISTING = '@existing';
export const isVirtual = (k: CatalogKey): boolean => k.name === EXISTING;

/** A property as the registry serves it: a type and a JSON-encoded value. */
export interface Property {
  readonly type: string;
  readonly value: string;
}

export interface Entry {
  readonly name: string;
  readonly package: string;
  /** '' for installed CSVs (the @existing catalog). */
  readonly channel: string;
  readonly catalog: CatalogKey;
  readonly defaultChannel: boolean;
  readonly replaces?: string | undefined;
  readonly skips: readonly string[];
  readonly skipRange?: BlangRange | undefined;
  readonly version?: Version | undefined;
  readonly properties: readonly Property[];
  /** Installed CSVs: whether a Subscription's status.installedCSV names it. */
  readonly subscribed?: boolean;
}

export interface EntryInput {
  readonly name: string;
  readonly package: string;
  readonly channel: string;
  readonly defaultChannel?: boolean;
  readonly replaces?: string;
  readonly skips?: readonly string[];
  readonly skipRange?: string;
  readonly version?: string;
  /** Decoded values; they are JSON-encoded here (FBC properties as catalogd serves them). */
  readonly properties?: readonly { readonly type: string; readonly value: unknown }[];
}

/** An entry as upstream's cache builds it: skipRange/version parse errors leave them unset. */
export function makeEntry(catalog: CatalogKey, e: EntryInput): Entry {
  const { skipRange: range, version: text } = e;
  const skipRange: BlangRange | undefined = range ? tryOr(() => parseBlangRange(range), undefined) : undefined;
  const version: Version | undefined = text ? tryOr(() => parseTolerant(text), undefined) : undefined;
  const properties = (e.properties ?? []).map((p) => ({ type: p.type, value: JSON.stringify(p.value) }));
  if (!properties.some((p) => p.type === 'olm.package')) {
    properties.push({ type: 'olm.package', value: JSON.stringify({ packageName: e.package, version: e.version ?? '' }) });
  }
  return {
    name: e.name,
    package: e.package,
    channel: e.channel,
    catalog,
    defaultChannel: e.defaultChannel ?? false,
    replaces: e.replaces,
    skips: e.skips ?? [],
    skipRange,
    version,
    properties,
  };
}

export interface CatalogOrderContext {
  readonly preferred?: CatalogKey | undefined;
  readonly namespace: string;
  readonly priority: (k: CatalogKey) => number;
}

const same = (a: CatalogKey | undefined, b: CatalogKey): boolean => a !== undefined && a.name === b.name && a.namespace === b.namespace;

/** FindPreferred's catalog order: @existing of the namespace, the preferred catalog, priority, own namespace, name. */
export function compareCatalogs(a: CatalogKey, b: CatalogKey, ctx: CatalogOrderContext): number {
  const existing = { name: EXISTING, namespace: ctx.namespace };
  const rank = (k: CatalogKey): number => (same(existing, k) ? 0 : same(ctx.preferred, k) ? 1 : 2);
  return (
    rank(a) - rank(b) ||
    ctx.priority(b) - ctx.priority(a) ||
    Number(b.namespace === ctx.namespace) - Number(a.namespace === ctx.namespace) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

/** sortChannel: the single replaces chain, head first; skipped entries omitted. */
export function sortChannel(entries: readonly Entry[]): Entry[] {
  if (entries.length === 0) return [];
  const first = entries[0] as Entry;
  const pkg = first.package;
  const channel = first.channel;
  const byName = new Map(entries.map((e) => [e.name, e]));
  const replacedBy = new Set<Entry>();
  const replaces = new Map<Entry, Entry>();
  const skipped = new Set<string>();
  for (const e of entries) {
    const r = e.replaces ? byName.get(e.replaces) : undefined;
    if (r) {
      replacedBy.add(r);
      replaces.set(e, r);
    }
    for (const s of e.skips) {
      const r2 = byName.get(s);
      if (r2) {
        replacedBy.add(r2);
        skipped.add(s);
      }
    }
  }
  const heads = entries.filter((e) => !replacedBy.has(e));
  if (heads.length === 0) throw new Error(`no channel heads (entries not replaced by another entry) found in channel "${channel}" of package "${pkg}"`);
  const chains: Entry[][] = [];
  for (const head of heads) {
    const chain: Entry[] = [];
    const seen = new Set<Entry>();
    let cur: Entry | undefined = head;
    while (cur) {
      seen.add(cur);
      if (!skipped.has(cur.name)) chain.push(cur);
      const next = replaces.get(cur);
      if (next && seen.has(next)) {
        throw new Error(`a cycle exists in the chain of replacement beginning with "${head.name}" in channel "${channel}" of package "${pkg}"`);
      }
      cur = next;
    }
    chains.push(chain);
  }
  if (chains.length > 1) {
    const shown = chains.map((c) => (c.length === 0 ? '[]' : c.length === 1 ? (c[0] as Entry).name : `${(c[0] as Entry).name}...${(c[c.length - 1] as Entry).name}`));
    throw new Error(
      `a unique replacement chain within a channel is required to determine the relative order between channel entries, but ${chains.length} replacement chains were found in channel "${channel}" of package "${pkg}": ${shown.join(', ')}`,
    );
  }
  return chains[0] as Entry[];
}

/** sortBundles: per catalog (in the given order), default channels first, then package, channel; each channel by sortChannel. */
export function sortBundles(entries: readonly Entry[]): Entry[] {
  const catalogs = new Map<string, Map<string, Entry[]>>();
  for (const e of entries) {
    const ck = catalogString(e.catalog);
    let groups = catalogs.get(ck);
    if (!groups) catalogs.set(ck, (groups = new Map()));
    const gk = `${e.defaultChannel ? 0 : 1}\u0000${e.package}\u0000${e.channel}`;
    let g = groups.get(gk);
    if (!g) groups.set(gk, (g = []));
    g.push(e);
  }
  const out: Entry[] = [];
  for (const groups of catalogs.values()) {
    const keys = [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const k of keys) out.push(...sortChannel(groups.get(k) as Entry[]));
  }
  return out;
}
