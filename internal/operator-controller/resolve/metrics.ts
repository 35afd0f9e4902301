// olmv1_resolution_duration_seconds{outcome}: how long ClusterExtension resolution takes, split
// by outcome (success | failure). Registered on the process's registry (see
// internal/shared/observability/metrics.ts); the resolver only sees the small hook below.
import { Histogram, type Registry } from '../../shared/observability/index.ts';

export type ResolutionOutcome = 'success' | 'failure';

export interface ResolutionMetrics {
  observe(outcome: ResolutionOutcome, seconds: number): void;
}

export const noopResolutionMetrics: ResolutionMetrics = { observe: () => {} };

export const RESOLUTION_DURATION_METRIC = 'olmv1_resolution_duration_seconds';

// Resolution from a warm cache is sub-millisecond; a cold one waits for catalog downloads.
const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Registers the histogram on `registry` (once per registry) and returns the resolver's hook. */
export function createResolutionMetrics(registry: Registry): ResolutionMetrics {
  const histogram = new Histogram({
    name: RESOLUTION_DURATION_METRIC,
    help: 'Duration of ClusterExtension bundle resolution in seconds, by outcome (success or failure)',
    labelNames: ['outcome'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const success = histogram.labels({ outcome: 'success' });
  const failure = histogram.labels({ outcome: 'failure' });
  // Both series exist from the start so rate() and absent() behave before the first resolution.
  histogram.zero({ outcome: 'success' });
  histogram.zero({ outcome: 'failure' });
  return { observe: (outcome, seconds) => (outcome === 'success' ? success : failure).observe(seconds) };
}
