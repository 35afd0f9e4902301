// Whether a service account holds a PolicyRule, decided in process from the cluster's Roles, RoleBindings,
// ClusterRoles and ClusterRoleBindings (upstream's CSVRuleChecker over Kubernetes' RBAC authorizer): the rule is
// broken into one request per verb × group × resource × name × URL (toAttributesSet) and each must be allowed by a
// rule bound to the account's user name. As upstream: the user has no groups, so only User and ServiceAccount
// subjects count; a namespaced rule is checked in the CSV's namespace (RoleBindings there and ClusterRoleBindings),
// a cluster rule cluster-wide (ClusterRoleBindings only).
// (upstream also filters out roles owned by another CSV, but its owner comparison never matches, so nothing is.)
import type { PolicyRule } from '../../shared/registryv1/index.ts';

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}
interface RoleRef {
  kind?: string;
  name?: string;
}
export interface RoleLike {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  rules?: PolicyRule[] | null;
}
export interface BindingLike {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  subjects?: Subject[] | null;
  roleRef?: RoleRef;
}

/** The RBAC objects the decision reads (informer caches in the process, plain lists in tests). */
export interface RbacSource {
  role(namespace: string, name: string): RoleLike | undefined;
  clusterRole(name: string): RoleLike | undefined;
  roles(namespace: string): readonly RoleLike[];
  clusterRoles(): readonly RoleLike[];
  roleBindings(namespace: string): readonly BindingLike[];
  clusterRoleBindings(): readonly BindingLike[];
}

interface Attributes {
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly name: string;
  readonly path: string;
}

/** upstream's ruleValid. */
export function ruleProblem(rule: PolicyRule): string | undefined {
  if ((rule.verbs ?? []).length === 0) return 'policy rule must have at least one verb';
  const resourceCount = (rule.apiGroups ?? []).length + (rule.resources ?? []).length + (rule.resourceNames ?? []).length;
  if (resourceCount > 0 && (rule.nonResourceURLs ?? []).length > 0) return 'rule cannot apply to both regular resources and non-resource URLs';
  return undefined;
}

const orEmpty = (v: readonly string[] | null | undefined): readonly string[] => (v && v.length > 0 ? v : ['']);

function attributesOf(rule: PolicyRule): Attributes[] {
  const seen = new Map<string, Attributes>();
  for (const verb of rule.verbs ?? []) {
    for (const apiGroup of orEmpty(rule.apiGroups)) {
      for (const resource of orEmpty(rule.resources)) {
        for (const name of orEmpty(rule.resourceNames)) {
          for (const path of orEmpty(rule.nonResourceURLs)) seen.set(JSON.stringify([verb, apiGroup, resource, name, path]), { verb, apiGroup, resource, name, path });
        }
      }
    }
  }
  return [...seen.values()];
}

const has = (list: readonly string[] | null | undefined, v: string): boolean => (list ?? []).some((x) => x === '*' || x === v);

function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (a.path !== '') {
    return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))));
  }
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  // The requested resource carries no separate subresource here, so only `*` and an exact match count.
  if (!(rule.resources ?? []).some((r) => r === '*' || r === a.resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

/** `system:serviceaccount:<ns>:<name>`. */
export const serviceAccountUser = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;

function appliesTo(user: string, subjects: readonly Subject[] | null | undefined, bindingNamespace: string): boolean {
  return (subjects ?? []).some((s) => {
    if (s.kind === 'User') return s.name === user;
    const ns = s.namespace || bindingNamespace;
    return s.kind === 'ServiceAccount' && !!ns && serviceAccountUser(ns, s.name ?? '') === user;
  });
}

/** Every rule granted to `user` in `namespace` (`""`: cluster-wide only), as the RBAC rule resolver visits them. */
export function rulesFor(src: RbacSource, user: string, namespace: string): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const b of src.clusterRoleBindings()) {
    if (!appliesTo(user, b.subjects, '')) continue;
    if (b.roleRef?.kind !== 'ClusterRole') continue;
    rules.push(...(src.clusterRole(b.roleRef.name ?? '')?.rules ?? []));
  }
  if (namespace !== '') {
    for (const b of src.roleBindings(namespace)) {
      if (!appliesTo(user, b.subjects, namespace)) continue;
      const role = b.roleRef?.kind === 'ClusterRole' ? src.clusterRole(b.roleRef.name ?? '') : b.roleRef?.kind === 'Role' ? src.role(namespace, b.roleRef.name ?? '') : undefined;
      rules.push(...(role?.rules ?? []));
    }
  }
  return rules;
}

/** Whether `granted` allows every request `rule` stands for. Throws `rule invalid: …` for an invalid rule. */
export function ruleSatisfied(granted: readonly PolicyRule[], rule: PolicyRule): boolean {
  const problem = ruleProblem(rule);
  if (problem) throw new Error(`rule invalid: ${problem}`);
  return attributesOf(rule).every((a) => granted.some((g) => ruleAllows(a, g)));
}
