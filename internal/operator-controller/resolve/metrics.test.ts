import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../shared/observability/index.ts';
import { createResolutionMetrics, RESOLUTION_DURATION_METRIC } from './metrics.ts';
import { buildExtension, fakeResolver, genPackage } from './testing.ts';

async function counts(registry: Registry): Promise<Record<string, number>> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === RESOLUTION_DURATION_METRIC);
  const out: Record<string, number> = {};
  for (const v of (m?.values ?? []) as { metricName?: string; labels: Record<string, string | number>; value: number }[]) {
    if (v.metricName === `${RESOLUTION_DURATION_METRIC}_count`) out[String(v.labels.outcome)] = v.value;
  }
  return out;
}

describe('olmv1_resolution_duration_seconds', () => {
  it('exists at zero for both outcomes, then counts each resolution by outcome', async () => {
    const registry = new Registry();
    const metrics = createResolutionMetrics(registry);
    expect(await counts(registry)).toEqual({ success: 0, failure: 0 });
    const r = fakeResolver({ c: { content: genPackage('foo') } }, { metrics });
    await r.resolveBundle(buildExtension('foo', [], ''), undefined);
    await r.resolveBundle(buildExtension('foo', [], '>=1.0.0'), undefined);
    await expect(r.resolveBundle(buildExtension('foo', [], '9.9.9'), undefined)).rejects.toThrow('no bundles found for package "foo" matching version "9.9.9"');
    await expect(r.resolveBundle(buildExtension('foo', [], 'foobar'), undefined)).rejects.toThrow('improper constraint');
    expect(await counts(registry)).toEqual({ success: 2, failure: 2 });
    const text = await registry.metrics();
    expect(text).toContain('# TYPE olmv1_resolution_duration_seconds histogram');
    expect(text).toMatch(/olmv1_resolution_duration_seconds_bucket\{le="0\.001",outcome="success"\} \d/);
  });

  it('registers beside the process metrics on the same registry', async () => {
    const process = createMetrics({ defaultMetrics: false });
    createResolutionMetrics(process.registry);
    expect(await counts(process.registry)).toEqual({ success: 0, failure: 0 });
    expect(() => createResolutionMetrics(process.registry)).toThrow();
  });
});
