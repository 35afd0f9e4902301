// The real olm-classic binary (cmd/olm-classic, run with tsx) as its own process against the test cluster, as
// test/integration/classic/e2e.test.ts starts it: every classic controller, the given global catalog namespace, the
// test registry reachable over plain HTTP. Resolves once the process says it started its controllers.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { controlPlane, registry } from './env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface OlmClassicProcess {
  /** Every line it printed (stdout and stderr), for failure messages. */
  readonly logs: string[];
  stop(): Promise<void>;
}

export async function startOlmClassicProcess(o: { globalNamespace: string; args?: readonly string[]; env?: NodeJS.ProcessEnv }): Promise<OlmClassicProcess> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'olm-classic-proc-'));
  const logs: string[] = [];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      `${ROOT}cmd/olm-classic/main.ts`,
      '--health-probe-bind-address=0',
      '--metrics-bind-address=0',
      `--cache-dir=${cacheDir}`,
      `--namespace=${o.globalNamespace}`,
      `--insecure-registries=${registry().host}`,
      ...(o.args ?? []),
    ],
    { env: { ...process.env, KUBECONFIG: controlPlane().kubeconfigPath, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const started = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      logs.push(l);
      if (l.includes('starting controllers')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`olm-classic exited (${code}) before starting: ${logs.slice(-20).join('\n')}`)));
  });
  createInterface({ input: child.stderr! }).on('line', (l) => logs.push(l));
  await started;
  return {
    logs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}
