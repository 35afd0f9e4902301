// Least privilege, our ServiceAccountInstalls gate (the applier's `actAsServiceAccount`): with
// spec.serviceAccount.name set, every request about the extension's objects is made as
// system:serviceaccount:<namespace>:<name>, so the cluster's RBAC decides; revision records are the
// controller's own and are written with its identity. Without the gate (upstream v1.11) the field is
// ignored: everything is done with the controller's own identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbidden, type KubeClient } from '../../../internal/shared/kube/index.ts';
import { sleep } from '../../support/net.ts';
import {
  adminClient,
  bundleObjects,
  bundleRef,
  createNamespace,
  expectedObjects,
  extension,
  waitForRollout,
  newApplier,
  ownedObjects,
  revisionSecrets,
  suffix,
  uninstallFully,
} from './harness.ts';

const never = new AbortController().signal;
let admin: KubeClient;
let system: string;

beforeAll(async () => {
  admin = await adminClient();
  system = await createNamespace(admin, 'olmv1-system');
});
afterAll(async () => {
  await admin?.close();
});

/** Retries while RBAC has not caught up with a change (the authorizer's cache lags a little). */
async function untilAllowed<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isForbidden(err) || i >= 50) throw err;
      await sleep(100);
    }
  }
}

describe('without the gate (upstream v1.11)', () => {
  it('ignores spec.serviceAccount: an account that does not exist changes nothing, the controller acts as itself', async () => {
    const ns = await createNamespace(admin, 'nosa');
    const group = `n${suffix()}.applier.test`;
    const name = `nosa-${suffix()}`;
    const applier = newApplier(admin, system);
    const ext = extension(name, ns, 'nobody');
    const opts = { ns, group, version: '1.0.0' };
    await applier.apply(ext, bundleRef('1.0.0'), bundleObjects(opts), never);
    await waitForRollout(admin, ns);
    expect(await applier.apply(ext, bundleRef('1.0.0'), bundleObjects(opts), never)).toEqual({ installed: true });
    expect(await ownedObjects(admin, name, group)).toEqual(expectedObjects(opts));
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Active Succeeded`]);
    await uninstallFully(applier, ext);
    expect(await ownedObjects(admin, name, group)).toEqual([]);
    expect(await revisionSecrets(admin, system, name)).toEqual([]);
  });
});

describe('impersonation (ServiceAccountInstalls gate)', () => {
  it('acts as the extension’s service account: nothing without its rights, everything with them', async () => {
    const ns = await createNamespace(admin, 'sa');
    const group = `s${suffix()}.applier.test`;
    const name = `sa-${suffix()}`;
    const user = `system:serviceaccount:${ns}:installer`;
    await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: ns } });
    const applier = newApplier(admin, system, { actAsServiceAccount: true });
    const ext = extension(name, ns, 'installer');
    const opts = { ns, group, version: '1.0.0' };
    const objects = bundleObjects(opts);

    // No rights: the first request about an object is refused for the service account.
    await expect(applier.apply(ext, bundleRef('1.0.0'), objects, never)).rejects.toHaveProperty(
      'message',
      `serviceaccounts "widgets-operator" is forbidden: User "${user}" cannot get resource "serviceaccounts" in API group "" in the namespace "${ns}"`,
    );
    expect(await revisionSecrets(admin, system, name)).toEqual([]);
    expect(await ownedObjects(admin, name, group)).toEqual([]);

    // Exactly what the bundle needs (no Secrets anywhere: the records are not written as the account).
    const verbs = ['get', 'create', 'patch', 'update', 'delete'];
    const role = `installer-${ns}`;
    await admin.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [
        { apiGroups: [''], resources: ['serviceaccounts', 'configmaps', 'services'], verbs },
        { apiGroups: ['apps'], resources: ['deployments'], verbs },
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs },
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings'], verbs: [...verbs, 'escalate', 'bind'] },
        { apiGroups: [group], resources: ['widgets'], verbs },
      ],
    });
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: ns }],
    };
    await admin.create(binding);

    await untilAllowed(() => applier.apply(ext, bundleRef('1.0.0'), objects, never));
    await waitForRollout(admin, ns);
    expect(await applier.apply(ext, bundleRef('1.0.0'), objects, never)).toEqual({ installed: true });
    expect(await ownedObjects(admin, name, group)).toEqual(expectedObjects(opts));
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Active Succeeded`]);
    const installed = await applier.installed(ext, never);

    // Rights withdrawn: drift repair and uninstall are refused too — they act as the account.
    await admin.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: role });
    const refused = async (p: () => Promise<unknown>): Promise<void> => {
      for (let i = 0; ; i++) {
        const err = await p().then(() => undefined, (e: unknown) => e);
        if (isForbidden(err)) {
          expect((err as Error).message).toContain(`User "${user}" cannot get resource`);
          return;
        }
        if (i >= 50) throw new Error(`expected a Forbidden error, got ${String(err)}`);
        await sleep(100);
      }
    };
    await refused(() => applier.maintain(ext, installed!, never));
    await refused(() => applier.uninstall(ext, never));
    expect(await ownedObjects(admin, name, group)).toEqual(expectedObjects(opts));

    await admin.create(binding);
    await untilAllowed(() => uninstallFully(applier, ext));
    expect(await ownedObjects(admin, name, group)).toEqual([]);
    expect(await revisionSecrets(admin, system, name)).toEqual([]);
    await admin.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: role });
    await admin.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: role });
  });
});
