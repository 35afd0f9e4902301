import { describe, expect, it } from 'vitest';
import { rulesFor, ruleSatisfied, type BindingLike, type RbacSource, type RoleLike } from './rbac.ts';

function source(roles: Record<string, RoleLike>, clusterRoles: Record<string, RoleLike>, bindings: BindingLike[], clusterBindings: BindingLike[]): RbacSource {
  return {
    role: (ns, name) => roles[`${ns}/${name}`],
    clusterRole: (name) => clusterRoles[name],
    roles: (ns) => Object.values(roles).filter((r) => r.metadata.namespace === ns),
    clusterRoles: () => Object.values(clusterRoles),
    roleBindings: (ns) => bindings.filter((b) => b.metadata.namespace === ns),
    clusterRoleBindings: () => clusterBindings,
  };
}
const user = 'system:serviceaccount:ns:op';

describe('in-process RBAC check', () => {
  const src = source(
    { 'ns/pods': { metadata: { name: 'pods', namespace: 'ns' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] } },
    {
      nodes: { metadata: { name: 'nodes' }, rules: [{ verbs: ['*'], apiGroups: [''], resources: ['nodes'] }, { verbs: ['get'], nonResourceURLs: ['/metrics/*'] }] },
      named: { metadata: { name: 'named' }, rules: [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a'] }] },
    },
    [
      { metadata: { name: 'b', namespace: 'ns' }, subjects: [{ kind: 'ServiceAccount', name: 'op' }], roleRef: { kind: 'Role', name: 'pods' } },
      { metadata: { name: 'c', namespace: 'ns' }, subjects: [{ kind: 'User', name: user }], roleRef: { kind: 'ClusterRole', name: 'named' } },
      { metadata: { name: 'd', namespace: 'other' }, subjects: [{ kind: 'ServiceAccount', name: 'op', namespace: 'ns' }], roleRef: { kind: 'ClusterRole', name: 'nodes' } },
    ],
    [{ metadata: { name: 'crb' }, subjects: [{ kind: 'ServiceAccount', name: 'op', namespace: 'ns' }], roleRef: { kind: 'ClusterRole', name: 'nodes' } }],
  );

  it('namespaced rules see RoleBindings of the namespace and ClusterRoleBindings', () => {
    const granted = rulesFor(src, user, 'ns');
    expect(ruleSatisfied(granted, { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] })).toBe(true);
    expect(ruleSatisfied(granted, { verbs: ['get', 'watch'], apiGroups: [''], resources: ['pods'] })).toBe(false);
    expect(ruleSatisfied(granted, { verbs: ['delete'], apiGroups: [''], resources: ['nodes'] })).toBe(true);
    expect(ruleSatisfied(granted, { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a'] })).toBe(true);
    expect(ruleSatisfied(granted, { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'] })).toBe(false);
  });

  it('cluster rules see only ClusterRoleBindings', () => {
    const granted = rulesFor(src, user, '');
    expect(ruleSatisfied(granted, { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(false);
    expect(ruleSatisfied(granted, { verbs: ['list'], apiGroups: [''], resources: ['nodes'] })).toBe(true);
    expect(ruleSatisfied(granted, { verbs: ['get'], nonResourceURLs: ['/metrics/cadvisor'] })).toBe(true);
    expect(ruleSatisfied(granted, { verbs: ['get'], nonResourceURLs: ['/healthz'] })).toBe(false);
  });

  it('groups are not the account’s: a binding to system:serviceaccounts does not count (upstream’s user has no groups)', () => {
    const s = source({}, { all: { metadata: { name: 'all' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] } }, [], [
      { metadata: { name: 'g' }, subjects: [{ kind: 'Group', name: 'system:serviceaccounts' }], roleRef: { kind: 'ClusterRole', name: 'all' } },
    ]);
    expect(ruleSatisfied(rulesFor(s, user, 'ns'), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(false);
  });

  it('invalid rules are errors with upstream’s text', () => {
    expect(() => ruleSatisfied([], { verbs: [], resources: ['pods'] })).toThrow('rule invalid: policy rule must have at least one verb');
    expect(() => ruleSatisfied([], { verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/x'] })).toThrow('rule invalid: rule cannot apply to both regular resources and non-resource URLs');
  });
});
