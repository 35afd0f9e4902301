import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { and, conditionEqual, fieldValue, fieldsEqual, observedGeneration, progressionProber, type Prober } from './probes.ts';

const obj = (o: Partial<KubeObject> & Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, ...o }) as KubeObject;
const always = (status: 'True' | 'False' | 'Unknown', ...messages: string[]): Prober => () => ({ status, messages });

describe('probes (boxcutter’s verdicts and messages)', () => {
  it('FieldValue', () => {
    const p = fieldValue('status.phase', 'Bound');
    expect(p(obj({ status: { phase: 'Bound' } }))).toEqual({ status: 'True', messages: ['value at key "status.phase" == "Bound"'] });
    expect(p(obj({ status: { phase: 'Pending' } }))).toEqual({ status: 'False', messages: ['value at key "status.phase" != "Bound"; expected: "Bound" got: "Pending"'] });
    expect(p(obj({}))).toEqual({ status: 'False', messages: ['missing key: "status.phase"'] });
    expect(p(obj({ status: { phase: 3 } })).messages).toEqual(['value at key "status.phase" != "Bound"; expected: "Bound" got: 3']);
    expect(p(obj({ status: 'weird' })).messages[0]).toMatch(/^error locating key "status.phase"; \.status accessor error: "weird" is of the type string, expected map\[string\]interface\{\}$/);
  });

  it('FieldsEqual', () => {
    const p = fieldsEqual('status.updatedReplicas', 'status.replicas');
    expect(p(obj({ status: { updatedReplicas: 1, replicas: 1 } }))).toEqual({ status: 'True', messages: ['"status.updatedReplicas" == "status.replicas"'] });
    expect(p(obj({ status: { updatedReplicas: 0, replicas: 1 } }))).toEqual({ status: 'False', messages: ['"status.updatedReplicas" != "status.replicas" expected: 0 got: 1'] });
    expect(p(obj({ status: { replicas: 1 } })).messages).toEqual(['"status.updatedReplicas" missing']);
    expect(p(obj({ status: { updatedReplicas: 1 } })).messages).toEqual(['"status.replicas" missing']);
  });

  it('ConditionEqual', () => {
    const p = conditionEqual('Available', 'True');
    const withConds = (conditions: unknown, generation?: number): KubeObject => obj({ metadata: { name: 'd', ...(generation && { generation }) }, status: { conditions } });
    expect(p(obj({}))).toEqual({ status: 'Unknown', messages: ['missing .status.conditions'] });
    expect(p(withConds('x'))).toEqual({ status: 'Unknown', messages: ['malformed .status.conditions'] });
    expect(p(withConds([]))).toEqual({ status: 'Unknown', messages: ['missing .status.condition["Available"]'] });
    expect(p(withConds([{ type: 'Available', status: 'True' }]))).toEqual({ status: 'True', messages: ['.status.condition["Available"] is True'] });
    expect(p(withConds([{ type: 'Available', status: 'False' }]))).toEqual({ status: 'False', messages: ['.status.condition["Available"] is False'] });
    expect(p(withConds([{ type: 'Available', status: 'True', observedGeneration: 1 }], 2))).toEqual({ status: 'Unknown', messages: ['.status.condition["Available"] outdated'] });
  });

  it('observedGeneration wraps: a lagging status is Unknown whatever the inner probe says', () => {
    const p = observedGeneration(always('True', 'fine'));
    expect(p(obj({ metadata: { name: 'd', generation: 2 }, status: { observedGeneration: 1 } }))).toEqual({ status: 'Unknown', messages: ['.status outdated'] });
    expect(p(obj({ metadata: { name: 'd', generation: 2 }, status: { observedGeneration: 2 } }))).toEqual({ status: 'True', messages: ['fine'] });
  });

  it('and: Unknown wins over False over True, keeping only the winners’ messages', () => {
    expect(and([always('True', 'a'), always('False', 'b'), always('Unknown', 'c'), always('False', 'd')])(obj({}))).toEqual({ status: 'Unknown', messages: ['c'] });
    expect(and([always('True', 'a'), always('False', 'b'), always('False', 'd')])(obj({}))).toEqual({ status: 'False', messages: ['b', 'd'] });
    expect(and([always('True', 'a'), always('True', 'b')])(obj({}))).toEqual({ status: 'True', messages: ['a', 'b'] });
    expect(and([])(obj({}))).toEqual({ status: 'True', messages: [] });
  });

  it('selectors pass what they do not pick', () => {
    const p = progressionProber([
      { selector: { type: 'GroupKind', groupKind: { group: 'apps', kind: 'Deployment' } }, assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'x', value: 'y' } }] },
    ]);
    expect(p(obj({ apiVersion: 'apps/v1', kind: 'Deployment' })).status).toBe('False');
    expect(p(obj({ apiVersion: 'v1', kind: 'Deployment' }))).toEqual({ status: 'True', messages: [] });
  });

  it('builds spec.progressionProbes: GroupKind and Label selectors, each behind the observedGeneration check', () => {
    const p = progressionProber([
      { selector: { type: 'GroupKind', groupKind: { group: '', kind: 'ConfigMap' } }, assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'data.foo', value: 'bar' } }] },
      { selector: { type: 'Label', label: { matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] } }, assertions: [{ type: 'ConditionEqual', conditionEqual: { type: 'Ready', status: 'True' } }] },
    ]);
    expect(p(obj({ data: { foo: 'bar' } })).status).toBe('True');
    expect(p(obj({ data: { foo: 'no' } })).messages).toEqual(['value at key "data.foo" != "bar"; expected: "bar" got: "no"']);
    expect(p(obj({ kind: 'Pod', metadata: { name: 'p', labels: { k: 'v' } } })).messages).toEqual(['missing .status.conditions']);
    expect(progressionProber(undefined)(obj({}))).toEqual({ status: 'True', messages: [] });
    expect(() => progressionProber([{ selector: { type: 'Nope' as never }, assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'a', value: 'b' } }] }])).toThrow(
      'unknown progressionProbe selector type: Nope',
    );
    expect(() => progressionProber([{ selector: { type: 'GroupKind', groupKind: { group: '', kind: 'X' } }, assertions: [{ type: 'Nope' as never }] }])).toThrow(
      'unknown progressionProbe assertion probe type: Nope',
    );
  });
});
