// The common `main` of a controller binary: parse flags (usage errors exit 2 with one line),
// then hand over to runManager.
import { runManager, type Setup } from './manager.ts';
import { UsageError, parseManagerArgs, type Flag } from './options.ts';

export function main<E extends Record<string, Flag>>(
  binary: string,
  setup: (extra: Record<keyof E, string | boolean | undefined>) => Setup,
  extraFlags?: E,
): void {
  let parsed: ReturnType<typeof parseManagerArgs<E>>;
  try {
    parsed = parseManagerArgs(binary, process.argv.slice(2), extraFlags);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\nRun '${binary} --help' for usage.\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(parsed.help + '\n');
    process.exit(0);
  }
  void runManager(parsed.options, setup(parsed.extra), binary);
}
