// The resolver's inputs for one namespace (upstream's cache sources): each CatalogSource's loaded content as
// catalog entries (R/source_registry.go), the namespace's installed CSVs as the @existing catalog
// (R/source_csvs.go), and the errors of CatalogSources that have no content yet.
import { isCopiedCSV, PropertiesAnnotation, type CatalogSource, type ClusterServiceVersion, type Subscription } from '../../../api/operators/index.ts';
import { servedProperties, type CatalogContent, type ContentBundle } from '../catalogsource/index.ts';
import { makeEntry, type Catalog, type CatalogKey, type Entry, type Property } from '../resolver/index.ts';
import { parseTolerant } from '../../shared/semver/index.ts';
import { tryOr, withErrorPrefix } from '../../shared/toolkit/index.ts';

const keyString = (k: CatalogKey): string => `${k.namespace}/${k.name}`;

interface CachedEntries {
  readonly entries: Entry[];
  readonly bundles: Map<Entry, ContentBundle>;
}
// Content snapshots are immutable: their entries are built once per CatalogSource key and snapshot.
const entryCache = new WeakMap<CatalogContent, Map<string, CachedEntries>>();

const decode = (value: string): unknown => tryOr(() => JSON.parse(value) as unknown, null);

/** A CatalogSource's content as the resolver's entries: one per (channel, bundle), channels in catalog order. */
function entriesOf(key: CatalogKey, content: CatalogContent): CachedEntries {
  let byKey = entryCache.get(content);
  if (!byKey) entryCache.set(content, (byKey = new Map()));
  const cached = byKey.get(keyString(key));
  if (cached) return cached;
  const bundles = new Map<string, ContentBundle>();
  for (const b of content.bundles) bundles.set(`${b.package}\u0000${b.name}`, b);
  const entries: Entry[] = [];
  const bundleOf = new Map<Entry, ContentBundle>();
  for (const pkg of content.packages) {
    for (const ch of pkg.channels) {
      for (const ce of ch.entries) {
        const b = bundles.get(`${pkg.name}\u0000${ce.name}`);
        if (!b) continue;
        const entry = makeEntry(key, {
          name: ce.name,
          package: pkg.name,
          channel: ch.name,
          defaultChannel: ch.name === pkg.defaultChannel,
          ...(ce.replaces && { replaces: ce.replaces }),
          skips: ce.skips,
          ...(ce.skipRange && { skipRange: ce.skipRange }),
          ...(b.version && { version: b.version }),
          // as the registry serves them: without the bundle's manifests (olm.bundle.object, olm.csv.metadata)
          properties: servedProperties(b.properties).map((p) => ({ type: p.type, value: decode(p.value) })),
        });
        entries.push(entry);
        bundleOf.set(entry, b);
      }
    }
  }
  const out = { entries, bundles: bundleOf };
  byKey.set(keyString(key), out);
  return out;
}

export interface NamespaceCatalogs {
  readonly catalogs: Catalog[];
  /** Upstream's `error using catalogsource <ns>/<name>: …` for sources without content, sorted. */
  readonly errors: string[];
  /** The bundle (image, properties) behind a resolved catalog entry. */
  bundleOf(entry: Entry): ContentBundle | undefined;
}

/**
 * The catalogs of the resolving namespaces (the namespace and, unless excluded, the global one). A CatalogSource
 * whose content was never loaded blocks resolution, as upstream's cache does for a source without a registry client.
 */
export function namespaceCatalogs(
  sources: readonly CatalogSource[],
  contentOf: (namespace: string, name: string) => CatalogContent | undefined,
): NamespaceCatalogs {
  const catalogs: Catalog[] = [];
  const errors: string[] = [];
  const lookups: CachedEntries[] = [];
  for (const cs of sources) {
    const key = { name: cs.metadata.name ?? '', namespace: cs.metadata.namespace ?? '' };
    const content = contentOf(key.namespace, key.name);
    if (!content) {
      errors.push(`error using catalogsource ${key.namespace}/${key.name}: no registry client established for catalogsource ${key.namespace}/${key.name}`);
      continue;
    }
    const cached = entriesOf(key, content);
    lookups.push(cached);
    catalogs.push({ key, priority: cs.spec.priority ?? 0, entries: cached.entries });
  }
  errors.sort();
  return {
    catalogs,
    errors,
    bundleOf: (entry) => lookups.find((l) => l.bundles.has(entry))?.bundles.get(entry),
  };
}

const gvkValue = (group: string, version: string, kind: string): string => JSON.stringify({ group, kind, version });

/** Parses the properties annotation; throws upstream's error. */
export function propertiesFromAnnotation(csvName: string, text: string): Property[] {
  const doc = withErrorPrefix(`failed to retrieve properties of csv ${JSON.stringify(csvName)}`, () => JSON.parse(text) as unknown);
  const list = (doc as { properties?: unknown } | null)?.properties;
  if (!Array.isArray(list)) return [];
  return list.map((p: { type?: unknown; value?: unknown }) => ({ type: String(p.type ?? ''), value: JSON.stringify(p.value ?? null) }));
}

/**
 * The namespace's installed, non-copied CSVs as @existing entries: the properties annotation when present, else
 * `olm.gvk` / `olm.gvk.required` from owned and required APIs plus `olm.package` inferred from the one Subscription
 * whose installedCSV is the CSV. Throws on an owned/required CRD name without a group (upstream's message).
 */
export function installedEntries(csvs: readonly ClusterServiceVersion[], subs: readonly Subscription[], namespace: string): Entry[] {
  const key: CatalogKey = { name: '@existing', namespace };
  const out: Entry[] = [];
  for (const csv of csvs) {
    if (isCopiedCSV(csv)) continue;
    const name = csv.metadata.name ?? '';
    let properties: Property[];
    const anno = csv.metadata.annotations?.[PropertiesAnnotation];
    if (anno !== undefined) {
      properties = propertiesFromAnnotation(name, anno);
    } else {
      const provided = new Set<string>();
      const required = new Set<string>();
      const crdGroup = (crdName: string): string => {
        const dot = crdName.indexOf('.');
        if (dot < 0) throw new Error(`error parsing crd name: ${crdName}`);
        return crdName.slice(dot + 1);
      };
      for (const c of csv.spec.customresourcedefinitions?.owned ?? []) provided.add(gvkValue(crdGroup(c.name), c.version, c.kind));
      for (const a of csv.spec.apiservicedefinitions?.owned ?? []) provided.add(gvkValue(a.group, a.version, a.kind));
      for (const c of csv.spec.customresourcedefinitions?.required ?? []) required.add(gvkValue(crdGroup(c.name), c.version, c.kind));
      for (const a of csv.spec.apiservicedefinitions?.required ?? []) required.add(gvkValue(a.group, a.version, a.kind));
      properties = [
        ...[...provided].sort().map((value) => ({ type: 'olm.gvk', value })),
        ...[...required].sort().map((value) => ({ type: 'olm.gvk.required', value })),
      ];
      const packages = new Set(subs.filter((s) => s.status?.installedCSV === name && s.spec.name).map((s) => s.spec.name));
      if (packages.size === 1) {
        properties.push({ type: 'olm.package', value: JSON.stringify({ packageName: [...packages][0], version: csv.spec.version ?? '' }) });
      }
    }
    const packageNames = properties.filter((p) => p.type === 'olm.package').map((p) => (decode(p.value) as { packageName?: unknown } | null)?.packageName);
    const pkg = packageNames.findLast((n): n is string => typeof n === 'string') ?? '';
    const version = tryOr(() => (csv.spec.version ? parseTolerant(csv.spec.version) : undefined), undefined);
    out.push({ name, package: pkg, channel: '', catalog: key, defaultChannel: false, skips: [], version, properties });
  }
  return out;
}
