// One content model for a CatalogSource, whichever way it came in: packages with their channels
// (entries with replaces/skips/skipRange) and bundles with their properties (type + JSON text, as
// the registry API serves them). `spec.image` fills it from the FBC of the unpacked image,
// `spec.address` from the registry gRPC API.
import { SCHEMA_BUNDLE, SCHEMA_PACKAGE, type Catalog, type ChannelEntry } from '../../shared/fbc/index.ts';
import type { Bundle as RegistryBundle, RegistryClient } from '../registryclient/index.ts';
import { tryOr } from '../../shared/toolkit/index.ts';

export interface ContentProperty {
  readonly type: string;
  /** The value as JSON text. */
  readonly value: string;
}

export interface ContentBundle {
  readonly name: string;
  readonly package: string;
  /** The bundle image ('' when the catalog has none). */
  readonly image: string;
  /** From the `olm.package` property ('' when absent). */
  readonly version: string;
  readonly properties: readonly ContentProperty[];
  /** The catalog's deprecation message for this bundle, when it has one. */
  readonly deprecation?: string;
  /**
   * The CSV as JSON text, when the registry API served it (`spec.address`: ListBundles' csvJson, else, for a channel
   * head, GetBundleForChannel's — opm serve's ListBundles sends none; an FBC bundle's CSV is in its properties).
   */
  readonly csvJson?: string;
  /**
   * Every manifest of the bundle as JSON text, when the registry API served them (`spec.address`: ListBundles'
   * `object`, which opm serve sends for a bundle without an image); a file-based catalog's are in its properties.
   */
  readonly objects?: readonly string[];
  /** The images of the bundle blob's `relatedImages` (FBC), when it has some. */
  readonly relatedImages?: readonly string[];
}

/** An entry of a channel: name, replaces, skips, skipRange (FBC's). */
export type ContentChannelEntry = ChannelEntry;

export interface ContentChannel {
  readonly name: string;
  readonly entries: readonly ContentChannelEntry[];
  readonly deprecation?: string;
}

export interface ContentPackage {
  readonly name: string;
  readonly defaultChannel: string;
  readonly channels: readonly ContentChannel[];
  readonly deprecation?: string;
  /** The `olm.package` blob's description (FBC), when it has one. */
  readonly description?: string;
  /** The `olm.package` blob's icon (FBC), when it has one. */
  readonly icon?: { readonly base64data: string; readonly mediatype: string };
}

/** A CatalogSource's content as loaded. */
export interface CatalogContent {
  /** Where it came from: the image's digest reference, or the registry address. */
  readonly origin: string;
  /** RFC 3339 time of the load. */
  readonly loadedAt: string;
  readonly packages: readonly ContentPackage[];
  /** Every bundle once, in catalog order. */
  readonly bundles: readonly ContentBundle[];
}

/** A package of a CatalogContent by name. */
export function findPackage(c: CatalogContent, name: string): ContentPackage | undefined {
  return c.packages.find((p) => p.name === name);
}

const versionOf = (props: readonly ContentProperty[]): string => {
  const p = props.find((x) => x.type === 'olm.package');
  if (!p) return '';
  const v = tryOr(() => (JSON.parse(p.value) as { version?: unknown }).version, '');
  return typeof v === 'string' ? v : '';
};

/** From a loaded FBC (the bundles' properties come from their blobs, values re-encoded as JSON text). */
export function contentFromFbc(catalog: Catalog, origin: string, now: Date): CatalogContent {
  const cfg = catalog.config;
  // olm.deprecations entries by package, schema and name (the message as the registry serves it)
  const deprecated = new Map<string, string>();
  for (const d of cfg.deprecations) for (const e of d.entries) deprecated.set(`${d.package}\u0000${e.reference.schema}\u0000${e.reference.name}`, e.message);
  const deprecation = (pkg: string, schema: string, name: string): { deprecation?: string } => {
    const m = deprecated.get(`${pkg}\u0000${schema}\u0000${name}`);
    return m === undefined ? {} : { deprecation: m };
  };
  const descriptions = new Map<string, string>();
  const icons = new Map<string, { base64data: string; mediatype: string }>();
  for (const meta of catalog.metas) {
    if (meta.schema !== SCHEMA_PACKAGE) continue;
    const blob = JSON.parse(meta.json.toString('utf8')) as { name?: string; description?: unknown; icon?: { base64data?: unknown; mediatype?: unknown } };
    if (typeof blob.description === 'string' && blob.description !== '') descriptions.set(blob.name ?? '', blob.description);
    if (typeof blob.icon?.base64data === 'string' && blob.icon.base64data !== '') {
      icons.set(blob.name ?? '', { base64data: blob.icon.base64data, mediatype: typeof blob.icon.mediatype === 'string' ? blob.icon.mediatype : '' });
    }
  }
  const packages: ContentPackage[] = cfg.packages.map((p) => ({
    name: p.name,
    defaultChannel: p.defaultChannel,
    channels: cfg.channels
      .filter((c) => c.package === p.name)
      .map((c) => ({
        name: c.name,
        entries: c.entries.map((e) => ({ name: e.name, replaces: e.replaces, skips: [...e.skips], skipRange: e.skipRange })),
        ...deprecation(p.name, 'olm.channel', c.name),
      })),
    ...deprecation(p.name, 'olm.package', ''),
    ...(descriptions.has(p.name) && { description: descriptions.get(p.name) }),
    ...(icons.has(p.name) && { icon: icons.get(p.name) }),
  }));
  const bundles: ContentBundle[] = [];
  for (const meta of catalog.metas) {
    if (meta.schema !== SCHEMA_BUNDLE) continue;
    const blob = JSON.parse(meta.json.toString('utf8')) as {
      name?: string;
      package?: string;
      image?: string;
      properties?: { type?: string; value?: unknown }[];
      relatedImages?: { image?: unknown }[];
    };
    const properties = (blob.properties ?? []).map((p) => ({ type: String(p.type ?? ''), value: JSON.stringify(p.value ?? null) }));
    const relatedImages = (blob.relatedImages ?? []).map((r) => (typeof r.image === 'string' ? r.image : ''));
    bundles.push({
      name: blob.name ?? '',
      package: blob.package ?? '',
      image: blob.image ?? '',
      version: versionOf(properties),
      properties,
      ...deprecation(blob.package ?? '', 'olm.bundle', blob.name ?? ''),
      ...(relatedImages.length > 0 && { relatedImages }),
    });
  }
  return { origin, loadedAt: now.toISOString(), packages, bundles };
}

/** From a registry server: ListPackages + GetPackage for the default channels, ListBundles for entries and bundles. */
export async function contentFromRegistry(client: RegistryClient, origin: string, now: Date): Promise<CatalogContent> {
  const names = await client.listPackages();
  const pkgs = await Promise.all(names.map((n) => client.getPackage(n)));
  const listed: RegistryBundle[] = await client.listBundles();
  const packages: ContentPackage[] = pkgs.map((p) => ({
    name: p.name,
    defaultChannel: p.defaultChannelName,
    channels: p.channels.map((ch) => ({
      name: ch.name,
      entries: listed
        .filter((b) => b.packageName === p.name && b.channelName === ch.name)
        .map((b) => ({ name: b.csvName, replaces: b.replaces, skips: [...b.skips], skipRange: b.skipRange })),
      ...(ch.deprecation && { deprecation: ch.deprecation.message }),
    })),
    ...(p.deprecation && { deprecation: p.deprecation.message }),
  }));
  // ListBundles (opm serve) sends no csvJson: each channel head's CSV comes from GetBundleForChannel, as upstream's
  // package server asks for it (a channel whose head cannot be read is left without one, and the package server
  // elides it, as upstream).
  const headCsvs = new Map<string, string>();
  await Promise.all(
    pkgs.flatMap((p) =>
      p.channels.map(async (ch) => {
        try {
          const head = await client.getBundleForChannel(p.name, ch.name);
          if (head.csvJson !== '') headCsvs.set(`${p.name}/${head.csvName}`, head.csvJson);
        } catch {
          // upstream: "error getting bundle, eliding channel"
        }
      }),
    ),
  );
  const seen = new Set<string>();
  const bundles: ContentBundle[] = [];
  for (const b of listed) {
    const key = `${b.packageName}/${b.csvName}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const properties = b.properties.map((p) => ({ type: p.type, value: p.value }));
    bundles.push({
      name: b.csvName,
      package: b.packageName,
      image: b.bundlePath,
      version: b.version || versionOf(properties),
      properties,
      ...(b.deprecation && { deprecation: b.deprecation.message }),
      ...((b.csvJson !== '' || headCsvs.has(key)) && { csvJson: b.csvJson !== '' ? b.csvJson : headCsvs.get(key) }),
      ...(b.object.length > 0 && { objects: [...b.object] }),
    });
  }
  return { origin, loadedAt: now.toISOString(), packages, bundles };
}
