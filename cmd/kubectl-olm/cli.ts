// kubectl-olm's entry as a function: the process's streams wired to internal/cli's dispatcher.
// main.ts runs it; the bundle (bundle.ts) exports it, so bin/kubectl-olm can load the bundle while
// it checks the bundle is fresh, and only then run it.
import { commands, dispatch } from '../../internal/cli/index.ts';

export function main(argv: readonly string[]): Promise<number> {
  return dispatch(commands, argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
    // Only a confirmation reads it; creating process.stdin costs start-up time.
    get stdin() {
      return process.stdin;
    },
  });
}
