// Control-plane start time: warm (binaries built) start to /readyz, and — with BENCH_COLD=1 —
// a cold build of both binaries from empty Go module and build caches (many minutes).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ControlPlane } from '../test/support/control-plane.ts';
import { Registry } from '../test/support/registry.ts';

export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly note?: string;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function benchControlPlane(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const starts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const cp = new ControlPlane();
    starts.push(await timed(() => cp.start()));
    await cp.stop();
  }
  starts.sort((a, b) => a - b);
  figures.push({ name: 'kube-apiserver+etcd start to /readyz (warm, median of 3)', value: Math.round(starts[1]!), unit: 'ms' });
  const reg = new Registry();
  figures.push({ name: 'registry start to /v2/ (warm)', value: Math.round(await timed(() => reg.start())), unit: 'ms' });
  await reg.stop();
  const cp = new ControlPlane();
  await cp.start();
  figures.push({ name: 'kube-apiserver restart (SIGTERM + start, same data)', value: Math.round(await timed(() => cp.restart())), unit: 'ms' });
  await cp.stop();
  if (process.env.BENCH_COLD === '1') {
    const dir = await mkdtemp(join(tmpdir(), 'olm-cold-'));
    const script = fileURLToPath(new URL('../test/envtest/build.sh', import.meta.url));
    const env: NodeJS.ProcessEnv = { ...process.env, GOMODCACHE: join(dir, 'mod'), GOCACHE: join(dir, 'cache'), OLM_TEST_BIN_DIR: join(dir, 'bin') };
    delete env.OLM_TEST_APISERVER;
    delete env.OLM_TEST_REGISTRY;
    const ms = await timed(() => promisify(execFile)('bash', [script], { env, maxBuffer: 16 << 20 }));
    const { stdout } = await promisify(execFile)('du', ['-sm', join(dir, 'mod'), join(dir, 'cache')]);
    const mb = stdout.trim().split('\n').reduce((s, l) => s + Number(l.split('\t')[0]), 0);
    figures.push({ name: 'cold build of both binaries (empty Go caches)', value: Math.round(ms / 1000), unit: 's' });
    figures.push({ name: 'Go module + build cache after the cold build', value: mb, unit: 'MB' });
    await rm(dir, { recursive: true, force: true });
  }
  return figures;
}
