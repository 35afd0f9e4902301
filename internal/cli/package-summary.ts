// What `search` and `list-available` report of a package, in the v1 and the classic forms alike (search.ts,
// classic/search.ts), how `search` prints it and `list-available`'s table.
import { emit, json, table, yaml, type OutputFormat } from './output.ts';
import type { CliIO } from './types.ts';

export interface BundleSummary {
  readonly name: string;
  /** As status.install.bundle.version would record it; `(no version)` when unreadable. */
  readonly version: string;
  readonly deprecated?: string | undefined;
}

export interface ChannelSummary {
  readonly name: string;
  readonly default: boolean;
  /** The entry no other entry of the channel replaces or skips (the newest on the channel's graph). */
  readonly head?: string | undefined;
  /** Newest first. */
  readonly bundles: readonly BundleSummary[];
  readonly deprecated?: string | undefined;
}

export interface PackageSummary {
  readonly package: string;
  readonly catalog: string;
  readonly provider: string;
  readonly displayName: string;
  readonly description: string;
  readonly keywords: readonly string[];
  readonly defaultChannel: string;
  readonly channels: readonly ChannelSummary[];
  /** The newest version of any bundle. */
  readonly latest: string;
  readonly deprecated?: string | undefined;
}

/** The channels' order: the package's default channel first, then by name. */
export function defaultChannelFirst(defaultChannel: string): (a: { readonly name: string }, b: { readonly name: string }) => number {
  return (a, b) => (a.name === defaultChannel ? -1 : b.name === defaultChannel ? 1 : a.name < b.name ? -1 : 1);
}

/** `-o json|yaml` of `search` and `list-available`: `{packages}`. Exit 0. */
async function emitPackages(io: CliIO, format: OutputFormat, found: readonly PackageSummary[]): Promise<number> {
  await emit(io.stdout, format === 'json' ? json({ packages: found }) : await yaml({ packages: found }));
  return 0;
}

/**
 * What `search` prints (the v1 and the classic forms alike): `{packages}` as JSON or YAML, package names, or the table
 * with the catalog cell `catalogOf` gives. Nothing found: `none()` on stderr, exit 1 when a text was searched for.
 */
export async function printSearch<P extends PackageSummary>(
  io: CliIO,
  format: OutputFormat,
  found: readonly P[],
  catalogOf: (p: P) => string,
  none: () => string,
  searched: boolean,
): Promise<number> {
  if (format === 'json' || format === 'yaml') return emitPackages(io, format, found);
  if (format === 'name') {
    await emit(io.stdout, [...new Set(found.map((p) => p.package))].map((n) => `${n}\n`).join(''));
    return 0;
  }
  if (found.length === 0) {
    io.stderr.write(none());
    return searched ? 1 : 0;
  }
  const rows = found.map((p) => [
    p.deprecated ? `${p.package} (deprecated)` : p.package,
    catalogOf(p),
    p.provider,
    p.channels.map((c) => (c.default ? `${c.name} (default)` : c.name)).join(', '),
    p.latest,
  ]);
  await emit(io.stdout, table(['PACKAGE', 'CATALOG', 'PROVIDER', 'CHANNELS', 'LATEST'], rows));
  return 0;
}

/** What `list-available` prints (the v1 and the classic forms alike): `{packages}` for json/yaml, else `tableText()`. Exit 0. */
export async function printAvailable(io: CliIO, format: OutputFormat, found: readonly PackageSummary[], tableText: () => string): Promise<number> {
  if (format !== 'table') return emitPackages(io, format, found);
  await emit(io.stdout, tableText());
  return 0;
}

/**
 * `list-available`'s table (the v1 and the classic forms alike): a row per channel entry (CATALOG, CHANNEL,
 * VERSION, `bundleHeader`, NOTES), the catalog cell `catalogOf` gives, and the deprecations after the table.
 */
export function availableTable<P extends PackageSummary>(found: readonly P[], catalogOf: (p: P) => string, bundleHeader: string): string {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const p of found) {
    const catalog = catalogOf(p);
    if (p.deprecated) notes.push(`package ${p.package} (catalog ${catalog}): ${p.deprecated}`);
    for (const c of p.channels) {
      if (c.deprecated) notes.push(`channel ${c.name} (catalog ${catalog}): ${c.deprecated}`);
      for (const b of c.bundles) {
        rows.push([catalog, c.default ? `${c.name} (default)` : c.name, b.version, b.name, [b.name === c.head ? 'head' : '', b.deprecated ? 'deprecated' : ''].filter(Boolean).join(', ')]);
      }
    }
    const seen = new Set<string>();
    for (const b of p.channels.flatMap((c) => c.bundles)) {
      if (b.deprecated && !seen.has(b.name)) notes.push(`bundle ${b.name} (catalog ${catalog}): ${b.deprecated}`);
      seen.add(b.name);
    }
  }
  let text = table(['CATALOG', 'CHANNEL', 'VERSION', bundleHeader, 'NOTES'], rows);
  if (notes.length > 0) text += `\nDeprecations:\n${notes.map((n) => `  ${n}\n`).join('')}`;
  return text;
}
