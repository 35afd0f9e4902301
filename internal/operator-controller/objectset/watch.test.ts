import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { DRIFT_KEY, driftKey, mattersToEngine } from './watch.ts';

const cos = (name: string, uid: string, controller: boolean) => ({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name, uid, controller, blockOwnerDeletion: true });

function cached(o: KubeObject): KubeObject {
  return { ...o, [DRIFT_KEY]: driftKey(o) };
}

const deployment = (over: Partial<KubeObject['metadata']> = {}, status: unknown = { replicas: 1 }, replicas = 1): KubeObject =>
  cached({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'n', uid: 'u', resourceVersion: '1', generation: 1, labels: { a: 'b' }, ownerReferences: [cos('x-2', 'u2', true), cos('x-1', 'u1', false)], ...over },
    spec: { replicas },
    status,
  });

describe('managed object watch', () => {
  it('keys drift on the generation, or on the body for kinds without one', () => {
    expect(driftKey(deployment())).toBe('g:1');
    expect(driftKey(deployment({ labels: { other: 'x' } }))).toBe('g:1');
    const cm = (data: Record<string, string>, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: rv, annotations: { x: rv } }, data });
    expect(driftKey(cm({ a: '1' }, '1'))).toBe(driftKey(cm({ a: '1' }, '2')));
    expect(driftKey(cm({ a: '1' }, '1'))).not.toBe(driftKey(cm({ a: '2' }, '1')));
  });

  it('re-enqueues for what the engine reads, not for another revision letting go or managed fields', () => {
    const before = deployment();
    // revision 1 drops its owner reference (the teardown of an archived revision)
    expect(mattersToEngine(before, deployment({ resourceVersion: '2', ownerReferences: [cos('x-2', 'u2', true)] }))).toBe(false);
    expect(mattersToEngine(before, deployment({ resourceVersion: '2', managedFields: [] }))).toBe(false);
    expect(mattersToEngine(before, deployment({ resourceVersion: '2', ownerReferences: [cos('x-1', 'u1', true)] }))).toBe(true);
    expect(mattersToEngine(before, deployment({ resourceVersion: '2', labels: {} }))).toBe(true);
    expect(mattersToEngine(before, deployment({ resourceVersion: '2', annotations: { k: 'v' } }))).toBe(true);
    expect(mattersToEngine(before, deployment({ resourceVersion: '2', generation: 2 }))).toBe(true);
    expect(mattersToEngine(before, deployment({ resourceVersion: '2', deletionTimestamp: '2026-01-01T00:00:00Z' }))).toBe(true);
    expect(mattersToEngine(before, deployment({ resourceVersion: '2' }, { replicas: 1, availableReplicas: 1 }))).toBe(true);
  });
});
