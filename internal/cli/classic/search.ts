// `kubectl olm search --classic` and `kubectl olm list-available --classic`: what the CatalogSources a namespace can
// use offer, as PackageManifests — read from the package server (packages.operators.coreos.com/v1) when the cluster
// serves it, else computed here from each CatalogSource's content (read as `install --classic` reads it) with the
// package server's own mapping. Same columns and -o json/yaml shape as the ClusterCatalog forms.
import type { CatalogSource } from '../../../api/operators/index.ts';
import type { PackageManifest } from '../../classic/packageserver/index.ts';
import { isApiError, NoKindMatchError, type KubeClient } from '../../shared/kube/index.ts';
import { compareVersions, parseTolerant, type Version } from '../../shared/semver/index.ts';
import { tryOr } from '../../shared/toolkit/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, insecureRegistries, parseFlags, withClient } from '../cluster.ts';
import { byName, outputFormat } from '../output.ts';
import { availableTable as v1AvailableTable, defaultChannelFirst, printAvailable, printSearch, type ChannelSummary, type PackageSummary } from '../package-summary.ts';
import { CliUsageError, type CliCommand, type CliIO } from '../types.ts';
import { CLASSIC_FLAG, CS, DEFAULT_GLOBAL_NAMESPACE, NS_OPTION, NS_USAGE, readCatalogSources } from './common.ts';

const PACKAGES = { apiVersion: 'packages.operators.coreos.com/v1', kind: 'PackageManifest' } as const;

/** A classic package summary: the v1 form's, the catalog being a CatalogSource (with its namespace). */
export interface ClassicPackageSummary extends PackageSummary {
  readonly catalogNamespace: string;
}

const trimMessage = (m: string | undefined): string | undefined => (m === undefined ? undefined : m.trim().replace(/\s+/g, ' '));
const parsed = (v: string | undefined): Version | undefined => (v ? tryOr(() => parseTolerant(v), undefined) : undefined);

/**
 * One PackageManifest as `search` shows a package: the default channel first, then by name; each channel's entries
 * (newest first, as the package server gives them) with their deprecations; the head is the channel's currentCSV;
 * display name, description, keywords from the default channel's head CSV; latest: the newest version of any entry.
 */
export function summarizeManifest(pm: PackageManifest): ClassicPackageSummary {
  const s = pm.status;
  const channels: ChannelSummary[] = [...s.channels]
    .sort(defaultChannelFirst(s.defaultChannel))
    .map((c) => {
      const deprecated = trimMessage(c.deprecation?.message);
      return {
        name: c.name,
        default: c.name === s.defaultChannel,
        ...(c.currentCSV && { head: c.currentCSV }),
        bundles: (c.entries ?? [{ name: c.currentCSV, version: c.currentCSVDesc.version }]).map((e) => {
          const dep = trimMessage(e.deprecation?.message);
          return { name: e.name, version: e.version || '(no version)', ...(dep && { deprecated: dep }) };
        }),
        ...(deprecated && { deprecated }),
      };
    });
  let latest: { text: string; v?: Version } | undefined;
  for (const b of channels.flatMap((c) => c.bundles)) {
    const v = parsed(b.version);
    if (!latest || (v && (!latest.v || compareVersions(v, latest.v) > 0))) latest = { text: b.version, ...(v && { v }) };
  }
  const head = s.channels.find((c) => c.name === s.defaultChannel)?.currentCSVDesc;
  const deprecated = trimMessage(s.deprecation?.message);
  return {
    package: s.packageName,
    catalog: s.catalogSource,
    catalogNamespace: s.catalogSourceNamespace,
    provider: s.provider.name ?? '',
    displayName: head?.displayName ?? '',
    description: trimMessage(head?.description ?? '') ?? '',
    keywords: head?.keywords ?? [],
    defaultChannel: s.defaultChannel,
    channels,
    latest: latest?.text ?? '',
    ...(deprecated && { deprecated }),
  };
}

/** The CATALOG column: the CatalogSource's name, with its namespace when it is not the namespace asked about. */
export const catalogColumn = (p: ClassicPackageSummary, namespace: string): string => (p.catalogNamespace === namespace ? p.catalog : `${p.catalogNamespace}/${p.catalog}`);

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  ...CLASSIC_FLAG,
  ...NS_OPTION,
  catalog: { type: 'string' },
  'catalog-namespace': { type: 'string' },
  'global-namespace': { type: 'string' },
  'insecure-registries': { type: 'string' },
  output: { type: 'string', short: 'o' },
} as const;

/** Whether the cluster serves PackageManifests (discovery); a 503 (the APIService unavailable) counts as not. */
async function packageManifests(client: KubeClient, io: CliIO, namespace: string): Promise<PackageManifest[] | undefined> {
  try {
    await client.mapping(PACKAGES.apiVersion, PACKAGES.kind);
  } catch (err) {
    if (err instanceof NoKindMatchError) return undefined;
    throw err;
  }
  try {
    return (await client.listAll({ ...PACKAGES, namespace })).items as unknown as PackageManifest[];
  } catch (err) {
    if (isApiError(err) && err.code === 503) {
      io.stderr.write(`note: ${PACKAGES.apiVersion} is not available (${err.message}); reading the CatalogSources instead\n`);
      return undefined;
    }
    throw err;
  }
}

/** The PackageManifests of `namespace` computed here: its CatalogSources' content, then the global namespace's. */
async function computedManifests(client: KubeClient, io: CliIO, namespace: string, globalNs: string, insecure: string[]): Promise<PackageManifest[]> {
  const { contentManifests, packageManifest } = await import('../../classic/packageserver/index.ts');
  const sources: CatalogSource[] = [];
  for (const ns of namespace === globalNs ? [namespace] : [namespace, globalNs]) sources.push(...(await client.listAll<CatalogSource>({ ...CS, namespace: ns })).items.sort(byName));
  const out: PackageManifest[] = [];
  await readCatalogSources(io, sources, insecure, (cs, content) => {
    for (const m of contentManifests(content)) out.push(packageManifest(cs, m, namespace));
  });
  return out;
}

/**
 * The packages the namespace can subscribe to (optionally of one CatalogSource), sorted by package, then the
 * namespace's own CatalogSources before the global catalog namespace's (the order a Subscription's resolution prefers).
 */
async function collect(client: KubeClient, io: CliIO, flags: ReturnType<typeof parseFlags<typeof OPTIONS>>['values'], keep: (name: string) => boolean): Promise<{ namespace: string; found: ClassicPackageSummary[] }> {
  const namespace = flags.namespace ?? client.defaultNamespace;
  const globalNs = flags['global-namespace'] ?? DEFAULT_GLOBAL_NAMESPACE;
  const insecure = insecureRegistries(flags['insecure-registries'], io.env);
  const manifests = (await packageManifests(client, io, namespace)) ?? (await computedManifests(client, io, namespace, globalNs, insecure));
  const found = manifests
    .map(summarizeManifest)
    .filter((p) => keep(p.package))
    .filter((p) => flags.catalog === undefined || p.catalog === flags.catalog)
    .filter((p) => flags['catalog-namespace'] === undefined || p.catalogNamespace === flags['catalog-namespace'])
    .sort((a, b) => {
      if (a.package !== b.package) return a.package < b.package ? -1 : 1;
      const own = Number(b.catalogNamespace === namespace) - Number(a.catalogNamespace === namespace);
      return own || (catalogColumn(a, namespace) < catalogColumn(b, namespace) ? -1 : 1);
    });
  return { namespace, found };
}

const FLAGS_USAGE = [
  NS_USAGE,
  '      --catalog <name>               only this CatalogSource',
  '      --catalog-namespace <ns>       only CatalogSources of this namespace',
  `      --global-namespace <ns>        the global catalog namespace (default ${DEFAULT_GLOBAL_NAMESPACE}), read when PackageManifests are not served`,
  '      --insecure-registries <hosts>  registries reached over plain HTTP when reading CatalogSources (default: $OLM_INSECURE_REGISTRIES)',
];
const SOURCE_TEXT = [
  'Read from the PackageManifests of packages.operators.coreos.com/v1 when the cluster serves them (the package server),',
  'else computed from the CatalogSources of the namespace and the global catalog namespace (their images pulled here).',
];

export const searchClassicCommand: CliCommand = {
  path: ['search'],
  summary: 'find packages in the CatalogSources a namespace can use',
  usage: [
    'Usage: kubectl olm search --classic [<text>] [-n <namespace>] [--catalog <name>] [-o table|json|yaml|name] [flags]',
    '',
    'OLM classic: lists the packages of the CatalogSources a Subscription in the namespace can use (its own, then the',
    'global catalog namespace\'s) whose name, display name, keywords or provider contain <text> (case-insensitive):',
    'catalog, provider, channels (the default first), the newest version, and whether the package is deprecated.',
    ...SOURCE_TEXT,
    '',
    'Flags:',
    ...FLAGS_USAGE,
    '  -o, --output table|json|yaml|name  json/yaml: every package with its channels, versions and deprecations; name: package names',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm search --classic demo -n operators',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, OPTIONS);
    if (pos.length > 1) throw new CliUsageError(`expected at most one search text, got ${pos.length}: quote text with spaces`);
    const text = (pos[0] ?? '').toLowerCase();
    const format = outputFormat(values.output);
    return withClient(values, io, async (client) => {
      const { namespace, found: all } = await collect(client, io, values, () => true);
      const found = all.filter((p) => [p.package, p.displayName, p.provider, ...p.keywords].some((s) => s.toLowerCase().includes(text)));
      return printSearch(
        io,
        format,
        found,
        (p) => catalogColumn(p, namespace),
        () => (text ? `no package matching "${pos[0]!}" in the CatalogSources of namespace "${namespace}"\n` : `No resources found in ${namespace} namespace.\n`),
        text !== '',
      );
    });
  },
};

export const listAvailableClassicCommand: CliCommand = {
  path: ['list-available'],
  summary: 'a package’s channels, versions and deprecations in the CatalogSources a namespace can use',
  usage: [
    'Usage: kubectl olm list-available --classic <package> [-n <namespace>] [--catalog <name>] [-o table|json|yaml] [flags]',
    '',
    'OLM classic: what the CatalogSources a Subscription in the namespace can use offer of <package>: each channel',
    '(the default first) with its versions, newest first, the CSV of each, and the deprecations with their message.',
    'What to pass to `kubectl olm install --classic --channel … --version …`. Without <package>: as search --classic.',
    ...SOURCE_TEXT,
    '',
    'Flags:',
    ...FLAGS_USAGE,
    '  -o, --output table|json|yaml     json/yaml: the package in each CatalogSource as data',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm list-available --classic demo-operator -n operators',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, OPTIONS);
    if (pos.length === 0) return searchClassicCommand.run(args, io);
    if (pos.length > 1) throw new CliUsageError(`expected one package, got ${pos.length}`);
    const name = pos[0]!;
    const format = outputFormat(values.output, ['table', 'json', 'yaml']);
    return withClient(values, io, async (client) => {
      const { namespace, found } = await collect(client, io, values, (n) => n === name);
      if (found.length === 0) {
        io.stderr.write(
          values.catalog !== undefined
            ? `package "${name}" was not found in CatalogSource "${values.catalog}"\n`
            : `package "${name}" was not found in the CatalogSources of namespace "${namespace}"\n`,
        );
        return 1;
      }
      return printAvailable(io, format, found, () => availableTable(found, namespace));
    });
  },
};

/** list-available's table (CATALOG, CHANNEL, VERSION, CSV, NOTES) and the deprecations after it. */
export const availableTable = (found: readonly ClassicPackageSummary[], namespace: string): string => v1AvailableTable(found, (p) => catalogColumn(p, namespace), 'CSV');
