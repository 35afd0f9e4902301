// upstream's RegistryProvider List/Get over what the CatalogSource side holds: the CatalogSources from its informer
// and their loaded content (no copy of their own; the content-only half of each manifest is computed once per load).
import type { CatalogSource } from '../../../api/operators/index.ts';
import type { ContentRegistry } from '../catalogsource/index.ts';
import type { LabelMatcher } from '../../shared/kube/index.ts';
import { contentManifests, packageIcon, packageManifest, registryUnreachable, type ContentManifest, type PackageManifest } from './manifest.ts';
import type { PackageIndex } from './watch.ts';

export interface PackageProviderOptions {
  /** The CatalogSources (an informer's cache). */
  readonly catalogSources: { list(): CatalogSource[] };
  readonly contents: ContentRegistry;
  /** Its CatalogSources' packages are listed in every namespace. */
  readonly globalCatalogNamespace: string;
  /** Where resourceVersions come from (none: manifests have no resourceVersion). */
  readonly index?: PackageIndex;
}

export interface PackageProvider {
  /** The namespace's packages then the global catalog namespace's ('' : every namespace's, each in its own). */
  list(namespace: string, selector?: LabelMatcher): PackageManifest[];
  /** The first package of that name list(namespace) holds. */
  get(namespace: string, name: string): PackageManifest | undefined;
  /** Its default channel's head CSV's icon (undefined: none; `found` false: no such package). */
  icon(namespace: string, name: string): { found: boolean; icon?: { data: Buffer; mediatype: string; etag: string } };
}

const byName = (a: CatalogSource, b: CatalogSource): number => {
  const x = `${a.metadata.namespace ?? ''}/${a.metadata.name ?? ''}`;
  const y = `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`;
  return x < y ? -1 : x > y ? 1 : 0;
};

export function packageProvider(o: PackageProviderOptions): PackageProvider {
  type Found = { pm: PackageManifest; m: ContentManifest };
  const manifestsOf = (sources: CatalogSource[], namespace: string | undefined, selector: LabelMatcher | undefined, name?: string): Found[] => {
    const out: Found[] = [];
    for (const source of sources.sort(byName)) {
      const content = o.contents.get(source.metadata.namespace ?? '', source.metadata.name ?? '');
      if (!content || registryUnreachable(source)) continue;
      o.index?.refresh(source.metadata.namespace ?? '', source.metadata.name ?? '', source);
      for (const m of contentManifests(content)) {
        if (name !== undefined && m.packageName !== name) continue;
        const pm = packageManifest(source, m, namespace ?? source.metadata.namespace ?? '');
        const revision = o.index?.revisionOf(source, m.packageName);
        if (revision !== undefined) pm.metadata.resourceVersion = String(revision);
        if (!selector || selector.matches(pm.metadata.labels)) out.push({ pm, m });
      }
    }
    return out;
  };
  const list = (namespace: string, selector?: LabelMatcher, name?: string): Found[] => {
    const all = o.catalogSources.list();
    if (namespace === '') return manifestsOf(all, undefined, selector, name);
    const of = (sourceNamespace: string): Found[] => manifestsOf(all.filter((s) => s.metadata.namespace === sourceNamespace), namespace, selector, name);
    return namespace === o.globalCatalogNamespace ? of(namespace) : [...of(namespace), ...of(o.globalCatalogNamespace)];
  };
  return {
    list: (namespace, selector) => list(namespace, selector).map((f) => f.pm),
    get: (namespace, name) => list(namespace, undefined, name)[0]?.pm,
    icon: (namespace, name) => {
      const f = list(namespace, undefined, name)[0];
      if (!f) return { found: false };
      const icon = packageIcon(f.pm, f.m.icons);
      return icon ? { found: true, icon } : { found: true };
    },
  };
}
