// `kubectl olm install|upgrade|uninstall|list`: ClusterExtensions from the command line, as
// kubectl-operator's `olmv1 install|update|delete|get extension` do (their messages), plus
// `--wait` with progress, `--force` with a confirmation, and a readable table.
import { createInterface } from 'node:readline';
import type { Condition, LabelSelector } from '../../api/meta/v1.ts';
import {
  ClusterExtensionKind,
  ClusterExtensionSingular,
  CRDUpgradeSafetyEnforcementNone,
  CRDUpgradeSafetyEnforcementStrict,
  GroupName,
  GroupVersion,
  ReasonSucceeded,
  SourceTypeCatalog,
  TypeAvailable,
  TypeInstalled,
  TypeProgressing,
  UpgradeConstraintPolicyCatalogProvided,
  UpgradeConstraintPolicySelfCertified,
  type ClusterExtension,
  type UpgradeConstraintPolicy,
} from '../../api/v1/index.ts';
import { isAlreadyExists, isForbidden, ignoreNotFound, isNotFound, LabelSelectorError, parseLabelSelector, retryOnConflict, type KubeClient } from '../shared/kube/index.ts';
import { parseConstraints } from '../shared/semver/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, WAIT_OPTIONS, runDelete, runList, labelsFlag, listFlag, parseFlags, positionals, timeoutMs, withClient } from './cluster.ts';
import { age, byName, emit, emitObjects, outputFormat, table, type OutputFormat } from './output.ts';
import { asUsage, CliUsageError, failure, type CliCommand, type CliIO } from './types.ts';
import { giveUpOn, shellQuote, unfixable, unfixableLine, type Unfixable } from './failfast.ts';
import { didYouMean, findPackage } from './preflight.ts';
import { contextError, waitFor } from './wait.ts';
import { realClock } from '../shared/toolkit/index.ts';

export const CE = { apiVersion: GroupVersion, kind: ClusterExtensionKind } as const;
const DEFAULT_TIMEOUT = '5m';
const EXTENSION_TYPE = { apiVersion: GroupVersion, kind: ClusterExtensionKind, resource: ClusterExtensionSingular, group: GroupName } as const;

/** The extension, or undefined when there is none of that name. */
export function getExtension(client: KubeClient, name: string): Promise<ClusterExtension | undefined> {
  return ignoreNotFound(client.get<ClusterExtension>({ ...CE, name }));
}

export const condition = (ext: ClusterExtension | undefined, type: string): Condition | undefined => ext?.status?.conditions?.find((c) => c.type === type);

/**
 * kubectl-operator's "finished installing": Installed=True and Progressing=Succeeded — here also
 * for the spec the caller wrote (Progressing's observedGeneration has caught up with it).
 */
export function settled(ext: ClusterExtension | undefined, generation: number): boolean {
  const p = condition(ext, TypeProgressing);
  return (
    condition(ext, TypeInstalled)?.status === 'True' && p?.reason === ReasonSucceeded && (p.observedGeneration ?? 0) >= generation
  );
}

/** One word or two for the table: what the extension is doing. */
export function stateOf(ext: ClusterExtension): string {
  if (ext.metadata?.deletionTimestamp) return 'Deleting';
  const installed = condition(ext, TypeInstalled);
  const progressing = condition(ext, TypeProgressing);
  const available = condition(ext, TypeAvailable);
  if (!progressing && !installed) return 'Pending';
  switch (progressing?.reason) {
    case ReasonSucceeded:
      if (installed?.status !== 'True') return 'Pending';
      return available?.status === 'False' ? 'Installed, unavailable' : 'Installed';
    case 'RollingOut':
      return installed?.status === 'True' ? 'Upgrading' : 'Installing';
    case 'Retrying':
      return installed?.status === 'True' ? 'Installed, retrying' : 'Retrying';
    case 'InvalidConfiguration':
      return 'Invalid configuration';
    case 'ProgressDeadlineExceeded':
      return 'Deadline exceeded';
    default:
      return progressing?.reason ?? 'Pending';
  }
}

async function printExtensions(io: CliIO, format: OutputFormat, exts: readonly ClusterExtension[], single: boolean): Promise<void> {
  if (await emitObjects(io.stdout, format, exts, single, EXTENSION_TYPE)) return;
  if (exts.length === 0) {
    await emit(io.stdout, 'No resources found\n');
    return;
  }
  const now = (io.clock ?? realClock).date().getTime();
  const rows = [...exts]
    .sort(byName)
    .map((e) => [
      e.metadata?.name ?? '',
      e.spec?.source.catalog?.packageName ?? '',
      e.status?.install?.bundle.version ?? '',
      e.status?.install?.bundle.name ?? '',
      e.spec?.namespace ?? '',
      stateOf(e),
      age(e.metadata?.creationTimestamp, now),
      ...(format === 'wide'
        ? [
            e.spec?.source.catalog?.channels?.join(',') ?? '',
            e.spec?.source.catalog?.version ?? '',
            e.spec?.source.catalog?.upgradeConstraintPolicy ?? UpgradeConstraintPolicyCatalogProvided,
          ]
        : []),
    ]);
  const wide = format === 'wide' ? ['CHANNELS', 'VERSION RANGE', 'UPGRADE POLICY'] : [];
  await emit(io.stdout, table(['NAME', 'PACKAGE', 'VERSION', 'INSTALLED BUNDLE', 'NAMESPACE', 'STATE', 'AGE', ...wide], rows));
}

function validateVersion(version: string | undefined): void {
  if (version) asUsage(() => parseConstraints(version), `invalid \`--version\` "${version}": `);
}

function catalogSelector(text: string | undefined): LabelSelector | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return parseLabelSelector(text);
  } catch (err) {
    if (err instanceof LabelSelectorError) throw new CliUsageError(`invalid \`--catalog-selector\` value "${text}": ${err.message}`);
    throw err;
  }
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliUsageError(`invalid \`--${flag}\` "${value}": must be one of: [${allowed.join(' ')}]`);
  return value as T;
}

const POLICIES = [UpgradeConstraintPolicyCatalogProvided, UpgradeConstraintPolicySelfCertified] as const;
const ENFORCEMENTS = [CRDUpgradeSafetyEnforcementStrict, CRDUpgradeSafetyEnforcementNone] as const;

/** What a wait that did not end well prints: the caller's line, the Progressing condition, where to look. Exit 1. */
function waitFailureHint(io: CliIO, first: string, ext: ClusterExtension | undefined, name: string): number {
  io.stderr.write(`${first}\n`);
  const p = condition(ext, TypeProgressing);
  if (p && p.reason !== ReasonSucceeded) io.stderr.write(`Progressing (${p.reason}): ${p.message}\n`);
  io.stderr.write(`run \`kubectl olm status ${name}\` or \`kubectl olm explain ${name}\` to see why\n`);
  return 1;
}

/**
 * The conditions `--wait` shows: a deprecation only when there is one (True), and Available=False only when it says
 * more than Progressing already does (a rollout's probe is reported by both) — so a healthy rollout reads calmly.
 */
export function progressConditions(ext: ClusterExtension | undefined): Condition[] {
  const all = ext?.status?.conditions ?? [];
  const progressing = all.find((c) => c.type === TypeProgressing);
  return all.filter((c) => {
    if (c.type.endsWith('Deprecated')) return c.status === 'True';
    if (c.type === TypeAvailable && c.status === 'False' && progressing?.message === c.message) return false;
    return true;
  });
}

/** What a wait that ended on a cause waiting will not fix prints: the caller's line with the cause, next steps. Exit 1. */
function unfixableHint(io: CliIO, first: string, u: Unfixable, name: string): number {
  io.stderr.write(`${first}: ${u.cause}\n`);
  io.stderr.write(unfixableLine(u));
  io.stderr.write(`run \`kubectl olm status ${shellQuote(name)}\` or \`kubectl olm explain ${shellQuote(name)}\` to see why\n`);
  return 1;
}

/**
 * `--wait` after install or upgrade wrote the spec: until the extension has settled at that generation, the
 * progress lines from `baseline`; it gives up on a cause waiting will not fix, kept for two reconciles, unless
 * --wait-for-fix.
 */
function waitSettled(client: KubeClient, io: CliIO, name: string, generation: number, timeout: number, waitForFix: boolean | undefined, baseline?: readonly Condition[]) {
  return waitFor({
    get: () => getExtension(client, name),
    done: (e) => settled(e, generation),
    conditions: progressConditions,
    timeoutMs: timeout,
    io,
    label: `clusterextension/${name}`,
    baseline,
    giveUp: giveUpOn<ClusterExtension>(waitForFix, (e) => unfixable(e, generation)),
  });
}

/** The extension written or, after --wait, installed (`waited`: the bundle it installed, in the table form), as -o asks. Exit 0. */
async function printOutcome(io: CliIO, format: OutputFormat, name: string, result: ClusterExtension, waited: boolean): Promise<number> {
  const b = result.status?.install?.bundle;
  if (waited && format === 'table' && b) io.stdout.write(`extension "${name}" installed bundle ${b.name} (version ${b.version})\n`);
  if (format !== 'table') await printExtensions(io, format, [result], true);
  return 0;
}

const WAIT_USAGE = [
  '      --wait                 wait until the extension is installed as asked (Installed=True, Progressing=Succeeded);',
  '                             on a terminal each condition change since the command started is shown on stderr;',
  '                             gives up (exit 1) on a cause waiting will not fix — a package, version or channel the',
  '                             catalogs lack, a missing namespace or service account, a terminal error — kept for',
  '                             two reconciles, and names the command to run next',
  '      --wait-for-fix         with --wait: keep waiting on such a cause too (until someone fixes it, or --timeout)',
  `      --timeout <duration>   how long --wait waits (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
];

// ---------------------------------------------------------------------------------------------
// install

export const installCommand: CliCommand = {
  path: ['install'],
  summary: 'install a package from the cluster’s catalogs as a ClusterExtension',
  usage: [
    'Usage: kubectl olm install <package> [flags]',
    '',
    'Creates a ClusterExtension that installs <package> from the cluster\'s ClusterCatalogs: operator-controller',
    'picks the newest bundle that matches --version and --channel, applies it into --namespace, and keeps it',
    'upgraded along the catalog\'s upgrade graph.',
    '',
    'Before it creates anything it checks that no extension has that name (`upgrade` changes one), that the namespace',
    'exists (or --create-namespace), and that a serving catalog has the package (else it names close ones); a namespace',
    'it created is deleted again when the extension cannot be created.',
    '',
    'Flags:',
    '      --name <name>                  name of the ClusterExtension (default: the package name)',
    '  -n, --namespace <namespace>        namespace for the extension\'s namespaced objects (default: the kubeconfig',
    '                                     context\'s namespace); it must exist unless --create-namespace',
    '      --create-namespace             create the namespace if it does not exist',
    '  -c, --channel <name>               channel(s) to install and upgrade from; repeat or comma-separate (default: all)',
    '  -v, --version <range>              version or range: 1.2.3, 1.2.x, ">=1.0.0 <2.0.0" (default: the newest)',
    '  -l, --catalog-selector <selector>  label selector of the ClusterCatalogs to use, e.g. tier=stable (default: all)',
    '  -s, --service-account <name>       deprecated, left out by default: sets spec.serviceAccount, which operator-controller',
    '                                     ignores (it installs with its own identity) unless it runs with',
    '                                     --feature-gates=ServiceAccountInstalls=true; then the ServiceAccount in the',
    '                                     namespace to install as',
    '      --upgrade-constraint-policy <policy>       CatalogProvided (default) or SelfCertified (any version, even lower)',
    '      --crd-upgrade-safety-enforcement <policy>  Strict (default) or None',
    '      --labels <key=value,...>       labels of the ClusterExtension',
    '      --dry-run                      have the API server check the ClusterExtension without creating it',
    ...WAIT_USAGE,
    '  -o, --output table|json|yaml|name  print the ClusterExtension (after --wait: as installed)',
    '      --classic                      OLM classic: a Subscription (and OperatorGroup) in -n instead; see install --classic --help',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm install demo-operator -n demo --channel stable --version 0.1.x --wait',
    '  kubectl olm install cert-manager --name cm -n cert-manager --create-namespace -l tier=stable',
  ].join('\n'),
  classic: async () => (await import('./classic/install.ts')).installClassicCommand,
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, {
      ...CONNECTION_OPTIONS,
      name: { type: 'string' },
      namespace: { type: 'string', short: 'n' },
      'create-namespace': { type: 'boolean' },
      channel: { type: 'string', short: 'c', multiple: true },
      channels: { type: 'string', multiple: true },
      version: { type: 'string', short: 'v' },
      'catalog-selector': { type: 'string', short: 'l' },
      'service-account': { type: 'string', short: 's' },
      'upgrade-constraint-policy': { type: 'string' },
      'crd-upgrade-safety-enforcement': { type: 'string' },
      labels: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
      ...WAIT_OPTIONS,
      'wait-for-fix': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
    });
    const [packageName] = positionals(pos, ['package']) as [string];
    const format = outputFormat(values.output);
    validateVersion(values.version);
    const selector = catalogSelector(values['catalog-selector']);
    const policy = oneOf<UpgradeConstraintPolicy>('upgrade-constraint-policy', values['upgrade-constraint-policy'], POLICIES);
    const enforcement = oneOf('crd-upgrade-safety-enforcement', values['crd-upgrade-safety-enforcement'], ENFORCEMENTS);
    const labels = labelsFlag(values.labels);
    const channels = listFlag([...(values.channel ?? []), ...(values.channels ?? [])]);
    const dryRun = values['dry-run'] === true;
    const wait = values.wait === true && !dryRun;
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    const name = values.name ?? packageName;

    return withClient(values, io, async (client) => {
      const namespace = values.namespace ?? client.defaultNamespace;
      const ext: ClusterExtension = {
        ...CE,
        metadata: { name, ...(Object.keys(labels).length > 0 && { labels }) },
        spec: {
          namespace,
          ...(values['service-account'] && { serviceAccount: { name: values['service-account'] } }),
          source: {
            sourceType: SourceTypeCatalog,
            catalog: {
              packageName,
              ...(values.version && { version: values.version }),
              ...(channels.length > 0 && { channels }),
              ...(selector && { selector }),
              ...(policy && { upgradeConstraintPolicy: policy }),
            },
          },
          ...(enforcement && { install: { preflight: { crdUpgradeSafety: { enforcement } } } }),
        },
      };
      const fail = failure(io, `failed to install extension "${name}"`);
      // Check first, create after: an existing extension (→ upgrade), the namespace, the package.
      if (await getExtension(client, name)) {
        return fail(`clusterextensions.${GroupName} "${name}" already exists; to change its version or channel run \`kubectl olm upgrade ${shellQuote(name)} --version <range>\` (\`kubectl olm status ${shellQuote(name)}\` shows it)`);
      }
      const namespaceExists = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace }).then(
        () => true,
        (err: unknown) => {
          if (isNotFound(err)) return false;
          // Someone who may not read namespaces: the API server and operator-controller have the last word.
          if (isForbidden(err)) return true;
          throw err;
        },
      );
      if (!namespaceExists && !values['create-namespace']) return fail(`namespaces "${namespace}" not found; create it first, or add --create-namespace`);
      const found = await findPackage(client, packageName, selector);
      if (found.found === false) {
        const where = selector ? `the serving ClusterCatalogs selected by "${values['catalog-selector'] ?? ''}"` : 'any serving ClusterCatalog';
        return fail(`package "${packageName}" was not found in ${where}${didYouMean(found.suggestions)} (\`kubectl olm search <text>\` lists packages)`);
      }
      let createdNamespace = false;
      if (!namespaceExists && !dryRun) {
        try {
          await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
          createdNamespace = true;
          if (format === 'table') io.stdout.write(`namespace "${namespace}" created\n`);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      }
      const created = await client.create<ClusterExtension>(ext, { dryRun, fieldManager: 'kubectl-olm' }).catch((err: Error) => err);
      if (created instanceof Error) {
        let why = created.message;
        if (isAlreadyExists(created)) why += `; to change it run \`kubectl olm upgrade ${shellQuote(name)} --version <range>\``;
        if (createdNamespace) {
          // Leave nothing behind: the namespace this command made for the extension it could not create.
          await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace }).then(
            () => {
              if (format === 'table') io.stdout.write(`namespace "${namespace}" deleted\n`);
            },
            (e: unknown) => io.stderr.write(`warning: namespace "${namespace}" created for the extension could not be deleted: ${(e as Error).message}\n`),
          );
        }
        return fail(why);
      }
      if (format === 'table') io.stdout.write(`extension "${name}" created${dryRun ? ' (dry run)' : ''}\n`);
      if (!wait) return printOutcome(io, format, name, created, false);
      const r = await waitSettled(client, io, name, created.metadata?.generation ?? 1, timeout, values['wait-for-fix']);
      const failed = `failed to install extension "${name}": cluster extension "${name}" did not finish installing`;
      if (!r.ok && r.reason === 'unfixable') return unfixableHint(io, failed, r.unfixable, name);
      if (!r.ok) {
        const p = condition(r.last, TypeProgressing);
        return waitFailureHint(io, `${failed}: ${p && p.reason !== ReasonSucceeded ? p.message : contextError(r.reason)}`, r.last, name);
      }
      return printOutcome(io, format, name, r.last ?? created, true);
    });
  },
};

// ---------------------------------------------------------------------------------------------
// upgrade

/** Asks on a terminal; anything but y/yes is a no. */
async function confirm(io: CliIO, question: string): Promise<boolean> {
  const stdin = io.stdin;
  if (!stdin) return false;
  io.stderr.write(question);
  const rl = createInterface({ input: stdin, terminal: false });
  try {
    for await (const line of rl) return /^\s*y(es)?\s*$/i.test(line);
    return false;
  } finally {
    rl.close();
  }
}

export const FORCE_WARNING =
  'upgradeConstraintPolicy: SelfCertified lets operator-controller install any version in the range, lower ones too, ignoring the catalog\'s upgrade graph. A forced upgrade or downgrade can lose data.';

export const upgradeCommand: CliCommand = {
  path: ['upgrade'],
  summary: 'change the version range or channels of an extension (--force: any version)',
  usage: [
    'Usage: kubectl olm upgrade <extension> [--version <range>] [--channel <name> ...] [--force [--yes]] [flags]',
    '',
    'Changes what the ClusterExtension may run; operator-controller then moves to the newest bundle that matches,',
    'along the catalog\'s upgrade graph (replaces, skips, skipRange). Flags not given keep their current values.',
    '',
    'Flags:',
    '  -v, --version <range>              new version or range ("" for any)',
    '  -c, --channel <name>               new channel(s); repeat or comma-separate ("" for all channels)',
    '  -l, --catalog-selector <selector>  new label selector of the ClusterCatalogs to use',
    '      --force                        set upgradeConstraintPolicy: SelfCertified, so any version in the range is',
    '                                     allowed, lower ones too; asks for confirmation, as this can lose data',
    '  -y, --yes                          do not ask (needed for --force when stdin is not a terminal)',
    '      --upgrade-constraint-policy <policy>  set it explicitly: CatalogProvided (back to the graph) or SelfCertified',
    ...WAIT_USAGE,
    '  -o, --output table|json|yaml|name  print the ClusterExtension (after --wait: as installed)',
    '      --classic                      OLM classic: change a Subscription\'s channel or approve its pending upgrade;',
    '                                     see upgrade --classic --help',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm upgrade demo-operator --version ">=0.1.0 <1.0.0" --wait',
    '  kubectl olm upgrade demo-operator --version 0.1.0 --force --yes --wait    # a downgrade',
  ].join('\n'),
  classic: async () => (await import('./classic/upgrade.ts')).upgradeClassicCommand,
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, {
      ...CONNECTION_OPTIONS,
      version: { type: 'string', short: 'v' },
      channel: { type: 'string', short: 'c', multiple: true },
      channels: { type: 'string', multiple: true },
      'catalog-selector': { type: 'string', short: 'l' },
      force: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      'upgrade-constraint-policy': { type: 'string' },
      ...WAIT_OPTIONS,
      'wait-for-fix': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
    });
    const [name] = positionals(pos, ['extension']) as [string];
    const format = outputFormat(values.output);
    validateVersion(values.version);
    let policy = oneOf<UpgradeConstraintPolicy>('upgrade-constraint-policy', values['upgrade-constraint-policy'], POLICIES);
    if (values.force) {
      if (policy === UpgradeConstraintPolicyCatalogProvided) throw new CliUsageError('--force and --upgrade-constraint-policy CatalogProvided contradict each other');
      policy = UpgradeConstraintPolicySelfCertified;
    }
    const channelValues = values.channel || values.channels ? listFlag([...(values.channel ?? []), ...(values.channels ?? [])]) : undefined;
    const selectorText = values['catalog-selector'];
    const selector = selectorText === undefined ? undefined : selectorText === '' ? null : catalogSelector(selectorText);
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);

    if (values.force && !values.yes) {
      const tty = (io.stdin as { isTTY?: boolean } | undefined)?.isTTY === true;
      if (!tty) throw new CliUsageError(`--force needs a confirmation: ${FORCE_WARNING} Run it in a terminal to be asked, or add --yes.`);
      const ok = await confirm(io, `${FORCE_WARNING}\nUpgrade extension "${name}" with upgradeConstraintPolicy: SelfCertified? [y/N] `);
      if (!ok) {
        io.stderr.write('upgrade cancelled\n');
        return 1;
      }
    }

    return withClient(values, io, async (client) => {
      // Read, compare and patch under the read's resourceVersion; a conflict (the controller wrote status in
      // between) reads again, as kubectl-operator's RetryOnConflict does.
      const updated = await retryOnConflict(async () => {
        const ext = await getExtension(client, name);
        if (!ext) throw new Error(`clusterextensions.${GroupName} "${name}" not found`);
        const current = ext.spec?.source.catalog;
        if (ext.spec?.source.sourceType !== SourceTypeCatalog || !current) throw new Error(`unrecognized source type: "${ext.spec?.source.sourceType ?? ''}"`);
        const catalog: Record<string, unknown> = {};
        if (values.version !== undefined && values.version !== (current.version ?? '')) catalog['version'] = values.version === '' ? null : values.version;
        if (channelValues !== undefined && JSON.stringify(channelValues) !== JSON.stringify(current.channels ?? [])) {
          catalog['channels'] = channelValues.length === 0 ? null : channelValues;
        }
        if (selector !== undefined && JSON.stringify(selector) !== JSON.stringify(current.selector ?? null)) catalog['selector'] = selector;
        if (policy !== undefined && policy !== (current.upgradeConstraintPolicy ?? UpgradeConstraintPolicyCatalogProvided)) catalog['upgradeConstraintPolicy'] = policy;
        if (Object.keys(catalog).length === 0) throw new Error('no changes detected - extension already in desired state');
        return client.patch<ClusterExtension>({ ...CE, name }, 'merge', { metadata: { resourceVersion: ext.metadata?.resourceVersion }, spec: { source: { catalog } } }, { fieldManager: 'kubectl-olm' });
      }).catch((err: Error) => err);
      if (updated instanceof Error) {
        io.stderr.write(`failed to update extension: ${updated.message}\n`);
        return 1;
      }
      if (format === 'table') io.stdout.write(`extension "${name}" updated\n`);
      if (!values.wait) return printOutcome(io, format, name, updated, false);
      const r = await waitSettled(client, io, name, updated.metadata?.generation ?? 0, timeout, values['wait-for-fix'], progressConditions(updated));
      if (!r.ok && r.reason === 'unfixable') return unfixableHint(io, `failed to update extension: extension "${name}" did not finish upgrading`, r.unfixable, name);
      if (!r.ok) return waitFailureHint(io, `failed to update extension: timed out waiting for extension: ${contextError(r.reason)}`, r.last, name);
      return printOutcome(io, format, name, r.last ?? updated, true);
    });
  },
};

// ---------------------------------------------------------------------------------------------
// uninstall

export const uninstallCommand: CliCommand = {
  path: ['uninstall'],
  summary: 'delete an extension and everything it installed',
  usage: [
    'Usage: kubectl olm uninstall <extension>... [--wait] [flags]',
    '       kubectl olm uninstall --all [--wait] [flags]',
    '',
    'Deletes the ClusterExtensions named. operator-controller removes everything the extension installed before the',
    'ClusterExtension goes — its CRDs too, which deletes every custom resource of those kinds (the operands).',
    '',
    'Flags:',
    '  -a, --all                  delete every ClusterExtension',
    '      --wait                 wait until the ClusterExtension and what it installed are gone',
    `      --timeout <duration>   how long --wait waits (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
    '  -o, --output name          print the deleted ClusterExtensions as <resource>/<name>',
    '      --classic                  OLM classic: delete a Subscription and its CSV; see uninstall --classic --help',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm uninstall demo-operator --wait',
    '  kubectl olm uninstall demo-operator cert-manager',
    '  kubectl olm uninstall --all',
  ].join('\n'),
  classic: async () => (await import('./classic/uninstall.ts')).uninstallClassicCommand,
  run(args, io) {
    return runDelete(args, io, {
      type: EXTENSION_TYPE,
      what: 'extension',
      fail: 'failed to delete extension',
      both: 'failed to delete extension: cannot specify both --all and an extension name',
      positional: 'extension',
      defaultTimeout: DEFAULT_TIMEOUT,
      list: async (client) => (await client.list<ClusterExtension>(CE)).items.map((e) => e.metadata?.name ?? ''),
      get: getExtension,
      conditions: (e) => e?.status?.conditions,
    });
  },
};

// ---------------------------------------------------------------------------------------------
// list

export const listCommand: CliCommand = {
  path: ['list'],
  summary: 'list extensions with their installed bundle and state',
  usage: [
    'Usage: kubectl olm list [<extension>] [-l <selector>] [-o table|json|yaml|name] [flags]',
    '',
    'Lists ClusterExtensions: the package, the installed version and bundle, the namespace, and their state in a',
    'word (Installed, Installing, Upgrading, Retrying, Blocked, Deleting, …; `kubectl olm status` says more).',
    '',
    'Flags:',
    '  -l, --selector <selector>          only extensions with these labels (kubectl\'s label selector syntax)',
    '  -o, --output table|wide|json|yaml|name  json and yaml print a ClusterExtensionList (one object when a name is',
    '                                     given); wide adds the channels, version range and upgrade policy asked for',
    '      --classic                      OLM classic: list Subscriptions; see list --classic --help',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm list',
    '  kubectl olm list -o json | jq -r \'.items[] | .metadata.name + " " + .status.install.bundle.version\'',
  ].join('\n'),
  classic: async () => (await import('./classic/list.ts')).listClassicCommand,
  run(args, io) {
    return runList(args, io, {
      what: 'extension',
      resource: `clusterextensions.${GroupName}`,
      get: getExtension,
      list: async (client, selector) => (await client.list<ClusterExtension>(CE, selector ? { labelSelector: selector } : {})).items,
      print: (format, items, single) => printExtensions(io, format, items, single),
    });
  },
};
