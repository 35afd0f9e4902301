// A subcommand of the kubectl-olm plugin. Each capability adds one file here exporting its
// commands; commands.ts lists them, each loaded only when it runs (`lazy`). Commands write to the
// given streams and return an exit code (0 success, 1 failure the user caused or the cluster
// reported, 2 usage error) — they never call process.exit, so they are testable in process.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Clock } from '../shared/toolkit/index.ts';
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Where confirmations are read from (`upgrade --force`); absent: no one can answer. */
  readonly stdin?: NodeJS.ReadableStream | undefined;
  /** Ends long waits (`--wait`) early, e.g. on Ctrl-C. */
  readonly signal?: AbortSignal | undefined;
  /** What "now" is (AGE columns, backup names and progress lines); default the toolkit's realClock. */
  readonly clock?: Clock | undefined;
}

export interface CliCommand {
  /** The words that select it, e.g. `['catalog', 'validate']`. */
  readonly path: readonly string[];
  /** One line for `kubectl olm --help`. */
  readonly summary: string;
  /** Full usage text, printed for `--help` (a usage error points to it). */
  readonly usage: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
  /**
   * The OLM classic form of the command (`install --classic`, …), imported only when `--classic` is among the
   * flags: dispatch then prints its usage for `--help` and runs it instead.
   */
  readonly classic?: () => Promise<CliCommand>;
}

/** A command whose module is imported only when it is run or its usage is asked for. */
export interface LazyCliCommand {
  readonly path: readonly string[];
  readonly summary: string;
  load(): Promise<CliCommand>;
}

export type CliCommandEntry = CliCommand | LazyCliCommand;

/** A command listed by path and summary, its module imported by `load` when needed. */
export function lazy(path: readonly string[], summary: string, load: () => Promise<CliCommand>): LazyCliCommand {
  return { path, summary, load };
}

/** The command itself, importing its module if it is lazy. */
export async function loadCommand(entry: CliCommandEntry): Promise<CliCommand> {
  return 'load' in entry ? entry.load() : entry;
}

/** A command's failure: `<prefix>: <why>` on stderr, exit 1. */
export const failure =
  (io: CliIO, prefix: string) =>
  (why: string): number => {
    io.stderr.write(`${prefix}: ${why}\n`);
    return 1;
  };

/** Registries reached over plain HTTP: `--insecure-registries host[,host]`, else $OLM_INSECURE_REGISTRIES. */
export function insecureRegistries(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  return (flag ?? env['OLM_INSECURE_REGISTRIES'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Thrown by argument parsing; printed in one line with where the command's usage is, exit 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/** What `parse` returns; what it throws is a usage error, its message after `prefix`. */
export function asUsage<T>(parse: () => T, prefix = ''): T {
  try {
    return parse();
  } catch (err) {
    throw new CliUsageError(`${prefix}${(err as Error).message}`);
  }
}

/** node:util parseArgs with positionals, strict, every problem a usage error (cluster commands' parseFlags adds pflag's rule). */
export function parseStrict<O extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: O) {
  return asUsage(() => parseArgs({ args: [...args], options, allowPositionals: true, strict: true }));
}

/** A directory argument of an offline command, resolved against the working directory; one that is not there fails. */
export async function directory(io: CliIO, dir: string): Promise<string> {
  const path = resolve(io.cwd, dir);
  const st = await stat(path).catch(() => undefined);
  if (!st) throw new Error(`open ${dir}: no such file or directory`);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  return path;
}
