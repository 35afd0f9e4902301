import { describe, expect, it } from 'vitest';
import type { CatalogSource } from '../../../api/operators/index.ts';
import { formatGoDuration, parseGoDuration, pollInterval } from './interval.ts';
import { sourceTypeProblem } from './reconciler.ts';

const cs = (spec: CatalogSource['spec']): CatalogSource => ({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', metadata: { name: 'c', namespace: 'n' }, spec });

describe('upstream’s texts', () => {
  it('validateSourceType messages', () => {
    expect(sourceTypeProblem(cs({ sourceType: 'grpc' }))).toBe('image and address unset: at least one must be set for sourcetype: grpc');
    expect(sourceTypeProblem(cs({ sourceType: 'configmap' }))).toBe('configmap name unset: must be set for sourcetype: configmap');
    expect(sourceTypeProblem(cs({ sourceType: 'internal' }))).toBe('configmap name unset: must be set for sourcetype: internal');
    expect(sourceTypeProblem(cs({ sourceType: 'ftp' }))).toBe('unknown sourcetype: ftp');
    expect(sourceTypeProblem(cs({ sourceType: 'grpc', address: 'a:1' }))).toBeUndefined();
  });

  it('Go durations and time.ParseDuration’s errors', () => {
    expect(parseGoDuration('10m')).toEqual({ ms: 600_000 });
    expect(parseGoDuration('1h30m')).toEqual({ ms: 5_400_000 });
    expect(parseGoDuration('1.5s')).toEqual({ ms: 1500 });
    expect(parseGoDuration('0')).toEqual({ ms: 0 });
    expect(parseGoDuration('10')).toEqual({ error: 'time: missing unit in duration "10"' });
    expect(parseGoDuration('soon')).toEqual({ error: 'time: invalid duration "soon"' });
    expect(parseGoDuration('5d')).toEqual({ error: 'time: unknown unit "d" in duration "5d"' });
    expect(formatGoDuration(15 * 60_000)).toBe('15m0s');
    expect(formatGoDuration(3_600_000)).toBe('1h0m0s');
  });

  it('an unparsable poll interval falls back to 15m with upstream’s message', () => {
    expect(pollInterval('45s')).toEqual({ ms: 45_000 });
    expect(pollInterval('10')).toEqual({
      ms: 900_000,
      error: 'error parsing spec.updateStrategy.registryPoll.interval. Using the default value of 15m0s instead. Error: time: missing unit in duration "10"',
    });
  });
});
