// `kubectl olm status <extension>` and `kubectl olm explain <extension>`: what an extension is
// doing, in words, and why it resolves as it does — operator-controller's resolver run here over
// the live ClusterCatalogs and catalogd's content, with the explanation `kubectl olm resolve`
// prints for directories.
import type { Condition } from '../../api/meta/v1.ts';
import {
  GroupName,
  ReasonSucceeded,
  TypeProgressing,
  UpgradeConstraintPolicyCatalogProvided,
  type ClusterExtension,
} from '../../api/v1/index.ts';
import { CatalogResolver, formatExplanation, notServedAdvice, notServedCatalog, ResolutionError, type Explanation, type ResolveResult } from '../operator-controller/resolve/index.ts';
import { goQuote } from '../shared/gocompat/index.ts';
import { labelSelectorString, type KubeClient } from '../shared/kube/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parseFlags, positionals, withClient } from './cluster.ts';
import { listCatalogs, LiveContent } from './content.ts';
import { condition, getExtension, stateOf } from './extension.ts';
import { emit, json, outputFormat, shown, yaml, type OutputFormat } from './output.ts';
import type { CliCommand, CliIO } from './types.ts';

/** Progressing's phrase for each reason (another reason: progressing or not). */
const PROGRESSING_WORDS = new Map([
  ['Succeeded', 'done: the cluster matches the spec'],
  ['RollingOut', 'rolling out a new revision'],
  ['Retrying', 'retrying after an error'],
  ['Blocked', 'blocked until something is fixed'],
  ['InvalidConfiguration', 'stopped: the configuration is invalid'],
  ['ProgressDeadlineExceeded', 'stopped: the rollout took too long'],
]);

/** Each condition type's phrase when True and when False. */
const CONDITION_WORDS = new Map<string, readonly [string, string]>([
  ['Installed', ['installed', 'not installed']],
  ['Progressing', ['progressing', 'not progressing']],
  ['Available', ['available: every installed object is healthy', 'not available']],
  ['Deprecated', ['deprecated', 'not deprecated']],
  ['PackageDeprecated', ['the package is deprecated', 'the package is not deprecated']],
  ['ChannelDeprecated', ['a channel is deprecated', 'no channel is deprecated']],
  ['BundleDeprecated', ['the installed bundle is deprecated', 'the installed bundle is not deprecated']],
]);

/** A condition as a phrase a person reads: `installed`, `retrying after an error`, … */
export function conditionWords(c: Condition): string {
  const reasonWords = c.type === 'Progressing' ? PROGRESSING_WORDS.get(c.reason) : undefined;
  if (reasonWords !== undefined) return reasonWords;
  const words = CONDITION_WORDS.get(c.type);
  if (!words) return c.status;
  return c.status === 'True' ? words[0] : c.status === 'False' ? words[1] : 'unknown';
}

const installedOf = (ext: ClusterExtension): { name: string; version: string } | undefined => {
  const b = ext.status?.install?.bundle;
  return b ? { name: b.name, version: b.version } : undefined;
};

type Outcome = { readonly ok: true; readonly result: ResolveResult } | { readonly ok: false; readonly message: string; readonly explanation?: Explanation | undefined };

/**
 * Runs `fn` with operator-controller's resolver over the live catalogs (`resolve`: an extension's outcome, its error
 * caught), then ends catalogd connections.
 */
async function withResolver<T>(client: KubeClient, fn: (resolve: (ext: ClusterExtension) => Promise<Outcome>) => Promise<T>): Promise<T> {
  const catalogs = await listCatalogs(client);
  const content = new LiveContent(client);
  const resolver = new CatalogResolver({ listCatalogs: () => catalogs, content });
  try {
    return await fn(async (ext) => {
      try {
        return { ok: true, result: await resolver.resolveBundle(ext, installedOf(ext)) };
      } catch (err) {
        return { ok: false, message: (err as Error).message, explanation: err instanceof ResolutionError ? err.explanation : undefined };
      }
    });
  } finally {
    await content.close();
  }
}

const withoutVersion = (ext: ClusterExtension): ClusterExtension => ({
  ...ext,
  spec: { ...ext.spec!, source: { ...ext.spec!.source, catalog: { ...ext.spec!.source.catalog!, version: '' } } },
});

interface StatusReport {
  readonly name: string;
  readonly package: string;
  readonly namespace: string;
  readonly state: string;
  readonly installed: { readonly name: string; readonly version: string } | null;
  readonly conditions: readonly { type: string; status: string; reason: string; words: string; message: string }[];
  /** What the spec resolves to now (the bundle operator-controller moves to), or why it does not resolve. */
  readonly next: { readonly bundle: string; readonly version: string; readonly catalog: string } | { readonly error: string };
  /**
   * A selected catalog that is not served, when that is why the spec does not resolve: which one, catalogd's error,
   * and the way out (fix its source, or `availabilityMode: Unavailable`).
   */
  readonly blockedBy?: { readonly catalog: string; readonly error: string; readonly wayOut: string } | undefined;
  /** A newer bundle reachable by widening --version, when there is one. */
  readonly outsideRange?: { readonly bundle: string; readonly version: string; readonly catalog: string } | undefined;
}

/** A resolved bundle as the reports give it. */
const chosen = (r: ResolveResult): { bundle: string; version: string; catalog: string } => ({ bundle: r.bundle.name, version: r.bundle.version, catalog: r.catalog });

function statusReport(client: KubeClient, ext: ClusterExtension): Promise<StatusReport> {
  return withResolver(client, async (resolve) => {
    const now = await resolve(ext);
    let outsideRange: StatusReport['outsideRange'];
    if (now.ok && (ext.spec?.source.catalog?.version ?? '') !== '') {
      const wide = await resolve(withoutVersion(ext));
      if (wide.ok && wide.result.bundle.name !== now.result.bundle.name) outsideRange = chosen(wide.result);
    }
    const blocked = now.ok ? undefined : notServedCatalog(now.explanation);
    return {
      name: ext.metadata?.name ?? '',
      package: ext.spec?.source.catalog?.packageName ?? '',
      namespace: ext.spec?.namespace ?? '',
      state: stateOf(ext),
      installed: installedOf(ext) ?? null,
      conditions: (ext.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason, words: conditionWords(c), message: c.message })),
      next: now.ok ? chosen(now.result) : { error: now.message },
      ...(blocked && { blockedBy: { catalog: blocked.catalog, error: blocked.error ?? '', wayOut: notServedAdvice(blocked.catalog) } }),
      ...(outsideRange && { outsideRange }),
    };
  });
}

function statusText(ext: ClusterExtension, r: StatusReport): string {
  const c = ext.spec?.source.catalog;
  const sa = ext.spec?.serviceAccount?.name;
  const lines = [
    `Name:             ${r.name}`,
    `Package:          ${r.package}`,
    `Namespace:        ${r.namespace}`,
    ...(sa ? [`Service account:  ${sa} (deprecated: ignored unless operator-controller runs with --feature-gates=ServiceAccountInstalls=true)`] : []),
    `Version range:    ${c?.version ? c.version : 'any (the newest)'}`,
    `Channels:         ${c?.channels?.length ? c.channels.join(', ') : 'all'}`,
    `Catalogs:         ${c?.selector ? labelSelectorString(c.selector) || 'all' : 'all'}`,
    `Upgrade policy:   ${c?.upgradeConstraintPolicy === 'SelfCertified' ? 'SelfCertified (any version in the range, lower ones too)' : `${UpgradeConstraintPolicyCatalogProvided} (along the catalog's upgrade graph)`}`,
    `Installed bundle: ${r.installed ? `${r.installed.name} (version ${r.installed.version})` : 'none'}`,
    `State:            ${r.state}`,
    'Conditions:',
    ...(r.conditions.length === 0 ? ['  none yet: operator-controller has not reconciled it (is it running?)'] : []),
    ...r.conditions.map((x) => `  ${`${x.type}:`.padEnd(19)}${x.words}${x.message ? ` — ${x.message}` : ''} (${x.status}, ${x.reason})`),
  ];
  if ('error' in r.next) {
    lines.push(`Next:             does not resolve from the catalogs now: ${r.next.error}`);
    if (r.blockedBy) lines.push(`Blocked by:       catalog ${goQuote(r.blockedBy.catalog)}, which is not served: ${r.blockedBy.wayOut}`);
    lines.push(`                  run \`kubectl olm explain ${r.name}\` for every bundle's story`);
  } else if (r.installed && r.next.bundle === r.installed.name) {
    lines.push(`Next:             none: ${r.installed.name} is the newest bundle the spec allows`);
  } else {
    lines.push(`Next:             ${r.next.bundle} (version ${r.next.version}) from catalog ${goQuote(r.next.catalog)}${r.installed ? ' — operator-controller upgrades to it' : ''}`);
  }
  if (r.outsideRange) {
    lines.push(
      `Outside range:    ${r.outsideRange.bundle} (version ${r.outsideRange.version}) from catalog ${goQuote(r.outsideRange.catalog)}; to get it:`,
      `                  kubectl olm upgrade ${r.name} --version ${r.outsideRange.version}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What status and explain share: their flags, the extension named (exit 1 when there is none), the client. */
async function onExtension(args: readonly string[], io: CliIO, fn: (client: KubeClient, ext: ClusterExtension, name: string, format: OutputFormat) => Promise<number>): Promise<number> {
  const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, output: { type: 'string', short: 'o' } });
  const [name] = positionals(pos, ['extension']) as [string];
  const format = outputFormat(values.output, ['table', 'json', 'yaml']);
  return withClient(values, io, async (client) => {
    const ext = await getExtension(client, name);
    if (ext) return fn(client, ext, name, format);
    io.stderr.write(`clusterextensions.${GroupName} "${name}" not found\n`);
    return 1;
  });
}

export const statusCommand: CliCommand = {
  path: ['status'],
  summary: 'an extension’s state in words, its bundle, and what it would upgrade to',
  usage: [
    'Usage: kubectl olm status <extension> [-o table|json|yaml] [flags]',
    '',
    'Shows what the ClusterExtension asks for (package, version range, channels, catalogs, policy), the bundle it',
    'runs, each condition in words with its message, and what operator-controller would install next: the spec',
    'is resolved here against the live ClusterCatalogs, as the controller does. When a newer bundle exists only',
    'outside --version, it says so and how to get it. When a selected catalog that is not served blocks resolution,',
    'it names the catalog and the way out (fix its source, or set its availabilityMode to Unavailable).',
    '',
    'Flags:',
    '  -o, --output table|json|yaml  json and yaml print the same report as data',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm status demo-operator',
    '  kubectl olm status demo-operator -o json | jq .next',
  ].join('\n'),
  run(args, io) {
    return onExtension(args, io, async (client, ext, _name, format) => {
      const report = await statusReport(client, ext);
      if (format === 'table') await emit(io.stdout, statusText(ext, report));
      else await emit(io.stdout, format === 'json' ? json(report) : await yaml(report));
      return 0;
    });
  },
};

export const explainCommand: CliCommand = {
  path: ['explain'],
  summary: 'why an extension resolves as it does, bundle by bundle, from the live catalogs',
  usage: [
    'Usage: kubectl olm explain <extension> [-o table|json|yaml] [flags]',
    '',
    'Runs operator-controller\'s resolution for the ClusterExtension here, against the live ClusterCatalogs and',
    'the content catalogd serves, and prints its result — operator-controller\'s error word for word when nothing',
    'fits — then what happened in every catalog to every bundle of the package: which filter (channel, version',
    'range, upgrade edge from the installed bundle) removed it, what it lost to, why a catalog\'s best was dropped',
    '(deprecated, lower priority, ambiguous). The same explanation `kubectl olm resolve` gives for directories.',
    'When resolution succeeds but the extension is not done, its Progressing message follows.',
    '',
    'Exit 0 when the extension resolves and is done (Progressing=Succeeded), 1 otherwise.',
    '',
    'Flags:',
    '  -o, --output table|json|yaml  json and yaml print the outcome and the explanation as data',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm explain demo-operator',
  ].join('\n'),
  run(args, io) {
    return onExtension(args, io, async (client, ext, name, format) => {
      const outcome = await withResolver(client, (resolve) => resolve(ext));
      const progressing = condition(ext, TypeProgressing);
      const done = progressing?.reason === ReasonSucceeded;
      const inst = installedOf(ext);
      const c = ext.spec?.source.catalog;
      if (format !== 'table') {
        const data = {
          extension: shown(ext).metadata?.name,
          installed: inst ?? null,
          resolved: outcome.ok ? chosen(outcome.result) : null,
          error: outcome.ok ? null : outcome.message,
          progressing: progressing ? { status: progressing.status, reason: progressing.reason, message: progressing.message } : null,
          explanation: outcome.ok ? outcome.result.explanation : (outcome.explanation ?? null),
        };
        await emit(io.stdout, format === 'json' ? json(data) : await yaml(data));
        return outcome.ok && done ? 0 : 1;
      }
      const lines = [
        `Extension ${goQuote(name)} asks for package ${goQuote(c?.packageName ?? '')}` +
          `${c?.version ? `, version ${goQuote(c.version)}` : ''}${c?.channels?.length ? `, channels ${c.channels.join(', ')}` : ''}` +
          `${c?.upgradeConstraintPolicy === 'SelfCertified' ? ', SelfCertified' : ''}; ${inst ? `installed: ${inst.name} (${inst.version})` : 'nothing installed'}.`,
      ];
      if (outcome.ok) {
        const b = outcome.result.bundle;
        lines.push(`Resolves to ${b.name} (version ${b.version}) from catalog ${goQuote(outcome.result.catalog)}.`);
      } else {
        lines.push('Resolution fails:', `  ${outcome.message}`);
      }
      const explanation = outcome.ok ? outcome.result.explanation : outcome.explanation;
      if (explanation) lines.push('', ...formatExplanation(explanation));
      if (progressing && !done) lines.push('', `Progressing (${progressing.status}, ${progressing.reason}): ${progressing.message}`);
      await emit(io.stdout, `${lines.join('\n')}\n`);
      return outcome.ok && done ? 0 : 1;
    });
  },
};
