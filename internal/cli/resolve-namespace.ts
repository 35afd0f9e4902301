// `kubectl olm resolve --namespace <ns>`: what OLM classic would resolve for a namespace's Subscriptions right now,
// from the live cluster — its Subscriptions, CSVs and OperatorGroup, and the CatalogSources of the namespace and the
// global catalog namespace read here (images pulled, addresses asked over gRPC). Prints the bundles a plan would
// install, or upstream's error followed by the solver's minimal conflicting set in words. Exit 0 resolved, 1 not,
// 2 on a usage or cluster error.
import type { CatalogSource, ClusterServiceVersion, OperatorGroup, Subscription } from '../../api/operators/index.ts';
import type { CatalogContent } from '../classic/catalogsource/index.ts';
import { isNotSatisfiable } from '../classic/resolver/index.ts';
import { describeConflict, resolveNamespace } from '../classic/subscription/index.ts';
import { CONNECTION_OPTIONS, insecureRegistries, parseFlags, withClient } from './cluster.ts';
import { CS, CSV, OG, readCatalogSources, SUB } from './classic/common.ts';
import { CliUsageError, type CliIO } from './types.ts';

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  namespace: { type: 'string', short: 'n' },
  'global-namespace': { type: 'string' },
  'insecure-registries': { type: 'string' },
} as const;

export async function resolveNamespaceCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS);
  if (positionals.length > 0) throw new CliUsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const namespace = values.namespace;
  if (!namespace) throw new CliUsageError('--namespace is required');
  const globalNamespace = values['global-namespace'] ?? 'olm';
  const insecure = insecureRegistries(values['insecure-registries'], io.env);
  return withClient(values, io, async (client) => {
    const [subscriptions, csvs, operatorGroups] = await Promise.all([
      client.listAll<Subscription>({ ...SUB, namespace }).then((l) => l.items),
      client.listAll<ClusterServiceVersion>({ ...CSV, namespace }).then((l) => l.items),
      client.listAll<OperatorGroup>({ ...OG, namespace }).then((l) => l.items),
    ]);
    if (subscriptions.length === 0) {
      io.stdout.write(`no Subscriptions in namespace ${namespace}\n`);
      return 0;
    }
    const sources = new Map<string, CatalogSource[]>();
    for (const ns of new Set([namespace, globalNamespace])) sources.set(ns, (await client.listAll<CatalogSource>({ ...CS, namespace: ns })).items);
    const contents = new Map<string, CatalogContent>();
    await readCatalogSources(io, [...sources.values()].flat(), insecure, (cs, content) => contents.set(`${cs.metadata.namespace ?? ''}/${cs.metadata.name ?? ''}`, content));
    const out = await resolveNamespace({
      namespace,
      globalNamespace,
      subscriptions,
      csvs,
      operatorGroups,
      catalogSources: (ns) => sources.get(ns) ?? [],
      content: (ns, name) => contents.get(`${ns}/${name}`),
    }).catch((err: Error) => err);
    if (out instanceof Error) {
      const lines = [out.message];
      if (isNotSatisfiable(out)) lines.push('', 'The conflicting constraints (a minimal set: drop any one and the rest can be met):', ...describeConflict(out).map((l) => `  ${l}`));
      io.stdout.write(`${lines.join('\n')}\n`);
      return 1;
    }
    const lines = out.resolved.map((r) => {
      const e = r.entry;
      const subs = subscriptions
        .filter((s) => s.spec.name === e.package && (!s.spec.channel || s.spec.channel === e.channel) && s.spec.source === e.catalog.name && s.spec.sourceNamespace === e.catalog.namespace)
        .map((s) => s.metadata.name ?? '');
      const current = subs.length > 0 && subscriptions.filter((s) => subs.includes(s.metadata.name ?? '')).every((s) => s.status?.installedCSV === e.name);
      const who = subs.length > 0 ? `Subscription ${subs.join(', ')}` : `dependency (Subscription ${[e.package, e.channel, e.catalog.name, e.catalog.namespace].join('-')} would be created)`;
      return `${e.name}: package ${e.package}, channel ${e.channel}, CatalogSource ${e.catalog.namespace}/${e.catalog.name}${r.replaces ? `, replaces ${r.replaces}` : ''} — ${who}${current ? ', installed' : ''}`;
    });
    io.stdout.write(`${lines.length > 0 ? lines.join('\n') : 'nothing to install'}\n`);
    return 0;
  });
}
