import { describe, expect, it } from 'vitest';
import type { Step } from '../../../api/operators/index.ts';
import { conditionFailed, conditionMet, getCondition, needsRequeue, orderSteps, setCondition } from './plan.ts';

const step = (kind: string, name: string, status = 'Unknown'): Step => ({
  resolving: 'etcd.v0.9.2',
  resource: { sourceName: 'catalog', sourceNamespace: 'olm', group: kind === 'Role' ? 'rbac.authorization.k8s.io' : '', version: 'v1', kind, name, manifest: '{}' },
  status,
});

describe('OrderSteps', () => {
  it('CSVs, then CRDs, then the rest, each in its own order', () => {
    const steps = [
      step('Role', 'r1'),
      step('CustomResourceDefinition', 'crd1'),
      step('ClusterServiceVersion', 'csv1'),
      step('ServiceAccount', 's1'),
      step('CustomResourceDefinition', 'crd2'),
      step('ClusterServiceVersion', 'csv2'),
    ];
    expect(orderSteps(steps).map((s) => s.resource.name)).toEqual(['csv1', 'csv2', 'crd1', 'crd2', 'r1', 's1']);
  });
});

describe('NeedsRequeue', () => {
  it('only a step WaitingForApi keeps the plan from completing', () => {
    expect(needsRequeue({ plan: [step('Role', 'a', 'Created'), step('CustomResourceDefinition', 'b', 'WaitingForApi')] })).toBe(true);
    expect(needsRequeue({ plan: [step('Role', 'a', 'Created'), step('CustomResourceDefinition', 'b', 'Unknown')] })).toBe(false);
    expect(needsRequeue({})).toBe(false);
  });
});

describe('conditions (GetCondition, SetCondition, ConditionFailed, ConditionMet)', () => {
  it('a missing condition reads as Unknown', () => {
    expect(getCondition({}, 'Installed')).toEqual({ type: 'Installed', status: 'Unknown' });
  });
  it('SetCondition keeps lastTransitionTime while the status stays, replaces the rest', () => {
    const status = { conditions: [conditionFailed('Installed', 'InstallCheckFailed', 'first', '2026-01-01T00:00:00Z')] };
    setCondition(status, conditionFailed('Installed', 'InstallComponentFailed', 'second', '2026-01-01T00:05:00Z'));
    expect(status.conditions).toEqual([
      { type: 'Installed', status: 'False', reason: 'InstallComponentFailed', message: 'second', lastUpdateTime: '2026-01-01T00:05:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ]);
    setCondition(status, conditionMet('Installed', '2026-01-01T00:10:00Z'));
    expect(status.conditions).toEqual([{ type: 'Installed', status: 'True', lastUpdateTime: '2026-01-01T00:10:00Z', lastTransitionTime: '2026-01-01T00:10:00Z' }]);
  });
  it('an empty reason or message is left out, as Go’s omitempty does', () => {
    expect(conditionFailed('Installed', 'Unknown', '', 't')).toEqual({ type: 'Installed', status: 'False', reason: 'Unknown', lastUpdateTime: 't', lastTransitionTime: 't' });
  });
});
