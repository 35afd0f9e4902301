import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ESTABLISH_REQUESTED, establishAction, probe, probeAll, STUCK_CRD_MS, stuckSince } from './health.ts';

const crd = (established?: string): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  ...(established && { status: { conditions: [{ type: 'Established', status: established }] } }),
});
const deployment = (status: Record<string, unknown>, generation = 2): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns', generation },
  status,
});
const available = [{ type: 'Available', status: 'True' }];

describe('health probes', () => {
  it.each([
    ['established CRD', crd('True'), []],
    ['CRD without status', crd(), ['condition "Established" is "missing", not "True"']],
    ['CRD not established', crd('False'), ['condition "Established" is "False", not "True"']],
    ['available deployment', deployment({ observedGeneration: 2, replicas: 1, updatedReplicas: 1, conditions: available }), []],
    ['deployment not observed', deployment({ observedGeneration: 1, replicas: 1, updatedReplicas: 1, conditions: available }), ['.status.observedGeneration 1 is behind .metadata.generation 2']],
    ['deployment rolling', deployment({ observedGeneration: 2, replicas: 2, updatedReplicas: 1, conditions: available }), ['.status.updatedReplicas 1 != .status.replicas 2']],
    ['deployment unavailable', deployment({ observedGeneration: 2, replicas: 1, updatedReplicas: 1, conditions: [{ type: 'Available', status: 'False' }] }), ['condition "Available" is "False", not "True"']],
    ['config map', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, []],
  ])('%s', (_name, obj, want) => {
    expect(probe(obj)).toEqual(want);
  });

  it('gives one line per unhealthy object', () => {
    expect(probeAll([crd('True'), crd('False'), deployment({ observedGeneration: 2, replicas: 1, updatedReplicas: 0 })])).toEqual([
      'Object CustomResourceDefinition.apiextensions.k8s.io/v1 widgets.example.com: condition "Established" is "False", not "True"',
      'Object Deployment.apps/v1 ns/d: .status.updatedReplicas 0 != .status.replicas 1; condition "Available" is "missing", not "True"',
    ]);
  });
});

describe('stuckSince', () => {
  const withConditions = (conditions: { type: string; status: string; lastTransitionTime?: string }[]) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' }, status: { conditions } });
  it('is when the names were accepted, for a CRD not Established', () => {
    expect(stuckSince(withConditions([{ type: 'NamesAccepted', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z' }, { type: 'Established', status: 'False' }]))).toBe(Date.parse('2026-01-02T03:04:05Z'));
  });
  it('is undefined once Established, or while the names are not accepted', () => {
    expect(stuckSince(withConditions([{ type: 'NamesAccepted', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z' }, { type: 'Established', status: 'True' }]))).toBeUndefined();
    expect(stuckSince(withConditions([{ type: 'NamesAccepted', status: 'False', lastTransitionTime: '2026-01-02T03:04:05Z' }]))).toBeUndefined();
    expect(stuckSince(withConditions([]))).toBeUndefined();
  });
});

describe('establishAction', () => {
  const accepted = '2026-01-02T03:04:05Z';
  const at = Date.parse(accepted);
  const stuck = (annotated: boolean) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'x', ...(annotated && { annotations: { [ESTABLISH_REQUESTED]: accepted } }) },
    status: { conditions: [{ type: 'NamesAccepted', status: 'True', lastTransitionTime: accepted }, { type: 'Established', status: 'False' }] },
  });
  const established = (annotations?: Record<string, string>) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'x', ...(annotations && { annotations }) },
    status: { conditions: [{ type: 'NamesAccepted', status: 'True', lastTransitionTime: accepted }, { type: 'Established', status: 'True' }] },
  });

  it('waits a few seconds (not half a minute) before asking a stuck CRD to be established', () => {
    expect(STUCK_CRD_MS).toBeGreaterThanOrEqual(5_000);
    expect(STUCK_CRD_MS).toBeLessThanOrEqual(10_000);
    expect(establishAction(stuck(false), at + 1_000)).toBeUndefined();
    expect(establishAction(stuck(false), at + STUCK_CRD_MS)).toBe('request');
    expect(establishAction(stuck(true), at + 60_000)).toBe('request'); // still stuck: ask again
    expect(establishAction(stuck(false), at + 1_000, 500)).toBe('request');
  });

  it('clears the request once the CRD is Established, and leaves other CRDs alone', () => {
    expect(establishAction(established({ [ESTABLISH_REQUESTED]: accepted, other: 'x' }), at + 60_000)).toBe('clear');
    expect(establishAction(established({ other: 'x' }), at + 60_000)).toBeUndefined();
    expect(establishAction(established(), at)).toBeUndefined();
    // Names not accepted yet: neither stuck nor established.
    expect(establishAction({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x', annotations: { [ESTABLISH_REQUESTED]: accepted } } }, at)).toBeUndefined();
  });
});
