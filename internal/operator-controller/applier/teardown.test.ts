import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { describeRemaining } from './teardown.ts';

const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com', deletionTimestamp: '2026-01-02T03:04:05Z', finalizers: ['customresourcecleanup.apiextensions.k8s.io'] },
  status: {
    conditions: [
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
    ],
  },
};
const widget = (name: string, finalizers: string[]): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns', deletionTimestamp: '2026-01-02T03:04:06Z', finalizers },
});

describe('describeRemaining', () => {
  it('says since when a CRD is being deleted, what holds it, and which custom resources are left with their finalizers', () => {
    expect(describeRemaining({ object: crd, customResources: { items: [widget('w1', ['example.com/hold'])], total: 1 } })).toBe(
      'Object CustomResourceDefinition.apiextensions.k8s.io/v1 widgets.example.com: being deleted since 2026-01-02T03:04:05Z, ' +
        'finalizers [customresourcecleanup.apiextensions.k8s.io]; InstanceDeletionInProgress: CustomResource deletion is in progress; ' +
        '1 Widget left: ns/w1 (being deleted since 2026-01-02T03:04:06Z, finalizers [example.com/hold])',
    );
  });

  it('counts custom resources it does not name', () => {
    const items = [widget('a', ['x/y']), widget('b', ['x/y']), widget('c', [])];
    expect(describeRemaining({ object: crd, customResources: { items, total: 7 } })).toMatch(/; 7 Widget left: ns\/a \(.*\), ns\/b \(.*\), ns\/c \(being deleted since 2026-01-02T03:04:06Z\), and 4 more$/);
  });

  it('describes any object held by a foreign finalizer, and one not deleted yet', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', deletionTimestamp: '2026-01-02T03:04:05Z', finalizers: ['example.com/keep'] } };
    expect(describeRemaining({ object: cm })).toBe('Object ConfigMap.v1 ns/c: being deleted since 2026-01-02T03:04:05Z, finalizers [example.com/keep]');
    expect(describeRemaining({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } } })).toBe('Object ConfigMap.v1 ns/c: not deleted yet');
  });

  it('gives a namespace’s deletion conditions', () => {
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n', deletionTimestamp: '2026-01-02T03:04:05Z', finalizers: [] },
      status: { phase: 'Terminating', conditions: [{ type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: widgets.example.com has 1 resource instances' }, { type: 'NamespaceDeletionDiscoveryFailure', status: 'False' }] },
    };
    expect(describeRemaining({ object: ns })).toBe(
      'Object Namespace.v1 n: being deleted since 2026-01-02T03:04:05Z; SomeResourcesRemain: Some resources are remaining: widgets.example.com has 1 resource instances',
    );
  });
});
