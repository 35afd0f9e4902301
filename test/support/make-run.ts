// `make run` as a child process, as a user starts it (test/support/run-local.ts without a
// KUBECONFIG, so with its own cluster and registry): for the README tutorial test and the make-run
// bench. It listens on fixed ports (registry 5001, catalogd 18443), so one runs at a time.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { portFree, sleep, waitFor } from './net.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FIXED_PORTS = [5001, 18443];
/** The line run-local.ts prints once the controllers are ready. */
const READY_LINE = 'olmv1 is running';

export class MakeRun {
  /** The kubeconfig `make run` writes for its cluster. */
  readonly kubeconfig = join(root, '.cache/run/kubeconfig');
  private readonly child: ChildProcess;
  private readonly logFile: string;
  private readonly exited: Promise<void>;

  private constructor(child: ChildProcess, logFile: string) {
    this.child = child;
    this.logFile = logFile;
    this.exited = new Promise((r) => child.once('exit', () => r()));
  }

  /** Starts `make run` with its output in `logFile` and resolves once the controllers are ready. */
  static async start(logFile: string, timeoutMs = 5 * 60_000): Promise<MakeRun> {
    for (const p of FIXED_PORTS) {
      if (!(await portFree(p))) throw new Error(`port ${p} is in use (another make run?)`);
    }
    const env = { ...process.env };
    delete env.KUBECONFIG;
    // Own process group, as in a terminal: stop() signals the script, which stops what it started.
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/support/run-local.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const run = new MakeRun(child, logFile);
    const log = createWriteStream(logFile);
    let ready = false;
    for (const s of [child.stdout!, child.stderr!]) {
      createInterface({ input: s }).on('line', (l) => {
        log.write(`${l}\n`);
        if (l.startsWith(READY_LINE)) ready = true;
      });
    }
    try {
      await waitFor(
        'make run to print its next steps',
        async () => {
          if (child.exitCode !== null) throw new Error(`make run exited (${child.exitCode})`);
          return ready;
        },
        { timeoutMs, intervalMs: 100 },
      );
    } catch (err) {
      const tail = await run.logTail();
      await run.stop();
      throw new Error(`${(err as Error).message}\n--- make run log ---\n${tail}`, { cause: err });
    }
    return run;
  }

  /** The last lines of its output. */
  async logTail(lines = 40): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.split('\n').slice(-lines).join('\n');
  }

  /** Ctrl-C as a user would (SIGTERM to the script); SIGKILL to its group if it has not stopped within 90 s. */
  async stop(): Promise<void> {
    const { child } = this;
    if (child.pid === undefined || child.exitCode !== null) return;
    child.kill('SIGTERM');
    const stopped = await Promise.race([this.exited.then(() => true), sleep(90_000).then(() => false)]);
    if (!stopped) process.kill(-child.pid, 'SIGKILL');
  }
}
