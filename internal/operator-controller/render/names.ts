// Object names as upstream derives them: ObjectNameForBaseAndSuffix (63-character cap, which can
// yield 64 characters when base+suffix is exactly 63) and DefaultUniqueNameGenerator, whose suffix
// is base36(sha224(Go encoding/json of the permission + "\n")).
import { createHash } from 'node:crypto';
import { goJSONString } from '../../shared/gocompat/index.ts';
import type { PolicyRule, StrategyDeploymentPermissions } from './types.ts';

const MAX_NAME = 63;

export function objectNameForBaseAndSuffix(base: string, suffix: string): string {
  if (base.length + suffix.length > MAX_NAME) base = base.slice(0, MAX_NAME - suffix.length - 1);
  return `${base}-${suffix}`;
}

const goStrings = (items: readonly string[] | null | undefined): string =>
  items == null ? 'null' : `[${items.map((s) => goJSONString(s)).join(',')}]`;

/** rbacv1.PolicyRule in struct order: verbs (always), apiGroups, resources, resourceNames, nonResourceURLs (omitempty). */
export function goPolicyRule(r: PolicyRule): string {
  const parts = [`"verbs":${goStrings(r.verbs)}`];
  const opt = (key: keyof PolicyRule, items: readonly string[] | undefined): void => {
    if (items && items.length > 0) parts.push(`"${key}":${goStrings(items)}`);
  };
  opt('apiGroups', r.apiGroups);
  opt('resources', r.resources);
  opt('resourceNames', r.resourceNames);
  opt('nonResourceURLs', r.nonResourceURLs);
  return `{${parts.join(',')}}`;
}

/** encoding/json.Encoder output for v1alpha1.StrategyDeploymentPermissions (trailing newline included). */
export function goPermissionJSON(p: StrategyDeploymentPermissions): string {
  const rules = p.rules == null ? 'null' : `[${p.rules.map(goPolicyRule).join(',')}]`;
  return `{"serviceAccountName":${goJSONString(p.serviceAccountName ?? '')},"rules":${rules}}\n`;
}

export function permissionHash(p: StrategyDeploymentPermissions): string {
  const hex = createHash('sha224').update(goPermissionJSON(p)).digest('hex');
  return BigInt(`0x${hex}`).toString(36);
}

export const uniqueName = (base: string, p: StrategyDeploymentPermissions): string => objectNameForBaseAndSuffix(base, permissionHash(p));
