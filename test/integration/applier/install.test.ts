// The applier against the real API server: phased server-side apply with owner labels, revision
// records, collision protection, drift repair, upgrades with pruning, large bundles, uninstall.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { RevisionApplier } from '../../../internal/operator-controller/applier/index.ts';
import type { KubeClient } from '../../../internal/shared/kube/index.ts';
import {
  adminClient,
  bundleObjects,
  bundleRef,
  createNamespace,
  expectedObjects,
  extension,
  getOrUndefined,
  waitForRollout,
  newApplier,
  ownedObjects,
  RecordingClient,
  revisionSecrets,
  suffix,
  uninstallFully,
  widgetCrd,
} from './harness.ts';

const FIELD_MANAGER = 'olm.operatorframework.io/clusterextension-controller';
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

async function installHealthy(applier: RevisionApplier, ns: string, extName: string, group: string, version = '1.0.0'): Promise<void> {
  const ext = extension(extName, ns);
  await applier.apply(ext, bundleRef(version), bundleObjects({ ns, group, version }), never);
  await waitForRollout(admin, ns);
  expect(await applier.apply(ext, bundleRef(version), bundleObjects({ ns, group, version }), never)).toEqual({ installed: true });
}

describe('install', () => {
  it('records a revision, then applies every object phase by phase with SSA and the owner labels', async () => {
    const ns = await createNamespace(admin, 'inst');
    const group = `i${suffix()}.applier.test`;
    const name = `inst-${suffix()}`;
    const rec = RecordingClient.from(admin);
    const applier = newApplier(rec, system);
    const ext = extension(name, ns);
    const opts = { ns, group, version: '1.0.0' };

    expect(await applier.installed(ext, never)).toBeUndefined();
    const first = await applier.apply(ext, bundleRef('1.0.0'), bundleObjects(opts), never);
    // No Deployment controller runs here: the Deployment is not Available yet.
    expect(first).toEqual({
      installed: false,
      message: `Object Deployment.apps/v1 ${ns}/widgets-operator: condition "Available" is "missing", not "True"`,
    });
    expect(rec.writes).toEqual([
      { verb: 'create', what: `Secret/${name}-1.0` },
      { verb: 'create', what: `Secret/${name}-1` },
      { verb: 'apply', what: 'ServiceAccount/widgets-operator' },
      { verb: 'apply', what: 'ConfigMap/widgets-config-1-0-0' },
      { verb: 'apply', what: `CustomResourceDefinition/widgets.${group}` },
      { verb: 'apply', what: `ClusterRole/widgets-${ns}-1-0-0` },
      { verb: 'apply', what: `ClusterRoleBinding/widgets-${ns}-1-0-0` },
      { verb: 'apply', what: 'Service/widgets-metrics' },
      { verb: 'apply', what: 'Deployment/widgets-operator' },
      { verb: 'apply', what: 'Widget/default-1-0-0' },
    ]);
    expect(await applier.installed(ext, never)).toBeUndefined();
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Active`]);

    await waitForRollout(admin, ns);
    expect(await applier.apply(ext, bundleRef('1.0.0'), bundleObjects(opts), never)).toEqual({ installed: true });
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Active Succeeded`]);
    expect(await applier.installed(ext, never)).toEqual({ ...bundleRef('1.0.0'), revision: `${name}-1` });
    expect(await ownedObjects(admin, name, group)).toEqual(expectedObjects(opts));

    const cm = await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'widgets-config-1-0-0' });
    expect(cm.metadata.labels).toEqual({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': name });
    expect(cm.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([[FIELD_MANAGER, 'Apply']]);
  });

  it('refuses to adopt a namespaced object it does not own, with upstream’s message, recording and applying nothing', async () => {
    const ns = await createNamespace(admin, 'coll');
    const group = `c${suffix()}.applier.test`;
    const name = `coll-${suffix()}`;
    const objects = bundleObjects({ ns, group, version: '1.0.0' });
    const mine = objects.find((o) => o.kind === 'Deployment')!;
    await admin.create({ ...mine, spec: { ...(mine['spec'] as object), replicas: 3 } });
    const applier = newApplier(admin, system);

    await expect(applier.apply(extension(name, ns), bundleRef('1.0.0'), objects, never)).rejects.toHaveProperty('message', `Deployment 'widgets-operator' already exists in namespace '${ns}' and cannot be managed by operator-controller`);
    expect(await revisionSecrets(admin, system, name)).toEqual([]);
    expect(await ownedObjects(admin, name, group)).toEqual([]);
    const theirs = await admin.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'widgets-operator' });
    expect(theirs.metadata.labels).toBeUndefined();
    expect((theirs['spec'] as { replicas: number }).replicas).toBe(3);
  });

  it('refuses a cluster-scoped object owned by another extension (namespace \'\' in the message)', async () => {
    const ns = await createNamespace(admin, 'coll');
    const group = `c${suffix()}.applier.test`;
    const name = `coll-${suffix()}`;
    const objects = bundleObjects({ ns, group, version: '1.0.0' });
    const role = objects.find((o) => o.kind === 'ClusterRole')!;
    await admin.create({ ...role, metadata: { ...role.metadata, labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'someone-else' } } });
    const applier = newApplier(admin, system);

    await expect(applier.apply(extension(name, ns), bundleRef('1.0.0'), objects, never)).rejects.toHaveProperty('message', `ClusterRole 'widgets-${ns}-1-0-0' already exists in namespace '' and cannot be managed by operator-controller`);
    expect(await revisionSecrets(admin, system, name)).toEqual([]);
    expect(await ownedObjects(admin, name, group)).toEqual([]);
    await admin.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: role.metadata.name! });
  });
});

describe('drift', () => {
  it('undoes changes and deletions on the next apply and on maintain', async () => {
    const ns = await createNamespace(admin, 'drift');
    const group = `d${suffix()}.applier.test`;
    const name = `drift-${suffix()}`;
    const applier = newApplier(admin, system);
    const ext = extension(name, ns);
    await installHealthy(applier, ns, name, group);
    const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'widgets-config-1-0-0' };
    const svcRef = { apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'widgets-metrics' };
    const crRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: `widgets-${ns}-1-0-0` };

    const breakIt = async (): Promise<void> => {
      await admin.patch(cmRef, 'merge', { data: { version: 'tampered', extra: 'x' } }, { fieldManager: 'kubectl-edit' });
      await admin.patch(crRef, 'json', [{ op: 'replace', path: '/rules/0/verbs', value: ['*'] }], { fieldManager: 'kubectl-edit' });
      await admin.delete(svcRef);
      expect(await getOrUndefined(admin, svcRef)).toBeUndefined();
    };
    const expectRepaired = async (): Promise<void> => {
      // The fields it owns are back; a field only someone else set is theirs to keep.
      expect((await admin.get(cmRef))['data']).toEqual({ version: '1.0.0', extra: 'x' });
      expect(((await admin.get(crRef))['rules'] as { verbs: string[] }[])[0]!.verbs).toEqual(['get', 'list', 'watch']);
      expect(await getOrUndefined(admin, svcRef)).toMatchObject({ kind: 'Service', metadata: { name: 'widgets-metrics', namespace: ns } });
    };

    await breakIt();
    expect(await applier.apply(ext, bundleRef('1.0.0'), bundleObjects({ ns, group, version: '1.0.0' }), never)).toEqual({ installed: true });
    await expectRepaired();

    await breakIt();
    const installed = await applier.installed(ext, never);
    expect(await applier.maintain(ext, installed!, never)).toEqual({ installed: true });
    await expectRepaired();
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Active Succeeded`]);

    // Deleted and re-created by someone else: theirs now, and never taken over.
    await admin.delete(svcRef);
    await admin.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'widgets-metrics', namespace: ns }, spec: { ports: [{ port: 9000 }] } });
    await expect(applier.maintain(ext, installed!, never)).rejects.toHaveProperty(
      'message',
      `Service 'widgets-metrics' already exists in namespace '${ns}' and cannot be managed by operator-controller`,
    );
    expect((await admin.get(svcRef)).metadata.labels).toBeUndefined();
  });

  it('puts objects of namespaced kinds that have no namespace into the install namespace', async () => {
    const ns = await createNamespace(admin, 'defns');
    const name = `defns-${suffix()}`;
    const applier = newApplier(admin, system);
    const ext = extension(name, ns);
    const objects: KubeObject[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-namespace' }, data: { a: 'b' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `defns-${ns}` }, rules: [] },
    ];
    expect(await applier.apply(ext, bundleRef('1.0.0'), objects, never)).toEqual({ installed: true });
    expect(await ownedObjects(admin, name)).toEqual([`ClusterRole/defns-${ns}`, `ConfigMap/${ns}/no-namespace`]);
    await uninstallFully(applier, ext);
    expect(await ownedObjects(admin, name)).toEqual([]);
  });
});

describe('upgrade and uninstall', () => {
  it('applies the new revision, prunes only once it is healthy, archives the old one, and uninstall removes everything', async () => {
    const ns = await createNamespace(admin, 'upg');
    const group = `u${suffix()}.applier.test`;
    const name = `upg-${suffix()}`;
    const applier = newApplier(admin, system, { retainArchived: 1 });
    const ext = extension(name, ns);
    await installHealthy(applier, ns, name, group);

    // 2.0.0 renames some objects and changes the Deployment's image (a new generation to roll out).
    const v2 = { ns, group, version: '2.0.0' };
    expect(await applier.apply(ext, bundleRef('2.0.0'), bundleObjects(v2), never)).toEqual({
      installed: false,
      message: expect.stringMatching(/^Object Deployment\.apps\/v1 .*\/widgets-operator: \.status\.observedGeneration 1 is behind \.metadata\.generation 2$/) as string,
    });
    // Nothing pruned while the new revision is not healthy; the old one is still what is installed.
    expect(await ownedObjects(admin, name, group)).toEqual([...new Set([...expectedObjects({ ns, group, version: '1.0.0' }), ...expectedObjects(v2)])].sort());
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Active Succeeded`, `${name}-2 Active`]);
    expect((await applier.installed(ext, never))?.version).toBe('1.0.0');

    await waitForRollout(admin, ns);
    expect(await applier.apply(ext, bundleRef('2.0.0'), bundleObjects(v2), never)).toEqual({ installed: true });
    expect(await ownedObjects(admin, name, group)).toEqual(expectedObjects(v2));
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Archived Succeeded`, `${name}-2 Active Succeeded`]);
    expect(await applier.installed(ext, never)).toEqual({ ...bundleRef('2.0.0'), revision: `${name}-2` });

    // A third revision: only one archived revision is kept here.
    const v3 = { ns, group, version: '3.0.0' };
    await applier.apply(ext, bundleRef('3.0.0'), bundleObjects(v3), never);
    await waitForRollout(admin, ns);
    expect(await applier.apply(ext, bundleRef('3.0.0'), bundleObjects(v3), never)).toEqual({ installed: true });
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-2 Archived Succeeded`, `${name}-3 Active Succeeded`]);
    expect(await ownedObjects(admin, name, group)).toEqual(expectedObjects(v3));

    await uninstallFully(applier, ext);
    expect(await ownedObjects(admin, name, group)).toEqual([]);
    expect(await revisionSecrets(admin, system, name)).toEqual([]);
    expect(await applier.installed(ext, never)).toBeUndefined();
  });

  it('installs a bundle of more than 2 MiB with a 1.4 MiB CRD: the revision is compressed and chunked across immutable Secrets', async () => {
    const ns = await createNamespace(admin, 'big');
    const group = `b${suffix()}.applier.test`;
    const name = `big-${suffix()}`;
    const applier = newApplier(admin, system);
    const ext = extension(name, ns);
    // base64 noise (about 3/4 of it is left after gzip). One CRD of 1.4 MiB (etcd refuses a
    // single object over 1.5 MiB, so a bundle cannot hold a larger one) plus a second of
    // 0.66 MiB: 2.1 MiB of objects, about 1.6 MB gzip'd, more than one Secret holds.
    const padding = randomBytes(1_110_000).toString('base64');
    const opts = { ns, group, version: '1.0.0', crdPadding: padding };
    const gadgets = widgetCrd(group, randomBytes(520_000).toString('base64'));
    gadgets.metadata.name = `gadgets.${group}`;
    (gadgets['spec'] as { names: unknown }).names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
    const objects = [...bundleObjects(opts), gadgets];
    expect(JSON.stringify(objects.find((o) => o.metadata.name === `widgets.${group}`)).length).toBeGreaterThan(1.4 * (1 << 20));
    expect(JSON.stringify(objects).length).toBeGreaterThan(2 << 20);

    await applier.apply(ext, bundleRef('1.0.0'), objects, never);
    await waitForRollout(admin, ns);
    expect(await applier.apply(ext, bundleRef('1.0.0'), objects, never)).toEqual({ installed: true });
    expect(await revisionSecrets(admin, system, name)).toEqual([`${name}-1 Active Succeeded (2 chunks)`]);
    const crd = await admin.get<KubeObject & { spec: { versions: { schema: { openAPIV3Schema: { description: string } } }[] } }>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: `widgets.${group}`,
    });
    expect(crd.spec.versions[0]!.schema.openAPIV3Schema.description).toBe(padding);

    // A fresh applier (a restarted process) reads the chunked record back for maintain.
    const restarted = newApplier(admin, system);
    expect(await restarted.maintain(ext, (await restarted.installed(ext, never))!, never)).toEqual({ installed: true });
    // A CRD this large can sit Terminating for minutes with InstanceDeletionFailed "could not list
    // instances: storage is (re)initializing" while kube-apiserver rebuilds its watch cache; upstream's
    // e2e waits 5 minutes for CRD deletion for this reason (operator-framework/operator-controller#1437).
    await uninstallFully(restarted, ext, 300_000);
    expect(await ownedObjects(admin, name, group)).toEqual([]);
    expect(await revisionSecrets(admin, system, name)).toEqual([]);
  }, 480_000);
});
