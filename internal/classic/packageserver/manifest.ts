// CatalogSource content → PackageManifests, as upstream's package server computes them (provider/registry.go's
// refreshCache + newPackageManifest, apis/operators' CreateCSVDescription, provider/labels.go), from the content the
// CatalogSource controller already holds. Two halves: what depends only on the content (channels, heads, the CSV
// descriptions, entries) is computed once per loaded content and kept beside it (a WeakMap, so it goes with the
// content); what depends on the CatalogSource object (labels, display name, publisher, creation time) is laid on top
// for every request.
import { ConnectionStateShutdown, ConnectionStateTransientFailure, type APIServiceDescription, type CatalogSource, type CRDDescription, type Icon, type InstallMode } from '../../../api/operators/index.ts';
import { channelHead } from '../../shared/fbc/index.ts';
import { compareVersions, parseBlang, type Version } from '../../shared/semver/index.ts';
import { bundleCsvJson, type CatalogContent, type ContentBundle, type ContentPackage } from '../catalogsource/index.ts';
import { isObject, tryOr } from '../../shared/toolkit/index.ts';

export const GROUP = 'packages.operators.coreos.com';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'PackageManifest';
export const RESOURCE = 'packagemanifests';

export const OS_LABEL_PREFIX = 'operatorframework.io/os';
export const ARCH_LABEL_PREFIX = 'operatorframework.io/arch';
export const DEFAULT_OS_LABEL = 'operatorframework.io/os.linux';
export const DEFAULT_ARCH_LABEL = 'operatorframework.io/arch.amd64';

export interface AppLink {
  name?: string;
  url?: string;
}
export interface Deprecation {
  message: string;
}
/** upstream's CSVDescription as Go encodes it (omitempty fields left out when empty; icons are never served). */
export interface CSVDescription {
  displayName?: string;
  version: string;
  provider: AppLink;
  annotations?: Record<string, string>;
  keywords?: string[];
  links?: AppLink[];
  maintainers?: { name?: string; email?: string }[];
  maturity?: string;
  description?: string;
  installModes?: InstallMode[];
  customresourcedefinitions: { owned?: CRDDescription[]; required?: CRDDescription[] };
  apiservicedefinitions: { owned?: APIServiceDescription[]; required?: APIServiceDescription[] };
  nativeApis?: { group: string; version: string; kind: string }[];
  minKubeVersion?: string;
  relatedImages?: string[];
}
export interface ChannelEntry {
  name: string;
  version?: string;
  deprecation?: Deprecation;
}
export interface PackageChannel {
  name: string;
  currentCSV: string;
  currentCSVDesc: CSVDescription;
  deprecation?: Deprecation;
  entries: ChannelEntry[] | null;
}
export interface PackageManifestStatus {
  catalogSource: string;
  catalogSourceDisplayName: string;
  catalogSourcePublisher: string;
  catalogSourceNamespace: string;
  provider: AppLink;
  packageName: string;
  deprecation?: Deprecation;
  channels: PackageChannel[];
  defaultChannel: string;
}
export interface PackageManifest {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: { name: string; namespace: string; labels: Record<string, string>; creationTimestamp: string | null; resourceVersion?: string };
  spec: Record<string, never>;
  status: PackageManifestStatus;
}

/** The part of a PackageManifest the content alone decides. */
export interface ContentManifest {
  readonly packageName: string;
  readonly defaultChannel: string;
  readonly deprecation?: Deprecation;
  readonly channels: readonly PackageChannel[];
  readonly provider: AppLink;
  /** The default channel's head CSV's labels. */
  readonly csvLabels: Readonly<Record<string, string>>;
  /** Each channel's head CSV's first icon (the `icon` subresource serves the default channel's). */
  readonly icons: ReadonlyMap<string, Icon>;
}

// ---- the CSV of a bundle, as the registry API's csvJson --------------------------------------------------------

interface CSVLike {
  metadata?: { name?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/**
 * The bundle's CSV as the registry serves it in `csvJson` (the CatalogSource content's bundleCsvJson: the
 * registry's own; else the `olm.bundle.object` whose kind is ClusterServiceVersion; else the one operator-registry
 * builds from the single `olm.csv.metadata` property). Undefined when there is none or it cannot be read (upstream:
 * "error unmarshaling csv, eliding channel").
 */
export function bundleCSV(bundle: ContentBundle, pkg: ContentPackage | undefined): CSVLike | undefined {
  try {
    const csvJson = bundleCsvJson(bundle, pkg);
    if (csvJson === '') return undefined;
    const csv = JSON.parse(csvJson) as unknown;
    return isObject(csv) ? (csv as CSVLike) : undefined;
  } catch {
    return undefined;
  }
}

// ---- CreateCSVDescription --------------------------------------------------------------------------------------

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});
const nonEmpty = <K extends string, V>(key: K, v: V[]): { [k in K]?: V[] } => (v.length > 0 ? ({ [key]: v } as { [k in K]: V[] }) : {});
const optStr = <K extends string>(key: K, v: unknown): { [k in K]?: string } => (str(v) !== '' ? ({ [key]: str(v) } as { [k in K]: string }) : {});

function appLink(v: unknown): AppLink {
  const o = obj(v);
  return { ...optStr('name', o.name), ...optStr('url', o.url) };
}

function crdDescriptions(v: unknown): CRDDescription[] {
  return arr(v)
    .map(obj)
    .map((o) => ({ name: str(o.name), version: str(o.version), kind: str(o.kind), ...optStr('displayName', o.displayName), ...optStr('description', o.description) }));
}

function apiServiceDescriptions(v: unknown): APIServiceDescription[] {
  return arr(v)
    .map(obj)
    .map((o) => ({
      name: str(o.name),
      group: str(o.group),
      version: str(o.version),
      kind: str(o.kind),
      ...optStr('displayName', o.displayName),
      ...optStr('description', o.description),
    }));
}

/** GetImages: the images of the `deployment` install strategy's containers and init containers, and spec.relatedImages (sorted: Go's set order is random). */
export function csvImages(spec: Record<string, unknown>): string[] {
  const images = new Set<string>();
  const install = obj(spec.install);
  if (install.strategy === 'deployment') {
    for (const d of arr(obj(install.spec).deployments)) {
      const pod = obj(obj(obj(obj(d).spec).template).spec);
      for (const c of [...arr(pod.containers), ...arr(pod.initContainers)]) images.add(str(obj(c).image));
    }
  }
  for (const r of arr(spec.relatedImages)) images.add(str(obj(r).image));
  return [...images].sort();
}

/** CreateCSVDescription (icons left out: the package server never serves them in get or list). */
export function csvDescription(csv: CSVLike): CSVDescription {
  const spec = csv.spec ?? {};
  const crds = obj(spec.customresourcedefinitions);
  const apis = obj(spec.apiservicedefinitions);
  const annotations = csv.metadata?.annotations;
  const version = str(spec.version);
  return {
    ...optStr('displayName', spec.displayName),
    version: version === '' ? '0.0.0' : version,
    provider: appLink(spec.provider),
    ...(annotations && Object.keys(annotations).length > 0 && { annotations: { ...annotations } }),
    ...nonEmpty('keywords', arr(spec.keywords).map(str)),
    ...nonEmpty('links', arr(spec.links).map(appLink)),
    ...nonEmpty('maintainers', arr(spec.maintainers).map(obj).map((o) => ({ ...optStr('name', o.name), ...optStr('email', o.email) }))),
    ...optStr('maturity', spec.maturity),
    ...optStr('description', spec.description),
    ...nonEmpty('installModes', arr(spec.installModes).map(obj).map((o) => ({ type: str(o.type), supported: o.supported === true }))),
    customresourcedefinitions: { ...nonEmpty('owned', crdDescriptions(crds.owned)), ...nonEmpty('required', crdDescriptions(crds.required)) },
    apiservicedefinitions: { ...nonEmpty('owned', apiServiceDescriptions(apis.owned)), ...nonEmpty('required', apiServiceDescriptions(apis.required)) },
    ...nonEmpty('nativeApis', arr(spec.nativeAPIs).map(obj).map((o) => ({ group: str(o.group), version: str(o.version), kind: str(o.kind) }))),
    ...optStr('minKubeVersion', spec.minKubeVersion),
    ...nonEmpty('relatedImages', csvImages(spec)),
  };
}

// ---- one package ------------------------------------------------------------------------------------------------

const isDeprecatedBundle = (b: ContentBundle): boolean => b.properties.some((p) => p.type === 'olm.deprecated');

/** Entries newest first by semver (unparsable versions as 0.0.0), as upstream sorts them; ties keep catalog order. */
function sortEntries(entries: ChannelEntry[]): ChannelEntry[] {
  const zero = parseBlang('0.0.0');
  const parse = (v: string): Version => tryOr(() => parseBlang(v), zero);
  const keyed = entries.map((e) => ({ e, v: parse(e.version ?? '') }));
  keyed.sort((a, b) => compareVersions(b.v, a.v));
  return keyed.map((k) => k.e);
}

/**
 * newPackageManifest without the CatalogSource: channels sorted by name, each with its head's CSV (a channel
 * whose head or CSV cannot be found is elided; when the default one is, the first channel left becomes the
 * default), entries (non-deprecated bundles, newest first); the provider of the default channel's CSV (else the
 * first channel's). Undefined when no channel is left ("packagemanifest has no valid channels").
 */
export function contentManifest(content: CatalogContent, pkg: ContentPackage): ContentManifest | undefined {
  const bundles = new Map<string, ContentBundle>();
  for (const b of content.bundles) if (b.package === pkg.name) bundles.set(b.name, b);
  const channels: PackageChannel[] = [];
  let defaultChannel = pkg.defaultChannel;
  let defaultElided = false;
  let provider: AppLink | undefined;
  let defaultCsv: CSVLike | undefined;
  const icons = new Map<string, Icon>();
  for (const ch of [...pkg.channels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const head = channelHead(ch.entries);
    const bundle = 'head' in head ? bundles.get(head.head) : undefined;
    const csv = bundle && bundleCSV(bundle, pkg);
    if (!csv) {
      defaultElided ||= ch.name === defaultChannel;
      continue;
    }
    if (defaultCsv === undefined || ch.name === defaultChannel) defaultCsv = csv;
    const icon = arr(csv.spec?.icon)[0];
    if (isObject(icon)) icons.set(ch.name, { base64data: str(icon.base64data), mediatype: str(icon.mediatype) });
    const entries: ChannelEntry[] = [];
    for (const e of ch.entries) {
      const b = bundles.get(e.name);
      if (!b || isDeprecatedBundle(b)) continue;
      entries.push({ name: b.name, ...(b.version !== '' && { version: b.version }), ...(b.deprecation !== undefined && { deprecation: { message: b.deprecation } }) });
    }
    channels.push({
      name: ch.name,
      currentCSV: str(csv.metadata?.name),
      currentCSVDesc: csvDescription(csv),
      ...(ch.deprecation !== undefined && { deprecation: { message: ch.deprecation } }),
      entries: entries.length > 0 ? sortEntries(entries) : null,
    });
    if ((defaultChannel !== '' && ch.name === defaultChannel) || provider === undefined) provider = appLink(csv.spec?.provider);
  }
  if (channels.length === 0) return undefined;
  if (defaultElided) defaultChannel = channels[0]!.name;
  return {
    packageName: pkg.name,
    defaultChannel,
    ...(pkg.deprecation !== undefined && { deprecation: { message: pkg.deprecation } }),
    channels,
    provider: provider ?? {},
    csvLabels: { ...(defaultCsv?.metadata?.labels ?? {}) },
    icons,
  };
}

const computed = new WeakMap<CatalogContent, readonly ContentManifest[]>();

/** Every package of the content that makes a PackageManifest, computed once per loaded content. */
export function contentManifests(content: CatalogContent): readonly ContentManifest[] {
  let out = computed.get(content);
  if (!out) {
    out = content.packages.map((p) => contentManifest(content, p)).filter((m): m is ContentManifest => m !== undefined);
    computed.set(content, out);
  }
  return out;
}

/** upstream's icon subresource: the default channel's head CSV's first icon, its etag `"<package>.<channel>.<csv>"`. */
export function packageIcon(pm: PackageManifest, icons: ReadonlyMap<string, Icon>): { data: Buffer; mediatype: string; etag: string } | undefined {
  const ch = pm.status.channels.find((c) => c.name === pm.status.defaultChannel);
  const icon = ch && icons.get(ch.name);
  if (!ch || !icon) return undefined;
  return { data: Buffer.from(icon.base64data, 'base64'), mediatype: icon.mediatype, etag: `"${pm.metadata.name}.${ch.name}.${ch.currentCSV}"` };
}

/** upstream's setDefaultOsArchLabels: linux and amd64 "supported" unless the CSV names some os / arch. */
export function setDefaultOsArchLabels(labels: Record<string, string>): void {
  const keys = Object.keys(labels);
  if (!keys.some((k) => k.startsWith(OS_LABEL_PREFIX))) labels[DEFAULT_OS_LABEL] = 'supported';
  if (!keys.some((k) => k.startsWith(ARCH_LABEL_PREFIX))) labels[DEFAULT_ARCH_LABEL] = 'supported';
}

/**
 * The PackageManifest of one package of a CatalogSource, in `namespace` (the namespace asked for; upstream lists a
 * global catalog's packages in every namespace): labels are the CatalogSource's, `catalog`, `catalog-namespace`,
 * `provider`, `provider-url`, the default CSV's labels, then the default os/arch.
 */
export function packageManifest(source: CatalogSource, m: ContentManifest, namespace: string): PackageManifest {
  const labels: Record<string, string> = {
    ...(source.metadata.labels ?? {}),
    catalog: source.metadata.name ?? '',
    'catalog-namespace': source.metadata.namespace ?? '',
    provider: m.provider.name ?? '',
    'provider-url': m.provider.url ?? '',
    ...m.csvLabels,
  };
  setDefaultOsArchLabels(labels);
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: m.packageName, namespace, labels, creationTimestamp: source.metadata.creationTimestamp ?? null },
    spec: {},
    status: {
      catalogSource: source.metadata.name ?? '',
      catalogSourceDisplayName: source.spec.displayName ?? '',
      catalogSourcePublisher: source.spec.publisher ?? '',
      catalogSourceNamespace: source.metadata.namespace ?? '',
      provider: { ...m.provider },
      packageName: m.packageName,
      ...(m.deprecation && { deprecation: { ...m.deprecation } }),
      channels: m.channels.map((c) => structuredClone(c)),
      defaultChannel: m.defaultChannel,
    },
  };
}

/**
 * Whether a CatalogSource's packages are withheld because its registry is unreachable: upstream's package server
 * (pkg/package-server/provider/registry.go syncSourceState) drops a source's packages from its cache when the gRPC
 * connection goes TRANSIENT_FAILURE or SHUTDOWN and lists them again once it is READY. Only spec.address has such a
 * connection here; spec.image content is held in process, as upstream's registry Pod keeps serving its image.
 */
export function registryUnreachable(source: CatalogSource): boolean {
  if (source.spec.image || !source.spec.address) return false;
  const state = source.status?.connectionState?.lastObservedState;
  return state === ConnectionStateTransientFailure || state === ConnectionStateShutdown;
}
