import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion, InstallPlan, Subscription } from '../../../api/operators/index.ts';
import { unfixableClassic } from './failfast.ts';

const sub = (conditions: NonNullable<Subscription['status']>['conditions'] = []): Subscription =>
  ({
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name: 'etcd', namespace: 'ops' },
    spec: { name: 'etcd', source: 'community', sourceNamespace: 'olm', channel: 'stable' },
    status: { lastUpdated: '', conditions },
  }) as Subscription;
const plan = (phase: string, message = ''): InstallPlan =>
  ({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan', metadata: { name: 'install-abc', namespace: 'ops' }, spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: ['etcd.v1'] }, status: { phase, message, catalogSources: [] } }) as unknown as InstallPlan;
const csv = (phase: string, reason: string, message = ''): ClusterServiceVersion =>
  ({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: { name: 'etcd.v1', namespace: 'ops' }, spec: {}, status: { phase, reason, message } }) as unknown as ClusterServiceVersion;

describe('unfixableClassic: what --wait --classic gives up on', () => {
  it('a Failed InstallPlan (olm-classic never retries one), with the plan and uninstall as next commands', () => {
    expect(unfixableClassic({ sub: sub(), plan: plan('Failed', 'error creating csv etcd.v1:\n forbidden'), csv: undefined })).toEqual({
      cause: 'installplan "install-abc" Failed: error creating csv etcd.v1: forbidden',
      next: ['kubectl get installplan install-abc -n ops -o yaml', 'kubectl olm uninstall --classic etcd -n ops'],
    });
  });

  it('a resolution the catalogs cannot satisfy; not a catalog that is not reachable yet', () => {
    const failed = (message: string) => sub([{ type: 'ResolutionFailed', status: 'True', reason: 'ConstraintsNotSatisfiable', message }]);
    expect(unfixableClassic({ sub: failed('constraints not satisfiable: no operators found in channel beta of package etcd in the catalog referenced by subscription etcd'), plan: undefined, csv: undefined })).toEqual({
      cause: 'ResolutionFailed (ConstraintsNotSatisfiable): constraints not satisfiable: no operators found in channel beta of package etcd in the catalog referenced by subscription etcd',
      next: ['kubectl olm resolve -n ops', 'kubectl olm uninstall --classic etcd -n ops'],
    });
    expect(unfixableClassic({ sub: failed('failed to populate resolver cache from source community/olm: connection refused'), plan: undefined, csv: undefined })).toBeUndefined();
  });

  it("a CSV its OperatorGroup refuses; not one that is still installing or failed for another reason", () => {
    expect(unfixableClassic({ sub: sub(), plan: plan('Complete'), csv: csv('Failed', 'UnsupportedOperatorGroup', 'AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces') })).toEqual({
      cause: 'clusterserviceversion "etcd.v1" is Failed (UnsupportedOperatorGroup): AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces',
      next: ['kubectl get operatorgroups -n ops -o yaml', 'kubectl olm uninstall --classic etcd -n ops'],
    });
    expect(unfixableClassic({ sub: sub(), plan: plan('Complete'), csv: csv('Installing', 'InstallWaiting') })).toBeUndefined();
    expect(unfixableClassic({ sub: sub(), plan: plan('Complete'), csv: csv('Failed', 'InstallCheckFailed') })).toBeUndefined();
  });

  it('nothing to say without a Subscription', () => {
    expect(unfixableClassic({ sub: undefined, plan: undefined, csv: undefined })).toBeUndefined();
    expect(unfixableClassic(undefined)).toBeUndefined();
  });
});
