// Logs, metrics and health endpoints.
export type { HealthCheck, HealthServer, HealthServerOptions, MetricsSource } from './health-server.ts';
export { startHealthServer } from './health-server.ts';
export type { LogFields, LogFormat, LogLevel, Logger, LoggerOptions } from './logger.ts';
export { LOG_FORMATS, LOG_LEVELS, createLogger, noopLogger, parseLogLevel, serializeError } from './logger.ts';
export type {
  CounterHook,
  GaugeHook,
  HistogramHook,
  MetricsProvider,
  ReconcileMetrics,
  ReconcileResult,
  SettableGaugeHook,
  WorkQueueMetrics,
} from './metrics-hooks.ts';
export { noopMetrics } from './metrics-hooks.ts';
export type { Metrics, MetricsOptions } from './metrics.ts';
export { createMetrics } from './metrics.ts';
export type { IdleCollectorOptions } from './memory.ts';
export { collectGarbage, IdleCollector, idleCollector, tuneMemory } from './memory.ts';
export { Counter, Gauge, Histogram, Registry, Summary, exponentialBuckets, linearBuckets } from './prom.ts';
