// The real olm-classic binary (cmd/olm-classic, run with tsx) as its own process against the test cluster, as
// test/integration/classic/e2e.test.ts starts it: every classic controller, the given global catalog namespace, the
// test registry reachable over plain HTTP. Resolves once the process says it started its controllers (or, with
// `startedLine`, once it printed a line containing that text: a replica that is not the leader starts none).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlane, registry } from './env.ts';
import { startBinary } from './process.ts';

export interface OlmClassicProcess {
  /** Every line it printed (stdout and stderr), for failure messages. */
  readonly logs: string[];
  /** Whether the process is still running (has not exited or been killed). */
  alive(): boolean;
  /**
   * Its error-level lines about the given namespaces' objects, or about no namespaced object at all: it watches every
   * namespace, so other test files' designed failures (running at the same time) are left out.
   */
  errorLines(namespaces: readonly string[]): string[];
  stop(): Promise<void>;
  /** SIGKILL (no clean shutdown, as a node losing the pod); resolves once it has ended. */
  kill(): Promise<void>;
}

export async function startOlmClassicProcess(o: { globalNamespace: string; args?: readonly string[]; env?: NodeJS.ProcessEnv; startedLine?: string }): Promise<OlmClassicProcess> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'olm-classic-proc-'));
  const logs: string[] = [];
  let printed: (() => void) | undefined;
  const startedLine = o.startedLine;
  const sawLine = startedLine === undefined ? undefined : new Promise<void>((resolve) => (printed = resolve));
  const p = startBinary(
    'olm-classic',
    ['--health-probe-bind-address=0', '--metrics-bind-address=0', `--cache-dir=${cacheDir}`, `--namespace=${o.globalNamespace}`, `--insecure-registries=${registry().host}`, ...(o.args ?? [])],
    { KUBECONFIG: controlPlane().kubeconfigPath, ...o.env },
    (l) => {
      logs.push(l);
      if (startedLine !== undefined && l.includes(startedLine)) printed?.();
    },
  );
  await Promise.race([
    sawLine ?? p.started,
    p.exited.then(() => {
      throw new Error(`olm-classic exited (${p.child.exitCode ?? p.child.signalCode}) before starting: ${logs.slice(-20).join('\n')}`);
    }),
  ]);
  return {
    logs,
    alive: () => p.child.exitCode === null && p.child.signalCode === null,
    errorLines: (namespaces) => logs.filter((l) => l.includes('"level":"error"') && concerns(l, namespaces)),
    async stop() {
      await p.stop();
      await rm(cacheDir, { recursive: true, force: true });
    },
    async kill() {
      await p.stop('SIGKILL');
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}

/** Whether a log line is about an object in one of `namespaces`, or names no namespaced object (a process-level line). */
function concerns(line: string, namespaces: readonly string[]): boolean {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>;
  } catch {
    return true;
  }
  const named = [fields['namespace'], ...['key', 'installPlan', 'csv', 'subscription'].map((k) => (typeof fields[k] === 'string' && (fields[k] as string).includes('/') ? (fields[k] as string).split('/')[0] : undefined))];
  const ns = named.filter((n): n is string => typeof n === 'string' && n !== '');
  return ns.length === 0 || ns.some((n) => namespaces.includes(n));
}
