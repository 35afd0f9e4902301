import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import { CONDITIONS_LENGTH_LIMIT, isCopied, isUncopiable, setPhase, setPhaseWithEvent, setPhaseWithEventIfChanged } from './phase.ts';

const csv = (status?: ClusterServiceVersion['status'], meta: Partial<ClusterServiceVersion['metadata']> = {}): ClusterServiceVersion => ({
  metadata: { name: 'op.v1', namespace: 'ns', ...meta },
  spec: { displayName: 'op', install: { strategy: 'deployment' } },
  ...(status && { status }),
});

// operator-framework/api clusterserviceversion.go SetPhase and its tests (clusterserviceversion_test.go).
describe('setPhase', () => {
  it('sets lastUpdateTime always, lastTransitionTime only when the phase changes, and appends a condition', () => {
    const c = csv();
    setPhase(c, 'Pending', 'RequirementsUnknown', 'requirements not yet checked', 't1');
    expect(c.status).toEqual({
      lastUpdateTime: 't1',
      lastTransitionTime: 't1',
      phase: 'Pending',
      message: 'requirements not yet checked',
      reason: 'RequirementsUnknown',
      conditions: [{ phase: 'Pending', reason: 'RequirementsUnknown', message: 'requirements not yet checked', lastUpdateTime: 't1', lastTransitionTime: 't1' }],
    });
    setPhase(c, 'Pending', 'RequirementsNotMet', "one or more requirements couldn't be found", 't2');
    expect(c.status?.lastTransitionTime).toBe('t1');
    expect(c.status?.lastUpdateTime).toBe('t2');
    expect(c.status?.conditions).toHaveLength(2);
    expect(c.status?.conditions?.[1]).toEqual({ phase: 'Pending', reason: 'RequirementsNotMet', message: "one or more requirements couldn't be found", lastUpdateTime: 't2', lastTransitionTime: 't1' });
  });

  it('adds no condition when only the message changes', () => {
    const c = csv();
    setPhase(c, 'Installing', 'InstallWaiting', 'installing: a', 't1');
    setPhase(c, 'Installing', 'InstallWaiting', 'installing: b', 't2');
    expect(c.status?.conditions).toHaveLength(1);
    expect(c.status?.message).toBe('installing: b');
  });

  it('keeps the newest 20 conditions', () => {
    const c = csv();
    for (let i = 0; i < 25; i++) setPhase(c, i % 2 ? 'Failed' : 'Pending', `R${i}`, `m${i}`, `t${i}`);
    expect(c.status?.conditions).toHaveLength(CONDITIONS_LENGTH_LIMIT);
    expect(c.status?.conditions?.[0]?.reason).toBe('R5');
    expect(c.status?.conditions?.[19]?.reason).toBe('R24');
  });

  it('events: Warning when Failed, Normal otherwise, with the reason; IfChanged is silent without a change', () => {
    const seen: string[] = [];
    const events = { phase: (_c: ClusterServiceVersion, type: string, reason: string, message: string) => seen.push(`${type} ${reason} ${message}`) };
    const c = csv();
    setPhaseWithEvent(c, 'Failed', 'NoOperatorGroup', 'csv in namespace with no operatorgroups', 't1', events);
    setPhaseWithEventIfChanged(c, 'Failed', 'NoOperatorGroup', 'csv in namespace with no operatorgroups', 't2', events);
    setPhaseWithEventIfChanged(c, 'Pending', 'RequirementsUnknown', 'InstallModes now support target namespaces', 't3', events);
    expect(seen).toEqual(['Warning NoOperatorGroup csv in namespace with no operatorgroups', 'Normal RequirementsUnknown InstallModes now support target namespaces']);
    expect(c.status?.lastUpdateTime).toBe('t3');
  });
});

describe('copied, uncopiable, obsolete', () => {
  it('copied: reason Copied, label olm.copiedFrom, or olm.operatorNamespace elsewhere', () => {
    expect(isCopied(csv({ reason: 'Copied' }))).toBe(true);
    expect(isCopied(csv(undefined, { labels: { 'olm.copiedFrom': 'x' } }))).toBe(true);
    expect(isCopied(csv(undefined, { annotations: { 'olm.operatorNamespace': 'other' } }))).toBe(true);
    expect(isCopied(csv(undefined, { annotations: { 'olm.operatorNamespace': 'ns' } }))).toBe(false);
  });
  it('uncopiable: no phase, or a group failure', () => {
    expect(isUncopiable(csv())).toBe(true);
    expect(isUncopiable(csv({ phase: 'Failed', reason: 'UnsupportedOperatorGroup' }))).toBe(true);
    expect(isUncopiable(csv({ phase: 'Succeeded', reason: 'InstallSucceeded' }))).toBe(false);
  });
});
