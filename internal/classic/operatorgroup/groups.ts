// The OperatorGroup rules the CSV and OperatorGroup controllers share (upstream olm/groups.go, operatorgroup.go,
// resolver/cache APISet): namespace sets where `[""]` means every namespace, the `olm.targetNamespaces` text, the
// provided APIs of a CSV and of a group (`olm.providedAPIs`, `Kind.version.group` comma-joined and sorted) and the
// API intersection decision between groups whose targets overlap.
import { createHash } from 'node:crypto';
import {
  OperatorGroupProvidedAPIsAnnotationKey,
  UpgradeStrategyDefault,
  UpgradeStrategyUnsafeFailForward,
  type ClusterServiceVersion,
  type OperatorGroup,
} from '../../../api/operators/index.ts';
import { fnv64a } from '../../shared/toolkit/index.ts';

/** A set of namespaces; the set holding only `""` is every namespace. */
export type NamespaceSet = ReadonlySet<string>;

export const isAllNamespaces = (s: NamespaceSet): boolean => s.size === 1 && s.has('');

export const namespaceSetFromString = (text: string): NamespaceSet => new Set(text.split(','));

export const namespaceSetContains = (s: NamespaceSet, ns: string): boolean => isAllNamespaces(s) || s.has(ns);

export function namespaceSetIntersection(a: NamespaceSet, b: NamespaceSet): Set<string> {
  if (isAllNamespaces(a)) return new Set(b);
  if (isAllNamespaces(b)) return new Set(a);
  return new Set([...a].filter((ns) => b.has(ns)));
}

/** `status.namespaces` sorted and comma-joined: the value of `olm.targetNamespaces` (upstream's BuildTargetNamespaces). */
export const buildTargetNamespaces = (og: OperatorGroup): string => [...(og.status?.namespaces ?? [])].sort().join(',');

/** `spec.upgradeStrategy`, anything but fail-forward being the default. */
export const upgradeStrategy = (og: OperatorGroup): string =>
  og.spec?.upgradeStrategy === UpgradeStrategyUnsafeFailForward ? UpgradeStrategyUnsafeFailForward : UpgradeStrategyDefault;

/** An API as `Kind.version.group` (upstream's APIKeyToGVKString; the plural dropped, as StripPlural does). */
export const apiKey = (kind: string, version: string, group: string): string => `${kind}.${version}.${group}`;

/** An API set as the `olm.providedAPIs` annotation writes it: sorted, comma-joined. */
export const apiSetString = (s: ReadonlySet<string>): string => [...s].sort().join(',');

/** The `olm.providedAPIs` annotation read back (spaces dropped; entries without two dots ignored, as ParseKindArg). */
export const parseAPISet = (text: string | undefined): Set<string> =>
  new Set((text ?? '').replaceAll(' ', '').split(',').filter((item) => item.split('.').length - 1 >= 2));

/** FNV-1a 64 of `Kind.version.group` in hex (upstream's APIKeyToGVKHash), used in label keys. */
export const apiHash = (key: string): string => fnv64a(key).toString(16);

/** The APIs a CSV provides: owned CRDs (`<plural>.<group>`) and owned APIServices. Throws on a CRD name without a dot. */
export function providedAPIsOfCSV(csv: ClusterServiceVersion): Set<string> {
  const out = new Set<string>();
  for (const crd of csv.spec.customresourcedefinitions?.owned ?? []) {
    const dot = crd.name.indexOf('.');
    if (dot < 0) throw new Error(`error parsing crd name: ${crd.name}`);
    out.add(apiKey(crd.kind, crd.version, crd.name.slice(dot + 1)));
  }
  for (const api of csv.spec.apiservicedefinitions?.owned ?? []) out.add(apiKey(api.kind, api.version, api.group));
  return out;
}

/** What an OperatorGroup looks like to the API intersection check (upstream's OperatorGroupSurface). */
export interface GroupSurface {
  readonly identifier: string;
  readonly targets: NamespaceSet;
  readonly providedAPIs: ReadonlySet<string>;
}

export function groupSurface(og: OperatorGroup): GroupSurface {
  const namespaces = [...(og.status?.namespaces ?? [])];
  // The group's own namespace counts as a target unless it targets every namespace.
  if (namespaces.length >= 1 && namespaces[0] !== '') namespaces.push(og.metadata.namespace ?? '');
  return {
    identifier: `${og.metadata.name ?? ''}/${og.metadata.namespace ?? ''}`,
    targets: new Set(namespaces),
    providedAPIs: parseAPISet(og.metadata.annotations?.[OperatorGroupProvidedAPIsAnnotationKey]),
  };
}

export type APIReconciliation = 'RemoveAPIs' | 'AddAPIs' | 'APIConflict' | 'NoAPIConflict';

/** Upstream's ReconcileAPIIntersection: what a CSV providing `add` means for its group among the others. */
export function reconcileAPIIntersection(add: ReadonlySet<string>, group: GroupSurface, others: readonly GroupSurface[]): APIReconciliation {
  const intersectingGroups = others.filter((g) => g.identifier !== group.identifier && namespaceSetIntersection(group.targets, g.targets).size > 0);
  const fromIntersecting = new Set(intersectingGroups.flatMap((g) => [...g.providedAPIs]));
  const intersecting = [...add].some((api) => fromIntersecting.has(api));
  const subset = [...add].every((api) => group.providedAPIs.has(api));
  if (subset && intersecting) return 'RemoveAPIs';
  if (!subset && intersecting) return 'APIConflict';
  if (!subset) return 'AddAPIs';
  return 'NoAPIConflict';
}

/** sha224 as a base-62 number (upstream's hash() for OperatorGroup ClusterRole names). */
export function base62Sha224(text: string): string {
  let n = BigInt(`0x${createHash('sha224').update(text).digest('hex')}`);
  if (n === 0n) return '0';
  const digits = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let out = '';
  while (n > 0n) {
    out = digits[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out;
}

/** `olm.og.<group>.<admin|edit|view>-<hash>`, the group name cut so the whole fits 253 characters. */
export function operatorGroupClusterRoleName(og: OperatorGroup, roleType: string): string {
  const suffix = base62Sha224(`${og.metadata.namespace ?? ''}/${og.metadata.name ?? ''}/${roleType}`);
  const limit = 253 - 'olm.og...-'.length - roleType.length - suffix.length;
  const name = og.metadata.name ?? '';
  return `olm.og.${name.length < limit ? name : name.slice(0, limit)}.${roleType}-${suffix}`;
}

/** The aggregation label of one provided API for one role type. */
export const aggregationLabel = (api: string, suffix: string): string => `olm.opgroup.permissions/aggregate-to-${apiHash(api)}-${suffix}`;
