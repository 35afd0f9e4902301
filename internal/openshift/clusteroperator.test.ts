import { describe, expect, it } from 'vitest';
import { conditionDiff, conditionsEqual, libraryGoSetCondition, olmSetIfChanged, operatorStatusChangedMessage, versionsMatch, type ClusterOperatorStatus } from './clusteroperator.ts';

describe('OLM helpers (TestConditionsEqual, TestVersionsMatch)', () => {
  it('conditionsEqual ignores lastTransitionTime', () => {
    const a = { type: 'Upgradeable', status: 'True' as const, lastTransitionTime: 't1' };
    expect(conditionsEqual(a, { ...a, lastTransitionTime: 't2' })).toBe(true);
    expect(conditionsEqual(a, { ...a, message: 'm' })).toBe(false);
    expect(conditionsEqual(a, { ...a, reason: 'r' })).toBe(false);
    expect(conditionsEqual(a, { ...a, status: 'False' })).toBe(false);
    expect(conditionsEqual(a, undefined)).toBe(false);
    expect(conditionsEqual(undefined, undefined)).toBe(true);
  });

  it('versionsMatch is multiset equality', () => {
    const a = { name: 'operator', version: '1' };
    const b = { name: 'olm', version: '2' };
    expect(versionsMatch([a, b], [b, a])).toBe(true);
    expect(versionsMatch([a, a], [a, b])).toBe(false);
    expect(versionsMatch([a], [a, a])).toBe(false);
    expect(versionsMatch(undefined, [])).toBe(true);
    expect(versionsMatch([a, a, b], [a, b, a])).toBe(true);
  });

  it('OLM sets a condition only when it differs, moving it to the end with a new transition time', () => {
    const s: ClusterOperatorStatus = {};
    olmSetIfChanged(s, { type: 'Upgradeable', status: 'True' }, 't1');
    olmSetIfChanged(s, { type: 'Available', status: 'True' }, 't1');
    olmSetIfChanged(s, { type: 'Upgradeable', status: 'True' }, 't2');
    expect(s.conditions).toEqual([
      { type: 'Upgradeable', status: 'True', lastTransitionTime: 't1' },
      { type: 'Available', status: 'True', lastTransitionTime: 't1' },
    ]);
    olmSetIfChanged(s, { type: 'Upgradeable', status: 'True', message: 'm' }, 't3');
    expect(s.conditions?.map((c) => [c.type, c.lastTransitionTime])).toEqual([
      ['Available', 't1'],
      ['Upgradeable', 't3'],
    ]);
  });
});

describe('library-go', () => {
  it('SetStatusCondition keeps the place and moves the transition time only with the status', () => {
    const s: ClusterOperatorStatus = { conditions: [{ type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: 'All is well', lastTransitionTime: 't1' }, { type: 'Available', status: 'True', lastTransitionTime: 't0' }] };
    libraryGoSetCondition(s, { type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: 'other' }, 't2');
    expect(s.conditions?.[0]).toEqual({ type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: 'other', lastTransitionTime: 't1' });
    libraryGoSetCondition(s, { type: 'Upgradeable', status: 'False', reason: 'X' }, 't3');
    expect(s.conditions?.[0]).toEqual({ type: 'Upgradeable', status: 'False', reason: 'X', lastTransitionTime: 't3' });
    libraryGoSetCondition(s, { type: 'Degraded', status: 'False' }, 't4');
    expect(s.conditions?.map((c) => c.type)).toEqual(['Upgradeable', 'Available', 'Degraded']);
  });

  it('GetStatusDiff lines and the OperatorStatusChanged message', () => {
    const before: ClusterOperatorStatus = { conditions: [{ type: 'Upgradeable', status: 'True', message: 'All is well', lastTransitionTime: 't' }] };
    const flipped: ClusterOperatorStatus = { conditions: [{ type: 'Upgradeable', status: 'False', message: 'a "b"\nc', lastTransitionTime: 't' }] };
    expect(conditionDiff(before, flipped, ['Upgradeable'])).toBe('Upgradeable changed from True to False ("a \\"b\\"\\nc")');
    expect(conditionDiff(flipped, { conditions: [{ ...flipped.conditions![0]!, message: 'x' }] }, ['Upgradeable'])).toBe('Upgradeable message changed from "a \\"b\\"\\nc" to "x"');
    expect(conditionDiff(undefined, before, ['Upgradeable'])).toBe('Upgradeable set to True ("All is well")');
    expect(conditionDiff(before, before, ['Upgradeable'])).toBe('');
    expect(conditionDiff({}, { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: 't' }] }, ['Upgradeable'])).toBe('');
    expect(operatorStatusChangedMessage('olm', 'Upgradeable set to True ("All is well")')).toBe('Status for clusteroperator/olm changed: Upgradeable set to True ("All is well")');
  });
});
