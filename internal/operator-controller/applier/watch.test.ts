import { describe, expect, it } from 'vitest';
import { drifted } from './watch.ts';

const obj = (o: { generation?: number; labels?: Record<string, string>; digest?: string; rv?: string; health?: string }) => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name: 'x', resourceVersion: o.rv ?? '1', ...(o.generation !== undefined && { generation: o.generation }), ...(o.labels && { labels: o.labels }) },
  annotationsDigest: o.digest ?? '',
  health: o.health ?? '',
});

describe('drifted', () => {
  it('ignores status-only updates of kinds with a generation', () => {
    expect(drifted(obj({ generation: 2, rv: '1' }), obj({ generation: 2, rv: '2' }))).toBe(false);
  });
  it('sees a new generation, changed labels or annotations', () => {
    expect(drifted(obj({ generation: 2 }), obj({ generation: 3 }))).toBe(true);
    expect(drifted(obj({ generation: 2, labels: { a: '1' } }), obj({ generation: 2, labels: { a: '2' } }))).toBe(true);
    expect(drifted(obj({ generation: 2, labels: { a: '1' } }), obj({ generation: 2 }))).toBe(true);
    expect(drifted(obj({ generation: 2, digest: 'a' }), obj({ generation: 2, digest: 'b' }))).toBe(true);
  });
  it('sees a status update that changes the health verdict, either way', () => {
    const unavailable = 'condition "Available" is "False", not "True"';
    expect(drifted(obj({ generation: 2 }), obj({ generation: 2, health: unavailable }))).toBe(true);
    expect(drifted(obj({ generation: 2, health: unavailable }), obj({ generation: 2 }))).toBe(true);
    expect(drifted(obj({ generation: 2, health: unavailable, rv: '1' }), obj({ generation: 2, health: unavailable, rv: '2' }))).toBe(false);
  });
  it('counts every update of kinds without a generation, and an unknown previous state', () => {
    expect(drifted(obj({ rv: '1' }), obj({ rv: '2' }))).toBe(true);
    expect(drifted(undefined, obj({ generation: 1 }))).toBe(true);
  });
});
