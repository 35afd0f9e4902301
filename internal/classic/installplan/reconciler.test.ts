// The sync around the phase machine, over an in-memory store standing in for the informer and the status
// subresource (the real cluster is in test/integration/classic/installplan.test.ts).
import { describe, expect, it } from 'vitest';
import type { InstallPlan, OperatorGroup } from '../../../api/operators/index.ts';
import { noopLogger } from '../../shared/observability/index.ts';
import { newInstallPlanReconciler, newRbacRetryReconciler } from './reconciler.ts';

const signal = new AbortController().signal;
const managingOg = (sa?: string): OperatorGroup => ({
  metadata: { name: 'og', namespace: 'ns' },
  spec: { ...(sa && { serviceAccountName: sa }) },
  status: { lastUpdated: 't', namespaces: ['ns'], ...(sa && { serviceAccountRef: { kind: 'ServiceAccount', namespace: 'ns', name: sa } }) },
});
const plan = (phase: string, extra: Partial<NonNullable<InstallPlan['status']>> = {}): InstallPlan => ({
  metadata: { name: 'p', namespace: 'ns', resourceVersion: '1' },
  spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: [] },
  status: {
    phase,
    catalogSources: [],
    plan: [{ resolving: 'a', status: 'Unknown', resource: { sourceName: 's', sourceNamespace: 'n', group: '', version: 'v1', kind: 'ConfigMap', name: 'c' } }],
    ...extra,
  },
});

function harness(initial: InstallPlan, groups: OperatorGroup[], execute: (p: InstallPlan) => Promise<void> = async (p) => void (p.status!.plan![0]!.status = 'Created')) {
  let server = structuredClone(initial);
  let cache = structuredClone(initial);
  const writes: InstallPlan[] = [];
  const requeues: number[] = [];
  let executions = 0;
  const r = newInstallPlanReconciler({
    get: () => cache,
    operatorGroups: () => groups,
    writeStatus: async (p) => {
      if (p.metadata.resourceVersion !== server.metadata.resourceVersion) throw new Error('conflict');
      server = { ...structuredClone(p), metadata: { ...p.metadata, resourceVersion: String(Number(server.metadata.resourceVersion) + 1) } };
      writes.push(server);
      return structuredClone(server);
    },
    execute: async (p) => {
      executions++;
      await execute(p);
    },
    retryTimeoutMs: 60_000,
    requeueAfter: (_k, ms) => requeues.push(ms),
    now: () => new Date('2026-01-01T00:00:00Z'),
    logger: noopLogger,
  });
  return {
    reconcile: () => r.reconcile('ns/p', signal),
    server: () => server,
    catchUp: () => void (cache = structuredClone(server)),
    writes,
    requeues,
    executions: () => executions,
  };
}

describe('the InstallPlan sync', () => {
  it('skips plans without steps and final plans', async () => {
    for (const p of [plan('Installing', { plan: [] }), plan('Complete'), plan('Failed')]) {
      const h = harness(p, [managingOg()]);
      expect(await h.reconcile()).toBeUndefined();
      expect(h.writes).toEqual([]);
    }
  });

  it('Installing → Complete in one pass, written once', async () => {
    const h = harness(plan('Installing'), [managingOg()]);
    expect(await h.reconcile()).toBeUndefined();
    expect(h.writes).toHaveLength(1);
    expect(h.server().status).toMatchObject({ phase: 'Complete', startTime: '2026-01-01T00:00:00Z' });
  });

  it('an Installing plan that failed is requeued after 5 s besides the error’s backoff', async () => {
    const h = harness(plan('Installing'), [managingOg()], async () => {
      throw new Error('boom');
    });
    await expect(h.reconcile()).rejects.toThrow('boom');
    expect(h.requeues).toEqual([5000]);
    expect(h.server().status?.message).toBe('retrying execution due to error: boom');
  });

  it('a retry that runs before the informer saw our write works from what was written, not the old status', async () => {
    let first = true;
    const h = harness(plan('Installing'), [managingOg()], async (p) => {
      if (first) {
        first = false;
        p.status!.plan![0]!.status = 'Created';
        throw new Error('later step failed');
      }
    });
    await expect(h.reconcile()).rejects.toThrow('later step failed');
    expect(h.server().status?.plan?.[0]?.status).toBe('Created');
    // The cache still holds resourceVersion 1 with the step Unknown.
    await h.reconcile();
    expect(h.server().status).toMatchObject({ phase: 'Complete' });
    expect(h.server().status?.plan?.[0]?.status).toBe('Created');
  });

  it('no OperatorGroup: Installed=False/InstallCheckFailed and an error; once answered the condition is reset', async () => {
    const groups: OperatorGroup[] = [];
    const h = harness(plan('Installing'), groups);
    await expect(h.reconcile()).rejects.toThrow('attenuated service account query failed - no operator group found that is managing this namespace');
    expect(h.server().status?.conditions).toEqual([
      { type: 'Installed', status: 'False', reason: 'InstallCheckFailed', message: 'no operator group found that is managing this namespace', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ]);
    expect(h.executions()).toBe(0);
    groups.push(managingOg());
    h.catchUp();
    await h.reconcile();
    expect(h.server().status?.phase).toBe('Complete');
    expect(h.server().status?.conditions).toEqual([{ type: 'Installed', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  it('a service account to attenuate to is written to the status first, then the plan runs', async () => {
    const h = harness(plan('Installing'), [managingOg('installer')]);
    expect(await h.reconcile()).toBeUndefined();
    expect(h.executions()).toBe(0);
    expect(h.server().status?.attenuatedServiceAccountRef).toEqual({ kind: 'ServiceAccount', namespace: 'ns', name: 'installer' });
    h.catchUp();
    await h.reconcile();
    expect(h.executions()).toBe(1);
    expect(h.server().status?.phase).toBe('Complete');
  });

  it('RequiresApproval without approval writes nothing', async () => {
    const p = plan('RequiresApproval');
    p.spec.approved = false;
    const h = harness(p, [managingOg()]);
    await h.reconcile();
    expect(h.writes).toEqual([]);
  });
});

describe('the RBAC retry', () => {
  it('sets Failed plans with an attenuated service account back to Installing, and only those', async () => {
    const plans: InstallPlan[] = [
      { ...plan('Failed', { attenuatedServiceAccountRef: { name: 'sa', namespace: 'ns' } }), metadata: { name: 'a', namespace: 'ns' } },
      { ...plan('Failed'), metadata: { name: 'b', namespace: 'ns' } },
      { ...plan('Complete', { attenuatedServiceAccountRef: { name: 'sa', namespace: 'ns' } }), metadata: { name: 'c', namespace: 'ns' } },
    ];
    const written: InstallPlan[] = [];
    const r = newRbacRetryReconciler({ installPlans: () => plans, writeStatus: async (p) => (written.push(p), p), logger: noopLogger });
    await r.reconcile('ns', signal);
    expect(written.map((p) => `${p.metadata.name}:${p.status?.phase}`)).toEqual(['a:Installing']);
  });
});
