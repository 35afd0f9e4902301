// Upstream's InstallPlan metrics (OLM pkg/metrics): names and help texts as upstream's.
import { Counter, countGauge, type Registry } from '../../shared/observability/index.ts';

export interface InstallPlanMetrics {
  /** One applied step drew API warnings (installplan_warnings_total). */
  warning(): void;
}

export function installPlanMetrics(registry: Registry, count: () => number): InstallPlanMetrics {
  const registers = [registry];
  countGauge(registry, 'install_plan_count', 'Number of install plans', count);
  const warnings = new Counter({
    name: 'installplan_warnings_total',
    help: 'monotonic count of resources that generated warnings when applied as part of an InstallPlan (for example, due to deprecation)',
    registers,
  });
  return { warning: () => warnings.inc() };
}
