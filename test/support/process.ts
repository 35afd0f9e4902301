// Child processes that die with the test run: spawn, log to a file, stop with SIGTERM then SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { processAlive, sleep } from './net.ts';

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

export interface Managed {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | string>;
}

export function startProcess(cmd: string, args: readonly string[], logFile: string, env?: NodeJS.ProcessEnv): Managed {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
  live.add(child);
  const exited = once(child, 'exit').then((args: unknown[]) => {
    live.delete(child);
    const [code, signal] = args as [number | null, NodeJS.Signals | null];
    return code ?? signal ?? 'unknown';
  });
  return { child, pid: child.pid, logFile, exited };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the pid is gone. */
export async function stopProcess(p: Managed, graceMs = 10_000): Promise<void> {
  if (!processAlive(p.pid) || p.child.exitCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
  while (processAlive(p.pid)) await sleep(20);
}

/** SIGKILL now; resolves when the pid is gone. */
export async function killProcess(p: Managed): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGKILL');
  await p.exited;
  while (processAlive(p.pid)) await sleep(20);
}

export interface ControllerProcess {
  readonly child: ChildProcess;
  /** Resolves when the process logs that its caches synced and its controllers start. */
  readonly started: Promise<void>;
  readonly exited: Promise<void>;
  /** Sends `signal` (SIGTERM by default) unless it has ended; resolves once it has. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * One of the project's binaries (cmd/<name>/main.ts through tsx) as its own process; every line it prints goes to
 * `onLine` when given. It is SIGKILLed if the test process exits first.
 */
export function startBinary(name: 'catalogd' | 'operator-controller' | 'olm-classic', args: readonly string[], env: NodeJS.ProcessEnv, onLine?: (line: string) => void): ControllerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}cmd/${name}/main.ts`, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  const exited = once(child, 'exit').then(() => void live.delete(child));
  const started = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      onLine?.(l);
      if (l.includes('starting controllers')) resolve();
    });
  });
  if (onLine) createInterface({ input: child.stderr! }).on('line', onLine);
  else child.stderr!.resume();
  return {
    child,
    started,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * `env` as a pod's container gets it: without NODE_EXTRA_CA_CERTS, which a developer's shell or a CI sandbox may point
 * at the system bundle and no image sets. Node parses every certificate of that file when it starts, and again for
 * each TLS context given its own CA — here ~415 M instructions (callgrind), five times the rest of `node -e 0`.
 */
export function imageEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _shell, ...rest } = env;
  return rest;
}

/**
 * A controller as the image runs it: cmd/entrypoint.sh (its node flags and environment) starting `name`'s bundle from
 * `dist` (cmd/bundle.ts's output, e.g. `<dist>/bin/catalogd/main.mjs`), logging to `logFile`; `env` goes through
 * imageEnv.
 */
export function startBundled(dist: string, name: string, args: readonly string[], logFile: string, env: NodeJS.ProcessEnv = process.env): Managed {
  return startProcess('sh', [`${ROOT}cmd/entrypoint.sh`, name, ...args], logFile, { ...imageEnv(env), OLMV1_DIST: dist });
}

