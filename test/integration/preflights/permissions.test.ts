// The permission preflight against the real kube-apiserver's RBAC authorizer: a service account
// without permissions gets every missing rule listed in upstream's format; once a ClusterRole
// grants them, the same objects pass. operator-controller runs it only with our ServiceAccountInstalls
// gate (`clusterPreflights(client, { serviceAccountPermissions: true })`); upstream v1.11 deleted it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { clusterPreflights, kubePermissionSource, PermissionPreflight } from '../../../internal/operator-controller/preflights/index.ts';
import type { KubeClient } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { adminClient, namespace, until } from '../kube/helpers.ts';

const suffix = Math.random().toString(36).slice(2, 8);
const EXT = `perm-ext-${suffix}`;
const ROLE = `perm-role-${suffix}`;
const GRANT = `perm-grant-${suffix}`;
let kube: KubeClient;
let ns: string;
let preflight: PermissionPreflight;
const signal = new AbortController().signal;

const ext = (serviceAccount?: string): ClusterExtension =>
  ({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: EXT },
    spec: {
      namespace: ns,
      ...(serviceAccount && { serviceAccount: { name: serviceAccount } }),
      source: { sourceType: 'Catalog', catalog: { packageName: 'perm' } },
    },
  }) as ClusterExtension;

function manifest(): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'operator', namespace: ns } },
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'operator', namespace: ns } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: ROLE }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: ROLE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE },
      subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: ns }],
    },
  ];
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the preflight to fail');
}

beforeAll(async () => {
  kube = await adminClient(controlPlane());
  ns = await namespace(kube, 'perm');
  await kube.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: ns } });
  preflight = new PermissionPreflight(kubePermissionSource(kube));
});

afterAll(async () => {
  const rbac = 'rbac.authorization.k8s.io/v1';
  await kube?.delete({ apiVersion: rbac, kind: 'ClusterRoleBinding', name: GRANT }).catch(() => undefined);
  await kube?.delete({ apiVersion: rbac, kind: 'ClusterRole', name: GRANT }).catch(() => undefined);
  await kube?.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
  await kube?.close();
});

describe('permission preflight against the API server', () => {
  it('without a service account the controller acts as itself: nothing to check', async () => {
    await expect(preflight.check(ext(), manifest(), signal)).resolves.toBeUndefined();
  });

  it('without the gate (upstream v1.11) the cluster preflights check no permissions: the same objects pass', async () => {
    await expect(clusterPreflights(kube).check(ext('installer'), manifest(), signal)).resolves.toBeUndefined();
    await expect(clusterPreflights(kube).check(ext('nobody'), manifest(), signal)).resolves.toBeUndefined();
    expect(await failure(clusterPreflights(kube, { serviceAccountPermissions: true }).check(ext('installer'), manifest(), signal))).toMatch(
      /^pre-authorization failed: service account requires the following permissions to manage cluster extension:\n/,
    );
  });

  it('a service account without permissions: every missing rule, one line each, sorted', async () => {
    expect(await failure(preflight.check(ext('installer'), manifest(), signal))).toBe(
      [
        'pre-authorization failed: service account requires the following permissions to manage cluster extension:',
        `  Namespace:"" APIGroups:[] Resources:[configmaps] Verbs:[get,list,watch]`,
        `  Namespace:"" APIGroups:[] Resources:[serviceaccounts] Verbs:[list,watch]`,
        `  Namespace:"" APIGroups:[apps] Resources:[deployments] Verbs:[list,watch]`,
        `  Namespace:"" APIGroups:[olm.operatorframework.io] Resources:[clusterextensions/finalizers] ResourceNames:[${EXT}] Verbs:[update]`,
        `  Namespace:"" APIGroups:[rbac.authorization.k8s.io] Resources:[clusterrolebindings] ResourceNames:[${ROLE}] Verbs:[delete,get,patch,update]`,
        `  Namespace:"" APIGroups:[rbac.authorization.k8s.io] Resources:[clusterrolebindings] Verbs:[create,list,watch]`,
        `  Namespace:"" APIGroups:[rbac.authorization.k8s.io] Resources:[clusterroles] ResourceNames:[${ROLE}] Verbs:[delete,get,patch,update]`,
        `  Namespace:"" APIGroups:[rbac.authorization.k8s.io] Resources:[clusterroles] Verbs:[create,list,watch]`,
        `  Namespace:"${ns}" APIGroups:[] Resources:[configmaps] ResourceNames:[settings] Verbs:[delete,get,patch,update]`,
        `  Namespace:"${ns}" APIGroups:[] Resources:[configmaps] Verbs:[create]`,
        `  Namespace:"${ns}" APIGroups:[] Resources:[serviceaccounts] ResourceNames:[operator] Verbs:[delete,get,patch,update]`,
        `  Namespace:"${ns}" APIGroups:[] Resources:[serviceaccounts] Verbs:[create]`,
        `  Namespace:"${ns}" APIGroups:[apps] Resources:[deployments] ResourceNames:[operator] Verbs:[delete,get,patch,update]`,
        `  Namespace:"${ns}" APIGroups:[apps] Resources:[deployments] Verbs:[create]`,
      ].join('\n'),
    );
  });

  it('granting a ClusterRole with those rules makes the same objects pass; both preflights run', async () => {
    const rbac = 'rbac.authorization.k8s.io/v1';
    await kube.create({
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: { name: GRANT },
      rules: [
        { apiGroups: [''], resources: ['configmaps', 'serviceaccounts'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['olm.operatorframework.io'], resources: ['clusterextensions/finalizers'], verbs: ['update'], resourceNames: [EXT] },
      ],
    });
    await kube.create({
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: { name: GRANT },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: GRANT },
      subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: ns }],
    });
    await until('the grant takes effect', async () => (await preflight.evaluate(ext('installer'), manifest(), signal)) === undefined, 30_000);
    await expect(clusterPreflights(kube, { serviceAccountPermissions: true }).check(ext('installer'), manifest(), signal)).resolves.toBeUndefined();
  });

  it('a ClusterRole granting more than the service account holds is an escalation; bind/escalate lifts it', async () => {
    const objects = manifest();
    (objects[3] as unknown as { rules: unknown[] }).rules.push({ apiGroups: [''], resources: ['secrets'], verbs: ['get'] });
    expect(await failure(preflight.check(ext('installer'), objects, signal))).toBe(
      'pre-authorization failed: service account requires the following permissions to manage cluster extension:\n' +
        '  Namespace:"" APIGroups:[] Resources:[secrets] Verbs:[get]',
    );
    await kube.patch({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: GRANT }, 'json', [
      { op: 'add', path: '/rules/-', value: { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['escalate', 'bind'] } },
    ]);
    await until('escalate and bind take effect', async () => (await preflight.evaluate(ext('installer'), objects, signal)) === undefined, 30_000);
  });

  it('a kind the API server does not know is an evaluation error naming the object', async () => {
    const objects: KubeObject[] = [{ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g', namespace: ns } }];
    expect(await failure(preflight.check(ext('installer'), objects, signal))).toBe(
      'pre-authorization failed: authorization evaluation error: could not get REST mapping for object 0 in manifest with GVK example.com/v1, Kind=Gizmo (name: g): no matches for kind "Gizmo" in version "example.com/v1"',
    );
  });
});
