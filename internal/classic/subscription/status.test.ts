import { describe, expect, it } from 'vitest';
import type { CatalogSource, InstallPlan, Subscription, SubscriptionStatus } from '../../../api/operators/index.ts';
import type { CatalogContent } from '../catalogsource/index.ts';
import { catalogHealth, checkInstallPlan, entryDeprecations, updateDeprecations, updateHealth } from './index.ts';

const now = '2026-11-25T00:00:00Z';
const sub = (spec: Partial<Subscription['spec']> = {}, status: Partial<SubscriptionStatus> = {}): Subscription => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name: 's', namespace: 'ns' },
  spec: { source: 'cat', sourceNamespace: 'ns', name: 'pkg', channel: 'stable', ...spec },
  status: { lastUpdated: '', ...status },
});
const cs = (name: string, state: string, uid = name): CatalogSource => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'CatalogSource',
  metadata: { name, namespace: 'ns', uid, resourceVersion: '1' },
  spec: { sourceType: 'grpc' },
  status: { connectionState: { lastObservedState: state } },
} as CatalogSource);
const cond = (s: SubscriptionStatus, type: string) => s.conditions?.find((c) => c.type === type);

describe('updateHealth (catalog/subscription/state.go)', () => {
  it('first sight: CatalogSourcesAdded; next sync the health reason, then nothing changes; a new unhealthy state is CatalogSourcesUpdated', () => {
    const s = sub();
    const st = structuredClone(s.status!);
    updateHealth(s, st, catalogHealth([cs('cat', 'READY')], now), now);
    expect(cond(st, 'CatalogSourcesUnhealthy')).toMatchObject({ status: 'False', reason: 'CatalogSourcesAdded', message: 'all available catalogsources are healthy' });
    expect(st.catalogHealth).toEqual([expect.objectContaining({ healthy: true, catalogSourceRef: expect.objectContaining({ name: 'cat', kind: 'CatalogSource' }) })]);
    // the next sync settles on the health reason (upstream's switch), the one after changes nothing
    const again = structuredClone(st);
    updateHealth(s, again, catalogHealth([cs('cat', 'READY')], now), '2026-11-25T00:01:00Z');
    expect(cond(again, 'CatalogSourcesUnhealthy')).toMatchObject({ status: 'False', reason: 'AllCatalogSourcesHealthy' });
    const settled = structuredClone(again);
    updateHealth(s, settled, catalogHealth([cs('cat', 'READY')], now), '2026-11-25T00:02:00Z');
    expect(settled).toEqual(again);
    updateHealth(s, again, catalogHealth([cs('cat', 'TRANSIENT_FAILURE')], now), now);
    expect(cond(again, 'CatalogSourcesUnhealthy')).toMatchObject({ status: 'True', reason: 'CatalogSourcesUpdated', message: 'targeted catalogsource ns/cat unhealthy' });
  });

  it('a missing targeted catalog and no catalogs at all', () => {
    const s = sub({ source: 'gone' });
    const st = structuredClone(s.status!);
    updateHealth(s, st, catalogHealth([cs('cat', 'READY')], now), now);
    expect(cond(st, 'CatalogSourcesUnhealthy')).toMatchObject({ status: 'True', reason: 'CatalogSourcesAdded', message: 'targeted catalogsource ns/gone missing' });
    const none = structuredClone(s.status!);
    updateHealth(s, none, [], now);
    expect(cond(none, 'CatalogSourcesUnhealthy')).toMatchObject({ status: 'True', reason: 'NoCatalogSourcesFound', message: 'dependency resolution requires at least one catalogsource' });
  });
});

describe('checkInstallPlan (CheckInstallPlanStatus / InstallPlanNotFound)', () => {
  const ref = { installPlanRef: { name: 'install-1', namespace: 'ns' }, installplan: { apiVersion: 'v', kind: 'InstallPlan', name: 'install-1', uuid: 'u' } };
  const ip = (status: InstallPlan['status']): InstallPlan => ({ apiVersion: 'v', kind: 'InstallPlan', metadata: { name: 'install-1' }, spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: [], generation: 1 }, status });
  it('pending phases, the not-yet-reconciled reason, failed with the Installed reason, nothing when Complete', () => {
    const st: SubscriptionStatus = { lastUpdated: '', ...ref };
    checkInstallPlan(st, ip({ phase: 'RequiresApproval', catalogSources: [] }), now);
    expect(cond(st, 'InstallPlanPending')).toMatchObject({ status: 'True', reason: 'RequiresApproval', message: '' });
    checkInstallPlan(st, ip({ phase: '', catalogSources: [] }), now);
    expect(cond(st, 'InstallPlanPending')).toMatchObject({ reason: 'InstallPlanNotYetReconciled' });
    checkInstallPlan(st, ip({ phase: 'Failed', catalogSources: [], conditions: [{ type: 'Installed', status: 'False', reason: 'InstallComponentFailed', message: 'boom' }] }), now);
    expect(cond(st, 'InstallPlanPending')).toBeUndefined();
    expect(cond(st, 'InstallPlanFailed')).toMatchObject({ status: 'True', reason: 'InstallComponentFailed', message: 'boom' });
    checkInstallPlan(st, ip({ phase: 'Complete', catalogSources: [] }), now);
    expect(st.conditions).toBeUndefined();
  });

  it('a missing plan: InstallPlanMissing, or a cleared reference when UpgradePending', () => {
    const st: SubscriptionStatus = { lastUpdated: '', state: 'AtLatestKnown', ...ref };
    checkInstallPlan(st, undefined, now);
    expect(cond(st, 'InstallPlanMissing')).toMatchObject({ status: 'True', reason: 'ReferencedInstallPlanNotFound' });
    const pending: SubscriptionStatus = { lastUpdated: '', state: 'UpgradePending', currentCSV: 'x', ...ref };
    checkInstallPlan(pending, undefined, now);
    expect(pending).toMatchObject({ state: '', lastUpdated: now });
    expect(pending.installPlanRef).toBeUndefined();
    expect(pending.installplan).toBeUndefined();
    expect(pending.currentCSV).toBeUndefined();
  });
});

describe('deprecations (updateDeprecatedStatus)', () => {
  const content: CatalogContent = {
    origin: 'o',
    loadedAt: now,
    packages: [{ name: 'pkg', defaultChannel: 'stable', deprecation: 'gone soon', channels: [{ name: 'stable', deprecation: 'use fast', entries: [{ name: 'pkg.v1', replaces: '', skips: [], skipRange: '' }] }] }],
    bundles: [{ name: 'pkg.v1', package: 'pkg', image: 'i', version: '1.0.0', properties: [], deprecation: 'insecure' }],
  };
  it('sets the three conditions with upstream’s prefixes and the roll-up; drops ChannelDeprecated without spec.channel', () => {
    const s = sub({}, { installedCSV: 'pkg.v1' });
    const st = structuredClone(s.status!);
    updateDeprecations(s, st, entryDeprecations(s, content), now);
    expect(cond(st, 'PackageDeprecated')?.message).toBe('olm.package/pkg: gone soon');
    expect(cond(st, 'ChannelDeprecated')?.message).toBe('olm.channel/stable: use fast');
    expect(cond(st, 'BundleDeprecated')?.message).toBe('olm.bundle/pkg.v1: insecure');
    expect(cond(st, 'Deprecated')).toMatchObject({ status: 'True', message: 'olm.package/pkg: gone soon; olm.channel/stable: use fast; olm.bundle/pkg.v1: insecure' });
    const noChannel = sub({ channel: '' }, { installedCSV: 'pkg.v1' });
    const st2 = structuredClone(noChannel.status!);
    updateDeprecations(noChannel, st2, entryDeprecations(noChannel, content), now);
    expect(cond(st2, 'ChannelDeprecated')).toBeUndefined();
    expect(cond(st2, 'Deprecated')?.message).toBe('olm.package/pkg: gone soon; olm.bundle/pkg.v1: insecure');
  });
});
