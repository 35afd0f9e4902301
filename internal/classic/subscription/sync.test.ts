// The namespace reconciler's status writes (upstream's updateSubscriptionStatuses): every changed status is written
// even when one write fails, and the failures come back joined.
import { describe, expect, it } from 'vitest';
import {
  ClusterServiceVersionKind,
  SubscriptionKind,
  SubscriptionStateAtLatest,
  V1,
  V1alpha1,
  type ClusterServiceVersion,
  type OperatorGroup,
  type Subscription,
  type SubscriptionStatus,
} from '../../../api/operators/index.ts';
import { ApiError, isConflict } from '../../shared/kube/index.ts';
import { createLogger } from '../../shared/observability/index.ts';
import { newNamespaceReconciler, type SyncPorts } from './sync.ts';

const NS = 'ns';
const sub = (name: string): Subscription => ({
  apiVersion: V1alpha1,
  kind: SubscriptionKind,
  metadata: { name, namespace: NS, resourceVersion: '1' },
  spec: { name, source: 'cat', sourceNamespace: 'olm', channel: 'stable' },
  // the plan's references are recorded; the CSV now exists, so this pass records AtLatestKnown + installedCSV
  status: { lastUpdated: '2026-01-01T00:00:00Z', state: 'UpgradePending', currentCSV: `${name}.v1.0.0` },
});
const csv = (name: string): ClusterServiceVersion => ({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, metadata: { name, namespace: NS } }) as ClusterServiceVersion;
const og: OperatorGroup = { apiVersion: V1, kind: 'OperatorGroup', metadata: { name: 'og', namespace: NS }, spec: {} } as OperatorGroup;
const conflict = (name: string): ApiError =>
  new ApiError(409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: `Operation cannot be fulfilled on subscriptions.operators.coreos.com "${name}"` }, { method: 'PUT', path: '/' });

function ports(subs: Subscription[], write: SyncPorts['writeStatus']): SyncPorts {
  return {
    listSubscriptions: async () => subs,
    listInstallPlans: async () => [],
    csvs: () => subs.map((s) => csv(s.status?.currentCSV ?? '')),
    operatorGroups: () => [og],
    catalogSources: () => [],
    content: () => undefined,
    bundle: async () => {
      throw new Error('no bundle is pulled');
    },
    createInstallPlan: async () => {
      throw new Error('no plan is created');
    },
    writeStatus: write,
    events: { normal: () => undefined, warning: () => undefined },
    logger: createLogger({ level: 'error' }),
    globalNamespace: 'olm',
    now: () => new Date('2026-11-28T00:00:00Z'),
  };
}

describe('namespace reconciler: status writes', () => {
  it('writes every changed status although one write fails; the failure is what the pass returns', async () => {
    const subs = ['a', 'b', 'c', 'd'].map(sub);
    const written = new Map<string, SubscriptionStatus>();
    const r = newNamespaceReconciler(
      ports(subs, async (s, status) => {
        if (s.metadata.name === 'a') throw conflict('a');
        written.set(s.metadata.name ?? '', status);
      }),
    );
    const err = await r.reconcile(NS, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isConflict(err)).toBe(true);
    expect([...written.keys()].sort()).toEqual(['b', 'c', 'd']);
    for (const [name, status] of written) {
      expect(status.state).toBe(SubscriptionStateAtLatest);
      expect(status.installedCSV).toBe(`${name}.v1.0.0`);
    }
  });

  it('joins the failures of several writes', async () => {
    const subs = ['a', 'b', 'c'].map(sub);
    const written: string[] = [];
    const r = newNamespaceReconciler(
      ports(subs, async (s) => {
        if (s.metadata.name !== 'b') throw conflict(s.metadata.name ?? '');
        written.push(s.metadata.name ?? '');
      }),
    );
    const err = await r.reconcile(NS, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(written).toEqual(['b']);
    expect((err as Error).message.split('\n').sort()).toEqual([conflict('a').message, conflict('c').message].sort());
  });
});
