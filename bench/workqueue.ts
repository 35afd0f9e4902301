// Work queue and controller throughput: no-op reconciles per second through Controller + queue
// (enqueue of every key included), at concurrency 1 and 4, with and without prom-client metrics;
// plus the bare queue's add/get/done rate. Figures only, never pass/fail.
// Run alone with `node --import tsx bench/workqueue.ts` (KEYS=… to change the key count).
import { pathToFileURL } from 'node:url';
import { Controller } from '../internal/shared/controller/index.ts';
import { WorkQueue } from '../internal/shared/controller/index.ts';
import { createMetrics } from '../internal/shared/observability/index.ts';
import type { Figure } from './control-plane.ts';

const DEFAULT_KEYS = 100_000;
const RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function controllerRun(keys: readonly string[], concurrency: number, withMetrics: boolean): Promise<number> {
  let remaining = keys.length;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const controller = new Controller({
    name: 'bench',
    concurrency,
    reconciler: {
      reconcile: async () => {
        if (--remaining === 0) allDone();
      },
    },
    ...(withMetrics && { metrics: createMetrics({ defaultMetrics: false }) }),
  });
  const ac = new AbortController();
  const t0 = performance.now();
  for (const key of keys) controller.enqueue(key);
  const running = controller.start(ac.signal);
  await finished;
  const seconds = (performance.now() - t0) / 1000;
  ac.abort();
  await running;
  return keys.length / seconds;
}

async function queueRun(keys: readonly string[]): Promise<number> {
  const q = new WorkQueue<string>();
  const t0 = performance.now();
  for (const key of keys) q.add(key);
  for (let i = 0; i < keys.length; i++) {
    const key = (await q.get())!;
    q.done(key);
  }
  const seconds = (performance.now() - t0) / 1000;
  q.shutDown();
  return keys.length / seconds;
}

async function measure(run: () => Promise<number>): Promise<number> {
  await run(); // warm-up: JIT, allocation
  const rates: number[] = [];
  for (let i = 0; i < RUNS; i++) rates.push(await run());
  return Math.round(median(rates));
}

export async function benchWorkqueue(keyCount = Number(process.env['KEYS'] ?? DEFAULT_KEYS)): Promise<Figure[]> {
  const keys = Array.from({ length: keyCount }, (_, i) => `namespace-${i % 50}/object-${i}`);
  const note = `${keyCount} keys, median of ${RUNS}`;
  const figures: Figure[] = [];
  figures.push({ name: 'workqueue add+get+done, bare queue', value: await measure(() => queueRun(keys)), unit: 'items/s', note });
  for (const withMetrics of [false, true]) {
    for (const concurrency of [1, 4]) {
      figures.push({
        name: `controller no-op reconciles, concurrency ${concurrency}${withMetrics ? ', prom-client metrics' : ''}`,
        value: await measure(() => controllerRun(keys, concurrency, withMetrics)),
        unit: 'reconciles/s',
        note,
      });
    }
  }
  return figures;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const f of await benchWorkqueue()) {
    console.log(`${f.name.padEnd(64)} ${String(f.value).padStart(12)} ${f.unit}${f.note ? `  (${f.note})` : ''}`);
  }
}
