// `kubectl olm upgrade --classic <subscription> -n <namespace>`: `--channel` patches the Subscription; else the
// pending upgrade plan is approved.
import { retryOnConflict } from '../../shared/kube/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parseFlags, positionals, timeoutMs, withClient } from '../cluster.ts';
import { failure, type CliCommand } from '../types.ts';
import {
  SUB,
  DEFAULT_TIMEOUT,
  FIELD_MANAGER,
  getSub,
  getPlan,
  findSubscription,
  waitInstalled,
  saidOutcome,
  approvePlan,
  CLASSIC_FLAG,
  NS_OPTION,
  NS_USAGE,
  WAIT_USAGE,
  CLASSIC_WAIT_OPTIONS,
} from './common.ts';
import { pendingPlan } from './logic.ts';

export const upgradeClassicCommand: CliCommand = {
  path: ['upgrade'],
  summary: 'change the version range or channels of an extension (--force: any version)',
  usage: [
    'Usage: kubectl olm upgrade --classic <subscription> -n <namespace> [--channel <name>] [--wait] [flags]',
    '',
    'OLM classic. With --channel: moves the Subscription to another channel of its package; olm-classic resolves the',
    'upgrade from there. Without it: approves the InstallPlan the Subscription waits on (a Manual Subscription with',
    'an upgrade pending), as kubectl-operator\'s upgrade does. <subscription> may also name the package.',
    '',
    'Flags:',
    NS_USAGE,
    '  -c, --channel <name>               the channel to move to',
    ...WAIT_USAGE,
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm upgrade --classic etcd -n operators --channel clusterwide-alpha --wait',
    '  kubectl olm upgrade --classic etcd -n operators      # approve the pending upgrade',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, ...CLASSIC_FLAG, ...NS_OPTION, channel: { type: 'string', short: 'c' }, ...CLASSIC_WAIT_OPTIONS });
    const [target] = positionals(pos, ['subscription']) as [string];
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    return withClient(values, io, async (client) => {
      const ns = values.namespace ?? client.defaultNamespace;
      const fail = failure(io, 'failed to upgrade operator');
      const sub = await findSubscription(client, ns, target);
      if (!sub) return fail(`subscription for package "${target}" not found`);
      const name = sub.metadata.name ?? '';
      const from = sub.status?.installedCSV ?? '';
      if (values.channel !== undefined) {
        if (values.channel === (sub.spec.channel ?? '')) return fail(`no changes detected - subscription already in channel "${values.channel}"`);
        // A conflict (the operator wrote status in between) reads the Subscription again, as RetryOnConflict does.
        const refused = await retryOnConflict(async (attempt) => {
          const latest = attempt === 0 ? sub : ((await getSub(client, ns, name)) ?? sub);
          await client.patch({ ...SUB, name, namespace: ns }, 'merge', { metadata: { resourceVersion: latest.metadata.resourceVersion }, spec: { channel: values.channel } }, { fieldManager: FIELD_MANAGER });
        }).catch((err: Error) => err);
        if (refused) return fail(refused.message);
        io.stdout.write(`subscription "${name}" updated: channel "${values.channel}"\n`);
      } else {
        const ref = sub.status?.installPlanRef?.name;
        if (!ref) return fail('subscription does not reference an install plan');
        if (sub.status?.installedCSV === sub.status?.currentCSV) return fail('operator is already at latest version');
        const plan = await getPlan(client, ns, ref);
        if (!plan || !pendingPlan(sub, [plan])) return fail(`installplan "${ref}" is not awaiting approval (phase ${plan?.status?.phase || 'none'})`);
        await approvePlan(client, plan);
        io.stdout.write(`installplan "${ref}" approved\n`);
      }
      if (!values.wait) return 0;
      const outcome = await waitInstalled(client, ns, name, io, timeout, from, values['wait-for-fix']);
      if (!saidOutcome(io, outcome, 'upgrade', ns)) return 1;
      if (outcome.kind === 'succeeded') io.stdout.write(`operator "${sub.spec.name}" upgraded; installed csv is "${outcome.csv.metadata.name ?? ''}"\n`);
      return 0;
    });
  },
};
