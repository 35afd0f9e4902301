// The OLM classic commands (operators.coreos.com): `install --classic`, `approve`, `upgrade --classic`,
// `uninstall --classic`, `list --classic` — kubectl-operator's `install|upgrade|uninstall|list` for Subscriptions,
// with its messages where it has them, plus `--wait` with progress, `-o`, and a readable table. The CLI writes
// specs (OperatorGroup, Subscription, InstallPlan spec.approved) and deletes; olm-classic does the rest.
import type { CatalogSource, ClusterServiceVersion, InstallPlan, OperatorGroup, Subscription } from '../../api/operators/index.ts';
import {
  ApprovalAutomatic,
  ApprovalManual,
  CatalogSourceKind,
  ClusterServiceVersionKind,
  CSVPhaseSucceeded,
  GroupName,
  InstallPlanKind,
  InstallPlanPhaseRequiresApproval,
  InstallModeTypeAllNamespaces,
  InstallModeTypeMultiNamespace,
  InstallModeTypeOwnNamespace,
  InstallModeTypeSingleNamespace,
  OperatorGroupKind,
  OperatorGroupTargetsAnnotationKey,
  SubscriptionKind,
  V1,
  V1alpha1,
  type Approval,
} from '../../api/operators/index.ts';
import type { Condition, KubeObject } from '../../api/meta/v1.ts';
import type { CatalogContent, ContentPackage } from '../classic/catalogsource/index.ts';
import { isNotFound, retryOnConflict, type KubeClient } from '../shared/kube/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, WAIT_OPTIONS, insecureRegistries, parseFlags, positionals, timeoutMs, withClient } from './cluster.ts';
import { age, emit, json, listOf, objectName, outputFormat, shown, table, yaml, type OutputFormat } from './output.ts';
import { CliUsageError, type CliCommand, type CliIO } from './types.ts';
import { waitFor } from './wait.ts';

const SUB = { apiVersion: V1alpha1, kind: SubscriptionKind } as const;
const IP = { apiVersion: V1alpha1, kind: InstallPlanKind } as const;
const CSV = { apiVersion: V1alpha1, kind: ClusterServiceVersionKind } as const;
const OG = { apiVersion: V1, kind: OperatorGroupKind } as const;
const CS = { apiVersion: V1alpha1, kind: CatalogSourceKind } as const;
const DEFAULT_TIMEOUT = '5m';
/** Upstream OLM's default global catalog namespace (`olm-classic --namespace`). */
export const DEFAULT_GLOBAL_NAMESPACE = 'olm';
const FIELD_MANAGER = 'kubectl-olm';

// ---------------------------------------------------------------------------------------------
// Pure logic (unit-tested in classic.test.ts)

/** `--approval`: Automatic (the default, as a Subscription without one) or Manual. */
export function approvalFlag(value: string | undefined): Approval {
  if (value === undefined || value === '') return ApprovalAutomatic;
  if (value === ApprovalAutomatic || value === ApprovalManual) return value;
  throw new CliUsageError(`invalid argument "${value}" for "--approval" flag: invalid approval value "${value}"`);
}

/** One CatalogSource that serves the package, with its content. */
export interface PackageSource {
  readonly namespace: string;
  readonly name: string;
  readonly pkg: ContentPackage;
  readonly content: CatalogContent;
}

/** What `install --classic` subscribes to: the catalog, the channel, and the startingCSV for `--version`. */
export interface SubscriptionTarget {
  readonly source: string;
  readonly sourceNamespace: string;
  readonly channel: string;
  readonly startingCSV?: string;
}

/** kubectl-operator's names for the problems of finding a package (`get package manifest: …`). */
export class PackageLookupError extends Error {
  override readonly name = 'PackageLookupError';
}

/**
 * The one CatalogSource among `found` to subscribe to; none or more than one is an error naming what to do. With
 * more than one, the candidates are listed as `--catalog`/`--catalog-namespace` pairs.
 */
export function chooseSource(packageName: string, found: readonly PackageSource[], searched: readonly string[]): PackageSource {
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    const where = searched.map((n) => `"${n}"`).join(' and ');
    throw new PackageLookupError(`package "${packageName}" not found in the CatalogSources of namespace${searched.length > 1 ? 's' : ''} ${where}`);
  }
  const list = found.map((f) => `--catalog ${f.name} --catalog-namespace ${f.namespace}`).join('; ');
  throw new PackageLookupError(`package "${packageName}" is served by ${found.length} CatalogSources; choose one: ${list}`);
}

/** The channel (the package's default when not given) and, for `--version`, the CSV to start from. */
export function subscriptionTarget(src: PackageSource, channel: string | undefined, version: string | undefined): SubscriptionTarget {
  const name = channel || src.pkg.defaultChannel;
  if (!name) throw new PackageLookupError(`package "${src.pkg.name}" does not have a default channel`);
  const ch = src.pkg.channels.find((c) => c.name === name);
  if (!ch) throw new PackageLookupError(`channel "${name}" does not exist for package "${src.pkg.name}"`);
  const base = { source: src.name, sourceNamespace: src.namespace, channel: name };
  if (!version) return base;
  const want = version.replace(/^v/, '');
  const versions = new Map(src.content.bundles.filter((b) => b.package === src.pkg.name).map((b) => [b.name, b.version]));
  const entry = ch.entries.find((e) => versions.get(e.name) === want);
  if (!entry) throw new PackageLookupError(`version "${version}" not found in channel "${name}"`);
  return { ...base, startingCSV: entry.name };
}

/** The CSV a new Subscription to `target` starts from: its startingCSV, else the channel's head (replaced and skipped by none). */
export function firstCSV(src: PackageSource, target: SubscriptionTarget): string | undefined {
  if (target.startingCSV) return target.startingCSV;
  const entries = src.pkg.channels.find((c) => c.name === target.channel)?.entries ?? [];
  const behind = new Set(entries.flatMap((e) => [e.replaces, ...e.skips]));
  return entries.find((e) => !behind.has(e.name))?.name;
}

/**
 * The install modes a bundle supports, from its `olm.csv.metadata` property (what `opm render` writes); undefined when
 * the catalog does not say.
 */
export function supportedInstallModes(content: CatalogContent, pkg: string, bundle: string): string[] | undefined {
  const prop = content.bundles.find((b) => b.package === pkg && b.name === bundle)?.properties.find((p) => p.type === 'olm.csv.metadata');
  if (!prop) return undefined;
  try {
    const modes = (JSON.parse(prop.value) as { installModes?: { type?: unknown; supported?: unknown }[] }).installModes;
    if (!Array.isArray(modes)) return undefined;
    return modes.filter((m) => m.supported === true && typeof m.type === 'string').map((m) => m.type as string).sort();
  } catch {
    return undefined;
  }
}

/** The install modes an OperatorGroup watching `watch` allows (kubectl-operator's rule; none named: all or own). */
export function possibleInstallModes(watch: readonly string[], ns: string): string[] {
  if (watch.length === 0 || (watch.length === 1 && watch[0] === '')) return [InstallModeTypeAllNamespaces, InstallModeTypeOwnNamespace];
  if (watch.length === 1) return watch[0] === ns ? [InstallModeTypeOwnNamespace] : [InstallModeTypeSingleNamespace];
  return [InstallModeTypeMultiNamespace];
}

const quotedList = (modes: readonly string[]): string => `"${[...modes].sort().join(',')}"`;

/**
 * The OperatorGroup an install needs (kubectl-operator's `ensureOperatorGroup`): with none in the namespace, the
 * target namespaces of the one to create — all namespaces when the operator and the desired watches allow it, else
 * its own namespace, else the watches; with one, whether it fits (its `status.namespaces`). `supported` undefined:
 * the catalog does not say, so the watches decide (the namespace alone when none are named).
 */
export function planOperatorGroup(
  pkg: string,
  supported: readonly string[] | undefined,
  watch: readonly string[],
  ns: string,
  existing: OperatorGroup | undefined,
): { readonly problem: string } | { readonly targetNamespaces: string[] | undefined } {
  const desired = possibleInstallModes(watch, ns);
  if (supported === undefined) return { targetNamespaces: watch.length > 0 ? [...watch] : [ns] };
  if (supported.length === 0) return { problem: `operator "${pkg}" is not installable: operator defined no supported install modes` };
  const both = supported.filter((m) => desired.includes(m));
  if (both.length === 0) {
    return { problem: `operator "${pkg}" is not installable: install modes supported by operator (${quotedList(supported)}) not compatible with install modes supported by desired watches (${quotedList(desired)})` };
  }
  if (existing) {
    const ogModes = possibleInstallModes(existing.status?.namespaces ?? existing.spec?.targetNamespaces ?? [], ns);
    const clash = !supported.some((m) => ogModes.includes(m))
      ? `install modes supported by operator (${quotedList(supported)}) not compatible with install modes supported by existing operator group (${quotedList(ogModes)})`
      : !desired.some((m) => ogModes.includes(m))
        ? `install modes supported by desired watches (${quotedList(desired)}) not compatible with install modes supported by existing operator group (${quotedList(ogModes)})`
        : !both.some((m) => ogModes.includes(m))
          ? `install modes supported by operator and desired watches (${quotedList(both)}) not compatible with install modes supported by existing operator group (${quotedList(ogModes)})`
          : undefined;
    return clash ? { problem: `operator "${pkg}" not installable: ${clash}` } : { targetNamespaces: existing.spec?.targetNamespaces };
  }
  if (both.includes(InstallModeTypeAllNamespaces)) return { targetNamespaces: undefined };
  if (both.includes(InstallModeTypeOwnNamespace)) return { targetNamespaces: [ns] };
  return { targetNamespaces: [...watch] };
}

/** The InstallPlan of the Subscription's namespace that waits for approval, named by the Subscription. */
export function pendingPlan(sub: Subscription, plans: readonly InstallPlan[]): InstallPlan | undefined {
  const ref = sub.status?.installPlanRef?.name;
  if (!ref) return undefined;
  const plan = plans.find((p) => p.metadata.name === ref && p.metadata.namespace === sub.metadata.namespace);
  return plan?.status?.phase === InstallPlanPhaseRequiresApproval && !plan.spec.approved ? plan : undefined;
}

/** The CSV a Subscription installed (or is installing): status.installedCSV, else status.currentCSV (kubectl-operator). */
export const csvNameOf = (sub: Subscription): string => sub.status?.installedCSV || sub.status?.currentCSV || '';

/** A row of `list --classic`. */
export function subscriptionRow(sub: Subscription, plans: readonly InstallPlan[], now = Date.now()): string[] {
  const failing = sub.status?.conditions?.find((c) => c.type === 'ResolutionFailed' && c.status === 'True');
  const state = sub.status?.state || (failing ? 'ResolutionFailed' : 'Pending');
  return [
    sub.metadata.name ?? '',
    sub.metadata.namespace ?? '',
    sub.spec.name,
    sub.spec.channel ?? '',
    sub.status?.installedCSV ?? '',
    state,
    pendingPlan(sub, plans)?.metadata.name ?? '',
    age(sub.metadata.creationTimestamp, now),
  ];
}

export const SUBSCRIPTION_HEADERS = ['NAME', 'NAMESPACE', 'PACKAGE', 'CHANNEL', 'INSTALLED CSV', 'STATE', 'AWAITING APPROVAL', 'AGE'];

/**
 * The namespaces an installed operator watches, from its CSV's `olm.targetNamespaces` annotation (the OperatorGroup's
 * namespaces); `undefined` means all namespaces (`""`, or no annotation: the CSV's own namespace then).
 */
export function watchedNamespaces(csv: ClusterServiceVersion): string[] | undefined {
  const targets = csv.metadata.annotations?.[OperatorGroupTargetsAnnotationKey];
  if (targets === undefined) return csv.metadata.namespace ? [csv.metadata.namespace] : undefined;
  const list = targets.split(',').map((s) => s.trim());
  return list.includes('') ? undefined : list;
}

/** The owned CRDs of a CSV as apiVersion + kind (`widgets.example.com` v1 Widget → example.com/v1 Widget). */
export function ownedKinds(csv: ClusterServiceVersion): { apiVersion: string; kind: string; crd: string }[] {
  return (csv.spec.customresourcedefinitions?.owned ?? []).map((d) => {
    const group = d.name.slice(d.name.indexOf('.') + 1);
    return { apiVersion: `${group}/${d.version}`, kind: d.kind, crd: d.name };
  });
}

// ---------------------------------------------------------------------------------------------
// Cluster helpers

async function getOrUndefined<T extends KubeObject>(client: KubeClient, ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<T | undefined> {
  try {
    return await client.get<T>(ref);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const getSub = (client: KubeClient, ns: string, name: string): Promise<Subscription | undefined> => getOrUndefined<Subscription>(client, { ...SUB, name, namespace: ns });
const getPlan = (client: KubeClient, ns: string, name: string): Promise<InstallPlan | undefined> => getOrUndefined<InstallPlan>(client, { ...IP, name, namespace: ns });
const getCSV = (client: KubeClient, ns: string, name: string): Promise<ClusterServiceVersion | undefined> => getOrUndefined<ClusterServiceVersion>(client, { ...CSV, name, namespace: ns });

/** A Subscription by name, else the one subscribed to the package of that name (kubectl-operator's lookup). */
async function findSubscription(client: KubeClient, ns: string, name: string): Promise<Subscription | undefined> {
  const byName = await getSub(client, ns, name);
  if (byName) return byName;
  const all = (await client.listAll<Subscription>({ ...SUB, namespace: ns })).items;
  return all.find((s) => s.spec.name === name);
}

/** The condition-like lines `--wait` prints as they change: the Subscription's state and conditions, the plan, the CSV. */
function progressOf(sub: Subscription | undefined, plan: InstallPlan | undefined, csv: ClusterServiceVersion | undefined): Condition[] {
  const c = (type: string, status: string, reason = '', message = ''): Condition => ({ type, status: status as Condition['status'], reason, message, lastTransitionTime: '' });
  const out: Condition[] = [];
  if (sub?.status?.state) out.push(c('Subscription', sub.status.state, sub.status.currentCSV ?? ''));
  for (const cond of sub?.status?.conditions ?? []) if (cond.status === 'True') out.push(c(cond.type, cond.status, cond.reason ?? '', cond.message ?? ''));
  if (plan?.status?.phase) out.push(c(`InstallPlan ${plan.metadata.name ?? ''}`, plan.status.phase, (plan.spec.clusterServiceVersionNames ?? []).join(','), plan.status.message ?? ''));
  if (csv?.status?.phase) out.push(c(`CSV ${csv.metadata.name ?? ''}`, csv.status.phase, csv.status.reason ?? '', csv.status.message ?? ''));
  return out;
}

export interface Observed {
  readonly sub: Subscription | undefined;
  readonly plan: InstallPlan | undefined;
  readonly csv: ClusterServiceVersion | undefined;
}

type Outcome = { kind: 'succeeded'; csv: ClusterServiceVersion } | { kind: 'approval'; plan: InstallPlan } | { kind: 'failed'; why: string; last: Observed };

/**
 * Waits until the Subscription's CSV is Succeeded and it is at the latest known (or past `fromCSV`), or until an
 * InstallPlan of it waits for approval.
 */
async function waitInstalled(client: KubeClient, ns: string, name: string, io: CliIO, timeout: number, fromCSV = ''): Promise<Outcome> {
  const r = await waitFor<Observed>({
    get: async () => {
      const sub = await getSub(client, ns, name);
      const ref = sub?.status?.installPlanRef?.name;
      const plan = ref ? await getPlan(client, ns, ref) : undefined;
      const csvName = sub ? csvNameOf(sub) : '';
      const csv = csvName ? await getCSV(client, ns, csvName) : undefined;
      return { sub, plan, csv };
    },
    done: (o) => {
      if (!o?.sub) return true;
      if (o.plan && pendingPlan(o.sub, [o.plan])) return true;
      return isDone(o, fromCSV);
    },
    conditions: (o) => progressOf(o?.sub, o?.plan, o?.csv),
    timeoutMs: timeout,
    io,
    label: `subscription/${name}`,
  });
  const last = r.last ?? { sub: undefined, plan: undefined, csv: undefined };
  if (!last.sub) return { kind: 'failed', why: `subscriptions.${GroupName} "${name}" not found`, last };
  if (last.plan && pendingPlan(last.sub, [last.plan])) return { kind: 'approval', plan: last.plan };
  if (r.ok && last.csv) return { kind: 'succeeded', csv: last.csv };
  return { kind: 'failed', why: r.ok ? 'no CSV' : r.reason === 'aborted' ? 'context canceled' : 'context deadline exceeded', last };
}

/** Settled: the CSV the Subscription installed is its current one, Succeeded, and not the one it started from. */
export function isDone(o: Observed, fromCSV: string): boolean {
  const installed = o.sub?.status?.installedCSV;
  return !!installed && installed !== fromCSV && installed === o.sub?.status?.currentCSV && o.csv?.metadata.name === installed && o.csv.status?.phase === CSVPhaseSucceeded;
}

/** What a wait that did not end well says about why: a failing condition of the Subscription, the plan, the CSV. */
function explainFailure(io: CliIO, last: Observed): void {
  const failing = last.sub?.status?.conditions?.find((c) => c.status === 'True' && /Failed|Unhealthy|Missing/.test(c.type));
  if (failing) io.stderr.write(`${failing.type} (${failing.reason ?? ''}): ${failing.message ?? ''}\n`);
  if (last.plan?.status?.phase === 'Failed') io.stderr.write(`installplan "${last.plan.metadata.name ?? ''}" Failed: ${last.plan.status.message ?? ''}\n`);
  if (last.csv && last.csv.status?.phase !== CSVPhaseSucceeded) {
    io.stderr.write(`clusterserviceversion "${last.csv.metadata.name ?? ''}" is ${last.csv.status?.phase || 'Pending'}${last.csv.status?.reason ? ` (${last.csv.status.reason})` : ''}${last.csv.status?.message ? `: ${last.csv.status.message}` : ''}\n`);
  }
}

const approveHint = (plan: InstallPlan, ns: string): string =>
  `installplan "${plan.metadata.name ?? ''}" awaits approval (${(plan.spec.clusterServiceVersionNames ?? []).join(', ')}); approve it with:\n  kubectl olm approve ${plan.metadata.name ?? ''} -n ${ns}\n`;

async function printSubscriptions(io: CliIO, format: OutputFormat, subs: readonly Subscription[], plans: readonly InstallPlan[], single: boolean): Promise<void> {
  if (format === 'json' || format === 'yaml') {
    const value = single && subs.length === 1 ? shown(subs[0]!) : listOf(V1alpha1, SubscriptionKind, subs);
    await emit(io.stdout, format === 'json' ? json(value) : await yaml(value));
    return;
  }
  if (format === 'name') {
    await emit(io.stdout, subs.map((s) => `${objectName('subscription', GroupName, s.metadata.name ?? '')}\n`).join(''));
    return;
  }
  const rows = [...subs]
    .sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((s) => subscriptionRow(s, plans));
  await emit(io.stdout, table(SUBSCRIPTION_HEADERS, rows));
}

/** Sets spec.approved on a plan (conflicts retried, as kubectl-operator's RetryOnConflict). */
async function approvePlan(client: KubeClient, plan: InstallPlan): Promise<void> {
  const ns = plan.metadata.namespace ?? '';
  const name = plan.metadata.name ?? '';
  await retryOnConflict(async (attempt) => {
    const current = attempt === 0 ? plan : ((await getPlan(client, ns, name)) ?? plan);
    await client.patch({ ...IP, name, namespace: ns }, 'merge', { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { approved: true } }, { fieldManager: FIELD_MANAGER });
  });
}

const CLASSIC_FLAG = { classic: { type: 'boolean' } } as const;
const NS_OPTION = { namespace: { type: 'string', short: 'n' } } as const;
const NS_USAGE = '  -n, --namespace <namespace>        the namespace (default: the kubeconfig context\'s namespace)';
const WAIT_USAGE = [
  '      --wait                         wait until the CSV is Succeeded, or until an InstallPlan awaits approval (then',
  '                                     print the `kubectl olm approve` to run, exit 0); progress on stderr on a terminal',
  `      --timeout <duration>           how long --wait waits (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
];

// ---------------------------------------------------------------------------------------------
// install --classic

/** CatalogSources in the namespaces a Subscription in `ns` can use, with their content where they serve `pkg`. */
async function findPackage(client: KubeClient, io: CliIO, o: { ns: string; globalNs: string; pkg: string; catalog?: string | undefined; catalogNs?: string | undefined; insecure: string[] }): Promise<{ found: PackageSource[]; searched: string[] }> {
  const { catalogSourceReader, findPackage: find } = await import('../classic/catalogsource/index.ts');
  const { RegistryClient, loadUserCredentials } = await import('../shared/image/index.ts');
  const searched = o.catalogNs ? [o.catalogNs] : [...new Set([o.ns, o.globalNs])];
  const sources: CatalogSource[] = [];
  for (const ns of searched) {
    const items = (await client.listAll<CatalogSource>({ ...CS, namespace: ns })).items;
    sources.push(...items.filter((cs) => !o.catalog || cs.metadata.name === o.catalog));
  }
  if (o.catalog && sources.length === 0) throw new PackageLookupError(`catalogsources.${GroupName} "${o.catalog}" not found in namespace${searched.length > 1 ? 's' : ''} ${searched.map((n) => `"${n}"`).join(' and ')}`);
  const registry = new RegistryClient({ insecureRegistries: o.insecure, credentials: await loadUserCredentials(io.env), userAgent: 'kubectl-olm' });
  const reader = catalogSourceReader({ registry });
  const found: PackageSource[] = [];
  try {
    for (const cs of sources) {
      const key = `${cs.metadata.namespace ?? ''}/${cs.metadata.name ?? ''}`;
      let content: CatalogContent;
      try {
        content = await reader.content(cs, io.signal);
      } catch (err) {
        io.stderr.write(`CatalogSource ${key} not read: ${(err as Error).message.split('\n')[0] ?? ''}\n`);
        continue;
      }
      const pkg = find(content, o.pkg);
      if (pkg) found.push({ namespace: cs.metadata.namespace ?? '', name: cs.metadata.name ?? '', pkg, content });
    }
  } finally {
    await reader.close();
    await registry.close();
  }
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
  try {
    await client.create(og, { fieldManager: FIELD_MANAGER });
  } catch (err) {
    throw new Error(`create operator group: ${(err as Error).message}`, { cause: err });
  }
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
    const { values, positionals: pos } = parseFlags(args, {
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
      ...WAIT_OPTIONS,
      output: { type: 'string', short: 'o' },
    });
    const [packageName] = positionals(pos, ['package']) as [string];
    const format = outputFormat(values.output);
    const approval = approvalFlag(values.approval);
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    if (values['catalog-namespace'] && !values.catalog) throw new CliUsageError('--catalog-namespace needs --catalog');
    const name = values.name ?? packageName;
    const watch = (values.watch ?? []).flatMap((w) => w.split(',')).filter((w) => w !== '');
    return withClient(values, io, async (client) => {
      const ns = values.namespace ?? client.defaultNamespace;
      let target: SubscriptionTarget;
      let supported: string[] | undefined;
      try {
        const { found, searched } = await findPackage(client, io, {
          ns,
          globalNs: values['global-namespace'] ?? DEFAULT_GLOBAL_NAMESPACE,
          pkg: packageName,
          catalog: values.catalog,
          catalogNs: values['catalog-namespace'],
          insecure: insecureRegistries(values['insecure-registries'], io.env),
        });
        const src = chooseSource(packageName, found, searched);
        target = subscriptionTarget(src, values.channel, values.version);
        const first = firstCSV(src, target);
        supported = first ? supportedInstallModes(src.content, packageName, first) : undefined;
      } catch (err) {
        if (!(err instanceof PackageLookupError)) throw err;
        io.stderr.write(`failed to install operator: get package manifest: ${err.message}\n`);
        return 1;
      }
      if (await getSub(client, ns, name)) {
        io.stderr.write(`failed to install operator: create subscription: subscriptions.${GroupName} "${name}" already exists\n`);
        return 1;
      }
      try {
        await ensureOperatorGroup(client, io, { ns, pkg: packageName, supported, watch });
      } catch (err) {
        io.stderr.write(`failed to install operator: ${(err as Error).message}\n`);
        return 1;
      }
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
      let created: Subscription;
      try {
        created = await client.create<Subscription>(sub, { fieldManager: FIELD_MANAGER });
      } catch (err) {
        io.stderr.write(`failed to install operator: create subscription: ${(err as Error).message}\n`);
        return 1;
      }
      if (format === 'table') io.stdout.write(`subscription "${name}" created\n`);
      let result = created;
      if (values.wait) {
        const outcome = await waitInstalled(client, ns, name, io, timeout);
        if (outcome.kind === 'failed') {
          io.stderr.write(`failed to install operator: waiting for operator installation to complete: ${outcome.why}\n`);
          explainFailure(io, outcome.last);
          return 1;
        }
        if (outcome.kind === 'approval') io.stderr.write(approveHint(outcome.plan, ns));
        else if (format === 'table') io.stdout.write(`operator "${packageName}" installed; installed csv is "${outcome.csv.metadata.name ?? ''}"\n`);
        result = (await getSub(client, ns, name)) ?? created;
      }
      if (format !== 'table') await printSubscriptions(io, format, [result], [], true);
      return 0;
    });
  },
};

// ---------------------------------------------------------------------------------------------
// approve

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
      let plan = await getPlan(client, ns, target);
      if (!plan) {
        const sub = await getSub(client, ns, target);
        if (!sub) {
          io.stderr.write(`failed to approve: no installplan or subscription "${target}" in namespace "${ns}"\n`);
          return 1;
        }
        const ref = sub.status?.installPlanRef?.name;
        plan = ref ? await getPlan(client, ns, ref) : undefined;
        if (!plan) {
          io.stderr.write(`failed to approve: subscription "${target}" has no installplan\n`);
          return 1;
        }
      }
      const planName = plan.metadata.name ?? '';
      if (plan.status?.phase !== InstallPlanPhaseRequiresApproval || plan.spec.approved) {
        io.stderr.write(`failed to approve: installplan "${planName}" is not awaiting approval (phase ${plan.status?.phase || 'none'}${plan.spec.approved ? ', already approved' : ''})\n`);
        return 1;
      }
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
        io.stderr.write(`failed to approve: waiting for operator installation to complete: ${r.reason === 'aborted' ? 'context canceled' : 'context deadline exceeded'}\n`);
        for (const c of r.last?.csvs ?? []) if (c) explainFailure(io, { sub: undefined, plan: r.last?.plan, csv: c });
        return 1;
      }
      io.stdout.write(`installed csv${csvs.length > 1 ? 's' : ''} ${csvs.map((c) => `"${c}"`).join(', ')} succeeded\n`);
      return 0;
    });
  },
};

// ---------------------------------------------------------------------------------------------
// upgrade --classic

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
    const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, ...CLASSIC_FLAG, ...NS_OPTION, channel: { type: 'string', short: 'c' }, ...WAIT_OPTIONS });
    const [target] = positionals(pos, ['subscription']) as [string];
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    return withClient(values, io, async (client) => {
      const ns = values.namespace ?? client.defaultNamespace;
      const sub = await findSubscription(client, ns, target);
      if (!sub) {
        io.stderr.write(`failed to upgrade operator: subscription for package "${target}" not found\n`);
        return 1;
      }
      const name = sub.metadata.name ?? '';
      const from = sub.status?.installedCSV ?? '';
      if (values.channel !== undefined) {
        if (values.channel === (sub.spec.channel ?? '')) {
          io.stderr.write(`failed to upgrade operator: no changes detected - subscription already in channel "${values.channel}"\n`);
          return 1;
        }
        try {
          // A conflict (the operator wrote status in between) reads the Subscription again, as RetryOnConflict does.
          await retryOnConflict(async (attempt) => {
            const latest = attempt === 0 ? sub : ((await getSub(client, ns, name)) ?? sub);
            await client.patch({ ...SUB, name, namespace: ns }, 'merge', { metadata: { resourceVersion: latest.metadata.resourceVersion }, spec: { channel: values.channel } }, { fieldManager: FIELD_MANAGER });
          });
        } catch (err) {
          io.stderr.write(`failed to upgrade operator: ${(err as Error).message}\n`);
          return 1;
        }
        io.stdout.write(`subscription "${name}" updated: channel "${values.channel}"\n`);
      } else {
        const ref = sub.status?.installPlanRef?.name;
        if (!ref) {
          io.stderr.write('failed to upgrade operator: subscription does not reference an install plan\n');
          return 1;
        }
        if (sub.status?.installedCSV === sub.status?.currentCSV) {
          io.stderr.write('failed to upgrade operator: operator is already at latest version\n');
          return 1;
        }
        const plan = await getPlan(client, ns, ref);
        if (!plan || !pendingPlan(sub, [plan])) {
          io.stderr.write(`failed to upgrade operator: installplan "${ref}" is not awaiting approval (phase ${plan?.status?.phase || 'none'})\n`);
          return 1;
        }
        await approvePlan(client, plan);
        io.stdout.write(`installplan "${ref}" approved\n`);
      }
      if (!values.wait) return 0;
      const outcome = await waitInstalled(client, ns, name, io, timeout, from);
      if (outcome.kind === 'failed') {
        io.stderr.write(`failed to upgrade operator: waiting for operator installation to complete: ${outcome.why}\n`);
        explainFailure(io, outcome.last);
        return 1;
      }
      if (outcome.kind === 'approval') io.stderr.write(approveHint(outcome.plan, ns));
      else io.stdout.write(`operator "${sub.spec.name}" upgraded; installed csv is "${outcome.csv.metadata.name ?? ''}"\n`);
      return 0;
    });
  },
};

// ---------------------------------------------------------------------------------------------
// uninstall --classic

interface Operand {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** The custom resources of the CSV's owned CRDs in the namespaces the operator watches (all, when cluster-scoped). */
async function operandsOf(client: KubeClient, csv: ClusterServiceVersion, io: CliIO): Promise<Operand[]> {
  const watched = watchedNamespaces(csv);
  const out: Operand[] = [];
  for (const k of ownedKinds(csv)) {
    let namespaced: boolean;
    try {
      namespaced = (await client.mapping(k.apiVersion, k.kind)).namespaced;
    } catch {
      continue; // the CRD is gone or not served: no operands of it
    }
    const scopes = namespaced && watched ? watched : [undefined];
    for (const namespace of scopes) {
      try {
        const items = (await client.listAll({ apiVersion: k.apiVersion, kind: k.kind, ...(namespace && { namespace }) })).items;
        for (const o of items) out.push({ apiVersion: k.apiVersion, kind: k.kind, name: o.metadata?.name ?? '', ...(o.metadata?.namespace && { namespace: o.metadata.namespace }) });
      } catch (err) {
        io.stderr.write(`list ${k.kind} (${k.crd}): ${(err as Error).message}\n`);
      }
    }
  }
  return out;
}

const operandText = (o: Operand): string => `${o.kind.toLowerCase()} "${o.namespace ? `${o.namespace}/` : ''}${o.name}"`;

/** Deletes an object and says so; a missing one is fine. */
async function deleteObject(client: KubeClient, io: CliIO, ref: { apiVersion: string; kind: string; name: string; namespace?: string }, text: string): Promise<boolean> {
  try {
    await client.delete(ref);
    io.stdout.write(`${text} deleted\n`);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw new Error(`delete ${text}: ${(err as Error).message}`, { cause: err });
  }
}

async function waitGone(client: KubeClient, io: CliIO, refs: readonly Operand[], timeout: number, label: string): Promise<boolean> {
  const r = await waitFor<number>({
    get: async () => (await Promise.all(refs.map((ref) => getOrUndefined(client, ref)))).filter((o) => o !== undefined).length,
    done: (left) => left === 0,
    timeoutMs: timeout,
    io,
    label,
  });
  return r.ok;
}

export const uninstallClassicCommand: CliCommand = {
  path: ['uninstall'],
  summary: 'delete an extension and everything it installed',
  usage: [
    'Usage: kubectl olm uninstall --classic <subscription> -n <namespace> [--delete-operands] [--wait] [flags]',
    '',
    'OLM classic: deletes the Subscription and the CSV it installed (status.installedCSV, else currentCSV); OLM\'s',
    'owner references and labels then remove the operator\'s Deployments, RBAC and Services. The custom resources of',
    'the CSV\'s owned CRDs (the operands) are left in place unless --delete-operands, which deletes them first — in',
    'the namespaces the operator watches — and waits until they are gone, so the operator can handle their',
    'finalizers. CRDs are never deleted. <subscription> may also name the package.',
    '',
    'Flags:',
    NS_USAGE,
    '      --delete-operands              delete the operator\'s custom resources first',
    '      --delete-operator-groups       delete the namespace\'s OperatorGroups when no Subscription is left in it',
    '      --wait                         wait until the Subscription and the CSV are gone',
    `      --timeout <duration>           how long waits take at most (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm uninstall --classic etcd -n operators --wait',
    '  kubectl olm uninstall --classic etcd -n operators --delete-operands --delete-operator-groups',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, {
      ...CONNECTION_OPTIONS,
      ...CLASSIC_FLAG,
      ...NS_OPTION,
      'delete-operands': { type: 'boolean' },
      'delete-operator-groups': { type: 'boolean' },
      ...WAIT_OPTIONS,
    });
    const [target] = positionals(pos, ['subscription']) as [string];
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    return withClient(values, io, async (client) => {
      const ns = values.namespace ?? client.defaultNamespace;
      const sub = await findSubscription(client, ns, target);
      if (!sub) {
        io.stderr.write(`uninstall operator: package "${target}" not found\n`);
        return 1;
      }
      const name = sub.metadata.name ?? '';
      const csvName = csvNameOf(sub);
      const csv = csvName ? await getCSV(client, ns, csvName) : undefined;
      const operands = csv ? await operandsOf(client, csv, io) : [];
      // The Subscription first, so nothing installs or upgrades while the rest goes (kubectl-operator's order).
      const gone: Operand[] = [{ ...SUB, name, namespace: ns }];
      await deleteObject(client, io, gone[0]!, `subscription "${name}"`);
      if (values['delete-operands']) {
        for (const o of operands) await deleteObject(client, io, o, operandText(o));
        if (operands.length > 0 && !(await waitGone(client, io, operands, timeout, 'operands'))) {
          io.stderr.write(`uninstall operator: delete operand: wait for operands deleted: context deadline exceeded (left: ${operands.map(operandText).join(', ')})\n`);
          return 1;
        }
      } else if (operands.length > 0) {
        io.stderr.write(`${operands.length} operand${operands.length > 1 ? 's' : ''} left in place: ${operands.map(operandText).join(', ')} (--delete-operands deletes them)\n`);
      }
      if (csv) {
        const ref = { ...CSV, name: csvName, namespace: ns };
        if (await deleteObject(client, io, ref, `clusterserviceversion "${csvName}"`)) gone.push(ref);
      } else io.stderr.write(`csv for package "${sub.spec.name}" not found\n`);
      if (values['delete-operator-groups']) {
        const left = (await client.listAll<Subscription>({ ...SUB, namespace: ns })).items.filter((s) => s.metadata.name !== name);
        if (left.length === 0) {
          for (const og of (await client.listAll<OperatorGroup>({ ...OG, namespace: ns })).items) {
            const ref = { ...OG, name: og.metadata.name ?? '', namespace: ns };
            if (await deleteObject(client, io, ref, `operatorgroup "${og.metadata.name ?? ''}"`)) gone.push(ref);
          }
        }
      }
      if (values.wait && !(await waitGone(client, io, gone, timeout, `subscription/${name}`))) {
        io.stderr.write(`uninstall operator: wait for deletion: context deadline exceeded\n`);
        return 1;
      }
      return 0;
    });
  },
};

// ---------------------------------------------------------------------------------------------
// list --classic

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
    '  -o, --output table|json|yaml|name  json and yaml print a SubscriptionList (one object when a name is given)',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm list --classic -A',
    '  kubectl olm list --classic -n operators -o json | jq -r \'.items[] | .metadata.name + " " + .status.installedCSV\'',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, ...CLASSIC_FLAG, ...NS_OPTION, 'all-namespaces': { type: 'boolean', short: 'A' }, output: { type: 'string', short: 'o' } });
    const format = outputFormat(values.output);
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
      if (subs.length === 0 && format === 'table') {
        await emit(io.stderr, ns ? `No resources found in ${ns} namespace.\n` : 'No resources found\n');
        return 0;
      }
      const plans = format === 'table' ? (await client.listAll<InstallPlan>({ ...IP, ...scope })).items : [];
      await printSubscriptions(io, format, subs, plans, pos.length === 1);
      return 0;
    });
  },
};
