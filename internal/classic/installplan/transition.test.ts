// upstream's TestTransitionInstallPlan rows, plus the retry window's edges and Forbidden.
import { describe, expect, it } from 'vitest';
import type { InstallPlan } from '../../../api/operators/index.ts';
import { ApiError } from '../../shared/kube/index.ts';
import { retryingMessage, transitionInstallPlanState } from './transition.ts';
import { wrap } from './errors.ts';

const now = new Date('2018-01-26T20:40:00Z');
const plan = (phase: string, approval: string, approved: boolean, extra: Partial<InstallPlan['status']> = {}): InstallPlan => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'InstallPlan',
  metadata: { name: 'p', namespace: 'ns' },
  spec: { approval, approved, clusterServiceVersionNames: [] },
  status: { phase, catalogSources: [], conditions: [], ...extra },
});
const failing = (err: unknown) => async (): Promise<void> => {
  throw err;
};
const ok = async (): Promise<void> => undefined;
const transitionErr = new Error('transition test error');

describe('TestTransitionInstallPlan', () => {
  const rows: [string, Error | undefined, string, boolean, string, { status: string; reason?: string; message?: string } | undefined, number][] = [
    ['Installing', undefined, 'Automatic', false, 'Complete', { status: 'True' }, 0],
    ['Installing', undefined, 'Automatic', true, 'Complete', { status: 'True' }, 0],
    ['Installing', transitionErr, 'Automatic', false, 'Failed', { status: 'False', reason: 'InstallComponentFailed', message: 'transition test error' }, 0],
    ['Installing', transitionErr, 'Automatic', true, 'Failed', { status: 'False', reason: 'InstallComponentFailed', message: 'transition test error' }, 0],
    ['Installing', transitionErr, 'Automatic', false, 'Installing', undefined, 1],
    ['Installing', transitionErr, 'Automatic', true, 'Installing', undefined, 1],
    ['RequiresApproval', undefined, 'Manual', false, 'RequiresApproval', undefined, 0],
    ['RequiresApproval', undefined, 'Manual', true, 'Installing', undefined, 0],
  ];
  it.each(rows)('%s, error %s, %s approved=%s → %s', async (initial, err, approval, approved, expected, condition, timeout) => {
    const { plan: out } = await transitionInstallPlanState(plan(initial, approval, approved), err ? failing(err) : ok, now, timeout);
    expect(out.status?.phase).toBe(expected);
    if (!condition) expect(out.status?.conditions).toHaveLength(0);
    else {
      expect(out.status?.conditions).toHaveLength(1);
      const c = out.status!.conditions![0]!;
      expect({ type: c.type, status: c.status, reason: c.reason, message: c.message }).toEqual({ type: 'Installed', reason: undefined, message: undefined, ...condition });
    }
  });
});

describe('transitionInstallPlanState', () => {
  it('Installing: startTime set on the first pass; Complete clears the message', async () => {
    const { plan: out } = await transitionInstallPlanState(plan('Installing', 'Automatic', true, { message: 'retrying execution due to error: x' }), ok, now, 60_000);
    expect(out.status).toMatchObject({ phase: 'Complete', startTime: '2018-01-26T20:40:00Z' });
    expect(out.status?.message).toBeUndefined();
    expect(out.status?.conditions?.[0]).toEqual({ type: 'Installed', status: 'True', lastUpdateTime: '2018-01-26T20:40:00Z', lastTransitionTime: '2018-01-26T20:40:00Z' });
  });

  it('within the retry window an error keeps Installing with upstream’s message; after it the plan Fails', async () => {
    const started = plan('Installing', 'Automatic', true, { startTime: '2018-01-26T20:39:30Z' });
    const within = await transitionInstallPlanState(started, failing(transitionErr), now, 60_000);
    expect(within.plan.status).toMatchObject({ phase: 'Installing', message: 'retrying execution due to error: transition test error' });
    expect(within.error).toBe(transitionErr);
    const after = await transitionInstallPlanState(started, failing(transitionErr), now, 30_000);
    expect(after.plan.status).toMatchObject({ phase: 'Failed', message: 'transition test error' });
    expect(after.plan.status?.conditions).toEqual([
      { type: 'Installed', status: 'False', reason: 'InstallComponentFailed', message: 'transition test error', lastUpdateTime: '2018-01-26T20:40:00Z', lastTransitionTime: '2018-01-26T20:40:00Z' },
    ]);
  });

  it('a Forbidden error (also wrapped) keeps retrying after the window', async () => {
    const forbidden = new ApiError(403, { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'roles.rbac.authorization.k8s.io is forbidden' }, { method: 'POST', path: '/x' });
    const started = plan('Installing', 'Automatic', true, { startTime: '2018-01-26T20:00:00Z' });
    const { plan: out } = await transitionInstallPlanState(started, failing(wrap('error creating role r', forbidden)), now, 60_000);
    expect(out.status).toMatchObject({ phase: 'Installing', message: 'retrying execution due to error: error creating role r: roles.rbac.authorization.k8s.io is forbidden' });
  });

  it('a step still WaitingForApi keeps the plan Installing without a condition', async () => {
    const waiting = plan('Installing', 'Automatic', true, {
      plan: [{ resolving: 'a', status: 'Unknown', resource: { sourceName: 's', sourceNamespace: 'n', group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name: 'c' } }],
    });
    const { plan: out } = await transitionInstallPlanState(waiting, async (p) => void (p.status!.plan![0]!.status = 'WaitingForApi'), now, 60_000);
    expect(out.status?.phase).toBe('Installing');
    expect(out.status?.conditions).toEqual([]);
    expect(out.status?.plan?.[0]?.status).toBe('WaitingForApi');
  });

  it('other phases pass through; the input is not changed', async () => {
    const input = plan('Complete', 'Automatic', true);
    const { plan: out } = await transitionInstallPlanState(input, failing(transitionErr), now, 0);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
    expect(retryingMessage(new Error('x'))).toBe('retrying execution due to error: x');
  });
});
