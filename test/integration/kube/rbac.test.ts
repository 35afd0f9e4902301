// Identity and authorization: a limited static user, and an admin impersonating a service account
// or a user with several groups (repeated Impersonate-Group headers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ApiError, isForbidden, type KubeClient } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { adminClient, clientWithToken, configMap, namespace } from './helpers.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
let admin: KubeClient;
let alice: KubeClient;
let ns: string;

beforeAll(async () => {
  admin = await adminClient(controlPlane());
  alice = await clientWithToken(controlPlane(), controlPlane().userTokens.alice);
  ns = await namespace(admin, 'rbac');
  await admin.create(configMap(ns, 'existing', { a: '1' }));
});
afterAll(async () => {
  await Promise.all([admin?.close(), alice?.close()]);
});

async function whoAmI(client: KubeClient): Promise<{ username: string; groups: string[] }> {
  const review: KubeObject = await client.create({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });
  return (review['status'] as { userInfo: { username: string; groups: string[] } }).userInfo;
}

describe('RBAC', () => {
  it('refuses a user without rights with Forbidden and the server message', async () => {
    const err = await alice.list({ ...CM, namespace: ns }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isForbidden(err)).toBe(true);
    expect((err as ApiError).code).toBe(403);
    expect((err as ApiError).message).toBe(`configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`);
  });

  it('gives an admin impersonating a service account exactly that account’s rights', async () => {
    await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner', namespace: ns } });
    await admin.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'configmap-reader', namespace: ns },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    });
    await admin.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'runner-reads', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'runner', namespace: ns }],
    });
    const runner = admin.asServiceAccount(ns, 'runner');
    expect(await whoAmI(runner)).toEqual({
      username: `system:serviceaccount:${ns}:runner`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
    });

    const listed = await runner.list({ ...CM, namespace: ns });
    expect(listed.items.map((o) => o.metadata.name)).toContain('existing');
    expect((await runner.get({ ...CM, namespace: ns, name: 'existing' }))['data']).toEqual({ a: '1' });

    const create = await runner.create(configMap(ns, 'not-allowed', {})).catch((e: unknown) => e);
    expect(isForbidden(create)).toBe(true);
    expect((create as ApiError).message).toBe(
      `configmaps is forbidden: User "system:serviceaccount:${ns}:runner" cannot create resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    const elsewhere = await runner.list({ ...CM, namespace: 'default' }).catch((e: unknown) => e);
    expect(isForbidden(elsewhere)).toBe(true);

    // The impersonating client shares the admin's connection but not its identity.
    await expect(admin.list({ ...CM, namespace: 'default' })).resolves.toMatchObject({ items: expect.any(Array) });
  });

  it('sends each impersonated group as its own header', async () => {
    expect(await whoAmI(admin.impersonate({ user: 'dave', groups: ['team-a', 'team-b'] }))).toEqual({
      username: 'dave',
      groups: ['team-a', 'team-b', 'system:authenticated'],
    });
  });

  it('does not let a user without the impersonate verb impersonate', async () => {
    const err = await alice
      .asServiceAccount(ns, 'runner')
      .list({ ...CM, namespace: ns })
      .catch((e: unknown) => e);
    expect(isForbidden(err)).toBe(true);
    // Kubernetes 1.36 checks constrained impersonation (impersonate-on:<kind>:<verb>) first.
    expect((err as ApiError).message).toBe(
      `configmaps is forbidden: User "alice" cannot impersonate-on:serviceaccount:list resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
  });
});
