import { describe, expect, it } from 'vitest';
import { compareRefs, componentRef, operatorStatus, type Component } from './components.ts';

const csv: Component = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  obj: {
    metadata: { name: 'etcd.v1', namespace: 'ns' },
    status: {
      phase: 'Succeeded',
      reason: 'InstallSucceeded',
      message: 'install strategy completed with no errors',
      lastUpdateTime: '2026-01-01T00:00:01Z',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      conditions: [{ phase: 'Pending' }],
    },
  },
};

describe('componentRef', () => {
  it("makes a CSV's phase its one condition", () => {
    expect(componentRef(csv)).toEqual({
      kind: 'ClusterServiceVersion',
      apiVersion: 'operators.coreos.com/v1alpha1',
      namespace: 'ns',
      name: 'etcd.v1',
      conditions: [
        {
          type: 'Succeeded',
          status: 'True',
          reason: 'InstallSucceeded',
          message: 'install strategy completed with no errors',
          lastUpdateTime: '2026-01-01T00:00:01Z',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
  });
  it('gives a CSV without status a condition of empty type', () => {
    expect(componentRef({ ...csv, obj: { metadata: { name: 'x', namespace: 'ns' } } }).conditions).toEqual([{ type: '', status: 'True' }]);
  });
  it("copies any other object's status.conditions, upstream's six fields only", () => {
    const ref = componentRef({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      obj: {
        metadata: { name: 'd', namespace: 'ns' },
        status: { conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok', lastUpdateTime: 't1', lastTransitionTime: 't0', observedGeneration: 3 }] },
      },
    });
    expect(ref.conditions).toEqual([{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok', lastUpdateTime: 't1', lastTransitionTime: 't0' }]);
  });
  it('leaves out namespace for a cluster-scoped object and conditions for an object without them', () => {
    expect(componentRef({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', obj: { metadata: { name: 'cr' } } })).toEqual({
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      name: 'cr',
    });
  });
});

describe('refs order', () => {
  it('sorts by kind, apiVersion, namespace, name (byte order)', () => {
    const refs = [
      { kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'b', name: 'a' },
      { kind: 'ClusterServiceVersion', apiVersion: 'operators.coreos.com/v1alpha1', namespace: 'a', name: 'z' },
      { kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'a', name: 'b' },
      { kind: 'Deployment', apiVersion: 'apps/v1', namespace: 'a', name: 'B' },
      { kind: 'CustomResourceDefinition', apiVersion: 'apiextensions.k8s.io/v1', name: 'w' },
    ];
    expect([...refs].sort(compareRefs).map((r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`)).toEqual([
      'ClusterServiceVersion/a/z',
      'CustomResourceDefinition//w',
      'Deployment/a/B',
      'Deployment/a/b',
      'Deployment/b/a',
    ]);
  });
});

describe('operatorStatus', () => {
  it('always sets the label selector; refs only when there are components', () => {
    expect(operatorStatus('etcd.ns', [])).toEqual({ components: { labelSelector: { matchExpressions: [{ key: 'operators.coreos.com/etcd.ns', operator: 'Exists' }] } } });
    const status = operatorStatus('etcd.ns', [{ apiVersion: 'v1', kind: 'ServiceAccount', obj: { metadata: { name: 'sa', namespace: 'ns' } } }, csv]);
    expect(status.components?.refs?.map((r) => r.kind)).toEqual(['ClusterServiceVersion', 'ServiceAccount']);
  });
});
