// The common `main` of a controller binary: parse flags and make the binary's setup from them (usage errors in
// either exit 2 with one line), then hand over to runManager.
import { runManager, type Setup } from './manager.ts';
import { UsageError, parseManagerArgs, type Flag, type SecureMetrics } from './options.ts';

export function main<E extends Record<string, Flag>>(
  binary: string,
  setup: (extra: Record<keyof E, string | boolean | undefined>) => Setup,
  extraFlags?: E,
  secureMetrics?: SecureMetrics,
): void {
  const parsed = orUsageExit(binary, () => parseManagerArgs(binary, process.argv.slice(2), extraFlags, secureMetrics));
  if (parsed.help) {
    process.stdout.write(parsed.help + '\n');
    process.exit(0);
  }
  // A binary's flags beyond the common ones are checked as its setup is made: a bad value is a usage error too.
  const run = orUsageExit(binary, () => setup(parsed.extra));
  void runManager(parsed.options, run, binary);
}

/** `f()`; a UsageError it throws exits 2 with its one line and a pointer to `--help`. */
function orUsageExit<T>(binary: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\nRun '${binary} --help' for usage.\n`);
    process.exit(2);
  }
}
