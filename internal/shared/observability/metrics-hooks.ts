// The metric hooks the work queue and the controller report to. Plain shapes, no prom-client:
// `createMetrics` (metrics.ts) backs them with prom-client children, `noopMetrics` with nothing.
// All durations are in seconds, as Prometheus convention and controller-runtime have them.

export interface CounterHook {
  inc(): void;
}
export interface GaugeHook {
  inc(): void;
  dec(): void;
}
export interface SettableGaugeHook {
  set(value: number): void;
}
export interface HistogramHook {
  observe(value: number): void;
}

/** One work queue's metrics (client-go's workqueue MetricsProvider, one set per queue name). */
export interface WorkQueueMetrics {
  /** workqueue_depth: items waiting for a worker. */
  readonly depth: GaugeHook;
  /** workqueue_adds_total: adds that were not deduplicated away. */
  readonly adds: CounterHook;
  /** workqueue_queue_duration_seconds: time from add to a worker taking the item. */
  readonly latency: HistogramHook;
  /** workqueue_work_duration_seconds: time from a worker taking the item to done. */
  readonly workDuration: HistogramHook;
  /** workqueue_unfinished_work_seconds: summed age of items being processed. */
  readonly unfinishedWorkSeconds: SettableGaugeHook;
  /** workqueue_longest_running_processor_seconds: age of the oldest item being processed. */
  readonly longestRunningProcessorSeconds: SettableGaugeHook;
  /** workqueue_retries_total: delayed (rate-limited or requeue-after) adds. */
  readonly retries: CounterHook;
}

/** The `result` label of controller_runtime_reconcile_total. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** One controller's metrics (controller-runtime's pkg/internal/controller/metrics). */
export interface ReconcileMetrics {
  /** controller_runtime_reconcile_total{result}. */
  readonly total: Readonly<Record<ReconcileResult, CounterHook>>;
  /** controller_runtime_reconcile_errors_total (terminal errors included). */
  readonly errors: CounterHook;
  /** controller_runtime_terminal_reconcile_errors_total. */
  readonly terminalErrors: CounterHook;
  /** controller_runtime_reconcile_time_seconds. */
  readonly time: HistogramHook;
  /** controller_runtime_active_workers. */
  readonly activeWorkers: GaugeHook;
  /** controller_runtime_max_concurrent_reconciles. */
  readonly maxConcurrentReconciles: SettableGaugeHook;
}

/** Hands out metric hooks by queue / controller name. */
export interface MetricsProvider {
  workQueue(name: string): WorkQueueMetrics;
  controller(name: string): ReconcileMetrics;
}

const nop = (): void => {};
const counter: CounterHook = { inc: nop };
const gauge: GaugeHook = { inc: nop, dec: nop };
const settable: SettableGaugeHook = { set: nop };
const histogram: HistogramHook = { observe: nop };

const noopWorkQueue: WorkQueueMetrics = {
  depth: gauge,
  adds: counter,
  latency: histogram,
  workDuration: histogram,
  unfinishedWorkSeconds: settable,
  longestRunningProcessorSeconds: settable,
  retries: counter,
};

const noopReconcile: ReconcileMetrics = {
  total: { success: counter, error: counter, requeue: counter, requeue_after: counter },
  errors: counter,
  terminalErrors: counter,
  time: histogram,
  activeWorkers: gauge,
  maxConcurrentReconciles: settable,
};

/** Records nothing; the default when no provider is given. */
export const noopMetrics: MetricsProvider = {
  workQueue: () => noopWorkQueue,
  controller: () => noopReconcile,
};
