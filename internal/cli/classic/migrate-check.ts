// `kubectl olm migrate check [<subscription> -n <namespace> | -n <namespace> | --all]`: whether each operator OLM
// classic installed can move to OLM v1 in place, and why not (the verdicts: ./migration.ts). Reads the Subscriptions,
// their CSVs, OperatorGroups, OperatorConditions and InstallPlans, the ClusterExtensions and ClusterObjectSets, and the
// serving ClusterCatalogs' content (as `kubectl olm search` reads it). Changes nothing.
import type { ClusterServiceVersion, InstallPlan, OperatorCondition, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import { GroupName, OperatorConditionKind, V2 } from '../../../api/operators/index.ts';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { AvailabilityModeUnavailable, ClusterCatalogKind, ClusterExtensionKind, ClusterObjectSetKind, GroupVersion, type ClusterExtension, type ClusterObjectSet } from '../../../api/v1/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parseFlags, timeoutMs, withClient } from '../cluster.ts';
import { isServing, listCatalogs, LiveContent } from '../content.ts';
import { emit, json, outputFormat, table, yaml } from '../output.ts';
import { summarize } from '../search.ts';
import { CliUsageError, type CliCommand, type CliIO } from '../types.ts';
import { byNamespaceName, CSV, IP, NS_OPTION, OG, SUB } from './common.ts';
import { CHECK_HEADERS, checkRow, classify, exitCode, type CatalogBundle, type MigrationCheck } from './migration.ts';

const OC = { apiVersion: V2, kind: OperatorConditionKind } as const;

/** `--feature-gates` as operator-controller takes it: `Name=true|false` pairs, comma-separated. */
export function featureGates(value: string | undefined): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const pair of (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(pair);
    if (!m) throw new CliUsageError(`invalid --feature-gates entry "${pair}": want Name=true|false`);
    gates[m[1]!] = m[2] === 'true';
  }
  return gates;
}

/** A kind's objects, or none when the cluster does not serve it (OLM v1's CRDs, cert-manager). */
async function listIfServed<T extends KubeObject>(client: KubeClient, kind: { apiVersion: string; kind: string; namespace?: string }): Promise<T[]> {
  return (await served(client, kind.apiVersion, kind.kind)) ? (await client.listAll<T>(kind)).items : [];
}

const served = (client: KubeClient, apiVersion: string, kind: string): Promise<boolean> => client.mapping(apiVersion, kind).then(() => true, () => false);

/** Every package's bundles in the serving ClusterCatalogs (only the packages asked for); unreadable catalogs named on stderr. */
async function catalogBundles(client: KubeClient, io: CliIO, packages: ReadonlySet<string>, timeout: number): Promise<{ catalogs: string[]; bundles: Map<string, CatalogBundle[]> }> {
  const catalogs = (await served(client, GroupVersion, ClusterCatalogKind)) ? await listCatalogs(client) : [];
  const serving = catalogs.filter((c) => c.spec.availabilityMode !== AvailabilityModeUnavailable && isServing(c));
  const bundles = new Map<string, CatalogBundle[]>();
  const content = new LiveContent(client, { timeoutMs: timeout });
  try {
    for (const c of serving) {
      const catalog = c.metadata.name ?? '';
      const index = await content.index(c, io.signal).catch((err: Error) => {
        io.stderr.write(`warning: catalog "${catalog}": ${err.message}\n`);
      });
      if (!index) continue;
      for (const pkg of index.packageNames()) {
        if (!packages.has(pkg)) continue;
        const content = index.getPackage(pkg);
        const images = new Map(content.bundles.map((x) => [x.name, x.image]));
        // each bundle once, in the order of the channels that list it (a bundle's version is the same on each)
        const versions = new Map(summarize(catalog, content)?.channels.flatMap((ch) => ch.bundles.map((b) => [b.name, b.version] as const)));
        for (const [name, version] of versions) {
          const image = images.get(name);
          bundles.set(pkg, [...(bundles.get(pkg) ?? []), { catalog, name, version, ...(image !== undefined && { image }) }]);
        }
      }
    }
  } finally {
    await content.close();
  }
  return { catalogs: serving.map((c) => c.metadata.name ?? ''), bundles };
}

/** The webhook certificate provider operator-controller picks from its gates (render's order), and whether it is served. */
async function webhookProvider(client: KubeClient, gates: Readonly<Record<string, boolean>>): Promise<{ name: string; served: boolean } | undefined> {
  if (gates['WebhookProviderCertManager'] !== false) return { name: 'cert-manager', served: (await served(client, 'cert-manager.io/v1', 'Certificate')) && (await served(client, 'cert-manager.io/v1', 'Issuer')) };
  if (gates['WebhookProviderOpenshiftServiceCA'] !== false) return { name: 'openshift-serviceca', served: true };
  return undefined;
}

/** The checks of the Subscriptions in scope (one by name, a namespace's, or the cluster's). */
export async function checkSubscriptions(
  client: KubeClient,
  io: CliIO,
  scope: { namespace?: string; name?: string },
  opts: { gates: Readonly<Record<string, boolean>>; timeoutMs: number },
): Promise<MigrationCheck[] | string> {
  const subscriptions = (await client.listAll<Subscription>(SUB)).items;
  let subs = subscriptions.filter((s) => scope.namespace === undefined || s.metadata.namespace === scope.namespace);
  if (scope.name !== undefined) {
    subs = subs.filter((s) => s.metadata.name === scope.name);
    if (subs.length === 0) return `subscriptions.${GroupName} "${scope.name}" not found`;
  }
  if (subs.length === 0) return [];
  const namespaces = new Set(subs.map((s) => s.metadata.namespace ?? ''));
  const inScope = <T extends KubeObject>(items: readonly T[]): T[] => items.filter((o) => namespaces.has(o.metadata.namespace ?? ''));
  const [csvs, groups, plans, conditions, extensions, objectSets, certificateProvider, catalogs] = await Promise.all([
    client.listAll<ClusterServiceVersion>(CSV).then((l) => l.items),
    client.listAll<OperatorGroup>(OG).then((l) => inScope(l.items)),
    client.listAll<InstallPlan>(IP).then((l) => inScope(l.items)),
    listIfServed<OperatorCondition>(client, OC).then(inScope),
    listIfServed<ClusterExtension>(client, { apiVersion: GroupVersion, kind: ClusterExtensionKind }),
    listIfServed<ClusterObjectSet>(client, { apiVersion: GroupVersion, kind: ClusterObjectSetKind }),
    webhookProvider(client, opts.gates),
    catalogBundles(client, io, new Set(subs.map((s) => s.spec.name)), opts.timeoutMs),
  ]);
  return subs
    .sort(byNamespaceName)
    .map((sub) => {
      const ns = sub.metadata.namespace ?? '';
      const csvName = sub.status?.installedCSV;
      const csv = csvName ? csvs.find((c) => c.metadata.namespace === ns && c.metadata.name === csvName) : undefined;
      return classify({
        sub,
        csv,
        operatorGroups: groups.filter((g) => g.metadata.namespace === ns),
        operatorCondition: csvName ? conditions.find((c) => c.metadata.namespace === ns && c.metadata.name === csvName) : undefined,
        plans: plans.filter((p) => p.metadata.namespace === ns),
        subscriptions,
        csvs,
        extensions,
        objectSets,
        catalogBundles: catalogs.bundles.get(sub.spec.name) ?? [],
        catalogs: catalogs.catalogs,
        singleOwnNamespace: opts.gates['SingleOwnNamespaceInstallSupport'] === true,
        certificateProvider,
      });
    });
}

export const migrateCheckCommand: CliCommand = {
  path: ['migrate', 'check'],
  summary: 'whether each OLM classic operator can move to OLM v1 in place, and why not (exit 1 when one cannot)',
  usage: [
    'Usage: kubectl olm migrate check [<subscription>] [-n <namespace> | --all] [-o table|json|yaml] [flags]',
    '',
    'For each operator OLM classic installed (a Subscription and its installed CSV): whether `kubectl olm migrate`',
    'can hand it to OLM v1 as a ClusterExtension without re-installing it. Verdicts:',
    '  eligible          it can move: its OperatorGroup gives it AllNamespaces (or Single/OwnNamespace with',
    '                    --feature-gates=SingleOwnNamespaceInstallSupport=true), it has no dependencies either way,',
    '                    no OperatorConditions, APIServices or webhooks without a certificate provider, its CSV is',
    '                    Succeeded with no InstallPlan awaiting approval, and a serving ClusterCatalog has its package',
    '                    with a bundle of the installed version',
    '  ineligible        something above does not hold (or the Subscription is not AtLatestKnown or UpgradePending);',
    '                    REASON says what (json/yaml: every reason)',
    '  already-migrated  a ClusterObjectSet annotated olm.operatorframework.io/migrated-from-subscription holds it',
    '  conflicting       a ClusterExtension already installs the package, or another Subscription subscribes to it',
    'Exit code: 0 when every operator checked is eligible or already-migrated (or there is none); 1 when one is',
    'ineligible or conflicting, or the cluster could not be read; 2 usage error.',
    '',
    'Flags:',
    '  -n, --namespace <namespace>        the Subscriptions of this namespace (default: the kubeconfig context\'s namespace)',
    '      --all                          the Subscriptions of every namespace',
    '      --feature-gates <gates>        operator-controller\'s gates the check assumes, as it takes them:',
    '                                     SingleOwnNamespaceInstallSupport=true (default false); WebhookProviderCertManager',
    '                                     (default true: webhooks need cert-manager.io/v1 served) and',
    '                                     WebhookProviderOpenshiftServiceCA (default true) pick the certificate provider',
    '      --timeout <duration>           give up reading catalog content after this long (default 5m)',
    '  -o, --output table|json|yaml       json/yaml: {"items":[{name, namespace, package, csv, version, verdict, reason,',
    '                                     reasons, installMode, catalogBundle}]}',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm migrate check --all',
    '  kubectl olm migrate check my-operator -n operators -o json | jq -r \'.items[0].reasons[]\'',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, {
      ...CONNECTION_OPTIONS,
      ...NS_OPTION,
      all: { type: 'boolean' },
      'feature-gates': { type: 'string' },
      timeout: { type: 'string' },
      output: { type: 'string', short: 'o' },
    });
    const format = outputFormat(values.output, ['table', 'json', 'yaml']);
    if (pos.length > 1) throw new CliUsageError(`expected at most one subscription name, got ${pos.length}`);
    if (values.all && values.namespace) throw new CliUsageError('--namespace and --all cannot both be given');
    if (values.all && pos.length === 1) throw new CliUsageError('a subscription name cannot be given with --all');
    const gates = featureGates(values['feature-gates']);
    const timeout = timeoutMs(values.timeout, '5m');
    return withClient(values, io, async (client) => {
      const namespace = values.all ? undefined : (values.namespace ?? client.defaultNamespace);
      const checks = await checkSubscriptions(
        client,
        io,
        { ...(namespace !== undefined && { namespace }), ...(pos[0] !== undefined && { name: pos[0] }) },
        { gates, timeoutMs: Number.isFinite(timeout) ? timeout : 24 * 3_600_000 },
      );
      if (typeof checks === 'string') {
        io.stderr.write(`${checks}\n`);
        return 1;
      }
      if (format === 'json' || format === 'yaml') {
        await emit(io.stdout, format === 'json' ? json({ items: checks }) : await yaml({ items: checks }));
        return exitCode(checks);
      }
      if (checks.length === 0) {
        await emit(io.stderr, namespace ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
        return 0;
      }
      await emit(io.stdout, table(CHECK_HEADERS, checks.map(checkRow)));
      return exitCode(checks);
    });
  },
};
