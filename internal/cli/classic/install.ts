// `kubectl olm install --classic <package> -n <namespace>`: the package's CatalogSource, an OperatorGroup when the
// namespace has none, the Subscription; `--wait` until the CSV is Succeeded or a plan awaits approval.
import type { CatalogSource, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import { GroupName } from '../../../api/operators/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, insecureRegistries, parseFlags, positionals, timeoutMs, withClient } from '../cluster.ts';
import { outputFormat } from '../output.ts';
import { CliUsageError, failure, type CliCommand, type CliIO } from '../types.ts';
import {
  SUB,
  OG,
  CS,
  DEFAULT_TIMEOUT,
  DEFAULT_GLOBAL_NAMESPACE,
  FIELD_MANAGER,
  getSub,
  waitInstalled,
  saidOutcome,
  printSubscriptions,
  readCatalogSources,
  CLASSIC_FLAG,
  NS_OPTION,
  NS_USAGE,
  WAIT_USAGE,
  CLASSIC_WAIT_OPTIONS,
} from './common.ts';
import {
  approvalFlag,
  PackageLookupError,
  chooseSource,
  subscriptionTarget,
  firstCSV,
  supportedInstallModes,
  planOperatorGroup,
  type PackageSource,
  type SubscriptionTarget,
} from './logic.ts';

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  ...CLASSIC_FLAG,
  ...NS_OPTION,
  name: { type: 'string' },
  channel: { type: 'string', short: 'c' },
  version: { type: 'string', short: 'v' },
  approval: { type: 'string', short: 'a' },
  catalog: { type: 'string' },
  'catalog-namespace': { type: 'string' },
  watch: { type: 'string', short: 'w', multiple: true },
  'global-namespace': { type: 'string' },
  'insecure-registries': { type: 'string' },
  ...CLASSIC_WAIT_OPTIONS,
  output: { type: 'string', short: 'o' },
} as const;

/** CatalogSources in the namespaces a Subscription in `ns` can use (as the flags narrow them), with their content where they serve `pkg`. */
async function findPackage(client: KubeClient, io: CliIO, ns: string, pkg: string, flags: ReturnType<typeof parseFlags<typeof OPTIONS>>['values']): Promise<{ found: PackageSource[]; searched: string[] }> {
  const { findPackage: find } = await import('../../classic/catalogsource/index.ts');
  const { catalog, 'catalog-namespace': catalogNs } = flags;
  const searched = catalogNs ? [catalogNs] : [...new Set([ns, flags['global-namespace'] ?? DEFAULT_GLOBAL_NAMESPACE])];
  const sources: CatalogSource[] = [];
  for (const n of searched) {
    const items = (await client.listAll<CatalogSource>({ ...CS, namespace: n })).items;
    sources.push(...items.filter((cs) => !catalog || cs.metadata.name === catalog));
  }
  if (catalog && sources.length === 0) throw new PackageLookupError(`catalogsources.${GroupName} "${catalog}" not found in namespace${searched.length > 1 ? 's' : ''} ${searched.map((n) => `"${n}"`).join(' and ')}`);
  const found: PackageSource[] = [];
  await readCatalogSources(io, sources, insecureRegistries(flags['insecure-registries'], io.env), (cs, content) => {
    const p = find(content, pkg);
    if (p) found.push({ namespace: cs.metadata.namespace ?? '', name: cs.metadata.name ?? '', pkg: p, content });
  });
  return { found, searched };
}

/** The namespace's OperatorGroup when it fits the install, or a new one (planOperatorGroup), said on stderr. */
async function ensureOperatorGroup(client: KubeClient, io: CliIO, o: { ns: string; pkg: string; supported: readonly string[] | undefined; watch: readonly string[] }): Promise<void> {
  const groups = (await client.listAll<OperatorGroup>({ ...OG, namespace: o.ns })).items;
  if (groups.length > 1) throw new Error(`namespace "${o.ns}" has more than one operator group`);
  const plan = planOperatorGroup(o.pkg, o.supported, o.watch, o.ns, groups[0]);
  if ('problem' in plan) throw new Error(groups.length === 0 ? `${plan.problem}; create an OperatorGroup in namespace "${o.ns}" that it supports first` : plan.problem);
  if (groups.length === 1) return;
  const og: OperatorGroup = { ...OG, metadata: { name: o.ns, namespace: o.ns }, spec: plan.targetNamespaces ? { targetNamespaces: plan.targetNamespaces } : {} };
  await client.create(og, { fieldManager: FIELD_MANAGER }).catch((err: Error) => {
    throw new Error(`create operator group: ${err.message}`, { cause: err });
  });
  const watches = plan.targetNamespaces === undefined ? 'AllNamespaces: the operator watches every namespace' : plan.targetNamespaces.length === 1 && plan.targetNamespaces[0] === o.ns ? `OwnNamespace: the operator watches namespace "${o.ns}"` : `the operator watches namespaces ${plan.targetNamespaces.map((n) => `"${n}"`).join(', ')}`;
  io.stderr.write(`operatorgroup "${o.ns}" created (${watches})\n`);
}

export const installClassicCommand: CliCommand = {
  path: ['install'],
  summary: 'install a package from the cluster’s catalogs as a ClusterExtension',
  usage: [
    'Usage: kubectl olm install --classic <package> -n <namespace> [flags]',
    '',
    'OLM classic: creates a Subscription to <package> in the namespace, and an OperatorGroup when it has none: one',
    'watching every namespace when the operator supports it (AllNamespaces), else its own namespace, else --watch.',
    'An existing OperatorGroup must fit the operator\'s install modes. The CatalogSource that serves the package is looked up in the namespace and the',
    'global catalog namespace (the catalogs\' content is read from here: images pulled, addresses asked over gRPC);',
    'when more than one serves it, name one with --catalog. olm-classic then resolves the Subscription into an',
    'InstallPlan and installs the CSV.',
    '',
    'Flags:',
    NS_USAGE,
    '      --name <name>                  name of the Subscription (default: the package name)',
    '  -c, --channel <name>               channel to subscribe to (default: the package\'s default channel)',
    '  -v, --version <version>            the CSV version to start from (spec.startingCSV; default: the channel head)',
    '  -a, --approval Automatic|Manual    InstallPlan approval (default Automatic); Manual plans wait for `kubectl olm approve`',
    '      --catalog <name>               the CatalogSource to use (default: the one that serves the package)',
    '      --catalog-namespace <ns>       its namespace (default: the namespace, then the global catalog namespace)',
    '  -w, --watch <ns>[,<ns>…]           namespaces the operator watches (default: all it supports, else its own)',
    `      --global-namespace <ns>        OLM's global catalog namespace (default ${DEFAULT_GLOBAL_NAMESPACE}, olm-classic's --namespace)`,
    '      --insecure-registries <hosts>  registries to reach over plain HTTP when reading catalog images',
    '                                     (default: $OLM_INSECURE_REGISTRIES)',
    ...WAIT_USAGE,
    '  -o, --output table|json|yaml|name  print the Subscription (after --wait: as it is then)',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm install --classic etcd -n operators --channel stable --wait',
    '  kubectl olm install --classic etcd -n operators --approval Manual --version 0.9.4 --wait',
    '  kubectl olm install --classic etcd -n operators --catalog community --catalog-namespace olm',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, OPTIONS);
    const [packageName] = positionals(pos, ['package']) as [string];
    const format = outputFormat(values.output);
    const approval = approvalFlag(values.approval);
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    if (values['catalog-namespace'] && !values.catalog) throw new CliUsageError('--catalog-namespace needs --catalog');
    const name = values.name ?? packageName;
    const watch = (values.watch ?? []).flatMap((w) => w.split(',')).filter((w) => w !== '');
    return withClient(values, io, async (client) => {
      const ns = values.namespace ?? client.defaultNamespace;
      const fail = failure(io, 'failed to install operator');
      let target: SubscriptionTarget;
      let supported: string[] | undefined;
      try {
        const { found, searched } = await findPackage(client, io, ns, packageName, values);
        const src = chooseSource(packageName, found, searched);
        target = subscriptionTarget(src, values.channel, values.version);
        const first = firstCSV(src, target);
        supported = first ? supportedInstallModes(src.content, packageName, first) : undefined;
      } catch (err) {
        if (!(err instanceof PackageLookupError)) throw err;
        return fail(`get package manifest: ${err.message}`);
      }
      if (await getSub(client, ns, name)) return fail(`create subscription: subscriptions.${GroupName} "${name}" already exists`);
      const refused = await ensureOperatorGroup(client, io, { ns, pkg: packageName, supported, watch }).catch((err: Error) => err);
      if (refused) return fail(refused.message);
      const sub: Subscription = {
        ...SUB,
        metadata: { name, namespace: ns },
        spec: {
          name: packageName,
          channel: target.channel,
          source: target.source,
          sourceNamespace: target.sourceNamespace,
          installPlanApproval: approval,
          ...(target.startingCSV && { startingCSV: target.startingCSV }),
        },
      };
      const created = await client.create<Subscription>(sub, { fieldManager: FIELD_MANAGER }).catch((err: Error) => err);
      if (created instanceof Error) return fail(`create subscription: ${created.message}`);
      if (format === 'table') io.stdout.write(`subscription "${name}" created\n`);
      let result = created;
      if (values.wait) {
        const outcome = await waitInstalled(client, ns, name, io, timeout, '', values['wait-for-fix']);
        if (!saidOutcome(io, outcome, 'install', ns)) return 1;
        if (outcome.kind === 'succeeded' && format === 'table') io.stdout.write(`operator "${packageName}" installed; installed csv is "${outcome.csv.metadata.name ?? ''}"\n`);
        result = (await getSub(client, ns, name)) ?? created;
      }
      if (format !== 'table') await printSubscriptions(io, format, [result], [], true);
      return 0;
    });
  },
};
