// `make run` (issue 10, Performance): from starting test/support/run-local.ts (warm build) to the
// controllers ready with the demo catalog pushed, then `kubectl apply -f config/samples/clustercatalog.yaml`
// to the demo catalog Serving, and the demo extension sample to Installed and Available. Uses the fixed
// make-run ports (5001, 18443): nothing else may be using them.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { binaries } from '../test/support/binaries.ts';
import { MakeRun } from '../test/support/make-run.ts';
import type { Figure } from './control-plane.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function benchMakeRun(): Promise<Figure[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-make-run-'));
  await symlink((await binaries()).apiserver, join(tmp, 'kubectl'));
  const t0 = performance.now();
  const run = await MakeRun.start(join(tmp, 'make-run.log'));
  const readyAt = performance.now();
  const kubectl = async (...args: string[]): Promise<void> => {
    await promisify(execFile)(join(tmp, 'kubectl'), args, { env: { ...process.env, KUBECONFIG: run.kubeconfig }, cwd: root });
  };
  try {
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
    await run.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}
