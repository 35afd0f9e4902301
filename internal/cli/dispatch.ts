// Picks the command whose path matches the leading words of argv and runs it.
import { CliUsageError, type CliCommand, type CliIO } from './types.ts';

function write(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function helpText(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return [
    'kubectl olm — Operator Lifecycle Manager v1 tools (also usable as `oc olm`).',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `kubectl olm <command> --help` for a command’s flags.',
  ].join('\n');
}

export async function dispatch(commands: readonly CliCommand[], argv: readonly string[], io: CliIO): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    write(argv.length === 0 ? io.stderr : io.stdout, helpText(commands));
    return argv.length === 0 ? 2 : 0;
  }
  let best: CliCommand | undefined;
  for (const c of commands) {
    if (c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  if (!best) {
    write(io.stderr, `unknown command "${argv.join(' ')}"\n\n${helpText(commands)}`);
    return 2;
  }
  const rest = argv.slice(best.path.length);
  if (rest.includes('--help') || rest.includes('-h')) {
    write(io.stdout, best.usage);
    return 0;
  }
  try {
    return await best.run(rest, io);
  } catch (err) {
    if (err instanceof CliUsageError) {
      write(io.stderr, `error: ${err.message}\n\n${best.usage}`);
      return 2;
    }
    write(io.stderr, `error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
