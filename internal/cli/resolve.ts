// `kubectl olm resolve`: what a ClusterExtension would get from catalog directories, offline —
// the operator-controller resolver over catalogs loaded from disk, with its exact messages and an
// explanation of what happened to every bundle.
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { ClusterCatalog, ClusterExtension } from '../../api/v1/index.ts';
import { MetadataNameLabel, UpgradeConstraintPolicyCatalogProvided, UpgradeConstraintPolicySelfCertified } from '../../api/v1/index.ts';
import { FbcLoadError } from '../shared/fbc/index.ts';
import { indexFromDirectory, type CatalogIndex } from '../operator-controller/contentclient/index.ts';
import {
  CatalogResolver,
  ResolutionError,
  StaticContentClient,
  formatExplanation,
  getVersionAndRelease,
  bundleMetadataVersion,
} from '../operator-controller/resolve/index.ts';
import { asUsage, CliUsageError, directory, type CliCommand, type CliIO } from './types.ts';
import { NAMESPACE_USAGE } from './resolve-namespace-usage.ts';

interface CatalogArg {
  readonly dir: string;
  /** Absent: 0 (no --priority follows the --catalog). */
  priority?: number;
}

interface ResolveArgs {
  readonly catalogs: CatalogArg[];
  readonly packageName: string;
  readonly version: string;
  readonly channels: string[];
  readonly installed?: string | undefined;
  readonly policy: typeof UpgradeConstraintPolicyCatalogProvided | typeof UpgradeConstraintPolicySelfCertified;
  readonly explain: boolean;
}

const INT32 = /^[+-]?\d+$/;

/** Flags in order: each `--priority` applies to the `--catalog` before it. */
export function parseResolveArgs(args: readonly string[]): ResolveArgs {
  const parsed = asUsage(() =>
    parseArgs({
      args: [...args],
      options: {
        catalog: { type: 'string', multiple: true },
        priority: { type: 'string', multiple: true },
        package: { type: 'string' },
        version: { type: 'string' },
        channel: { type: 'string', multiple: true },
        installed: { type: 'string' },
        'upgrade-constraint-policy': { type: 'string' },
        explain: { type: 'boolean' },
      },
      allowPositionals: false,
      strict: true,
      tokens: true,
    }),
  );
  const catalogs: CatalogArg[] = [];
  for (const t of parsed.tokens) {
    if (t.kind !== 'option') continue;
    if (t.name === 'catalog') catalogs.push({ dir: t.value ?? '' });
    if (t.name === 'priority') {
      const last = catalogs.at(-1);
      if (last === undefined) throw new CliUsageError('--priority must follow the --catalog it applies to');
      if (last.priority !== undefined) throw new CliUsageError(`--priority given twice for --catalog ${last.dir}`);
      const n = Number(t.value);
      if (!INT32.test(t.value ?? '') || n < -2147483648 || n > 2147483647) throw new CliUsageError(`invalid --priority "${t.value ?? ''}": want a 32-bit integer`);
      last.priority = n;
    }
  }
  if (catalogs.length === 0) throw new CliUsageError('at least one --catalog <dir> is required');
  const packageName = parsed.values.package;
  if (packageName === undefined || packageName === '') throw new CliUsageError('--package is required');
  const policy = parsed.values['upgrade-constraint-policy'] ?? UpgradeConstraintPolicyCatalogProvided;
  if (policy !== UpgradeConstraintPolicyCatalogProvided && policy !== UpgradeConstraintPolicySelfCertified) {
    throw new CliUsageError(`invalid --upgrade-constraint-policy "${policy}": want CatalogProvided or SelfCertified`);
  }
  const names = new Set<string>();
  for (const c of catalogs) {
    const name = basename(c.dir.replace(/\/+$/, ''));
    if (names.has(name)) throw new CliUsageError(`two catalogs named "${name}": catalog names are directory basenames and must differ`);
    names.add(name);
  }
  return {
    catalogs,
    packageName,
    version: parsed.values.version ?? '',
    channels: parsed.values.channel ?? [],
    installed: parsed.values.installed,
    policy,
    explain: parsed.values.explain ?? false,
  };
}

function extensionOf(a: ResolveArgs): ClusterExtension {
  return {
    metadata: { name: a.packageName },
    spec: {
      namespace: 'default',
      source: {
        sourceType: 'Catalog',
        catalog: { packageName: a.packageName, version: a.version, channels: a.channels, upgradeConstraintPolicy: a.policy },
      },
    },
  };
}

const write = (stream: NodeJS.WritableStream, lines: readonly string[]): void => {
  if (lines.length > 0) stream.write(`${lines.join('\n')}\n`);
};

export const resolveCommand: CliCommand = {
  path: ['resolve'],
  summary: 'show which bundle a ClusterExtension would get from catalog directories (offline), or a namespace’s classic resolution (-n)',
  usage: [
    'Usage: kubectl olm resolve --catalog <dir> [--priority N] [--catalog <dir> [--priority N] ...]',
    '                          --package <name> [--version <range>] [--channel <name> ...]',
    '                          [--installed <bundle name>] [--upgrade-constraint-policy CatalogProvided|SelfCertified]',
    '                          [--explain]',
    '',
    'Runs operator-controller\'s resolution over file-based catalog directories, each taken as a',
    'ClusterCatalog named after the directory (priority 0 unless --priority follows it). --version is a',
    'ClusterExtension version range (Masterminds syntax); --channel may repeat. --installed names the',
    'bundle currently installed: only its successors (replaces, skips, skipRange) or itself are',
    'allowed, unless the policy is SelfCertified.',
    '',
    'Prints the chosen bundle, its version and catalog and exits 0. When nothing fits, prints',
    'operator-controller\'s error followed by what happened to each bundle and exits 1.',
    '--explain prints that explanation on success too.',
    '',
    ...NAMESPACE_USAGE,
  ].join('\n'),
  async run(args, io: CliIO) {
    // `--namespace`: OLM classic's resolution of a namespace on the live cluster (resolve-namespace.ts)
    if (args.some((x) => x === '-n' || x === '--namespace' || x.startsWith('--namespace=') || /^-n\S/.test(x))) {
      return (await import('./resolve-namespace.ts')).resolveNamespaceCommand(args, io);
    }
    const a = parseResolveArgs(args);
    const indexes = new Map<string, CatalogIndex>();
    const catalogs: ClusterCatalog[] = [];
    for (const c of a.catalogs) {
      const dir = await directory(io, c.dir);
      const name = basename(dir);
      try {
        indexes.set(name, await indexFromDirectory(dir, { strict: false }));
      } catch (err) {
        if (!(err instanceof FbcLoadError)) throw err;
        io.stderr.write(`${err.message}\n`);
        return 1;
      }
      catalogs.push({
        metadata: { name, labels: { [MetadataNameLabel]: name } },
        spec: { source: { type: 'Image', image: { ref: dir } }, priority: c.priority ?? 0, availabilityMode: 'Available' },
      });
    }

    let installed: { name: string; version: string } | undefined;
    if (a.installed !== undefined) {
      const found = [...indexes.values()].flatMap((idx) => idx.getPackage(a.packageName).bundles).find((b) => b.name === a.installed);
      if (found === undefined) {
        io.stderr.write(`installed bundle "${a.installed}" not found in package "${a.packageName}" of any catalog\n`);
        return 1;
      }
      let version: string;
      try {
        version = bundleMetadataVersion(getVersionAndRelease(found)).version;
      } catch (err) {
        io.stderr.write(`installed bundle "${a.installed}": ${(err as Error).message}\n`);
        return 1;
      }
      installed = { name: found.name, version };
    }

    const resolver = new CatalogResolver({ listCatalogs: () => catalogs, content: new StaticContentClient(indexes) });
    try {
      const r = await resolver.resolveBundle(extensionOf(a), installed);
      write(io.stdout, [`bundle: ${r.bundle.name}`, `version: ${r.bundle.version}`, `catalog: ${r.catalog}`, `image: ${r.bundle.image}`]);
      if (a.explain) write(io.stdout, ['', ...formatExplanation(r.explanation)]);
      return 0;
    } catch (err) {
      if (!(err instanceof ResolutionError)) throw err;
      write(io.stderr, [err.message, ...(err.explanation ? ['', ...formatExplanation(err.explanation)] : [])]);
      return 1;
    }
  },
};
