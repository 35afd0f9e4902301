// What the classic commands share: the kinds they read and write, the cluster reads, waiting for an install, the
// Subscription table, approving a plan, and the flags and usage lines they have in common.
import type { CatalogSource, ClusterServiceVersion, InstallPlan, Subscription } from '../../../api/operators/index.ts';
import type { CatalogContent } from '../../classic/catalogsource/index.ts';
import {
  CatalogSourceKind,
  ClusterServiceVersionKind,
  CSVPhaseSucceeded,
  GroupName,
  InstallPlanKind,
  OperatorGroupKind,
  SubscriptionKind,
  V1,
  V1alpha1,
} from '../../../api/operators/index.ts';
import type { Condition, KubeObject } from '../../../api/meta/v1.ts';
import { ignoreNotFound, retryOnConflict, type KubeClient } from '../../shared/kube/index.ts';
import { emit, emitObjects, table, type OutputFormat } from '../output.ts';
import type { CliIO } from '../types.ts';
import { realClock } from '../../shared/toolkit/index.ts';
import { WAIT_OPTIONS } from '../cluster.ts';
import { giveUpOn, unfixableLine, type Unfixable } from '../failfast.ts';
import { contextError, waitFor } from '../wait.ts';
import { unfixableClassic } from './failfast.ts';
import { pendingPlan, csvNameOf, subscriptionRow, SUBSCRIPTION_HEADERS, SUBSCRIPTION_WIDE_HEADERS, type Observed } from './logic.ts';

export const SUB = { apiVersion: V1alpha1, kind: SubscriptionKind } as const;
export const IP = { apiVersion: V1alpha1, kind: InstallPlanKind } as const;
export const CSV = { apiVersion: V1alpha1, kind: ClusterServiceVersionKind } as const;
export const OG = { apiVersion: V1, kind: OperatorGroupKind } as const;
export const CS = { apiVersion: V1alpha1, kind: CatalogSourceKind } as const;
export const DEFAULT_TIMEOUT = '5m';
/** Upstream OLM's default global catalog namespace (`olm-classic --namespace`). */
export const DEFAULT_GLOBAL_NAMESPACE = 'olm';
export const FIELD_MANAGER = 'kubectl-olm';

export function getOrUndefined<T extends KubeObject>(client: KubeClient, ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<T | undefined> {
  return ignoreNotFound(client.get<T>(ref));
}

export const getSub = (client: KubeClient, ns: string, name: string): Promise<Subscription | undefined> => getOrUndefined<Subscription>(client, { ...SUB, name, namespace: ns });
export const getPlan = (client: KubeClient, ns: string, name: string): Promise<InstallPlan | undefined> => getOrUndefined<InstallPlan>(client, { ...IP, name, namespace: ns });
export const getCSV = (client: KubeClient, ns: string, name: string): Promise<ClusterServiceVersion | undefined> => getOrUndefined<ClusterServiceVersion>(client, { ...CSV, name, namespace: ns });

/** A Subscription by name, else the one subscribed to the package of that name (kubectl-operator's lookup). */
export async function findSubscription(client: KubeClient, ns: string, name: string): Promise<Subscription | undefined> {
  const byName = await getSub(client, ns, name);
  if (byName) return byName;
  const all = (await client.listAll<Subscription>({ ...SUB, namespace: ns })).items;
  return all.find((s) => s.spec.name === name);
}

/** The condition-like lines `--wait` prints as they change: the Subscription's state and conditions, the plan, the CSV. */
export function progressOf(sub: Subscription | undefined, plan: InstallPlan | undefined, csv: ClusterServiceVersion | undefined): Condition[] {
  const c = (type: string, status: string, reason = '', message = ''): Condition => ({ type, status: status as Condition['status'], reason, message, lastTransitionTime: '' });
  const out: Condition[] = [];
  if (sub?.status?.state) out.push(c('Subscription', sub.status.state, sub.status.currentCSV ?? ''));
  for (const cond of sub?.status?.conditions ?? []) if (cond.status === 'True') out.push(c(cond.type, cond.status, cond.reason ?? '', cond.message ?? ''));
  if (plan?.status?.phase) out.push(c(`InstallPlan ${plan.metadata.name ?? ''}`, plan.status.phase, (plan.spec.clusterServiceVersionNames ?? []).join(','), plan.status.message ?? ''));
  if (csv?.status?.phase) out.push(c(`CSV ${csv.metadata.name ?? ''}`, csv.status.phase, csv.status.reason ?? '', csv.status.message ?? ''));
  return out;
}

export type Outcome =
  | { kind: 'succeeded'; csv: ClusterServiceVersion }
  | { kind: 'approval'; plan: InstallPlan }
  | { kind: 'failed'; why: string; last: Observed }
  | { kind: 'unfixable'; unfixable: Unfixable; last: Observed };

/**
 * Waits until the Subscription's CSV is Succeeded and it is at the latest known (or past `fromCSV`), or until an
 * InstallPlan of it waits for approval.
 */
export async function waitInstalled(client: KubeClient, ns: string, name: string, io: CliIO, timeout: number, fromCSV = '', waitForFix = false): Promise<Outcome> {
  const r = await waitFor<Observed>({
    get: async () => {
      const sub = await getSub(client, ns, name);
      const ref = sub?.status?.installPlanRef?.name;
      const plan = ref ? await getPlan(client, ns, ref) : undefined;
      const csvName = sub ? csvNameOf(sub) : '';
      const csv = csvName ? await getCSV(client, ns, csvName) : undefined;
      return { sub, plan, csv };
    },
    // gone, a plan awaiting approval, or installed
    done: (o) => !o?.sub || (!!o.plan && pendingPlan(o.sub, [o.plan]) !== undefined) || isDone(o, fromCSV),
    conditions: (o) => progressOf(o?.sub, o?.plan, o?.csv),
    timeoutMs: timeout,
    io,
    label: `subscription/${name}`,
    giveUp: giveUpOn(waitForFix, unfixableClassic),
  });
  const last = r.last ?? { sub: undefined, plan: undefined, csv: undefined };
  if (!r.ok && r.reason === 'unfixable') return { kind: 'unfixable', unfixable: r.unfixable, last };
  if (!last.sub) return { kind: 'failed', why: `subscriptions.${GroupName} "${name}" not found`, last };
  if (last.plan && pendingPlan(last.sub, [last.plan])) return { kind: 'approval', plan: last.plan };
  if (r.ok && last.csv) return { kind: 'succeeded', csv: last.csv };
  return { kind: 'failed', why: r.ok ? 'no CSV' : contextError(r.reason), last };
}

/**
 * What install and upgrade say of a wait that did not succeed: a failure as `failed to <verb> operator: …` (false,
 * exit 1), a plan awaiting approval as the `approve` command (true).
 */
export function saidOutcome(io: CliIO, outcome: Outcome, verb: string, ns: string): boolean {
  if (outcome.kind === 'failed') {
    io.stderr.write(`failed to ${verb} operator: waiting for operator installation to complete: ${outcome.why}\n`);
    explainFailure(io, outcome.last);
    return false;
  }
  if (outcome.kind === 'unfixable') {
    io.stderr.write(`failed to ${verb} operator: ${outcome.unfixable.cause}\n`);
    io.stderr.write(unfixableLine(outcome.unfixable));
    return false;
  }
  if (outcome.kind === 'approval') {
    const name = outcome.plan.metadata.name ?? '';
    io.stderr.write(`installplan "${name}" awaits approval (${(outcome.plan.spec.clusterServiceVersionNames ?? []).join(', ')}); approve it with:\n  kubectl olm approve ${name} -n ${ns}\n`);
  }
  return true;
}

/** Settled: the CSV the Subscription installed is its current one, Succeeded, and not the one it started from. */
export function isDone(o: Observed, fromCSV: string): boolean {
  const installed = o.sub?.status?.installedCSV;
  return !!installed && installed !== fromCSV && installed === o.sub?.status?.currentCSV && o.csv?.metadata.name === installed && o.csv.status?.phase === CSVPhaseSucceeded;
}

/** What a wait that did not end well says about why: a failing condition of the Subscription, the plan, the CSV. */
export function explainFailure(io: CliIO, last: Observed): void {
  const failing = last.sub?.status?.conditions?.find((c) => c.status === 'True' && /Failed|Unhealthy|Missing/.test(c.type));
  if (failing) io.stderr.write(`${failing.type} (${failing.reason ?? ''}): ${failing.message ?? ''}\n`);
  if (last.plan?.status?.phase === 'Failed') io.stderr.write(`installplan "${last.plan.metadata.name ?? ''}" Failed: ${last.plan.status.message ?? ''}\n`);
  if (last.csv && last.csv.status?.phase !== CSVPhaseSucceeded) {
    io.stderr.write(`clusterserviceversion "${last.csv.metadata.name ?? ''}" is ${last.csv.status?.phase || 'Pending'}${last.csv.status?.reason ? ` (${last.csv.status.reason})` : ''}${last.csv.status?.message ? `: ${last.csv.status.message}` : ''}\n`);
  }
}

type Named = { readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined } };

/** The order classic tables and verdicts list objects in: by namespace, then by name. */
export const byNamespaceName = (a: Named, b: Named): number =>
  (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

export async function printSubscriptions(io: CliIO, format: OutputFormat, subs: readonly Subscription[], plans: readonly InstallPlan[], single: boolean): Promise<void> {
  if (await emitObjects(io.stdout, format, subs, single, { apiVersion: V1alpha1, kind: SubscriptionKind, resource: 'subscription', group: GroupName })) return;
  const rows = [...subs]
    .sort(byNamespaceName)
    .map((s) => subscriptionRow(s, plans, (io.clock ?? realClock).date().getTime(), format === 'wide'));
  await emit(io.stdout, table(format === 'wide' ? SUBSCRIPTION_WIDE_HEADERS : SUBSCRIPTION_HEADERS, rows));
}

/** Sets spec.approved on a plan (conflicts retried, as kubectl-operator's RetryOnConflict). */
export async function approvePlan(client: KubeClient, plan: InstallPlan): Promise<void> {
  const ns = plan.metadata.namespace ?? '';
  const name = plan.metadata.name ?? '';
  await retryOnConflict(async (attempt) => {
    const current = attempt === 0 ? plan : ((await getPlan(client, ns, name)) ?? plan);
    await client.patch({ ...IP, name, namespace: ns }, 'merge', { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { approved: true } }, { fieldManager: FIELD_MANAGER });
  });
}

export const CLASSIC_FLAG = { classic: { type: 'boolean' } } as const;
export const NS_OPTION = { namespace: { type: 'string', short: 'n' } } as const;
export const NS_USAGE = '  -n, --namespace <namespace>        the namespace (default: the kubeconfig context\'s namespace)';
/** install's and upgrade's waiting flags. */
export const CLASSIC_WAIT_OPTIONS = { ...WAIT_OPTIONS, 'wait-for-fix': { type: 'boolean' as const } };

export const WAIT_USAGE = [
  '      --wait                         wait until the CSV is Succeeded, or until an InstallPlan awaits approval (then',
  '                                     print the `kubectl olm approve` to run, exit 0); progress on stderr on a terminal;',
  '                                     gives up (exit 1) on a cause waiting will not fix — a failed InstallPlan, a',
  '                                     resolution the catalogs cannot satisfy, a CSV its OperatorGroup refuses — kept',
  '                                     for two reads, and names the command to run next',
  '      --wait-for-fix                 with --wait: keep waiting on such a cause too (until someone fixes it, or --timeout)',
  `      --timeout <duration>           how long --wait waits (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
];

/**
 * Reads each CatalogSource's content here, in order, as olm-classic does (images pulled with the user's docker/podman
 * credentials, addresses asked over gRPC), and hands it to `use`; one that cannot be read (or that `use` throws on) is
 * named on stderr and skipped.
 */
export async function readCatalogSources(io: CliIO, sources: readonly CatalogSource[], insecure: readonly string[], use: (cs: CatalogSource, content: CatalogContent) => void): Promise<void> {
  const { catalogSourceReader } = await import('../../classic/catalogsource/index.ts');
  const { RegistryClient, loadUserCredentials } = await import('../../shared/image/index.ts');
  const registry = new RegistryClient({ insecureRegistries: insecure, credentials: await loadUserCredentials(io.env), userAgent: 'kubectl-olm' });
  const reader = catalogSourceReader({ registry });
  try {
    for (const cs of sources) {
      try {
        use(cs, await reader.content(cs, io.signal));
      } catch (err) {
        io.stderr.write(`CatalogSource ${cs.metadata.namespace ?? ''}/${cs.metadata.name ?? ''} not read: ${(err as Error).message.split('\n')[0] ?? ''}\n`);
      }
    }
  } finally {
    await reader.close();
    await registry.close();
  }
}
