// `kubectl olm upgrade-check`: which installed operators (ClusterExtensions and CSVs) keep an OpenShift cluster from
// its next minor version (or --to), and what to upgrade each to first. Exit 0 nothing blocks, 1 something does,
// 2 on any error, so upgrade pipelines can call it. The logic is internal/openshift/upgradecheck's.
import { parseArgs } from 'node:util';
import { dump } from 'js-yaml';
import { HttpContentClient } from '../operator-controller/contentclient/index.ts';
import { clusterFinders, clusterVersion, formatReport, installedCsvs, installedExtensions, upgradeCheck, type Report } from '../openshift/upgradecheck/index.ts';
import { RegistryClient, loadUserCredentials, readCertificateDir } from '../shared/image/index.ts';
import { KubeClient } from '../shared/kube/index.ts';
import { parseTolerant } from '../shared/semver/index.ts';
import { insecureRegistries } from './cluster.ts';
import { asUsage, CliUsageError, type CliCommand, type CliIO } from './types.ts';

function parse(args: readonly string[]) {
  const { values } = asUsage(() =>
    parseArgs({
      args: [...args],
      options: {
        to: { type: 'string' },
        current: { type: 'string' },
        output: { type: 'string', short: 'o' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'system-namespace': { type: 'string' },
        'insecure-registries': { type: 'string' },
        'catalogd-cas-dir': { type: 'string' },
      },
      allowPositionals: false,
      strict: true,
    }),
  );
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json' && output !== 'yaml') throw new CliUsageError(`invalid output format "${output}": want table, json or yaml`);
  for (const flag of ['to', 'current'] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    try {
      parseTolerant(v);
    } catch {
      // The parser's own words name its internals (a "0" it prefixed); say what a version looks like instead.
      throw new CliUsageError(`--${flag}: ${JSON.stringify(v)} is not a version: want <major>.<minor>[.<patch>], such as 4.23 or 5.0`);
    }
  }
  return { ...values, output };
}

async function check(a: ReturnType<typeof parse>, io: CliIO): Promise<Report> {
  const client = await KubeClient.fromConfig({ ...(a.kubeconfig !== undefined && { kubeconfig: a.kubeconfig }), ...(a.context !== undefined && { context: a.context }), env: io.env });
  const caCerts = a['catalogd-cas-dir'] ? await readCertificateDir(a['catalogd-cas-dir']) : undefined;
  const content = new HttpContentClient({ ...(caCerts && { caCerts }) });
  const registry = new RegistryClient({ insecureRegistries: insecureRegistries(a['insecure-registries'], io.env), credentials: await loadUserCredentials(io.env), userAgent: 'kubectl-olm' });
  let finders: Awaited<ReturnType<typeof clusterFinders>> | undefined;
  try {
    const current = a.current ?? (await clusterVersion(client));
    const { installs, extensions } = await installedExtensions(client, a['system-namespace'] ?? 'olmv1-system');
    const csvs = await installedCsvs(client);
    finders = await clusterFinders({ client, content, extensions, registry });
    return await upgradeCheck({ current, ...(a.to !== undefined && { to: a.to }) }, { extensions: installs, csvs }, finders);
  } finally {
    await finders?.close();
    await Promise.allSettled([content.close(), registry.close(), client.close()]);
  }
}

export const upgradeCheckCommand: CliCommand = {
  path: ['upgrade-check'],
  summary: 'list the operators that block the next OpenShift minor (or --to) and what to upgrade each to first',
  usage: [
    'Usage: kubectl olm upgrade-check [--to <version>] [--current <version>] [-o table|json|yaml]',
    '       [--kubeconfig <file>] [--context <name>] [--system-namespace <ns>] [--insecure-registries <hosts>] [--catalogd-cas-dir <dir>]',
    '',
    'Reads the cluster version from ClusterVersion "version" (.status.desired.version), or takes --current, and',
    'lists every installed operator whose olm.maxOpenShiftVersion keeps the cluster from its next minor version',
    '(4.22 → 4.23, 4.23 or 5.0 → 5.1), or from --to, with the rules OpenShift applies to each kind:',
    '  ClusterExtension       the bundle properties of its latest revision, as cluster-olm-operator reads them;',
    '  ClusterServiceVersion  the operatorframework.io/properties annotation, as OLM classic reads it.',
    'An invalid property blocks too. For each it names the bundle to upgrade to first: for an extension, what',
    'operator-controller’s resolver picks from the ClusterCatalogs (channels, version range, upgrade edges) among',
    'bundles whose max allows the target — and if its version range allows none, what it would pick with the range',
    'widened; for a CSV, the newest bundle reachable along its Subscription’s channel (replaces, skips, skipRange)',
    'in the Subscription’s CatalogSource (spec.image pulled here, or spec.address over gRPC) — or says that none is.',
    '',
    'Exit status: 0 nothing blocks, 1 something blocks, 2 an error (the cluster, its version or the flags).',
    '',
    'Flags:',
    '  --to <version>                  check the upgrade to this version instead of the next minor',
    '  --current <version>             the cluster’s version (default: from ClusterVersion "version")',
    '  -o, --output table|json|yaml    output format (default table)',
    '  --kubeconfig <file>             cluster to check (default $KUBECONFIG, then ~/.kube/config)',
    '  --context <name>                kubeconfig context to use (default: its current-context)',
    '  --system-namespace <ns>         operator-controller’s namespace of revision records (default olmv1-system)',
    '  --insecure-registries <h[:p],…> registries reached over plain HTTP for CatalogSource images',
    '                                  (default $OLM_INSECURE_REGISTRIES)',
    '  --catalogd-cas-dir <dir>        CA certificates (PEM) trusted for catalogd’s content server',
    '',
    'Example:',
    '  kubectl olm upgrade-check',
    '  kubectl olm upgrade-check --to 5.0 -o json',
  ].join('\n'),
  async run(args, io) {
    const a = parse(args);
    let report: Report;
    try {
      report = await check(a, io);
    } catch (err) {
      io.stderr.write(`error: ${(err as Error).message}\n`);
      return 2;
    }
    if (a.output === 'table') io.stdout.write(formatReport(report));
    else if (a.output === 'json') io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout.write(dump(report, { lineWidth: -1 }));
    return report.blocking.length > 0 ? 1 : 0;
  },
};
