// What every CSV-side controller is built with: the manager's logger and metrics, and the rate limiter the options
// name (a fresh one per controller).
import type { RateLimiter } from '../../shared/controller/index.ts';
import type { Logger, Metrics } from '../../shared/observability/index.ts';

export interface ControllerBase {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly rateLimiter?: () => RateLimiter<string>;
}
