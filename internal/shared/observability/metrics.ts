// Prometheus metrics on a per-process prom-client Registry, named as controller-runtime and
// client-go name them so existing dashboards and alerts work unchanged:
//
//   controller_runtime_reconcile_total{controller,result}      result: success|error|requeue|requeue_after
//   controller_runtime_reconcile_errors_total{controller}
//   controller_runtime_terminal_reconcile_errors_total{controller}
//   controller_runtime_reconcile_time_seconds{controller}      histogram
//   controller_runtime_active_workers{controller}
//   controller_runtime_max_concurrent_reconciles{controller}
//   workqueue_{depth,adds_total,retries_total,queue_duration_seconds,work_duration_seconds,
//             unfinished_work_seconds,longest_running_processor_seconds}{name,controller}
//   + prom-client's default process/Node.js metrics (process_cpu_seconds_total, …)
//
// Work-queue metrics carry `name` (client-go) and `controller` (controller-runtime ≥ 0.19 adds
// it), both set to the queue's name.
import collectDefaultMetrics from 'prom-client/lib/defaultMetrics.js';
import { Counter, Gauge, Histogram, Registry, exponentialBuckets } from './prom.ts';
import type { MetricsProvider, ReconcileMetrics, ReconcileResult, WorkQueueMetrics } from './metrics-hooks.ts';

// controller-runtime's buckets for reconcile time (pkg/internal/controller/metrics).
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// client-go / controller-runtime workqueue buckets: 10 ns … 1000 s, ×10.
const WORKQUEUE_BUCKETS = exponentialBuckets(10e-9, 10, 12);
const RESULTS: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

export interface MetricsOptions {
  /** Default: a new Registry (one per process; never prom-client's global one). */
  readonly registry?: Registry;
  /** Register prom-client's default process and Node.js metrics. Default true. */
  readonly defaultMetrics?: boolean;
}

/** The process's metrics: a MetricsProvider for queues and controllers, and its registry. */
export interface Metrics extends MetricsProvider {
  readonly registry: Registry;
}

/**
 * Creates and registers every metric above on `registry`. Call once per registry: a second
 * call on the same registry fails, as prom-client refuses duplicate names.
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  // Every metric registers on `registry` only; these three say so once.
  const counter = (name: string, help: string, labelNames: string[]) => new Counter({ name, help, labelNames, registers });
  const gauge = (name: string, help: string, labelNames: string[]) => new Gauge({ name, help, labelNames, registers });
  const histogram = (name: string, help: string, labelNames: string[], buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers });

  const reconcileTotal = counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', [
    'controller',
    'result',
  ]);
  const reconcileErrors = counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', [
    'controller',
  ]);
  const terminalErrors = counter(
    'controller_runtime_terminal_reconcile_errors_total',
    'Total number of terminal reconciliation errors per controller',
    ['controller'],
  );
  const reconcileTime = histogram(
    'controller_runtime_reconcile_time_seconds',
    'Length of time per reconciliation per controller',
    ['controller'],
    RECONCILE_TIME_BUCKETS,
  );
  const maxConcurrent = gauge('controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', [
    'controller',
  ]);
  const activeWorkers = gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']);

  const queueLabels = ['name', 'controller'];
  const depth = gauge('workqueue_depth', 'Current depth of workqueue', queueLabels);
  const adds = counter('workqueue_adds_total', 'Total number of adds handled by workqueue', queueLabels);
  const latency = histogram(
    'workqueue_queue_duration_seconds',
    'How long in seconds an item stays in workqueue before being requested',
    queueLabels,
    WORKQUEUE_BUCKETS,
  );
  const workDuration = histogram(
    'workqueue_work_duration_seconds',
    'How long in seconds processing an item from workqueue takes.',
    queueLabels,
    WORKQUEUE_BUCKETS,
  );
  const unfinished = gauge(
    'workqueue_unfinished_work_seconds',
    'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
      'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
    queueLabels,
  );
  const longest = gauge(
    'workqueue_longest_running_processor_seconds',
    'How many seconds has the longest running processor for workqueue been running.',
    queueLabels,
  );
  const retries = counter('workqueue_retries_total', 'Total number of retries handled by workqueue', queueLabels);

  return {
    registry,
    workQueue(name: string): WorkQueueMetrics {
      const child = { name, controller: name };
      return {
        depth: depth.labels(child),
        adds: adds.labels(child),
        latency: latency.labels(child),
        workDuration: workDuration.labels(child),
        unfinishedWorkSeconds: unfinished.labels(child),
        longestRunningProcessorSeconds: longest.labels(child),
        retries: retries.labels(child),
      };
    },
    controller(name: string): ReconcileMetrics {
      const byController = { controller: name };
      const total = (result: ReconcileResult) => reconcileTotal.labels({ controller: name, result });
      // Make every series exist at 0 from the start, as controller-runtime does, so rate()
      // and absent() behave before the first reconcile.
      const metrics: ReconcileMetrics = {
        total: { success: total('success'), error: total('error'), requeue: total('requeue'), requeue_after: total('requeue_after') },
        errors: reconcileErrors.labels(byController),
        terminalErrors: terminalErrors.labels(byController),
        time: reconcileTime.labels(byController),
        activeWorkers: activeWorkers.labels(byController),
        maxConcurrentReconciles: maxConcurrent.labels(byController),
      };
      for (const result of RESULTS) reconcileTotal.inc({ controller: name, result }, 0);
      reconcileErrors.inc(byController, 0);
      terminalErrors.inc(byController, 0);
      activeWorkers.set(byController, 0);
      return metrics;
    },
  };
}

/** A gauge whose value is read at scrape time (upstream's `*_count` gauges of the objects a controller holds). */
export function countGauge(registry: Registry, name: string, help: string, count: () => number): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(count());
    },
  });
}
