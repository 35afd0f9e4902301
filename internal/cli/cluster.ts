// What every cluster command shares: kubectl's connection flags (--kubeconfig, --context,
// -n/--namespace), flag parsing with usage errors, `--timeout` as a Go duration, and the client.
import type { ParseArgsConfig } from 'node:util';
import { KubeClient } from '../shared/kube/index.ts';
import { parseGoDuration } from '../shared/gocompat/index.ts';
import type { Condition, KubeObject } from '../../api/meta/v1.ts';
import { LIST_FORMATS, objectName, outputFormat, type OutputFormat, type PrintedType } from './output.ts';
import { CliUsageError, parseStrict, type CliIO } from './types.ts';
import { contextError, waitFor } from './wait.ts';

export { insecureRegistries } from './types.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

export const CONNECTION_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const satisfies Options;

/** `--wait` and how long it waits (`--timeout`, a Go duration read by timeoutMs). */
export const WAIT_OPTIONS = {
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
} as const satisfies Options;

export const CONNECTION_USAGE = [
  '      --kubeconfig <file>   kubeconfig to use (default: $KUBECONFIG, then ~/.kube/config, as kubectl)',
  '      --context <name>      kubeconfig context to use (default: its current-context)',
];

/**
 * pflag's rule for a flag that takes a value: the next argument is its value even when it starts
 * with a dash (`--priority -5`), which node:util parseArgs would refuse as ambiguous.
 */
export function attachValues(args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  const takesValue = (flag: string): boolean => {
    if (flag.startsWith('--')) return options[flag.slice(2)]?.type === 'string';
    return Object.values(options).some((o) => o.type === 'string' && o.short === flag.slice(1));
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    if (next !== undefined && next.startsWith('-') && /^(--[^=]+|-[^-])$/.test(a) && takesValue(a)) {
      out.push(a.startsWith('--') ? `${a}=${next}` : `${a}${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** node:util parseArgs with positionals, strict, every problem a usage error. */
export function parseFlags<O extends Options>(args: readonly string[], options: O) {
  return parseStrict(attachValues(args, options), options);
}

/** Exactly `n` positional arguments named as in `names` (for the message). */
export function positionals(got: readonly string[], names: readonly string[]): string[] {
  if (got.length !== names.length) {
    const want = names.map((n) => `<${n}>`).join(' ');
    throw new CliUsageError(got.length < names.length ? `missing ${want}` : `expected ${want}, got ${got.length} arguments: ${got.join(' ')}`);
  }
  return [...got];
}

/** One or more positional arguments, as kubectl takes several names (`kubectl delete a b`). */
export function names(got: readonly string[], name: string): string[] {
  if (got.length === 0) throw new CliUsageError(`missing <${name}>`);
  return [...got];
}

/** `--timeout` as Go's time.ParseDuration reads it; `0` waits forever. */
export function timeoutMs(value: string | undefined, fallback: string): number {
  const r = parseGoDuration(value ?? fallback);
  if ('error' in r) throw new CliUsageError(`invalid --timeout: ${r.error}`);
  if (r.ms < 0) throw new CliUsageError('invalid --timeout: must not be negative');
  return r.ms === 0 ? Number.POSITIVE_INFINITY : r.ms;
}

/** Repeated and comma-separated values (`--channel a --channel b,c`), as pflag's StringSlice. */
export function listFlag(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** `k=v,k2=` pairs of --labels (repeatable), pflag's StringToString. */
export function labelsFlag(values: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of listFlag(values)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliUsageError(`invalid --labels "${pair}": want key=value`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/**
 * Runs `fn` with the cluster client of the kubeconfig the flags and environment name (kubectl's lookup order), and
 * closes it afterwards. API warnings (a deprecated field such as ClusterExtension spec.serviceAccount, from an
 * admission policy) go to stderr as kubectl prints them, `Warning: <text>`, each text once.
 */
export async function withClient<T>(flags: { kubeconfig?: string | undefined; context?: string | undefined }, io: CliIO, fn: (client: KubeClient) => Promise<T>): Promise<T> {
  const printed = new Set<string>();
  const client = (
    await KubeClient.fromConfig({
      ...(flags.kubeconfig && { kubeconfig: flags.kubeconfig }),
      ...(flags.context && { context: flags.context }),
      env: io.env,
      userAgent: 'kubectl-olm',
      requestTimeoutMs: 60_000,
    })
  ).withWarningHandler(({ text }) => {
    if (printed.has(text)) return;
    printed.add(text);
    io.stderr.write(`Warning: ${text}\n`);
  });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/**
 * kubectl-operator's `olmv1 delete` (`<name>...` or `--all`, `--wait`, `-o name`): each target deleted
 * (`<what> "<name>" deleted`, or its `-o name`), a failure said as `<fail>: …` and the others still deleted; with
 * `--wait`, each deleted one waited for until it is gone. The exit code.
 */
export async function runDelete<T>(
  args: readonly string[],
  io: CliIO,
  o: {
    readonly type: PrintedType;
    readonly what: string;
    readonly fail: string;
    /** The usage error of names given with --all. */
    readonly both: string;
    /** What a name given is called in usage errors. */
    readonly positional: string;
    readonly defaultTimeout: string;
    readonly list: (client: KubeClient) => Promise<string[]>;
    readonly get: (client: KubeClient, name: string) => Promise<T | undefined>;
    readonly conditions?: (obj: T | undefined) => readonly Condition[] | undefined;
  },
): Promise<number> {
  const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, all: { type: 'boolean', short: 'a' }, ...WAIT_OPTIONS, output: { type: 'string', short: 'o' } });
  const format = outputFormat(values.output, ['table', 'name']);
  if (values.all && pos.length > 0) {
    io.stderr.write(`${o.both}\n`);
    return 2;
  }
  const targetsGiven = values.all ? undefined : names(pos, o.positional);
  const timeout = timeoutMs(values.timeout, o.defaultTimeout);
  return withClient(values, io, async (client) => {
    const targets = targetsGiven ?? (await o.list(client));
    if (targets.length === 0) {
      io.stderr.write(`${o.fail}: no resources found\n`);
      return 1;
    }
    let code = 0;
    const deleted: string[] = [];
    for (const name of targets) {
      try {
        await client.delete({ apiVersion: o.type.apiVersion, kind: o.type.kind, name });
        deleted.push(name);
        io.stdout.write(format === 'table' ? `${o.what} "${name}" deleted\n` : `${objectName(o.type.resource, o.type.group, name)}\n`);
      } catch (err) {
        io.stderr.write(`${o.fail}: ${values.all ? `failed deleting ${o.what} "${name}": ` : ''}${(err as Error).message}\n`);
        code = 1;
      }
    }
    if (!values.wait) return code;
    for (const name of deleted) {
      const r = await waitFor({ get: () => o.get(client, name), done: (x) => x === undefined, conditions: o.conditions, timeoutMs: timeout, io, label: `${o.type.resource}/${name}` });
      if (!r.ok) {
        io.stderr.write(`${o.fail}: wait for ${o.type.resource} "${name}" deleted: ${contextError(r.reason)}\n`);
        code = 1;
      }
    }
    return code;
  });
}

/**
 * kubectl-operator's `olmv1 get` (`[<name>] [-l <selector>] [-o …]`): the object named (`<resource>.<group> "<name>"
 * not found`, exit 1, when there is none), else the list, with the selector when one is given.
 */
export async function runList<T extends KubeObject>(
  args: readonly string[],
  io: CliIO,
  o: {
    /** What a name given is called in usage errors. */
    readonly what: string;
    /** `<plural resource>.<group>`, for not found. */
    readonly resource: string;
    readonly get: (client: KubeClient, name: string) => Promise<T | undefined>;
    readonly list: (client: KubeClient, selector: string | undefined) => Promise<T[]>;
    readonly print: (format: OutputFormat, items: readonly T[], single: boolean) => Promise<void>;
  },
): Promise<number> {
  const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, selector: { type: 'string', short: 'l' }, output: { type: 'string', short: 'o' } });
  const format = outputFormat(values.output, LIST_FORMATS);
  if (pos.length > 1) throw new CliUsageError(`expected at most one ${o.what} name, got ${pos.length}`);
  if (pos.length === 1 && values.selector) throw new CliUsageError('name cannot be provided when a selector is specified');
  return withClient(values, io, async (client) => {
    if (pos.length === 1) {
      const obj = await o.get(client, pos[0]!);
      if (!obj) {
        io.stderr.write(`${o.resource} "${pos[0]!}" not found\n`);
        return 1;
      }
      await o.print(format, [obj], true);
      return 0;
    }
    await o.print(format, await o.list(client, values.selector), false);
    return 0;
  });
}
