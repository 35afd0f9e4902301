// `kubectl olm search <text>` and `kubectl olm list-available [<package>]`: what the serving
// ClusterCatalogs offer — packages, channels, versions and deprecations — read from catalogd's HTTP
// API at each catalog's `status.urls.base` (kubectl-operator's `olmv1 search catalog`, with the
// columns a person looks for and the deprecations spelled out).
import { AvailabilityModeUnavailable, type ClusterCatalog } from '../../api/v1/index.ts';
import type { PackageBundle, PackageContent } from '../operator-controller/contentclient/index.ts';
import { bundleMetadataVersion, getVersionAndRelease } from '../operator-controller/resolve/index.ts';
import { compareVersions, type Version } from '../shared/semver/index.ts';
import { isObject, tryOr } from '../shared/toolkit/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parseFlags, timeoutMs, withClient } from './cluster.ts';
import { isServing, listCatalogs, LiveContent } from './content.ts';
import { outputFormat } from './output.ts';
import { availableTable, defaultChannelFirst, printAvailable, printSearch, type ChannelSummary, type PackageSummary } from './package-summary.ts';
import { CliUsageError, type CliCommand, type CliIO } from './types.ts';

interface CsvMetadata {
  readonly displayName?: string;
  readonly description?: string;
  readonly keywords?: readonly string[];
  readonly provider?: { readonly name?: string };
}

function versionOf(b: PackageBundle): { text: string; parsed?: Version } {
  return tryOr(() => {
    const vr = getVersionAndRelease(b);
    return { text: bundleMetadataVersion(vr).version, parsed: vr.version };
  }, { text: '(no version)' });
}

const newestFirst = (a: { parsed?: Version; name: string }, b: { parsed?: Version; name: string }): number => {
  if (a.parsed && b.parsed) return compareVersions(b.parsed, a.parsed) || (a.name < b.name ? -1 : 1);
  if (a.parsed) return -1;
  if (b.parsed) return 1;
  return a.name < b.name ? -1 : 1;
};

const trimMessage = (m: string): string => m.trim().replace(/\s+/g, ' ');

/** One package of one catalog, summarized for people (and for `-o json`). */
export function summarize(catalog: string, content: PackageContent): PackageSummary | undefined {
  const pkg = content.packages[0];
  if (!pkg) return undefined;
  const deprecations = content.deprecations.flatMap((d) => d.entries);
  /** `{deprecated}` with the message of the deprecation of `schema` (`name`'s), or nothing. */
  const deprecation = (schema: string, name?: string): { deprecated?: string } => {
    const e = deprecations.find((x) => x.reference.schema === schema && (name === undefined || x.reference.name === name));
    const message = e ? trimMessage(e.message) : '';
    return message ? { deprecated: message } : {};
  };
  const versions = new Map(content.bundles.map((b) => [b.name, { ...versionOf(b), name: b.name }]));
  const channels: ChannelSummary[] = [...content.channels]
    .sort(defaultChannelFirst(pkg.defaultChannel))
    .map((ch) => {
      const replaced = new Set(ch.entries.flatMap((e) => [e.replaces, ...e.skips]).filter((n) => n !== ''));
      const heads = ch.entries.filter((e) => !replaced.has(e.name));
      const bundles = ch.entries
        .map((e) => versions.get(e.name) ?? { name: e.name, text: '(no bundle)' })
        .sort(newestFirst)
        .map((v) => ({ name: v.name, version: v.text, ...deprecation('olm.bundle', v.name) }));
      return {
        name: ch.name,
        default: ch.name === pkg.defaultChannel,
        ...(heads.length === 1 && { head: heads[0]!.name }),
        bundles,
        ...deprecation('olm.channel', ch.name),
      };
    });
  const sorted = [...versions.values()].sort(newestFirst);
  const headOfDefault = channels.find((c) => c.default)?.head;
  const metaBundle = content.bundles.find((b) => b.name === headOfDefault) ?? content.bundles.find((b) => b.name === sorted[0]?.name);
  const metaValue = metaBundle?.properties.find((p) => p.type === 'olm.csv.metadata')?.value;
  const meta: CsvMetadata = isObject(metaValue) ? metaValue : {};
  return {
    package: pkg.name,
    catalog,
    provider: meta.provider?.name ?? '',
    displayName: meta.displayName ?? '',
    description: trimMessage(meta.description ?? ''),
    keywords: meta.keywords ?? [],
    defaultChannel: pkg.defaultChannel,
    channels,
    latest: sorted[0]?.text ?? '',
    ...deprecation('olm.package'),
  };
}

/** Whether a package matches the search text: its name, display name, keywords or provider (case-insensitive). */
export function matches(p: PackageSummary, text: string): boolean {
  const t = text.toLowerCase();
  return [p.package, p.displayName, p.provider, ...p.keywords].some((s) => s.toLowerCase().includes(t));
}

/** Catalogs to read: Available and Serving (optionally one by name). */
async function servingCatalogs(io: CliIO, catalogs: readonly ClusterCatalog[], only: string | undefined): Promise<ClusterCatalog[] | undefined> {
  const picked = catalogs.filter((c) => only === undefined || c.metadata.name === only);
  const serving = picked.filter((c) => c.spec.availabilityMode !== AvailabilityModeUnavailable && isServing(c));
  if (serving.length === 0) {
    io.stderr.write(only !== undefined ? 'failed to query for catalog contents: catalog(s) unhealthy\n' : 'no serving catalogs found\n');
    return undefined;
  }
  for (const c of picked) {
    if (!serving.includes(c)) io.stderr.write(`note: catalog "${c.metadata.name ?? ''}" is not serving; its packages are not listed\n`);
  }
  return serving;
}

/** Every package of every serving catalog that `keep` accepts, sorted by package then catalog. */
async function collect(io: CliIO, flags: { kubeconfig?: string | undefined; context?: string | undefined; catalog?: string | undefined; timeout?: string | undefined }, keep: (name: string) => boolean): Promise<PackageSummary[] | undefined> {
  const timeout = timeoutMs(flags.timeout, '5m');
  return withClient(flags, io, async (client) => {
    const catalogs = await servingCatalogs(io, await listCatalogs(client), flags.catalog);
    if (!catalogs) return undefined;
    const content = new LiveContent(client, { timeoutMs: Number.isFinite(timeout) ? timeout : 24 * 3_600_000 });
    try {
      // A catalog whose content cannot be read is named on stderr; the others still answer.
      const read = await Promise.all(
        catalogs.map((c) =>
          content.index(c).then(
            (index) => ({ c, index }),
            (err: Error) => void io.stderr.write(`warning: catalog "${c.metadata.name ?? ''}": ${err.message}\n`),
          ),
        ),
      );
      const indexes = read.filter((r) => r !== undefined);
      if (indexes.length === 0) return undefined;
      const out = indexes.flatMap(({ c, index }) =>
        [...index.packageNames()].filter((name) => keep(name)).flatMap((name) => summarize(c.metadata.name ?? '', index.getPackage(name)) ?? []),
      );
      return out.sort((a, b) => (a.package !== b.package ? (a.package < b.package ? -1 : 1) : a.catalog < b.catalog ? -1 : 1));
    } finally {
      await content.close();
    }
  });
}

const SEARCH_OPTIONS = {
  ...CONNECTION_OPTIONS,
  catalog: { type: 'string' },
  timeout: { type: 'string' },
  output: { type: 'string', short: 'o' },
} as const;

export const searchCommand: CliCommand = {
  path: ['search'],
  summary: 'find packages in the serving catalogs by name, keyword or provider',
  usage: [
    'Usage: kubectl olm search [<text>] [--catalog <name>] [-o table|json|yaml|name] [flags]',
    '',
    'Lists the packages of every serving ClusterCatalog whose name, display name, keywords or provider contain',
    '<text> (case-insensitive; no text lists them all): provider, channels (the default first), the newest',
    'version, and whether the package is deprecated. Catalog content is read from catalogd\'s HTTP API at each',
    'catalog\'s status.urls.base (through the API server\'s service proxy when that is an in-cluster address).',
    '',
    'Flags:',
    '      --catalog <name>               search only this ClusterCatalog',
    '      --timeout <duration>           give up reading catalog content after this long (default 5m)',
    '  -o, --output table|json|yaml|name  json/yaml: every package with its channels, versions and deprecations; name: package names',
    '      --classic                      OLM classic: the CatalogSources of -n instead; see search --classic --help',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm search demo',
    '  kubectl olm search --catalog olm-demo -o json | jq -r \'.packages[].package\'',
  ].join('\n'),
  classic: async () => (await import('./classic/search.ts')).searchClassicCommand,
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, SEARCH_OPTIONS);
    if (pos.length > 1) throw new CliUsageError(`expected at most one search text, got ${pos.length}: quote text with spaces`);
    const text = pos[0] ?? '';
    const format = outputFormat(values.output);
    const all = await collect(io, values, () => true);
    if (!all) return 1;
    const found = all.filter((p) => matches(p, text));
    return printSearch(io, format, found, (p) => p.catalog, () => (text ? `no package matching "${text}" in the serving catalogs\n` : 'No resources found\n'), text !== '');
  },
};

export const listAvailableCommand: CliCommand = {
  path: ['list-available'],
  summary: 'a package’s channels, versions and deprecations in every serving catalog',
  usage: [
    'Usage: kubectl olm list-available <package> [--catalog <name>] [-o table|json|yaml] [flags]',
    '',
    'Shows what the serving ClusterCatalogs offer of <package>: each channel (the default first) with its',
    'versions, newest first, the bundle of each, and what the catalog deprecates (the package, a channel, a',
    'bundle) with its message. What to pass to `kubectl olm install --channel … --version …`.',
    'Without <package>, every package in one line each (as `kubectl olm search`).',
    '',
    'Flags:',
    '      --catalog <name>             only this ClusterCatalog',
    '      --timeout <duration>         give up reading catalog content after this long (default 5m)',
    '  -o, --output table|json|yaml     json/yaml: the package in each catalog as data',
    '      --classic                    OLM classic: the CatalogSources of -n instead; see list-available --classic --help',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm list-available demo-operator',
    '  kubectl olm list-available demo-operator -o json | jq -r \'.packages[].channels[] | .name + ": " + .bundles[0].version\'',
  ].join('\n'),
  classic: async () => (await import('./classic/search.ts')).listAvailableClassicCommand,
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, SEARCH_OPTIONS);
    if (pos.length === 0) return searchCommand.run(args, io);
    if (pos.length > 1) throw new CliUsageError(`expected one package, got ${pos.length}`);
    const name = pos[0]!;
    const format = outputFormat(values.output, ['table', 'json', 'yaml']);
    const found = await collect(io, values, (n) => n === name);
    if (!found) return 1;
    if (found.length === 0) {
      io.stderr.write(
        values.catalog !== undefined ? `package "${name}" was not found in ClusterCatalog "${values.catalog}"\n` : `package "${name}" was not found in any serving ClusterCatalog\n`,
      );
      return 1;
    }
    return printAvailable(io, format, found, () => availableTable(found, (p) => p.catalog, 'BUNDLE'));
  },
};
