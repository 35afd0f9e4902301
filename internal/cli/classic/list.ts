// `kubectl olm list --classic [-n <namespace> | -A]`: Subscriptions with their installed CSV, state and pending plan.
import type { InstallPlan, Subscription } from '../../../api/operators/index.ts';
import { GroupName } from '../../../api/operators/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parseFlags, withClient } from '../cluster.ts';
import { emit, LIST_FORMATS, outputFormat } from '../output.ts';
import { CliUsageError, type CliCommand } from '../types.ts';
import { SUB, IP, printSubscriptions, CLASSIC_FLAG, NS_OPTION, NS_USAGE } from './common.ts';

export const listClassicCommand: CliCommand = {
  path: ['list'],
  summary: 'list extensions with their installed bundle and state',
  usage: [
    'Usage: kubectl olm list --classic [<subscription>] [-n <namespace> | -A] [-o table|json|yaml|name] [flags]',
    '',
    'OLM classic: lists Subscriptions — the package, channel, installed CSV, state (AtLatestKnown, UpgradePending,',
    'UpgradeAvailable, …) and the InstallPlan that awaits approval, if any (approve it with `kubectl olm approve`).',
    '',
    'Flags:',
    NS_USAGE,
    '  -A, --all-namespaces               list the Subscriptions of every namespace',
    '  -o, --output table|wide|json|yaml|name  wide adds CATALOG, APPROVAL and CURRENT CSV; json and yaml print a',
    '                                     SubscriptionList (one object when a name is given)',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm list --classic -A',
    '  kubectl olm list --classic -n operators -o json | jq -r \'.items[] | .metadata.name + " " + .status.installedCSV\'',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, ...CLASSIC_FLAG, ...NS_OPTION, 'all-namespaces': { type: 'boolean', short: 'A' }, output: { type: 'string', short: 'o' } });
    const format = outputFormat(values.output, LIST_FORMATS);
    if (pos.length > 1) throw new CliUsageError(`expected at most one subscription name, got ${pos.length}`);
    if (values['all-namespaces'] && values.namespace) throw new CliUsageError('--namespace and --all-namespaces cannot both be given');
    if (values['all-namespaces'] && pos.length === 1) throw new CliUsageError('a subscription name cannot be given with --all-namespaces');
    return withClient(values, io, async (client) => {
      const ns = values['all-namespaces'] ? undefined : (values.namespace ?? client.defaultNamespace);
      const scope = ns ? { namespace: ns } : {};
      let subs = (await client.listAll<Subscription>({ ...SUB, ...scope })).items;
      if (pos.length === 1) {
        subs = subs.filter((s) => s.metadata.name === pos[0]);
        if (subs.length === 0) {
          io.stderr.write(`subscriptions.${GroupName} "${pos[0]!}" not found\n`);
          return 1;
        }
      }
      if (subs.length === 0 && (format === 'table' || format === 'wide')) {
        await emit(io.stderr, ns ? `No resources found in ${ns} namespace.\n` : 'No resources found\n');
        return 0;
      }
      const plans = format === 'table' || format === 'wide' ? (await client.listAll<InstallPlan>({ ...IP, ...scope })).items : [];
      await printSubscriptions(io, format, subs, plans, pos.length === 1);
      return 0;
    });
  },
};
