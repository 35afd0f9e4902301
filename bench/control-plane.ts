// The local cluster: warm (binaries built) start of the API server alone to /readyz and of the
// whole cluster to its nodes Ready; each process's resident memory idle and with 200 Deployments
// rolled out (and the time to all Available); and — with BENCH_COLD=1 — a cold build of every
// binary from empty Go module and build caches (many minutes).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ControlPlane } from '../test/support/control-plane.ts';
import { TestKube } from '../test/support/kube.ts';
import { Registry } from '../test/support/registry.ts';
import { rssMiB } from './memory.ts';

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

const DEPLOYMENTS = Number(process.env.BENCH_CLUSTER_DEPLOYMENTS ?? 200);

const median3 = async (start: () => Promise<number>): Promise<number[]> => {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) runs.push(await start());
  return runs.sort((a, b) => a - b);
};

async function memoryFigures(cp: ControlPlane, label: string): Promise<Figure[]> {
  const names = ['kube-apiserver+etcd', 'kube-controller-manager', 'kube-scheduler', 'kwok'];
  const rss = await Promise.all(cp.pids.map(rssMiB));
  const total = rss.reduce((a, b) => a + b, 0);
  return [{ name: `cluster RSS ${label}`, value: total, unit: 'MiB', note: rss.map((r, i) => `${names[i]} ${r}`).join(', ') }];
}

export async function benchControlPlane(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const alone = await median3(async () => {
    const cp = new ControlPlane({ nodes: 0 });
    const ms = await timed(() => cp.start());
    await cp.stop();
    return ms;
  });
  figures.push({ name: 'kube-apiserver+etcd alone: start to /readyz (warm, median of 3)', value: Math.round(alone[1]!), unit: 'ms' });
  const whole = await median3(async () => {
    const cp = new ControlPlane();
    const ms = await timed(() => cp.start());
    await cp.stop();
    return ms;
  });
  figures.push({
    name: 'whole cluster (+ controller-manager, scheduler, KWOK): start to 2 nodes Ready (warm, median of 3)',
    value: Math.round(whole[1]!),
    unit: 'ms',
    note: `${(whole[1]! / alone[1]!).toFixed(2)}× the API server alone`,
  });

  // Memory idle, then with DEPLOYMENTS one-replica Deployments rolled out for real.
  const cp = new ControlPlane({ nodes: Math.max(2, Math.ceil(DEPLOYMENTS / 100)) });
  const info = await cp.start();
  try {
    await new Promise((r) => setTimeout(r, 5_000));
    figures.push(...(await memoryFigures(cp, 'idle (5 s after nodes Ready)')));
    const kube = new TestKube(info);
    const ns = await kube.namespace('bench');
    const t0 = performance.now();
    for (let i = 0; i < DEPLOYMENTS; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, DEPLOYMENTS - i) }, (_, j) =>
          kube.must(
            kube.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: `d${i + j}` },
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: `d${i + j}` } },
                template: { metadata: { labels: { app: `d${i + j}` } }, spec: { containers: [{ name: 'c', image: 'registry.test/app:v1' }] } },
              },
            }),
          ),
        ),
      );
    }
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      const list = await kube.must<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(kube.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments`));
      const available = list.items.filter((d) => (d.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True')).length;
      if (available === DEPLOYMENTS) break;
      if (Date.now() > deadline) throw new Error(`only ${available} of ${DEPLOYMENTS} Deployments Available after 10 minutes`);
      await new Promise((r) => setTimeout(r, 250));
    }
    figures.push({ name: `${DEPLOYMENTS} Deployments created → all Available (Pods Running on KWOK nodes)`, value: Math.round(performance.now() - t0), unit: 'ms' });
    await new Promise((r) => setTimeout(r, 5_000));
    figures.push(...(await memoryFigures(cp, `with ${DEPLOYMENTS} Deployments rolled out`)));
  } finally {
    await cp.stop();
  }
  const reg = new Registry();
  figures.push({ name: 'registry start to /v2/ (warm)', value: Math.round(await timed(() => reg.start())), unit: 'ms' });
  await reg.stop();
  const restarting = new ControlPlane({ nodes: 0 });
  await restarting.start();
  figures.push({ name: 'kube-apiserver restart (SIGTERM + start, same data)', value: Math.round(await timed(() => restarting.restart())), unit: 'ms' });
  await restarting.stop();
  if (process.env.BENCH_COLD === '1') {
    const dir = await mkdtemp(join(tmpdir(), 'olm-cold-'));
    const script = fileURLToPath(new URL('../test/envtest/build.sh', import.meta.url));
    const env: NodeJS.ProcessEnv = { ...process.env, GOMODCACHE: join(dir, 'mod'), GOCACHE: join(dir, 'cache'), OLM_TEST_BIN_DIR: join(dir, 'bin') };
    delete env.OLM_TEST_APISERVER;
    delete env.OLM_TEST_REGISTRY;
    delete env.OLM_TEST_KWOK;
    const ms = await timed(() => promisify(execFile)('bash', [script], { env, maxBuffer: 16 << 20 }));
    const { stdout } = await promisify(execFile)('du', ['-sm', join(dir, 'mod'), join(dir, 'cache')]);
    const mb = stdout.trim().split('\n').reduce((s, l) => s + Number(l.split('\t')[0]), 0);
    figures.push({ name: 'cold build of every binary: multi-call apiserver, registry, kwok (empty Go caches)', value: Math.round(ms / 1000), unit: 's' });
    figures.push({ name: 'Go module + build cache after the cold build', value: mb, unit: 'MB' });
    await rm(dir, { recursive: true, force: true });
  }
  return figures;
}
