// A subcommand of the kubectl-olm plugin. Each capability adds one file here exporting its
// commands; cmd/kubectl-olm/main.ts only lists them. Commands write to the given streams and
// return an exit code (0 success, 1 failure the user caused, 2 usage error) — they never call
// process.exit, so they are testable in process.
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface CliCommand {
  /** The words that select it, e.g. `['catalog', 'validate']`. */
  readonly path: readonly string[];
  /** One line for `kubectl olm --help`. */
  readonly summary: string;
  /** Full usage text, printed for `--help` and after a usage error. */
  readonly usage: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** Thrown by argument parsing; printed with the command's usage, exit 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}
