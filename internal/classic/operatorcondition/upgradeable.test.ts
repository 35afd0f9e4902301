import { describe, expect, it } from 'vitest';
import type { OperatorCondition } from '../../../api/operators/index.ts';
import { operatorUpgradeable } from './upgradeable.ts';

const oc = (o: { generation?: number; spec?: OperatorCondition['spec']; status?: OperatorCondition['status'] }): OperatorCondition => ({
  metadata: { name: 'op.v1', namespace: 'ns', generation: o.generation ?? 1 },
  ...(o.spec && { spec: o.spec }),
  ...(o.status && { status: o.status }),
});
const cond = (status: 'True' | 'False', message: string, observedGeneration = 1) => ({ type: 'Upgradeable', status, reason: 'R', message, lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration });

// upstream olm/operatorconditions.go isOperatorUpgradeable and its tests' cases.
describe('operatorUpgradeable', () => {
  it('no OperatorCondition: upgradeable', () => expect(operatorUpgradeable(undefined)).toEqual({ upgradeable: true }));
  it('no Upgradeable condition: upgradeable', () => expect(operatorUpgradeable(oc({ status: { conditions: [] } }))).toEqual({ upgradeable: true }));
  it('False: not upgradeable, with the message', () =>
    expect(operatorUpgradeable(oc({ status: { conditions: [cond('False', 'busy')] } }))).toEqual({ upgradeable: false, reason: 'the operator is not upgradeable: busy' }));
  it('True: upgradeable', () => expect(operatorUpgradeable(oc({ status: { conditions: [cond('True', 'ok')] } }))).toEqual({ upgradeable: true }));
  it('observed for another generation: outdated', () =>
    expect(operatorUpgradeable(oc({ generation: 2, status: { conditions: [cond('True', 'ok', 1)] } }))).toEqual({
      upgradeable: false,
      reason: 'the operatorcondition status "Upgradeable"="True" is outdated',
    }));
  it('an override decides alone', () => {
    expect(operatorUpgradeable(oc({ spec: { overrides: [{ type: 'Upgradeable', status: 'True', reason: 'A', message: 'go' }] }, status: { conditions: [cond('False', 'busy')] } }))).toEqual({ upgradeable: true });
    expect(operatorUpgradeable(oc({ spec: { overrides: [{ type: 'Upgradeable', status: 'False', reason: 'A', message: 'frozen' }] }, status: { conditions: [cond('True', 'ok')] } }))).toEqual({
      upgradeable: false,
      reason: 'the operator is not upgradeable: frozen',
    });
  });
});
