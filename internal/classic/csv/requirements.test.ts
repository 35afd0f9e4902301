import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import type { BindingLike, RbacSource, RoleLike } from './rbac.ts';
import { rbacObjects } from '../subscription/index.ts';
import { goPolicyRule } from '../../shared/registryv1/index.ts';
import { apiRequirementStatus, minKubeVersionStatus, othersInstalledAlongside, permissionStatus, type CRDInfo, type RequirementSource } from './requirements.ts';

const csv = (name: string, spec: Partial<ClusterServiceVersion['spec']> = {}, meta: Partial<ClusterServiceVersion['metadata']> = {}): ClusterServiceVersion => ({
  metadata: { name, namespace: 'namespace', uid: `uid-${name}`, ...meta },
  spec: { displayName: name, install: { strategy: 'deployment', spec: { deployments: [] } }, ...spec },
});
const noRbac: RbacSource = { role: () => undefined, clusterRole: () => undefined, roles: () => [], clusterRoles: () => [], roleBindings: () => [], clusterRoleBindings: () => [] };

function source(o: Partial<RequirementSource> & { crds?: Record<string, CRDInfo>; csvs?: ClusterServiceVersion[] } = {}): RequirementSource {
  return {
    serverVersion: o.serverVersion ?? (async () => 'v1.36.3'),
    crd: o.crd ?? ((name) => o.crds?.[name]),
    csv: o.csv ?? ((_ns, name) => o.csvs?.find((c) => c.metadata.name === name)),
    gvkRegistered: o.gvkRegistered ?? (async () => false),
    apiService: o.apiService ?? (async () => undefined),
    serviceAccount: o.serviceAccount ?? (() => undefined),
    rbac: o.rbac ?? noRbac,
  };
}

// upstream olm/requirements_test.go TestMinKubeVersionStatus.
describe('minKubeVersion', () => {
  it.each([
    { min: '', want: { met: true, statuses: [] } },
    { min: '1.11.0', status: 'Present', message: 'CSV minKubeVersion (1.11.0) less than server version (v1.36.3)' },
    { min: 'v1.11.0', status: 'Present', message: 'CSV minKubeVersion (v1.11.0) less than server version (v1.36.3)' },
    { min: '1.99.0', status: 'PresentNotSatisfied', message: 'CSV version requirement not met: minKubeVersion (1.99.0) > server version (1.36.3)' },
    { min: '1.36', status: 'PresentNotSatisfied', message: 'CSV version parsing error' },
  ])('$min', async ({ min, want, status, message }) => {
    const got = await minKubeVersionStatus(source(), 'op.v1', min);
    if (want) expect(got).toEqual(want);
    else expect(got.statuses).toEqual([{ group: 'operators.coreos.com', version: 'v1alpha1', kind: 'ClusterServiceVersion', name: 'op.v1', status, message }]);
  });
  it('discovery and parsing failures of the server version', async () => {
    expect((await minKubeVersionStatus(source({ serverVersion: async () => Promise.reject(new Error('x')) }), 'a', '1.0.0')).statuses[0]!.message).toBe('Server version discovery error');
    expect((await minKubeVersionStatus(source({ serverVersion: async () => 'vbad' }), 'a', '1.0.0')).statuses[0]!.message).toBe('Server version parsing error');
  });
});

describe('CRDs, APIServices and native APIs', () => {
  const established: CRDInfo = { uid: 'u1', versions: [{ name: 'v1', served: true }], established: true, namesAccepted: true };
  it('every CRD state with upstream’s status and message, sorted by name', async () => {
    const c = csv('op', {
      customresourcedefinitions: {
        owned: [
          { name: 'as.example.com', version: 'v1', kind: 'A' },
          { name: 'bs.example.com', version: 'v2', kind: 'B' },
        ],
        required: [
          { name: 'cs.example.com', version: 'v1', kind: 'C' },
          { name: 'ds.example.com', version: 'v1', kind: 'D' },
        ],
      },
    });
    const r = await apiRequirementStatus(
      source({ crds: { 'as.example.com': established, 'bs.example.com': established, 'ds.example.com': { ...established, established: false } } }),
      c,
    );
    expect(r.met).toBe(false);
    expect(r.statuses.map((s) => [s.name, s.status, s.message])).toEqual([
      ['as.example.com', 'Present', 'CRD is present and Established condition is true'],
      ['bs.example.com', 'NotPresent', 'CRD version not served'],
      ['cs.example.com', 'NotPresent', 'CRD is not present'],
      ['ds.example.com', 'PresentNotAvailable', 'CRD is present but the Established condition is False (not available)'],
    ]);
    expect(r.statuses[0]!.uuid).toBe('u1');
  });

  it('an owned CRD installed alongside another CSV this one replaces is not satisfied', async () => {
    const crd: CRDInfo = { ...established, annotations: { 'operatorframework.io/installed-alongside-1': 'namespace/old' } };
    const r = await apiRequirementStatus(source({ crds: { 'as.example.com': crd }, csvs: [csv('old')] }), csv('new', { replaces: 'old', customresourcedefinitions: { owned: [{ name: 'as.example.com', version: 'v1', kind: 'A' }] } }));
    expect(r.statuses[0]).toMatchObject({ status: 'PresentNotSatisfied', message: 'CRD installed alongside other CSV(s): old' });
  });

  it('required APIServices, owned APIServices and native APIs', async () => {
    const c = csv('op', {
      apiservicedefinitions: {
        required: [{ name: 'things', group: 'things.io', version: 'v1', kind: 'Thing' }],
        owned: [{ name: 'mine', group: 'mine.io', version: 'v1', kind: 'Mine', deploymentName: 'missing' }],
      },
      nativeAPIs: [{ group: '', version: 'v1', kind: 'Pod' }, { group: 'nope.io', version: 'v1', kind: 'Nope' }],
    });
    const r = await apiRequirementStatus(source({ gvkRegistered: async (g, _v, k) => g === '' || (g === 'things.io' && k === 'Thing'), apiService: async () => ({ uid: 'as', available: true }) }), c);
    expect(r.statuses).toEqual([
      { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', name: 'v1.things.io', message: '', status: 'Present', uuid: 'as' },
      { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', name: 'v1.mine.io', message: '', status: 'DeploymentNotFound' },
      { group: '', version: 'v1', kind: 'Pod', name: 'v1.', status: 'Present', message: 'Native API exists' },
      { group: 'nope.io', version: 'v1', kind: 'Nope', name: 'v1.nope.io', status: 'NotPresent', message: 'Native API does not exist' },
    ]);
  });
});

describe('permissions', () => {
  it('a missing service account, one owned by another CSV, and rules as dependents in Go’s JSON', () => {
    const perms = [
      { serviceAccountName: 'missing', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
      { serviceAccountName: 'taken', rules: [] },
      { serviceAccountName: 'mine', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
    ];
    const sas: Record<string, { metadata: { ownerReferences?: { kind: string; uid: string }[] } }> = {
      taken: { metadata: { ownerReferences: [{ kind: 'ClusterServiceVersion', uid: 'someone-else' }] } },
      mine: { metadata: { ownerReferences: [{ kind: 'ClusterServiceVersion', uid: 'uid-op' }] } },
    };
    const r = permissionStatus(source({ serviceAccount: (_ns, n) => sas[n] }), csv('op'), 'namespace', perms, []);
    expect(r.met).toBe(false);
    expect(r.statuses).toEqual([
      { group: '', version: 'v1', kind: 'ServiceAccount', name: 'missing', status: 'NotPresent', message: 'Service account does not exist' },
      { group: '', version: 'v1', kind: 'ServiceAccount', name: 'taken', status: 'PresentNotSatisfied', message: 'Service account is owned by another ClusterServiceVersion' },
      {
        group: '',
        version: 'v1',
        kind: 'ServiceAccount',
        name: 'mine',
        status: 'PresentNotSatisfied',
        message: 'Policy rule not satisfied for service account',
        dependents: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: 'NotSatisfied', message: 'namespaced rule:{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}' }],
      },
    ]);
  });

  // upstream olm/requirements.go permissionStatus with informersFiltered: permissionsPreviouslyCreated finds OLM's own
  // Role + RoleBinding (labels olm.owner*, olm.permissions.hash) and `continue`s before storing the status; its binding
  // hash is computed with roleRef kind Role, so OLM's ClusterRoleBindings never match and cluster rules are checked.
  it('with the RBAC OLM generated: a service account lists only its cluster rules; one with only namespaced permissions is not listed', () => {
    const rule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
    const clusterRule = { verbs: ['list'], apiGroups: [''], resources: ['nodes'] };
    const op = csv('op', {
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [],
          permissions: [
            { serviceAccountName: 'both', rules: [rule] },
            { serviceAccountName: 'ns-only', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] },
          ],
          clusterPermissions: [{ serviceAccountName: 'both', rules: [clusterRule] }],
        },
      },
    });
    const objs = rbacObjects(op) as unknown as (RoleLike & BindingLike & { kind: string })[];
    const of = (kind: string) => objs.filter((o) => o.kind === kind);
    const rbac: RbacSource = {
      role: (ns, name) => of('Role').find((r) => r.metadata.namespace === ns && r.metadata.name === name),
      clusterRole: (name) => of('ClusterRole').find((r) => r.metadata.name === name),
      roles: (ns) => of('Role').filter((r) => r.metadata.namespace === ns),
      clusterRoles: () => of('ClusterRole'),
      roleBindings: (ns) => of('RoleBinding').filter((r) => r.metadata.namespace === ns),
      clusterRoleBindings: () => of('ClusterRoleBinding'),
    };
    const spec = op.spec.install!.spec!;
    const r = permissionStatus(source({ serviceAccount: () => ({ metadata: {} }), rbac }), op, 'namespace', spec.permissions ?? [], spec.clusterPermissions ?? []);
    expect(r.met).toBe(true);
    expect(r.statuses).toEqual([
      {
        group: '',
        version: 'v1',
        kind: 'ServiceAccount',
        name: 'both',
        status: 'Present',
        message: '',
        dependents: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: 'Satisfied', message: 'cluster rule:{"verbs":["list"],"apiGroups":[""],"resources":["nodes"]}' }],
      },
    ]);
    // without OLM's Role the namespaced rule is checked (and, not granted, listed)
    const r2 = permissionStatus(source({ serviceAccount: () => ({ metadata: {} }), rbac: { ...rbac, roles: () => [] } }), op, 'namespace', spec.permissions ?? [], []);
    expect(r2.statuses.map((s) => [s.name, s.dependents?.map((d) => d.message)])).toEqual([
      ['both', ['namespaced rule:{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}']],
      ['ns-only', ['namespaced rule:{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}']],
    ]);
  });

  it('marshals a rule as Go does (verbs always, empty lists left out, HTML-safe escapes)', () => {
    expect(goPolicyRule({ verbs: ['get'], apiGroups: [], resources: ['a'], nonResourceURLs: [] })).toBe('{"verbs":["get"],"resources":["a"]}');
    expect(goPolicyRule({ verbs: null, nonResourceURLs: ['/x&y'] })).toBe('{"verbs":null,"nonResourceURLs":["/x\\u0026y"]}');
  });
});

// upstream olm/requirements_test.go TestOthersInstalledAlongside.
describe('othersInstalledAlongside', () => {
  const crdWith = (...names: [string, string][]): CRDInfo => ({
    versions: [],
    established: true,
    namesAccepted: true,
    annotations: Object.fromEntries(names.map(([ns, n], i) => [`operatorframework.io/installed-alongside-${i}`, `${ns}/${n}`])),
  });
  const inNs = (...csvs: ClusterServiceVersion[]) => ({ csv: (_ns: string, name: string) => csvs.find((c) => c.metadata.name === name) });
  it.each([
    { name: 'csv in different namespace excluded', all: [['namespace-2', 'a']] as [string, string][], target: csv('b'), in: [csv('a')], want: [] },
    { name: 'given csv excluded', all: [['namespace', 'a']] as [string, string][], target: csv('a'), in: [], want: [] },
    { name: 'returns nil if given csv is included', all: [['namespace', 'a'], ['namespace', 'b']] as [string, string][], target: csv('a', { replaces: 'b' }), in: [csv('b')], want: [] },
    { name: 'copied csv excluded', all: [['namespace', 'b']] as [string, string][], target: csv('a'), in: [{ ...csv('b'), status: { reason: 'Copied' } }], want: [] },
    { name: 'non-ancestor csv excluded', all: [['namespace', 'b']] as [string, string][], target: csv('a'), in: [csv('b')], want: [] },
    { name: 'ancestor csvs included', all: [['namespace', 'b'], ['namespace', 'c']] as [string, string][], target: csv('a', { replaces: 'b' }), in: [csv('b', { replaces: 'c' }), csv('c')], want: ['b', 'c'] },
    { name: 'descendant csvs excluded', all: [['namespace', 'b'], ['namespace', 'c']] as [string, string][], target: csv('a'), in: [csv('c', { replaces: 'b' }), csv('b', { replaces: 'a' })], want: [] },
    { name: 'ancestor csvs included with cycle', all: [['namespace', 'b'], ['namespace', 'c']] as [string, string][], target: csv('a', { replaces: 'b' }), in: [csv('b', { replaces: 'c' }), csv('c', { replaces: 'a' })], want: ['b', 'c'] },
  ])('$name', ({ all, target, in: csvs, want }) => {
    expect(othersInstalledAlongside(crdWith(...all), target, inNs(...csvs))).toEqual(want);
  });
});
