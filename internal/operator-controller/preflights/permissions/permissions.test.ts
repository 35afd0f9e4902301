// The permission preflight over a fake authorizer: which questions it asks, how denials become
// compacted rules, RBAC escalation through Roles and bindings, and upstream's message format.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import { Preflights } from '../index.ts';
import { compactRules, PermissionPreflight, preAuthorizationMessage, ruleDescription, type Attributes, type PermissionSource, type PolicyRule } from './index.ts';

const signal = new AbortController().signal;
const ext = (sa?: string): ClusterExtension =>
  ({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'ext' },
    spec: { namespace: 'ns', ...(sa && { serviceAccount: { name: sa } }), source: { sourceType: 'Catalog', catalog: { packageName: 'p' } } },
  }) as ClusterExtension;

const describeAttrs = (a: Attributes): string =>
  a.kind === 'resource' ? `${a.verb} ${a.group}/${a.resource}${a.name ? `/${a.name}` : ''} in "${a.namespace}"` : `${a.verb} ${a.path}`;

/** Allows what `allow` says yes to; records every question. */
function fakeSource(allow: (a: Attributes) => boolean, roles: Record<string, PolicyRule[]> = {}): PermissionSource & { asked: string[]; users: Set<string> } {
  const asked: string[] = [];
  const users = new Set<string>();
  return {
    asked,
    users,
    async allowed(user, a) {
      users.add(user);
      asked.push(describeAttrs(a));
      return allow(a);
    },
    async mapping(apiVersion, kind) {
      const table: Record<string, [string, boolean]> = {
        ConfigMap: ['configmaps', true],
        Role: ['roles', true],
        RoleBinding: ['rolebindings', true],
        ClusterRole: ['clusterroles', false],
        CustomResourceDefinition: ['customresourcedefinitions', false],
      };
      const entry = table[kind];
      if (!entry) throw new Error(`no matches for kind "${kind}" in version "${apiVersion}"`);
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      return { group: group!, version: version!, resource: entry[0], namespaced: entry[1] };
    },
    async roleRules(kind, namespace, name) {
      return roles[`${kind}/${namespace}/${name}`];
    },
  };
}

const cm = (name: string, namespace = 'ns'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the preflight to fail');
}

describe('PermissionPreflight', () => {
  it('asks nothing when the extension names no service account', async () => {
    const source = fakeSource(() => false);
    await new PermissionPreflight(source).check(ext(), [cm('a')], signal);
    expect(source.asked).toEqual([]);
  });

  it('asks as system:serviceaccount:<ns>:<sa>: object verbs per object, create per namespace, list/watch cluster-wide, the finalizer', async () => {
    const source = fakeSource(() => true);
    await new PermissionPreflight(source).check(ext('sa'), [cm('a'), cm('b', 'other'), cm('c')], signal);
    expect([...source.users]).toEqual(['system:serviceaccount:ns:sa']);
    expect(source.asked).toEqual([
      'get /configmaps/a in "ns"',
      'patch /configmaps/a in "ns"',
      'update /configmaps/a in "ns"',
      'delete /configmaps/a in "ns"',
      'get /configmaps/b in "other"',
      'patch /configmaps/b in "other"',
      'update /configmaps/b in "other"',
      'delete /configmaps/b in "other"',
      'get /configmaps/c in "ns"',
      'patch /configmaps/c in "ns"',
      'update /configmaps/c in "ns"',
      'delete /configmaps/c in "ns"',
      'create /configmaps in "ns"',
      'create /configmaps in "other"',
      'list /configmaps in ""',
      'watch /configmaps in ""',
      'update olm.operatorframework.io/clusterextensions/finalizers/ext in ""',
    ]);
  });

  it('asks about and reports cluster-scoped kinds at cluster scope, even when their manifest carries a namespace', async () => {
    const crd: KubeObject = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com', namespace: 'ns' } };
    const source = fakeSource((a) => a.kind === 'resource' && a.group !== 'apiextensions.k8s.io');
    const message = await failure(new PermissionPreflight(source).check(ext('sa'), [crd, cm('a')], signal));
    expect(source.asked.filter((q) => q.includes('customresourcedefinitions')).every((q) => q.endsWith('in ""'))).toBe(true);
    expect(message).toBe(
      'pre-authorization failed: service account requires the following permissions to manage cluster extension:\n' +
        '  Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] ResourceNames:[widgets.example.com] Verbs:[delete,get,patch,update]\n' +
        '  Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] Verbs:[create,list,watch]',
    );
  });

  it('a Role and a RoleBinding need what they grant (existing and manifest rules), unless escalate/bind is allowed', async () => {
    const role: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace: 'ns' },
      rules: [{ apiGroups: ['apps'], resources: ['deployments', 'deployments/scale'], verbs: ['get', 'update'] }],
    };
    const binding: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'r', namespace: 'ns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    };
    // Everything but escalation-relevant rules is allowed; the cluster's Role r already has secrets/get.
    const allow = (a: Attributes): boolean => a.kind === 'resource' && !['apps', 'rbac.authorization.k8s.io'].includes(a.group) || (a.kind === 'resource' && a.group === 'rbac.authorization.k8s.io' && !['escalate', 'bind'].includes(a.verb));
    const roles = { 'Role/ns/r': [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] };
    const noSecrets = fakeSource((a) => allow(a) && !(a.kind === 'resource' && a.resource === 'secrets'), roles);
    expect(await failure(new PermissionPreflight(noSecrets).check(ext('sa'), [role, binding], signal))).toBe(
      'pre-authorization failed: service account requires the following permissions to manage cluster extension:\n' +
        '  Namespace:"ns" APIGroups:[] Resources:[secrets] Verbs:[get]\n' +
        '  Namespace:"ns" APIGroups:[apps] Resources:[deployments/scale] Verbs:[get,update]\n' +
        '  Namespace:"ns" APIGroups:[apps] Resources:[deployments] Verbs:[get,update]',
    );
    const escalateAndBind = fakeSource((a) => allow(a) || (a.kind === 'resource' && ['escalate', 'bind'].includes(a.verb)));
    await expect(new PermissionPreflight(escalateAndBind).check(ext('sa'), [role, binding], signal)).resolves.toBeUndefined();
  });

  it('an aggregationRule needs full authority', async () => {
    const aggregated: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'agg' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
    };
    const source = fakeSource((a) => a.verb !== '*' && a.verb !== 'escalate');
    expect(await failure(new PermissionPreflight(source).check(ext('sa'), [aggregated], signal))).toBe(
      'pre-authorization failed: service account requires the following permissions to manage cluster extension:\n' +
        '  Namespace:"" APIGroups:[*] Resources:[*] Verbs:[*]\n' +
        '  Namespace:"" Verbs:[*] NonResourceURLs:[*]',
    );
  });

  it('a review that fails is reported after the missing rules', async () => {
    const source = fakeSource((a) => {
      if (a.kind === 'resource' && a.verb === 'watch') throw new Error('connection reset');
      return a.verb !== 'delete';
    });
    expect(await failure(new PermissionPreflight(source).check(ext('sa'), [cm('a')], signal))).toBe(
      'pre-authorization failed: service account requires the following permissions to manage cluster extension:\n' +
        '  Namespace:"ns" APIGroups:[] Resources:[configmaps] ResourceNames:[a] Verbs:[delete]\n' +
        'authorization evaluation error: missing rules may be incomplete: failed to resolve or evaluate permissions: connection reset',
    );
  });

  it('a failed read of the role a binding references is an evaluation error; the manifest role still counts', async () => {
    const binding: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    };
    const source = fakeSource((a) => a.verb !== 'bind' && a.kind === 'resource' && a.resource !== 'pods');
    source.roleRules = async () => {
      throw new Error('clusterroles.rbac.authorization.k8s.io "view" is forbidden');
    };
    source.mapping = async () => ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', namespaced: false });
    const role: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'view' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] };
    const escalateAllowed = fakeSource(() => true);
    expect(await failure(new PermissionPreflight({ ...source, allowed: async (u, a, s) => (a.verb === 'escalate' ? escalateAllowed.allowed(u, a, s) : source.allowed(u, a, s)) }).check(ext('sa'), [role, binding], signal))).toBe(
      'pre-authorization failed: service account requires the following permissions to manage cluster extension:\n' +
        '  Namespace:"" APIGroups:[] Resources:[pods] Verbs:[list]\n' +
        'authorization evaluation error: missing rules may be incomplete: failed to resolve or evaluate permissions: clusterroles.rbac.authorization.k8s.io "view" is forbidden',
    );
  });

  it('Preflights runs each step in order and stops at the first failure', async () => {
    const order: string[] = [];
    const step = (name: string, fail: boolean) => ({
      async check() {
        order.push(name);
        if (fail) throw new Error(name);
      },
    });
    await expect(new Preflights([step('permissions', true), step('crds', false)]).check(ext(), [], signal)).rejects.toThrow('permissions');
    expect(order).toEqual(['permissions']);
  });
});

describe('rules', () => {
  it('compacts single-resource rules by verbs, keeps others, collapses * ', () => {
    expect(
      compactRules([
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['list', 'get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] },
        { verbs: ['get', '*'], apiGroups: ['a', 'b'], resources: ['x'] },
      ]),
    ).toEqual([
      { verbs: ['*'], apiGroups: ['a', 'b'], resources: ['x'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] },
    ]);
  });

  it('describes a rule as upstream does and leaves empty lists out', () => {
    expect(ruleDescription('', { verbs: ['watch', 'list'], apiGroups: [''], resources: ['services'] })).toBe(
      'Namespace:"" APIGroups:[] Resources:[services] Verbs:[list,watch]',
    );
    expect(preAuthorizationMessage([{ namespace: 'test-namespace', missingRules: [{ verbs: ['create'], apiGroups: ['*'], resources: ['certificates'] }] }, { namespace: '', missingRules: [{ verbs: ['list', 'watch'], apiGroups: [''], resources: ['services'] }] }])).toBe(
      'pre-authorization failed: service account requires the following permissions to manage cluster extension:\n' +
        '  Namespace:"" APIGroups:[] Resources:[services] Verbs:[list,watch]\n' +
        '  Namespace:"test-namespace" APIGroups:[*] Resources:[certificates] Verbs:[create]',
    );
    expect(preAuthorizationMessage([])).toBeUndefined();
  });
});
