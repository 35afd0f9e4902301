// Subscription status rules of upstream's catalog operator: condition set/remove with their equality (type, status,
// reason, message), catalog health (catalog/subscription/state.go UpdateHealth), the referenced InstallPlan's
// conditions (CheckInstallPlanStatus, InstallPlanNotFound) and the deprecation conditions (updateDeprecatedStatus).
import type { CatalogContent } from '../catalogsource/index.ts';
import {
  AllCatalogSourcesHealthy,
  CatalogSourcesAdded,
  CatalogSourcesDeleted,
  CatalogSourcesUpdated,
  InstallPlanFailed,
  InstallPlanInstalled,
  InstallPlanNotYetReconciled,
  NoCatalogSourcesFound,
  ReferencedInstallPlanNotFound,
  SubscriptionBundleDeprecated,
  SubscriptionCatalogSourcesUnhealthy,
  SubscriptionChannelDeprecated,
  SubscriptionDeprecated,
  SubscriptionInstallPlanFailed,
  SubscriptionInstallPlanMissing,
  SubscriptionInstallPlanPending,
  SubscriptionPackageDeprecated,
  SubscriptionStateNone,
  SubscriptionStateUpgradePending,
  UnhealthyCatalogSourceFound,
  type CatalogSource,
  type InstallPlan,
  type Subscription,
  type SubscriptionCatalogHealth,
  type SubscriptionCondition,
  type SubscriptionStatus,
} from '../../../api/operators/index.ts';

export type Status = SubscriptionStatus;

export function getCondition(s: Status, type: string): SubscriptionCondition | undefined {
  return s.conditions?.find((c) => c.type === type);
}

const sameCondition = (a: SubscriptionCondition | undefined, b: SubscriptionCondition | undefined): boolean =>
  (a?.status ?? 'Unknown') === (b?.status ?? 'Unknown') && (a?.reason ?? '') === (b?.reason ?? '') && (a?.message ?? '') === (b?.message ?? '') && (a?.type ?? '') === (b?.type ?? '');

/** SubscriptionStatus.SetCondition: replaces the condition of the same type, or appends it. */
export function setCondition(s: Status, cond: SubscriptionCondition): void {
  const list = s.conditions ?? [];
  const i = list.findIndex((c) => c.type === cond.type);
  if (i >= 0) list[i] = cond;
  else list.push(cond);
  s.conditions = list;
}

export function removeConditions(s: Status, ...types: string[]): void {
  if (!s.conditions) return;
  s.conditions = s.conditions.filter((c) => !types.includes(c.type));
}

/** setSubsCond: sets the condition where it differs (type, status, reason, message); returns whether it did. */
export function setIfChanged(s: Status, cond: SubscriptionCondition, now: string): boolean {
  if (sameCondition(getCondition(s, cond.type), cond)) return false;
  s.lastUpdated = now;
  setCondition(s, cond);
  return true;
}

/** removeSubsCond: removes the condition when present. */
export function removeIfPresent(s: Status, type: string, now: string): void {
  if (!getCondition(s, type)) return;
  s.lastUpdated = now;
  removeConditions(s, type);
}

/** Whether two condition lists differ in a field upstream's hash compares. */
export function conditionsDiffer(a: readonly SubscriptionCondition[] | undefined, b: readonly SubscriptionCondition[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length !== y.length || x.some((c, i) => !sameCondition(c, y[i]));
}

/** A CatalogSource is healthy when its spec is valid and its source is READY (upstream's CheckRegistryServer). */
export function catalogHealthy(cs: CatalogSource): boolean {
  if (cs.status?.reason === 'SpecInvalidError') return false;
  return cs.status?.connectionState?.lastObservedState === 'READY';
}

export function catalogHealth(sources: readonly CatalogSource[], now: string): SubscriptionCatalogHealth[] {
  const key = (cs: CatalogSource): string => `${cs.metadata.namespace ?? ''}${cs.metadata.name ?? ''}`;
  return [...sources]
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .map((cs) => ({
      catalogSourceRef: {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'CatalogSource',
        namespace: cs.metadata.namespace ?? '',
        name: cs.metadata.name ?? '',
        uid: cs.metadata.uid ?? '',
        resourceVersion: cs.metadata.resourceVersion ?? '',
      },
      healthy: catalogHealthy(cs),
      lastUpdated: now,
    }));
}

const REF_FIELDS = ['apiVersion', 'kind', 'namespace', 'name', 'uid', 'resourceVersion', 'fieldPath'] as const;
const sameHealth = (a: SubscriptionCatalogHealth, b: SubscriptionCatalogHealth): boolean =>
  a.healthy === b.healthy && REF_FIELDS.every((f) => (a.catalogSourceRef[f] ?? '') === (b.catalogSourceRef[f] ?? ''));

/** catalogHealthState.UpdateHealth: `status.catalogHealth` and the CatalogSourcesUnhealthy condition. */
export function updateHealth(sub: Subscription, s: Status, health: readonly SubscriptionCatalogHealth[], now: string): void {
  const prev = getCondition(s, SubscriptionCatalogSourcesUnhealthy);
  const cond: SubscriptionCondition = { ...(prev ?? { type: SubscriptionCatalogSourcesUnhealthy, status: 'Unknown' }) };
  let healthy = true;
  let missingTargeted = true;
  const byUid = new Map<string, SubscriptionCatalogHealth>();
  for (const h of health) {
    const ref = h.catalogSourceRef;
    byUid.set(ref.uid ?? '', h);
    healthy = healthy && h.healthy;
    if (ref.namespace === sub.spec.sourceNamespace && ref.name === sub.spec.source) {
      missingTargeted = false;
      if (!h.healthy) cond.message = `targeted catalogsource ${ref.namespace ?? ''}/${ref.name ?? ''} unhealthy`;
    }
  }
  if (missingTargeted) cond.message = `targeted catalogsource ${sub.spec.sourceNamespace}/${sub.spec.source} missing`;
  if (missingTargeted || !healthy) {
    cond.status = 'True';
    cond.reason = UnhealthyCatalogSourceFound;
  } else {
    cond.status = 'False';
    cond.reason = AllCatalogSourcesHealthy;
    cond.message = 'all available catalogsources are healthy';
  }
  const old = s.catalogHealth ?? [];
  let update = true;
  if (byUid.size > old.length) cond.reason = CatalogSourcesAdded;
  else if (byUid.size < old.length) cond.reason = CatalogSourcesDeleted;
  else if (byUid.size === 0) {
    cond.reason = NoCatalogSourcesFound;
    cond.message = 'dependency resolution requires at least one catalogsource';
  } else {
    for (const o of old) {
      const n = byUid.get(o.catalogSourceRef.uid ?? '');
      if (!n || !sameHealth(n, o)) {
        cond.reason = CatalogSourcesUpdated;
        break;
      }
    }
    update = false;
  }
  if (!update && sameCondition(cond, prev)) return;
  cond.lastTransitionTime = now;
  s.lastUpdated = now;
  setCondition(s, cond);
  if (health.length === 0) delete s.catalogHealth;
  else s.catalogHealth = [...health];
}

function extractMessage(ip: InstallPlan): string {
  const installed = ip.status?.conditions?.find((c) => c.type === InstallPlanInstalled);
  if (installed && installed.status !== 'Unknown' && installed.message) return installed.message;
  const parts: string[] = [];
  for (const l of ip.status?.bundleLookups ?? []) {
    const c = l.conditions?.find((x) => x.type === 'BundleLookupPending');
    if (c && c.status !== 'Unknown' && c.message) parts.push(`${c.message}.`);
  }
  return parts.join(' ');
}

/**
 * The referenced InstallPlan's state on the Subscription (installPlanReconciler): InstallPlanPending / Failed, none
 * when Complete; a missing plan clears the reference of an UpgradePending Subscription (so it resolves again) or sets
 * InstallPlanMissing.
 */
export function checkInstallPlan(s: Status, ip: InstallPlan | undefined, now: string): void {
  if (!s.installPlanRef && !s.installplan) return;
  const before = structuredClone(s.conditions);
  if (!ip) {
    removeConditions(s, SubscriptionInstallPlanPending, SubscriptionInstallPlanFailed);
    if (s.state === SubscriptionStateUpgradePending) {
      delete s.installPlanRef;
      delete s.installplan;
      delete s.currentCSV;
      s.state = SubscriptionStateNone;
      s.lastUpdated = now;
    } else {
      setCondition(s, { type: SubscriptionInstallPlanMissing, status: 'True', reason: ReferencedInstallPlanNotFound, lastTransitionTime: now });
    }
  } else {
    removeConditions(s, SubscriptionInstallPlanMissing, SubscriptionInstallPlanPending, SubscriptionInstallPlanFailed);
    const phase = ip.status?.phase ?? '';
    if (phase === '' || phase === 'Planning' || phase === 'Installing' || phase === 'RequiresApproval') {
      setCondition(s, {
        type: SubscriptionInstallPlanPending,
        status: 'True',
        reason: phase === '' ? InstallPlanNotYetReconciled : phase,
        message: extractMessage(ip),
        lastTransitionTime: now,
      });
    } else if (phase === 'Failed') {
      const installed = ip.status?.conditions?.find((c) => c.type === InstallPlanInstalled);
      setCondition(s, {
        type: SubscriptionInstallPlanFailed,
        status: 'True',
        reason: installed?.status === 'False' ? (installed.reason ?? '') : InstallPlanFailed,
        message: extractMessage(ip),
        lastTransitionTime: now,
      });
    }
  }
  if (conditionsDiffer(before, s.conditions)) s.lastUpdated = now;
  else s.conditions = before ?? [];
  if (s.conditions?.length === 0) delete s.conditions;
}

export interface EntryDeprecations {
  readonly package?: string;
  readonly channel?: string;
  readonly bundle?: string;
}

/**
 * The deprecations of the installed CSV's catalog entry (the Subscription's catalog, package and channel), each
 * message prefixed as upstream's registry source does: `olm.package/<pkg>: …`, `olm.channel/<ch>: …`,
 * `olm.bundle/<csv>: …`. Undefined when the entry is not in the catalog.
 */
export function entryDeprecations(sub: Subscription, content: CatalogContent | undefined): EntryDeprecations | undefined {
  const installed = sub.status?.installedCSV;
  if (!content || !installed) return undefined;
  const pkg = content.packages.find((p) => p.name === sub.spec.name);
  const channel = pkg?.channels.find((c) => (!sub.spec.channel || c.name === sub.spec.channel) && c.entries.some((e) => e.name === installed));
  if (!pkg || !channel) return undefined;
  const bundle = content.bundles.find((b) => b.package === pkg.name && b.name === installed);
  return {
    ...(pkg.deprecation !== undefined && { package: `olm.package/${pkg.name}: ${pkg.deprecation}` }),
    ...(channel.deprecation !== undefined && { channel: `olm.channel/${channel.name}: ${channel.deprecation}` }),
    ...(bundle?.deprecation !== undefined && { bundle: `olm.bundle/${installed}: ${bundle.deprecation}` }),
  };
}

/** updateDeprecatedStatus: Package/Channel/BundleDeprecated and the Deprecated roll-up (messages joined by "; "). */
export function updateDeprecations(sub: Subscription, s: Status, deprecations: EntryDeprecations | undefined, now: string): void {
  if (deprecations === undefined) return;
  let changed = false;
  const rollup: string[] = [];
  const kinds: [string, string | undefined][] = [
    [SubscriptionPackageDeprecated, deprecations.package],
    [SubscriptionChannelDeprecated, deprecations.channel],
    [SubscriptionBundleDeprecated, deprecations.bundle],
  ];
  for (const [type, message] of kinds) {
    const old = getCondition(s, type);
    if (message !== undefined) {
      if (type === SubscriptionChannelDeprecated && !sub.spec.channel) {
        removeConditions(s, type);
        if (old?.status === 'True') changed = true;
        continue;
      }
      rollup.push(message);
      if (old?.message !== message) {
        setCondition(s, { type, status: 'True', message, lastTransitionTime: now });
        changed = true;
      }
    } else if (old?.status === 'True') {
      removeConditions(s, type);
      changed = true;
    }
  }
  if (!changed) return;
  s.lastUpdated = now;
  if (rollup.length > 0) setCondition(s, { type: SubscriptionDeprecated, status: 'True', message: rollup.join('; '), lastTransitionTime: now });
  else removeConditions(s, SubscriptionDeprecated);
}
