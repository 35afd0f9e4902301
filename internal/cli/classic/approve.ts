// `kubectl olm approve <installplan|subscription> -n <namespace>`: spec.approved on a plan awaiting approval.
import type { ClusterServiceVersion, InstallPlan } from '../../../api/operators/index.ts';
import { CSVPhaseSucceeded, InstallPlanPhaseRequiresApproval } from '../../../api/operators/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, WAIT_OPTIONS, parseFlags, positionals, timeoutMs, withClient } from '../cluster.ts';
import { failure, type CliCommand } from '../types.ts';
import { contextError, waitFor } from '../wait.ts';
import { DEFAULT_TIMEOUT, getSub, getPlan, getCSV, progressOf, explainFailure, approvePlan, NS_OPTION, NS_USAGE } from './common.ts';

export const approveCommand: CliCommand = {
  path: ['approve'],
  summary: 'approve an OLM classic InstallPlan that awaits approval (or a Subscription’s pending plan)',
  usage: [
    'Usage: kubectl olm approve <installplan|subscription> -n <namespace> [--wait] [flags]',
    '',
    'Sets spec.approved on an InstallPlan in phase RequiresApproval (Subscriptions with installPlanApproval: Manual),',
    'so olm-classic executes it. Given a Subscription\'s name, approves the plan the Subscription waits on. A plan',
    'that does not await approval is refused (exit 1).',
    '',
    'Flags:',
    NS_USAGE,
    '      --wait                         wait until the plan\'s CSVs are Succeeded; progress on stderr on a terminal',
    `      --timeout <duration>           how long --wait waits (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm approve install-7xq2z -n operators --wait',
    '  kubectl olm approve etcd -n operators           # the pending plan of Subscription etcd',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, ...NS_OPTION, ...WAIT_OPTIONS });
    const [target] = positionals(pos, ['installplan']) as [string];
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    return withClient(values, io, async (client) => {
      const ns = values.namespace ?? client.defaultNamespace;
      const fail = failure(io, 'failed to approve');
      let plan = await getPlan(client, ns, target);
      if (!plan) {
        const sub = await getSub(client, ns, target);
        if (!sub) return fail(`no installplan or subscription "${target}" in namespace "${ns}"`);
        const ref = sub.status?.installPlanRef?.name;
        plan = ref ? await getPlan(client, ns, ref) : undefined;
        if (!plan) return fail(`subscription "${target}" has no installplan`);
      }
      const planName = plan.metadata.name ?? '';
      if (plan.status?.phase !== InstallPlanPhaseRequiresApproval || plan.spec.approved) return fail(`installplan "${planName}" is not awaiting approval (phase ${plan.status?.phase || 'none'}${plan.spec.approved ? ', already approved' : ''})`);
      await approvePlan(client, plan);
      io.stdout.write(`installplan "${planName}" approved\n`);
      if (!values.wait) return 0;
      const csvs = plan.spec.clusterServiceVersionNames ?? [];
      const r = await waitFor<{ plan: InstallPlan | undefined; csvs: (ClusterServiceVersion | undefined)[] }>({
        get: async () => ({ plan: await getPlan(client, ns, planName), csvs: await Promise.all(csvs.map((c) => getCSV(client, ns, c))) }),
        done: (o) => !!o && o.csvs.every((c) => c?.status?.phase === CSVPhaseSucceeded),
        conditions: (o) => [...progressOf(undefined, o?.plan, undefined), ...(o?.csvs ?? []).flatMap((c) => progressOf(undefined, undefined, c))],
        timeoutMs: timeout,
        io,
        label: `installplan/${planName}`,
      });
      if (!r.ok) {
        io.stderr.write(`failed to approve: waiting for operator installation to complete: ${contextError(r.reason)}\n`);
        for (const c of r.last?.csvs ?? []) if (c) explainFailure(io, { sub: undefined, plan: r.last?.plan, csv: c });
        return 1;
      }
      io.stdout.write(`installed csv${csvs.length > 1 ? 's' : ''} ${csvs.map((c) => `"${c}"`).join(', ')} succeeded\n`);
      return 0;
    });
  },
};
