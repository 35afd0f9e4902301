import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { countGauge, createMetrics } from './metrics.ts';
import { noopMetrics } from './metrics-hooks.ts';

describe('createMetrics', () => {
  it('registers controller-runtime and client-go names with their labels', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const q = m.workQueue('clusterextension');
    const c = m.controller('clusterextension');
    q.adds.inc();
    q.depth.inc();
    q.retries.inc();
    q.latency.observe(0.002);
    q.workDuration.observe(0.5);
    q.unfinishedWorkSeconds.set(1.5);
    q.longestRunningProcessorSeconds.set(1.25);
    c.total.requeue_after.inc();
    c.errors.inc();
    c.terminalErrors.inc();
    c.time.observe(0.3);
    c.activeWorkers.inc();
    c.maxConcurrentReconciles.set(4);

    const text = await m.registry.metrics();
    for (const line of [
      'controller_runtime_reconcile_total{controller="clusterextension",result="requeue_after"} 1',
      'controller_runtime_reconcile_total{controller="clusterextension",result="success"} 0',
      'controller_runtime_reconcile_total{controller="clusterextension",result="error"} 0',
      'controller_runtime_reconcile_total{controller="clusterextension",result="requeue"} 0',
      'controller_runtime_reconcile_errors_total{controller="clusterextension"} 1',
      'controller_runtime_terminal_reconcile_errors_total{controller="clusterextension"} 1',
      'controller_runtime_reconcile_time_seconds_bucket{le="0.35",controller="clusterextension"} 1',
      'controller_runtime_reconcile_time_seconds_count{controller="clusterextension"} 1',
      'controller_runtime_active_workers{controller="clusterextension"} 1',
      'controller_runtime_max_concurrent_reconciles{controller="clusterextension"} 4',
      'workqueue_depth{name="clusterextension",controller="clusterextension"} 1',
      'workqueue_adds_total{name="clusterextension",controller="clusterextension"} 1',
      'workqueue_retries_total{name="clusterextension",controller="clusterextension"} 1',
      'workqueue_queue_duration_seconds_bucket{le="0.01",name="clusterextension",controller="clusterextension"} 1',
      'workqueue_queue_duration_seconds_bucket{le="0.001",name="clusterextension",controller="clusterextension"} 0',
      'workqueue_work_duration_seconds_sum{name="clusterextension",controller="clusterextension"} 0.5',
      'workqueue_unfinished_work_seconds{name="clusterextension",controller="clusterextension"} 1.5',
      'workqueue_longest_running_processor_seconds{name="clusterextension",controller="clusterextension"} 1.25',
      '# TYPE controller_runtime_reconcile_time_seconds histogram',
      '# TYPE workqueue_depth gauge',
      '# TYPE workqueue_adds_total counter',
    ]) {
      expect(text.split('\n'), line).toContain(line);
    }
  });

  it('uses the upstream bucket layouts', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.controller('c').time.observe(1);
    m.workQueue('q').latency.observe(1);
    const les = (name: string) =>
      (m.registry.metrics() as Promise<string>).then((t) =>
        t
          .split('\n')
          .filter((l) => l.startsWith(`${name}_bucket`))
          .map((l) => /le="([^"]+)"/.exec(l)![1]),
      );
    const reconcile = await les('controller_runtime_reconcile_time_seconds');
    expect(reconcile).toHaveLength(41); // 40 buckets + Inf
    expect(reconcile.slice(0, 3)).toEqual(['0.005', '0.01', '0.025']);
    expect(reconcile.slice(-2)).toEqual(['60', '+Inf']);
    const queue = (await les('workqueue_queue_duration_seconds')).map(Number);
    expect(queue).toHaveLength(13); // 12 buckets + Inf
    expect(queue[0]).toBeCloseTo(1e-8, 20);
    expect(queue[11]).toBeCloseTo(1000, 6);
  });

  it('adds the default process metrics, on its own registry only', async () => {
    const registry = new Registry();
    const m = createMetrics({ registry });
    expect(m.registry).toBe(registry);
    const text = await registry.metrics();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // A second set of metrics lives happily on a second registry.
    expect(() => createMetrics()).not.toThrow();
  });

  it('asking twice for the same name gives the same series', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.workQueue('q').adds.inc();
    m.workQueue('q').adds.inc();
    expect(await m.registry.metrics()).toContain('workqueue_adds_total{name="q",controller="q"} 2');
  });
});

describe('noopMetrics', () => {
  it('accepts every call', () => {
    const q = noopMetrics.workQueue('x');
    const c = noopMetrics.controller('x');
    q.depth.inc();
    q.depth.dec();
    q.latency.observe(1);
    q.unfinishedWorkSeconds.set(1);
    c.total.success.inc();
    c.maxConcurrentReconciles.set(1);
    expect(true).toBe(true);
  });
});

describe('countGauge', () => {
  it('reads its value when scraped', async () => {
    const registry = new Registry();
    let n = 2;
    countGauge(registry, 'thing_count', 'Number of things', () => n);
    expect(await registry.metrics()).toContain('# HELP thing_count Number of things\n# TYPE thing_count gauge\nthing_count 2\n');
    n = 5;
    expect(await registry.metrics()).toContain('thing_count 5\n');
  });
});
