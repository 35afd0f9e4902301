// `kubectl olm catalog add|list|delete`: ClusterCatalogs from the command line, as
// kubectl-operator's `olmv1 create|get|delete catalog` (their flags and messages), waiting with
// progress only when asked (`--wait`).
import {
  AvailabilityModeAvailable,
  AvailabilityModeUnavailable,
  ClusterCatalogKind,
  ClusterCatalogSingular,
  GroupName,
  GroupVersion,
  SourceTypeImage,
  TypeServing,
  type ClusterCatalog,
} from '../../api/v1/index.ts';
import { ignoreNotFound, type KubeClient } from '../shared/kube/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, WAIT_OPTIONS, runDelete, runList, labelsFlag, parseFlags, positionals, timeoutMs, withClient } from './cluster.ts';
import { CC, listCatalogs } from './content.ts';
import { age, conditionStatus, emit, emitObjects, outputFormat, table, type OutputFormat } from './output.ts';
import { asUsage, CliUsageError, failure, type CliCommand, type CliIO } from './types.ts';
import { giveUpOn, unfixableCatalog } from './failfast.ts';
import { contextError, waitFor } from './wait.ts';
import { realClock } from '../shared/toolkit/index.ts';

const DEFAULT_TIMEOUT = '5m';
const CATALOG_TYPE = { apiVersion: GroupVersion, kind: ClusterCatalogKind, resource: ClusterCatalogSingular, group: GroupName } as const;

function getCatalog(client: KubeClient, name: string): Promise<ClusterCatalog | undefined> {
  return ignoreNotFound(client.get<ClusterCatalog>({ ...CC, name }));
}

/** `-o wide`'s PROGRESSING: the reason, and the message when it is not Succeeded (what keeps a catalog from serving). */
function progressingOf(c: ClusterCatalog): string {
  const p = c.status?.conditions?.find((x) => x.type === 'Progressing');
  if (!p) return '';
  return p.reason === 'Succeeded' || !p.message ? p.reason : `${p.reason}: ${p.message.replace(/\s+/g, ' ')}`;
}

async function printCatalogs(io: CliIO, format: OutputFormat, catalogs: readonly ClusterCatalog[], single: boolean): Promise<void> {
  if (await emitObjects(io.stdout, format, catalogs, single, CATALOG_TYPE)) return;
  if (catalogs.length === 0) {
    await emit(io.stdout, 'No resources found\n');
    return;
  }
  // kubectl-operator's order: availability, then priority (highest first), then name.
  const sorted = [...catalogs].sort(
    (a, b) =>
      (a.spec.availabilityMode ?? '').localeCompare(b.spec.availabilityMode ?? '') ||
      (b.spec.priority ?? 0) - (a.spec.priority ?? 0) ||
      ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1),
  );
  const now = (io.clock ?? realClock).date().getTime();
  const rows = sorted.map((c) => [
    c.metadata.name ?? '',
    c.spec.availabilityMode ?? '',
    String(c.spec.priority ?? 0),
    c.status?.lastUnpacked ? age(c.status.lastUnpacked, now) : '',
    conditionStatus(c.status?.conditions, TypeServing),
    age(c.metadata.creationTimestamp, now),
    ...(format === 'wide' ? [c.spec.source.image?.ref ?? '', progressingOf(c)] : []),
  ]);
  const headers = ['NAME', 'AVAILABILITY', 'PRIORITY', 'LASTUNPACKED', 'SERVING', 'AGE', ...(format === 'wide' ? ['IMAGE', 'PROGRESSING'] : [])];
  await emit(io.stdout, table(headers, rows));
}

export const catalogAddCommand: CliCommand = {
  path: ['catalog', 'add'],
  summary: 'create a ClusterCatalog from a catalog image',
  usage: [
    'Usage: kubectl olm catalog add <name> <image> [flags]',
    '',
    'Creates a ClusterCatalog named <name> whose content is the file-based catalog in <image>; catalogd pulls',
    'and serves it, and operator-controller installs from it.',
    '',
    'Flags:',
    '      --priority <int32>                  relative priority among catalogs for installs and upgrades; higher wins,',
    '                                          negative values lose to the default (0)',
    '      --available true|false              whether the catalog serves its content (default true)',
    '      --source-poll-interval-minutes <n>  poll a tag-based image for new content every n minutes (0: never)',
    '      --labels <key=value,...>            labels of the ClusterCatalog',
    '      --dry-run                           have the API server check the ClusterCatalog without creating it',
    '      --wait                              wait until it serves (Serving=True; Serving=False with --available=false),',
    '                                          showing each condition change on stderr when it is a terminal; gives up',
    '                                          (exit 1, catalogd\'s cause first) on an image or host that does not exist',
    '                                          or a terminal error, kept for two reconciles',
    '      --wait-for-fix                      with --wait: keep waiting on such a cause too',
    `      --timeout <duration>                how long --wait waits (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
    '  -o, --output table|json|yaml|name       print the ClusterCatalog',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm catalog add olm-demo localhost:5001/olm-demo/catalog:latest --wait',
    '  kubectl olm catalog add operatorhubio quay.io/operatorhubio/catalog:latest --priority -10 --source-poll-interval-minutes 60',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, {
      ...CONNECTION_OPTIONS,
      priority: { type: 'string' },
      available: { type: 'string' },
      'source-poll-interval-minutes': { type: 'string' },
      labels: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
      ...WAIT_OPTIONS,
      'wait-for-fix': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
    });
    const [name, image] = positionals(pos, ['name', 'image']) as [string, string];
    const format = outputFormat(values.output);
    const priority = values.priority === undefined ? undefined : Number(values.priority);
    if (priority !== undefined && (!/^[+-]?\d+$/.test(values.priority!) || priority < -2147483648 || priority > 2147483647)) {
      throw new CliUsageError(`invalid argument "${values.priority}" for "--priority" flag: want a 32-bit integer`);
    }
    if (values.available !== undefined && values.available !== 'true' && values.available !== 'false') {
      throw new CliUsageError(`invalid \`--available\` value "${values.available}": must be one of: [true, false]`);
    }
    const availability = values.available === 'false' ? AvailabilityModeUnavailable : AvailabilityModeAvailable;
    const pollText = values['source-poll-interval-minutes'];
    if (pollText !== undefined && !/^-?\d+$/.test(pollText)) throw new CliUsageError(`invalid argument "${pollText}" for "--source-poll-interval-minutes" flag: want an integer`);
    const poll = Number(pollText ?? 0);
    if (poll > 0) {
      const { parseReference } = await import('../shared/image/index.ts');
      const digest = asUsage(() => parseReference(image), `invalid catalog source image "${image}": `).digest !== undefined;
      if (digest) throw new CliUsageError(`cannot specify a non-zero --source-poll-interval-minutes for a digest based catalog image "${image}"`);
    }
    const labels = labelsFlag(values.labels);
    const dryRun = values['dry-run'] === true;
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    const catalog: ClusterCatalog = {
      ...CC,
      metadata: { name, ...(Object.keys(labels).length > 0 && { labels }) },
      spec: {
        source: { type: SourceTypeImage, image: { ref: image, ...(poll > 0 && { pollIntervalMinutes: poll }) } },
        ...(priority !== undefined && { priority }),
        availabilityMode: availability,
      },
    };
    return withClient(values, io, async (client) => {
      const fail = failure(io, `failed to create catalog "${name}"`);
      const created = await client.create<ClusterCatalog>(catalog, { dryRun, fieldManager: 'kubectl-olm' }).catch((err: Error) => err);
      if (created instanceof Error) return fail(created.message);
      if (format === 'table') io.stdout.write(`catalog "${name}" created${dryRun ? ' (dry run)' : ''}\n`);
      let result = created;
      if (values.wait && !dryRun) {
        const want = availability === AvailabilityModeUnavailable ? 'False' : 'True';
        const r = await waitFor({
          get: () => getCatalog(client, name),
          done: (c) => c?.status?.conditions?.some((x) => x.type === TypeServing && x.status === want) === true,
          conditions: (c) => c?.status?.conditions,
          timeoutMs: timeout,
          io,
          label: `clustercatalog/${name}`,
          giveUp: giveUpOn<ClusterCatalog>(values['wait-for-fix'], (c) => unfixableCatalog(c, created.metadata?.generation ?? 1)),
        });
        if (!r.ok && r.reason === 'unfixable') {
          // The catalog's own cause first, in one line, then what to run next.
          fail(r.unfixable.cause);
          io.stderr.write(`waiting will not fix this (--wait-for-fix waits anyway); next: ${r.unfixable.next.map((c) => `\`${c}\``).join(' then ')}\n`);
          return 1;
        }
        if (!r.ok) {
          const p = r.last?.status?.conditions?.find((x) => x.type === 'Progressing');
          const deadline = contextError(r.reason);
          const why = p && p.reason !== 'Succeeded' && p.message ? `${p.message.replace(/\s*\n\s*/g, ' ')} (${deadline})` : deadline;
          return fail(why);
        }
        result = r.last ?? created;
      }
      if (format !== 'table') await printCatalogs(io, format, [result], true);
      return 0;
    });
  },
};

export const catalogListCommand: CliCommand = {
  path: ['catalog', 'list'],
  summary: 'list ClusterCatalogs with their availability, priority and serving state',
  usage: [
    'Usage: kubectl olm catalog list [<name>] [-l <selector>] [-o table|json|yaml|name] [flags]',
    '',
    'Lists ClusterCatalogs as kubectl-operator does: availability, priority, when the content was last unpacked,',
    'whether it is served, age.',
    '',
    'Flags:',
    '  -l, --selector <selector>          only catalogs with these labels (kubectl\'s label selector syntax)',
    '  -o, --output table|wide|json|yaml|name  json and yaml print a ClusterCatalogList (one object when a name is',
    '                                     given); wide adds the image and Progressing (why it does not serve)',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm catalog list',
    '  kubectl olm catalog list -o wide',
    '  kubectl olm catalog list olm-demo -o yaml',
  ].join('\n'),
  run(args, io) {
    return runList(args, io, {
      what: 'catalog',
      resource: `clustercatalogs.${GroupName}`,
      get: getCatalog,
      list: async (client, selector) => (selector ? (await client.list<ClusterCatalog>(CC, { labelSelector: selector })).items : await listCatalogs(client)),
      print: (format, items, single) => printCatalogs(io, format, items, single),
    });
  },
};

export const catalogDeleteCommand: CliCommand = {
  path: ['catalog', 'delete'],
  summary: 'delete a ClusterCatalog (or --all)',
  usage: [
    'Usage: kubectl olm catalog delete <name>... [--wait] [flags]',
    '       kubectl olm catalog delete --all [--wait] [flags]',
    '',
    'Deletes ClusterCatalogs; catalogd stops serving them. Installed extensions stay, but cannot upgrade from a',
    'deleted catalog.',
    '',
    'Flags:',
    '  -a, --all                  delete every ClusterCatalog',
    '      --wait                 wait until they are gone',
    `      --timeout <duration>   how long --wait waits (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
    '  -o, --output name          print the deleted ClusterCatalogs as <resource>/<name>',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm catalog delete olm-demo --wait',
  ].join('\n'),
  run(args, io) {
    return runDelete(args, io, {
      type: CATALOG_TYPE,
      what: 'catalog',
      fail: 'failed to delete catalog(s)',
      both: 'failed to delete catalog: cannot specify both --all and a catalog name',
      positional: 'name',
      defaultTimeout: DEFAULT_TIMEOUT,
      list: async (client) => (await listCatalogs(client)).map((c) => c.metadata.name ?? ''),
      get: getCatalog,
    });
  },
};
