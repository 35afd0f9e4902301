// `make run` (issue 10, Performance): from starting test/support/run-local.ts (warm build) to the
// controllers ready with the demo catalog pushed, then `kubectl apply -f config/samples/clustercatalog.yaml`
// to the demo catalog Serving, and the demo extension sample to Installed and Available. Uses the fixed
// make-run ports (5001, 18443): nothing else may be using them.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { binaries } from '../test/support/binaries.ts';
import type { Figure } from './control-plane.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function benchMakeRun(): Promise<Figure[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-make-run-'));
  await symlink((await binaries()).apiserver, join(tmp, 'kubectl'));
  const env = { ...process.env };
  delete env.KUBECONFIG;
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/support/run-local.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const lines: string[] = [];
  let readyAt: number | undefined;
  for (const s of [child.stdout, child.stderr]) {
    createInterface({ input: s }).on('line', (l) => {
      lines.push(l);
      if (l.startsWith('olmv1 is running')) readyAt ??= performance.now();
    });
  }
  const kubectl = async (...args: string[]): Promise<void> => {
    await promisify(execFile)(join(tmp, 'kubectl'), args, { env: { ...process.env, KUBECONFIG: join(root, '.cache/run/kubeconfig') }, cwd: root });
  };
  try {
    while (readyAt === undefined) {
      if (child.exitCode !== null) throw new Error(`make run exited:\n${lines.slice(-20).join('\n')}`);
      if (performance.now() - t0 > 5 * 60_000) throw new Error('make run not ready after 5 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const c0 = performance.now();
    await kubectl('apply', '-f', 'config/samples/clustercatalog.yaml');
    await kubectl('wait', '--for=condition=Serving', 'clustercatalog/olm-demo', '--timeout=300s');
    const servingAt = performance.now();
    await kubectl('apply', '-f', 'config/samples/clusterextension.yaml');
    await kubectl('wait', '--for=condition=Installed', 'clusterextension/demo-operator', '--timeout=300s');
    await kubectl('wait', '--for=condition=Available', 'clusterextension/demo-operator', '--timeout=300s');
    const installedAt = performance.now();
    return [
      { name: 'make run: start → controllers ready, demo pushed (warm build)', value: Math.round(readyAt - t0), unit: 'ms' },
      { name: 'make run: start → demo ClusterCatalog Serving (apply + wait included)', value: Math.round(servingAt - t0), unit: 'ms', note: `apply → Serving ${Math.round(servingAt - c0)} ms` },
      { name: '  demo ClusterExtension applied → Installed and Available', value: Math.round(installedAt - servingAt), unit: 'ms' },
    ];
  } finally {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await exited;
    await rm(tmp, { recursive: true, force: true });
  }
}
