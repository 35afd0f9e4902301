// Logs, metrics and health endpoints.
export type { HealthServer } from './health-server.ts';
export { startHealthServer } from './health-server.ts';
export type { LogFields, LogFormat, LogLevel, Logger } from './logger.ts';
export { createLogger, noopLogger } from './logger.ts';
export type { MetricsProvider, ReconcileMetrics, WorkQueueMetrics } from './metrics-hooks.ts';
export { noopMetrics } from './metrics-hooks.ts';
export type { Metrics } from './metrics.ts';
export { countGauge, createMetrics } from './metrics.ts';
export { collectGarbage, idleCollector, tuneMemory } from './memory.ts';
export { Counter, Gauge, Histogram, Registry, Summary } from './prom.ts';
