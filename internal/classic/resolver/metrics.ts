// olm_resolution_duration_seconds{outcome}: upstream OLM's summary of classic resolution time
// (OLM pkg/metrics/metrics.go; R/instrumented_resolver.go), outcome succeeded|failed, objectives
// {0.9: 0.01, 0.95: 0.05, 0.99: 0.001}. Registered on the process's registry (see
// internal/shared/observability/metrics.ts); the resolver only sees the small hook below.
import { Summary, type Registry } from '../../shared/observability/index.ts';

export type ClassicResolutionOutcome = 'succeeded' | 'failed';

export interface ClassicResolutionMetrics {
  observe(outcome: ClassicResolutionOutcome, seconds: number): void;
}

export const noopClassicResolutionMetrics: ClassicResolutionMetrics = { observe: () => {} };

export const CLASSIC_RESOLUTION_DURATION_METRIC = 'olm_resolution_duration_seconds';

/** Registers the summary on `registry` (once per registry) and returns the resolver's hook. */
export function createClassicResolutionMetrics(registry: Registry): ClassicResolutionMetrics {
  const summary = new Summary({
    name: CLASSIC_RESOLUTION_DURATION_METRIC,
    help: 'The duration of resolution attempts',
    labelNames: ['outcome'],
    percentiles: [0.9, 0.95, 0.99],
    registers: [registry],
  });
  const succeeded = summary.labels({ outcome: 'succeeded' });
  const failed = summary.labels({ outcome: 'failed' });
  return { observe: (outcome, seconds) => (outcome === 'succeeded' ? succeeded : failed).observe(seconds) };
}
