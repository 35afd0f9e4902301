// The observability and controller pieces the manager uses, in one place.
export { createLogger, createMetrics, startHealthServer, tuneMemory } from '../observability/index.ts';
export type { HealthServer, Logger, Metrics } from '../observability/index.ts';
export { errorMessage } from '../controller/index.ts';
