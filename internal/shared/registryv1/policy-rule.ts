// rbacv1.PolicyRule as Go's encoding/json writes it: v1's unique names hash it (DefaultUniqueNameGenerator),
// classic's InstallPlan names its RBAC objects by it (generateName).
import { goJSONString } from '../gocompat/index.ts';
import type { PolicyRule } from './csv.ts';

const goStrings = (items: readonly string[] | null | undefined): string =>
  items == null ? 'null' : `[${items.map((s) => goJSONString(s)).join(',')}]`;

/** rbacv1.PolicyRule in struct order: verbs (always), apiGroups, resources, resourceNames, nonResourceURLs (omitempty). */
export function goPolicyRule(r: PolicyRule): string {
  const parts = [`"verbs":${goStrings(r.verbs)}`];
  for (const key of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
    const items = r[key];
    if (items && items.length > 0) parts.push(`"${key}":${goStrings(items)}`);
  }
  return `{${parts.join(',')}}`;
}
