// What `kubectl olm upgrade-check` reads from a live cluster, and where it looks for a way out:
//   the version — ClusterVersion `version` (.status.desired.version), unless given;
//   ClusterExtensions — each one's latest Active revision (bundle, version, olm.properties): its ClusterObjectSets
//     (BoxcutterRuntime), else its revision head Secrets in the system namespace; its way out is what operator-controller's resolver picks over the live ClusterCatalogs (through
//     catalogd's content API) once bundles whose max does not allow the target are left out — first within the
//     extension's spec, then, failing that, with its version range lifted (channels and upgrade edges kept);
//   CSVs — every non-copied one; its way out is the newest bundle reachable from it along its Subscription's
//     channel (replaces, skips, skipRange, followed transitively, as classic OLM steps through them) in the
//     Subscription's CatalogSource, read here: spec.image pulled with the shared image client, or spec.address
//     over the registry gRPC API.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ClusterServiceVersionKind, SubscriptionKind, V1alpha1, CatalogSourceKind, type CatalogSource, type Subscription } from '../../../api/operators/index.ts';
import {
  BundleNameKey,
  BundleVersionKey,
  ClusterCatalogKind,
  ClusterExtensionKind,
  ClusterObjectSetKind,
  GroupVersion,
  OwnerKindKey,
  OwnerNameKey,
  PropertiesAnnotation,
  type ClusterCatalog,
  type ClusterExtension,
  type ClusterObjectSet,
} from '../../../api/v1/index.ts';
import { catalogSourceReader, type CatalogContent, type ContentBundle } from '../../classic/catalogsource/index.ts';
import { RevisionHeadsSelector, readRevisionHead } from '../../operator-controller/applier/index.ts';
import type { CatalogContentClient, PackageBundle } from '../../operator-controller/contentclient/index.ts';
import { CatalogResolver, ResolutionError } from '../../operator-controller/resolve/index.ts';
import type { RegistryClient as ImageRegistryClient } from '../../shared/image/index.ts';
import { isNoKindMatch, isNotFound, type KubeClient } from '../../shared/kube/index.ts';
import { compareVersions, parseBlangRange, parseTolerant, type Version } from '../../shared/semver/index.ts';
import { tryOr } from '../../shared/toolkit/index.ts';
import { isCopied } from '../classic.ts';
import { ClusterVersionKind, ClusterVersionName, ConfigGroupVersion, type ClusterVersion } from '../clusteroperator.ts';
import { CSV_PROPERTIES_ANNOTATION, classicPropertiesFromAnnotation } from '../properties.ts';
import { latestActive, type RevisionInfo } from '../v1.ts';
import { classicMaxOpenShiftVersion } from '../version.ts';
import { bundleMaxV1, type CsvInstall, type ExtensionInstall, type Finders, type UpgradeCandidate } from './check.ts';

/** The cluster's version from ClusterVersion `version`: `.status.desired.version`, else the last Completed update. */
export async function clusterVersion(client: KubeClient, signal?: AbortSignal): Promise<string> {
  let cv: ClusterVersion;
  try {
    cv = await client.get<ClusterVersion>({ apiVersion: ConfigGroupVersion, kind: ClusterVersionKind, name: ClusterVersionName }, { ...(signal && { signal }) });
  } catch (err) {
    if (isNoKindMatch(err) || isNotFound(err)) throw new Error(`no ClusterVersion "${ClusterVersionName}" in this cluster (not OpenShift?): pass --current <version>`, { cause: err });
    throw err;
  }
  const v = cv.status?.desired?.version || cv.status?.history?.find((h) => h.state === 'Completed')?.version;
  if (!v) throw new Error(`ClusterVersion "${ClusterVersionName}" has no status.desired.version: pass --current <version>`);
  return v;
}

interface Head extends RevisionInfo {
  readonly version: string;
}

/** Every ClusterExtension with an Active revision in `systemNamespace`. */
export async function installedExtensions(client: KubeClient, systemNamespace: string, signal?: AbortSignal): Promise<{ installs: ExtensionInstall[]; extensions: Map<string, ClusterExtension> }> {
  const opts = signal ? { signal } : {};
  let list: ClusterExtension[];
  try {
    list = (await client.listAll<ClusterExtension>({ apiVersion: GroupVersion, kind: ClusterExtensionKind }, opts)).items;
  } catch (err) {
    if (isNoKindMatch(err)) return { installs: [], extensions: new Map() };
    throw err;
  }
  const secrets = await client.listAll({ apiVersion: 'v1', kind: 'Secret', namespace: systemNamespace }, { ...opts, labelSelector: RevisionHeadsSelector });
  const heads = new Map<string, Head[]>();
  // BoxcutterRuntime: revisions are ClusterObjectSets; an extension that has any is read from them only.
  const objectSets = new Map<string, Head[]>();
  try {
    const cos = await client.listAll<ClusterObjectSet>({ apiVersion: GroupVersion, kind: ClusterObjectSetKind }, { ...opts, labelSelector: `${OwnerKindKey}=${ClusterExtensionKind}` });
    for (const c of cos.items) {
      const extension = c.metadata.labels?.[OwnerNameKey];
      const a = c.metadata.annotations ?? {};
      if (extension === undefined) continue;
      const head: Head = {
        number: c.spec?.revision ?? 0,
        active: c.spec?.lifecycleState !== 'Archived',
        bundleName: a[BundleNameKey] ?? '',
        version: a[BundleVersionKey] ?? '',
        ...(a[PropertiesAnnotation] !== undefined && { properties: a[PropertiesAnnotation] }),
      };
      objectSets.set(extension, [...(objectSets.get(extension) ?? []), head]);
    }
  } catch (err) {
    if (!isNoKindMatch(err) && !isNotFound(err)) throw err;
  }
  for (const s of secrets.items) {
    const r = readRevisionHead(s as KubeObject & { type?: string });
    if (!r) continue;
    const head: Head = {
      number: r.head.number,
      active: !r.head.archived,
      bundleName: r.head.bundle.name,
      version: r.head.bundle.version,
      ...(r.head.bundle.properties !== undefined && { properties: r.head.bundle.properties }),
    };
    heads.set(r.extension, [...(heads.get(r.extension) ?? []), head]);
  }
  const installs: ExtensionInstall[] = [];
  const extensions = new Map<string, ClusterExtension>();
  for (const ext of list) {
    const name = ext.metadata.name ?? '';
    const head = latestActive(objectSets.get(name) ?? heads.get(name) ?? []) as Head | undefined;
    if (!head) continue;
    extensions.set(name, ext);
    installs.push({ name, bundle: head.bundleName, version: head.version, ...(head.properties !== undefined && { properties: head.properties }) });
  }
  return { installs, extensions };
}

/** Every non-copied CSV (none when the classic API is not served). */
export async function installedCsvs(client: KubeClient, signal?: AbortSignal): Promise<CsvInstall[]> {
  let items: KubeObject[];
  try {
    items = (await client.listAll({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind }, signal ? { signal } : {})).items;
  } catch (err) {
    if (isNoKindMatch(err)) return [];
    throw err;
  }
  return items
    .map((c) => ({
      namespace: c.metadata.namespace ?? '',
      name: c.metadata.name ?? '',
      bundle: c.metadata.name ?? '',
      ...(c.metadata.labels && { labels: c.metadata.labels }),
      ...(c.metadata.annotations && { annotations: c.metadata.annotations }),
    }))
    .filter((c) => !isCopied(c));
}

export interface ClusterFindersOptions {
  readonly client: KubeClient;
  /** catalogd's content, for the resolver (operator-controller's HTTP content client). */
  readonly content: CatalogContentClient;
  readonly extensions: ReadonlyMap<string, ClusterExtension>;
  /** Registry access for CatalogSource images. */
  readonly registry: ImageRegistryClient;
  readonly platform?: string;
  readonly signal?: AbortSignal;
}

const propsOf = (b: PackageBundle): { type: string; value: string }[] => b.properties.map((p) => ({ type: p.type, value: JSON.stringify(p.value) }));

/** The finders over the live cluster; `close()` removes the CatalogSource image cache. */
export async function clusterFinders(o: ClusterFindersOptions): Promise<Finders & { close(): Promise<void> }> {
  const opts = o.signal ? { signal: o.signal } : {};
  let catalogs: ClusterCatalog[] | undefined;
  const listCatalogs = async (): Promise<ClusterCatalog[]> =>
    (catalogs ??= (await o.client.listAll<ClusterCatalog>({ apiVersion: GroupVersion, kind: ClusterCatalogKind }, opts)).items);
  const reader = catalogSourceReader({ registry: o.registry, ...(o.platform && { platform: o.platform }) });
  const subscriptions = new Map<string, Promise<Subscription[]>>();
  const subscriptionsIn = (namespace: string): Promise<Subscription[]> => {
    if (!subscriptions.has(namespace)) subscriptions.set(namespace, o.client.listAll<Subscription>({ apiVersion: V1alpha1, kind: SubscriptionKind, namespace }, opts).then((l) => l.items));
    return subscriptions.get(namespace)!;
  };

  return {
    async extension(ext, allows) {
      const spec = o.extensions.get(ext.name);
      if (!spec) return { none: `ClusterExtension ${ext.name} is gone` };
      const catalogList = await listCatalogs();
      const allowed: CatalogContentClient = {
        getPackage: async (catalog, pkg, signal) => {
          const c = await o.content.getPackage(catalog, pkg, signal);
          return { ...c, bundles: c.bundles.filter((b) => allowsBundle(() => bundleMaxV1(propsOf(b)), allows)) };
        },
      };
      const resolver = new CatalogResolver({ listCatalogs: () => catalogList, content: allowed });
      const installed = { name: ext.bundle, version: ext.version };
      const pick = async (e: ClusterExtension): Promise<UpgradeCandidate> => {
        const r = await resolver.resolveBundle(e, installed, o.signal);
        const max = maxOf(() => bundleMaxV1(propsOf(r.bundle)));
        return { bundle: r.bundle.name, version: r.bundle.version, source: `ClusterCatalog ${r.catalog}`, ...(max && { maxOpenShiftVersion: max }) };
      };
      try {
        return await pick(spec);
      } catch (err) {
        if (!(err instanceof ResolutionError)) throw err;
        const range = spec.spec?.source.catalog?.version;
        if (!range) return { none: err.message };
        // Within the extension's range nothing fits: what the resolver would pick with the range lifted.
        const lifted: ClusterExtension = structuredClone(spec);
        delete lifted.spec!.source.catalog!.version;
        try {
          return { ...(await pick(lifted)), note: `outside spec.source.catalog.version ${JSON.stringify(range)}: widen it` };
        } catch (err2) {
          if (!(err2 instanceof ResolutionError)) throw err2;
          return { none: err.message };
        }
      }
    },

    async csv(csv, allows) {
      const subs = await subscriptionsIn(csv.namespace);
      const pkg = csvPackage(csv);
      const sub =
        subs.find((s) => s.status?.installedCSV === csv.name) ??
        subs.find((s) => s.status?.currentCSV === csv.name) ??
        subs.find((s) => pkg !== undefined && s.spec.name === pkg);
      if (!sub) return { none: `no Subscription in ${csv.namespace} installs it` };
      let cs: CatalogSource;
      try {
        cs = await o.client.get<CatalogSource>({ apiVersion: V1alpha1, kind: CatalogSourceKind, namespace: sub.spec.sourceNamespace, name: sub.spec.source }, opts);
      } catch (err) {
        if (isNotFound(err)) return { none: `CatalogSource ${sub.spec.sourceNamespace}/${sub.spec.source} of Subscription ${sub.metadata.name} not found` };
        throw err;
      }
      let content: CatalogContent;
      try {
        content = await reader.content(cs, o.signal);
      } catch (err) {
        return { none: `CatalogSource ${sub.spec.sourceNamespace}/${sub.spec.source} not read: ${(err as Error).message}` };
      }
      const pkgContent = content.packages.find((p) => p.name === sub.spec.name);
      const channelName = sub.spec.channel || pkgContent?.defaultChannel || '';
      const channel = pkgContent?.channels.find((c) => c.name === channelName);
      if (!channel) return { none: `no channel ${JSON.stringify(channelName)} of package ${JSON.stringify(sub.spec.name)} in CatalogSource ${cs.metadata.namespace}/${cs.metadata.name}` };
      const bundles = new Map(content.bundles.filter((b) => b.package === sub.spec.name).map((b) => [b.name, b]));
      const reachable = successors(csv.name, channel.entries, bundles);
      const ok = reachable.filter((b) => allowsBundle(() => classicMaxOpenShiftVersion(b.properties), allows));
      ok.sort((a, b) => compareVersions(versionOf(b), versionOf(a)));
      const best = ok[0];
      if (!best) return { none: `no bundle reachable from ${csv.name} in channel ${channelName} of CatalogSource ${cs.metadata.namespace}/${cs.metadata.name} allows it` };
      const max = maxOf(() => classicMaxOpenShiftVersion(best.properties));
      return {
        bundle: best.name,
        version: best.version,
        source: `CatalogSource ${cs.metadata.namespace}/${cs.metadata.name} channel ${channelName}`,
        ...(max && { maxOpenShiftVersion: max }),
      };
    },

    async close() {
      await Promise.allSettled([...subscriptions.values()]);
      await reader.close();
    },
  };
}

const ZERO = parseTolerant('0.0.0');
const versionOf = (b: ContentBundle): Version => tryOr(() => parseTolerant(b.version), ZERO);

/** Bundles of the channel reachable from `from` by replaces, skips or skipRange, transitively. */
function successors(from: string, entries: readonly { name: string; replaces: string; skips: readonly string[]; skipRange: string }[], bundles: ReadonlyMap<string, ContentBundle>): ContentBundle[] {
  const seen = new Set<string>([from]);
  const out: ContentBundle[] = [];
  const queue = [from];
  while (queue.length > 0) {
    const cur = queue.shift()!;
    const curBundle = bundles.get(cur);
    const curVersion = curBundle ? versionOf(curBundle) : undefined;
    for (const e of entries) {
      if (seen.has(e.name)) continue;
      const { skipRange } = e;
      const inRange = !!skipRange && !!curVersion && tryOr(() => parseBlangRange(skipRange)(curVersion), false);
      if (e.replaces === cur || e.skips.includes(cur) || inRange) {
        seen.add(e.name);
        queue.push(e.name);
        const b = bundles.get(e.name);
        if (b) out.push(b);
      }
    }
  }
  return out;
}

function csvPackage(csv: CsvInstall): string | undefined {
  const a = csv.annotations?.[CSV_PROPERTIES_ANNOTATION];
  if (a === undefined) return undefined;
  return tryOr(() => {
    const p = classicPropertiesFromAnnotation(a).find((x) => x.type === 'olm.package');
    return p ? ((JSON.parse(p.value) as { packageName?: string }).packageName ?? undefined) : undefined;
  }, undefined);
}

// an invalid max blocks, as upstream counts it
const allowsBundle = (max: () => Version | undefined, allows: (max: Version | undefined) => boolean): boolean => tryOr(() => allows(max()), false);

function maxOf(max: () => Version | undefined): string | undefined {
  const v = tryOr(max, undefined);
  return v && `${v.major}.${v.minor}`;
}
