// Picks the command whose path matches the leading words of argv, imports it if it is lazy, and
// runs it. `--help`/`-h` anywhere after the path prints its usage; `help <command>` too. A usage error prints one
// line and where the usage is, as kubectl does.
import { CliUsageError, loadCommand, type CliCommand, type CliCommandEntry, type CliIO } from './types.ts';
import { errorMessage } from '../shared/toolkit/index.ts';

function write(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** kubectl's pointer after a usage error: `See 'kubectl olm <command> --help' for usage.` */
export const seeHelp = (path: readonly string[]): string => `See 'kubectl olm ${[...path, '--help'].join(' ')}' for usage.`;

export function helpText(commands: readonly CliCommandEntry[], prefix: readonly string[] = []): string {
  const shown = commands.filter((c) => !c.path[0]!.startsWith('__') && prefix.every((w, i) => c.path[i] === w));
  const width = Math.max(...shown.map((c) => c.path.join(' ').length));
  const lines = shown.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return [
    'kubectl olm — Operator Lifecycle Manager v1 from the command line (also `oc olm`, or `kubectl-olm`).',
    '',
    'Commands:',
    ...lines,
    '',
    'Cluster commands take kubectl\'s --kubeconfig and --context (install also -n/--namespace: ClusterExtensions and',
    'ClusterCatalogs are cluster-scoped) and print -o table|json|yaml|name (list and catalog list also -o wide).',
    '--wait gives up early (exit 1) on a cause waiting will not fix, naming the command to run next; --wait-for-fix',
    'waits on. install, upgrade, uninstall and list with --classic work on OLM classic Subscriptions in a namespace',
    '(-n) instead; approve approves an InstallPlan. `kubectl olm --version` prints the version.',
    'Exit codes: 0 success; 1 the command failed (the cluster refused, a wait timed out or gave up, nothing resolved,',
    'an invalid catalog); 2 usage error (unknown command or flag, missing argument).',
    'Run `kubectl olm <command> --help` for a command’s flags and examples.',
  ].join('\n');
}

/** The entry with the longest path that argv starts with (the first of those). */
export function findCommand(commands: readonly CliCommandEntry[], argv: readonly string[]): CliCommandEntry | undefined {
  const matching = commands.filter((c) => c.path.every((w, i) => argv[i] === w));
  return matching.reduce<CliCommandEntry | undefined>((best, c) => (best && best.path.length >= c.path.length ? best : c), undefined);
}

/** The command `flags` select: its OLM classic form when `--classic` is among them and it has one. */
export async function variant(command: CliCommand, flags: readonly string[]): Promise<CliCommand> {
  return command.classic && flags.includes('--classic') ? command.classic() : command;
}

export async function dispatch(commands: readonly CliCommandEntry[], argv: readonly string[], io: CliIO): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || (argv[0] === 'help' && argv.length === 1)) {
    write(argv.length === 0 ? io.stderr : io.stdout, helpText(commands));
    return argv.length === 0 ? 2 : 0;
  }
  // `kubectl olm --version`: the plugin's version alone, as `kubectl version --client`.
  if (argv[0] === '--version') return dispatch(commands, ['version', '--client', ...argv.slice(1)], io);
  const asksHelp = argv[0] === 'help';
  const words = asksHelp ? argv.slice(1) : argv;
  const entry = findCommand(commands, words);
  if (!entry) {
    // `kubectl olm catalog`: the commands under that word.
    const group = commands.some((c) => c.path.length > words.length && words.every((w, i) => c.path[i] === w));
    if (group && words.every((w) => !w.startsWith('-'))) {
      write(io.stderr, helpText(commands, words));
      return 2;
    }
    write(io.stderr, `unknown command "${words.join(' ')}" for "kubectl olm"\n${seeHelp([])}`);
    return 2;
  }
  const rest = words.slice(entry.path.length);
  const dashdash = rest.indexOf('--');
  const flags = dashdash < 0 ? rest : rest.slice(0, dashdash);
  const loaded = await loadCommand(entry);
  const command = await variant(loaded, flags);
  if (asksHelp || flags.includes('--help') || flags.includes('-h')) {
    write(io.stdout, command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof CliUsageError) {
      // kubectl's convention: the error in one line, then where the usage is (not the usage itself).
      write(io.stderr, `error: ${err.message}\n${seeHelp([...entry.path, ...(command !== loaded ? ['--classic'] : [])])}`);
      return 2;
    }
    write(io.stderr, `error: ${errorMessage(err)}`);
    return 1;
  }
}
