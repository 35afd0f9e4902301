// The ClusterObjectSet runtime (BoxcutterRuntime) against the real API server, controllers and KWOK nodes:
// ClusterObjectSets written by hand (phases gated by probes, objects from Secrets, archiving, the API's CEL rules)
// and ClusterExtensions whose revisions are ClusterObjectSets (install, upgrade with handover and pruning,
// collisions between extensions, uninstall).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition } from '../../../api/meta/v1.ts';
import type { ClusterExtension, ClusterObjectSet } from '../../../api/v1/index.ts';
import { pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installExperimentalCRDs, installStandardCRDs } from '../../support/crds.ts';
import { adminKube, registry } from '../../support/env.ts';
import { poll, waitFor } from '../../support/net.ts';
import { extCondition, getExtension, operatorControllerSuite, SYSTEM_NAMESPACE, waitForExtension, waitGone } from './harness.ts';

const suite = operatorControllerSuite('cos', {
  before: async () => void (await installExperimentalCRDs(adminKube())),
  after: async () => void (await installStandardCRDs(adminKube())),
  controller: { boxcutterRuntime: true },
});
const ns = (): string => suite.namespace();

const COS_PATH = '/apis/olm.operatorframework.io/v1/clusterobjectsets';
const cosNames = new Set<string>();

afterAll(async () => {
  for (const n of cosNames) await adminKube().request('DELETE', `${COS_PATH}/${n}`);
});

async function createCOS(name: string, spec: Record<string, unknown>): Promise<void> {
  cosNames.add(name);
  const r = await adminKube().request('POST', COS_PATH, { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', metadata: { name }, spec });
  if (r.status !== 201) throw new Error(`create ClusterObjectSet ${name}: ${r.status} ${JSON.stringify(r.body)}`);
}

async function getCOS(name: string): Promise<ClusterObjectSet | undefined> {
  const r = await adminKube().request('GET', `${COS_PATH}/${name}`);
  return r.status === 404 ? undefined : (r.body as unknown as ClusterObjectSet);
}

const cond = (c: { status?: { conditions?: Condition[] } } | undefined, type: string): Condition | undefined => c?.status?.conditions?.find((x) => x.type === type);

async function waitForCOS(name: string, what: string, ok: (c: ClusterObjectSet) => boolean, timeoutMs = 60_000): Promise<ClusterObjectSet> {
  let last: ClusterObjectSet | undefined;
  const met = await poll(async () => !!(last = await getCOS(name)) && ok(last), { timeoutMs, intervalMs: 250 });
  if (!met) throw new Error(`ClusterObjectSet ${name} never became ${what}; last status: ${JSON.stringify(last?.status ?? null)}`);
  return last!;
}

const hasCond = (type: string, status: string, reason: string) => (c: { status?: { conditions?: Condition[] } }): boolean => {
  const x = cond(c, type);
  return x?.status === status && x.reason === reason;
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
async function get(path: string): Promise<{ status: number; body: Json }> {
  return (await adminKube().request('GET', path)) as { status: number; body: Json };
}

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns(), ...(labels && { labels }) },
  data,
});

describe('ClusterObjectSet written by hand', () => {
  it('holds back a phase while a probe fails, with boxcutter’s message, and repairs drift of the objects it applied', async () => {
    const name = 'cos-probes';
    await createCOS(name, {
      lifecycleState: 'Active',
      collisionProtection: 'Prevent',
      revision: 1,
      progressionProbes: [
        {
          selector: { type: 'Label', label: { matchLabels: { 'test-label': 'foo' } } },
          assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'data.foo', value: 'bar' } }],
        },
      ],
      phases: [
        { name: 'cm-1', objects: [{ object: configMap('probe-cm-1', { foo: 'foo' }, { 'test-label': 'foo' }) }] },
        { name: 'cm-2', objects: [{ object: configMap('probe-cm-2', { name: 'x' }, { 'test-label': 'bar' }) }] },
      ],
    });
    const blocked = await waitForCOS(name, 'Available=False/ProbeFailure', hasCond('Available', 'False', 'ProbeFailure'));
    expect(cond(blocked, 'Available')?.message).toBe(`Object ConfigMap.v1 ${ns()}/probe-cm-1: value at key "data.foo" != "bar"; expected: "bar" got: "foo"`);
    expect(cond(blocked, 'Progressing')).toMatchObject({ status: 'True', reason: 'RollingOut', message: 'Revision  is rolling out.' });
    expect((await get(`/api/v1/namespaces/${ns()}/configmaps/probe-cm-2`)).status).toBe(404);
    const cm1 = (await get(`/api/v1/namespaces/${ns()}/configmaps/probe-cm-1`)).body;
    expect(cm1['metadata'].labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'olm.operatorframework.io', 'olm.operatorframework.io/owner-name': '' });
    expect(cm1['metadata'].annotations).toMatchObject({ 'olm.operatorframework.io/revision': '1' });
    expect(cm1['metadata'].ownerReferences).toEqual([
      { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name, uid: blocked.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);

    // A change to a field the revision applied is taken back: the revision stays what it says, still blocked.
    await adminKube().request('PATCH', `/api/v1/namespaces/${ns()}/configmaps/probe-cm-1`, { data: { foo: 'bar' } }, 'application/merge-patch+json');
    const after = await waitForCOS(name, 'still blocked after drift repair', (c) => hasCond('Available', 'False', 'ProbeFailure')(c));
    expect(after.status?.observedPhases?.map((p) => p.name)).toEqual(['cm-1', 'cm-2']);
    await waitFor('drift on probe-cm-1 repaired', async () => (await get(`/api/v1/namespaces/${ns()}/configmaps/probe-cm-1`)).body['data']?.foo === 'foo');

    // Metadata the revision sets is put back; what others add stays.
    await adminKube().request(
      'PATCH',
      `/api/v1/namespaces/${ns()}/configmaps/probe-cm-1`,
      { metadata: { annotations: { 'olm.operatorframework.io/revision': null, 'example.com/note': 'mine' } } },
      'application/merge-patch+json',
    );
    await waitFor('the revision annotation restored', async () => (await get(`/api/v1/namespaces/${ns()}/configmaps/probe-cm-1`)).body['metadata'].annotations?.['olm.operatorframework.io/revision'] === '1');
    expect((await get(`/api/v1/namespaces/${ns()}/configmaps/probe-cm-1`)).body['metadata'].annotations['example.com/note']).toBe('mine');
  });

  it('rolls out every phase and reports success when all probes pass', async () => {
    const name = 'cos-passes';
    await createCOS(name, {
      lifecycleState: 'Active',
      collisionProtection: 'Prevent',
      revision: 1,
      progressionProbes: [
        { selector: { type: 'GroupKind', groupKind: { group: '', kind: 'ConfigMap' } }, assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'data.foo', value: 'bar' } }] },
        { selector: { type: 'GroupKind', groupKind: { group: '', kind: 'ServiceAccount' } }, assertions: [{ type: 'FieldsEqual', fieldsEqual: { fieldA: 'metadata.labels.foo', fieldB: 'metadata.labels.bar' } }] },
      ],
      phases: [
        { name: 'phase1', objects: [{ object: configMap('pass-cm-1', { foo: 'bar' }) }] },
        { name: 'phase2', objects: [{ object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'pass-sa', namespace: ns(), labels: { foo: 'x', bar: 'x' } } } }] },
        { name: 'phase3', objects: [{ object: configMap('pass-cm-3', { foo: 'bar' }) }] },
      ],
    });
    const done = await waitForCOS(name, 'Succeeded', hasCond('Progressing', 'True', 'Succeeded'));
    expect(cond(done, 'Available')).toMatchObject({ status: 'True', reason: 'ProbesSucceeded', message: 'Objects are available and pass all probes.' });
    expect(cond(done, 'Succeeded')).toMatchObject({ status: 'True', reason: 'Succeeded', message: 'Revision succeeded rolling out.' });
    expect(done.metadata.finalizers).toEqual(['olm.operatorframework.io/teardown']);
    expect((await get(`/api/v1/namespaces/${ns()}/configmaps/pass-cm-3`)).status).toBe(200);

    // Archiving tears the objects down, reports Archived and releases the finalizer.
    await adminKube().request('PATCH', `${COS_PATH}/${name}`, { spec: { lifecycleState: 'Archived' } }, 'application/merge-patch+json');
    const archived = await waitForCOS(name, 'archived', (c) => hasCond('Progressing', 'False', 'Archived')(c) && !c.metadata.finalizers?.length);
    expect(cond(archived, 'Available')).toMatchObject({ status: 'Unknown', reason: 'Archived', message: 'revision is archived' });
    for (const path of [`configmaps/pass-cm-1`, `serviceaccounts/pass-sa`, `configmaps/pass-cm-3`]) {
      await waitFor(`${path} deleted`, async () => (await get(`/api/v1/namespaces/${ns()}/${path}`)).status === 404);
    }

    // The API refuses what upstream's CEL refuses.
    const unarchive = await adminKube().request('PATCH', `${COS_PATH}/${name}`, { spec: { lifecycleState: 'Active' } }, 'application/merge-patch+json');
    expect(unarchive.status).toBe(422);
    expect(JSON.stringify(unarchive.body)).toContain('cannot un-archive');
    const renumber = await adminKube().request('PATCH', `${COS_PATH}/${name}`, { spec: { revision: 2 } }, 'application/merge-patch+json');
    expect(JSON.stringify(renumber.body)).toContain('revision is immutable');
    const rephase = await adminKube().request('PATCH', `${COS_PATH}/${name}`, { spec: { phases: [{ name: 'other', objects: [] }] } }, 'application/merge-patch+json');
    expect(JSON.stringify(rephase.body)).toContain('phases is immutable');
  });

  it('reads objects from immutable Secrets, refuses mutable ones, and blocks when a Secret’s content changes', async () => {
    const cm = JSON.stringify(configMap('ref-cm', { key: 'original' }));
    const secret = (name: string, immutable: boolean, content: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns() },
      type: 'olm.operatorframework.io/object-data',
      ...(immutable && { immutable: true }),
      stringData: { configmap: content },
    });
    await adminKube().must(adminKube().request('POST', `/api/v1/namespaces/${ns()}/secrets`, secret('cos-mutable', false, cm)));
    await createCOS('cos-mutable', {
      lifecycleState: 'Active',
      collisionProtection: 'Prevent',
      revision: 1,
      phases: [{ name: 'resources', objects: [{ ref: { name: 'cos-mutable', namespace: ns(), key: 'configmap' } }] }],
    });
    const blocked = await waitForCOS('cos-mutable', 'Blocked', hasCond('Progressing', 'False', 'Blocked'));
    expect(cond(blocked, 'Progressing')?.message).toBe(
      `the following secrets are not immutable (referenced secrets must have immutable set to true): ${ns()}/cos-mutable`,
    );

    await adminKube().must(adminKube().request('POST', `/api/v1/namespaces/${ns()}/secrets`, secret('cos-ref', true, cm)));
    await createCOS('cos-ref', {
      lifecycleState: 'Active',
      collisionProtection: 'Prevent',
      revision: 1,
      phases: [{ name: 'resources', objects: [{ ref: { name: 'cos-ref', namespace: ns(), key: 'configmap' } }] }],
    });
    const ok = await waitForCOS('cos-ref', 'Succeeded', hasCond('Progressing', 'True', 'Succeeded'));
    expect(ok.status?.observedPhases).toEqual([{ name: 'resources', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }]);
    expect((await get(`/api/v1/namespaces/${ns()}/configmaps/ref-cm`)).body['data']).toEqual({ key: 'original' });

    // Deleted and re-created with other content: the revision refuses to go on.
    await adminKube().request('DELETE', `/api/v1/namespaces/${ns()}/secrets/cos-ref`);
    await adminKube().must(adminKube().request('POST', `/api/v1/namespaces/${ns()}/secrets`, secret('cos-ref', true, JSON.stringify(configMap('ref-cm', { key: 'TAMPERED' })))));
    await adminKube().request('PATCH', `${COS_PATH}/cos-ref`, { metadata: { annotations: { 'e2e-trigger': String(Date.now()) } } }, 'application/merge-patch+json');
    const tampered = await waitForCOS('cos-ref', 'Blocked', hasCond('Progressing', 'False', 'Blocked'));
    expect(cond(tampered, 'Progressing')?.message).toMatch(/^resolved content of 1 phase\(s\) has changed: phase "resources" \(expected digest sha256:[0-9a-f]+, got sha256:[0-9a-f]+\); a referenced object source may have been deleted and recreated with different content$/);
    expect((await get(`/api/v1/namespaces/${ns()}/configmaps/ref-cm`)).body['data']).toEqual({ key: 'original' });
  });
});

// ---------------------------------------------------------------------------------------------
// ClusterExtensions under BoxcutterRuntime

async function publish(pkg: string, versions: readonly string[], extra?: (v: string) => Record<string, object>): Promise<{ catalog: string; bundles: Record<string, TestBundle> }> {
  const bundles: Record<string, TestBundle> = {};
  for (const v of versions) bundles[v] = await pushTestBundle(registry(), { packageName: pkg, version: v, ...(extra && { extraManifests: extra(v) }) });
  const entries = versions.map((v, i) => ({ bundle: bundles[v]!, ...(i > 0 && { replaces: bundles[versions[i - 1]!]!.name }) }));
  const { catalog } = await suite.serveCatalog(pkg, entries);
  return { catalog, bundles };
}

const revisions = async (ext: string): Promise<ClusterObjectSet[]> =>
  ((await get(`${COS_PATH}?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${ext}`)}`)).body['items'] as ClusterObjectSet[]).sort(
    (a, b) => (a.spec?.revision ?? 0) - (b.spec?.revision ?? 0),
  );

const installedAs = (bundle: string) => (e: ClusterExtension): boolean =>
  e.status?.install?.bundle.name === bundle && extCondition(e, 'Installed')?.status === 'True' && extCondition(e, 'Progressing')?.reason === 'Succeeded';

describe('ClusterExtension revisions as ClusterObjectSets', () => {
  let catalog = '';
  let bundles: Record<string, TestBundle> = {};
  beforeAll(async () => {
    // 1.0.0 carries an extra ConfigMap that 1.1.0 no longer has.
    ({ catalog, bundles } = await publish('boxed', ['1.0.0', '1.1.0'], (v): Record<string, object> => (v === '1.0.0' ? { 'extra.yaml': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'boxed-extra' }, data: { v } } } : {})));
  });

  it('installs revision 1 with its objects in immutable Secrets and reports it', async () => {
    await suite.install('boxed', { namespace: ns(), packageName: 'boxed', version: '1.0.0', catalogName: catalog });
    const ext = await waitForExtension('boxed', 'installed 1.0.0', installedAs(bundles['1.0.0']!.name), 120_000);
    expect(ext.status?.activeRevisions).toEqual([{ name: 'boxed-1' }]);
    expect(extCondition(ext, 'Available')).toMatchObject({ status: 'True', reason: 'ProbesSucceeded' });
    expect(extCondition(ext, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded', message: 'Revision 1.0.0 has rolled out.' });
    expect(extCondition(ext, 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded', message: `Installed bundle ${bundles['1.0.0']!.image} successfully` });

    const [rev] = await revisions('boxed');
    expect(rev!.metadata.name).toBe('boxed-1');
    expect(rev!.metadata.labels).toMatchObject({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'boxed' });
    expect(rev!.metadata.annotations).toMatchObject({ 'olm.operatorframework.io/bundle-version': '1.0.0', 'olm.operatorframework.io/package-name': 'boxed' });
    expect(rev!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ClusterExtension', name: 'boxed', controller: true })]);
    expect(rev!.spec?.phases?.map((p) => p.name)).toEqual(['identity', 'configuration', 'crds', 'roles', 'bindings', 'deploy']);
    const refs = rev!.spec!.phases!.flatMap((p) => p.objects);
    expect(refs.every((o) => o.ref && !o.object)).toBe(true);
    const secrets = (await get(`/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets?labelSelector=${encodeURIComponent('olm.operatorframework.io/revision-name=boxed-1')}`)).body['items'] as {
      immutable?: boolean;
      type?: string;
      metadata: { name: string; labels: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[] };
    }[];
    expect(secrets.length).toBeGreaterThan(0);
    expect(new Set(refs.map((o) => o.ref!.name))).toEqual(new Set(secrets.map((s) => s.metadata.name)));
    for (const s of secrets) {
      expect(s.immutable).toBe(true);
      expect(s.type).toBe('olm.operatorframework.io/object-data');
      expect(s.metadata.labels).toMatchObject({ 'olm.operatorframework.io/revision-name': 'boxed-1', 'olm.operatorframework.io/owner-name': 'boxed' });
      await waitFor(`Secret ${s.metadata.name} owned by boxed-1`, async () => {
        const cur = (await get(`/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets/${s.metadata.name}`)).body as { metadata: { ownerReferences?: { kind: string; uid: string; controller?: boolean }[] } };
        return cur.metadata.ownerReferences?.some((r) => r.kind === 'ClusterObjectSet' && r.uid === rev!.metadata.uid && r.controller === true) ?? false;
      });
    }
    const dep = (await get(`/apis/apps/v1/namespaces/${ns()}/deployments/${bundles['1.0.0']!.deploymentName}`)).body;
    expect(dep['metadata'].ownerReferences).toEqual([expect.objectContaining({ kind: 'ClusterObjectSet', name: 'boxed-1', controller: true })]);
    expect(dep['metadata'].labels).toMatchObject({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'boxed' });
  });

  it('upgrades to revision 2, hands the objects over, archives revision 1 and removes what 2 no longer holds', async () => {
    await suite.install('boxed', { namespace: ns(), packageName: 'boxed', version: '1.1.0', catalogName: catalog });
    const ext = await waitForExtension('boxed', 'installed 1.1.0', (e) => installedAs(bundles['1.1.0']!.name)(e) && e.status?.activeRevisions?.length === 1, 120_000);
    expect(ext.status?.activeRevisions).toEqual([{ name: 'boxed-2' }]);
    const revs = await revisions('boxed');
    expect(revs.map((r) => [r.metadata.name, r.spec?.lifecycleState])).toEqual([
      ['boxed-1', 'Archived'],
      ['boxed-2', 'Active'],
    ]);
    await waitForCOS('boxed-1', 'archived', hasCond('Progressing', 'False', 'Archived'));
    await waitFor('boxed-extra removed', async () => (await get(`/api/v1/namespaces/${ns()}/configmaps/boxed-extra`)).status === 404);
    const dep = (await get(`/apis/apps/v1/namespaces/${ns()}/deployments/${bundles['1.1.0']!.deploymentName}`)).body;
    expect(dep['metadata'].ownerReferences).toEqual([expect.objectContaining({ kind: 'ClusterObjectSet', name: 'boxed-2', controller: true })]);
    expect(dep['metadata'].annotations).toMatchObject({ 'olm.operatorframework.io/revision': '2' });
  });

  it('reports a second extension of the same package as colliding, and leaves the first installed', async () => {
    await suite.install('boxed-dup', { namespace: ns(), packageName: 'boxed', version: '1.1.0', catalogName: catalog });
    const dup = await waitForExtension('boxed-dup', 'colliding', (e) => {
      const p = extCondition(e, 'Progressing');
      return p?.reason === 'Retrying' && p.message.includes('revision object collisions');
    }, 120_000);
    expect(extCondition(dup, 'Installed')).toMatchObject({ status: 'False', reason: 'Failed', message: 'No bundle installed' });
    expect(extCondition(await getExtension('boxed'), 'Installed')?.status).toBe('True');
  });

  it('uninstalls: the revisions go, and with them every object', async () => {
    const depPath = `/apis/apps/v1/namespaces/${ns()}/deployments/${bundles['1.1.0']!.deploymentName}`;
    expect((await get(depPath)).status).toBe(200);
    await adminKube().request('DELETE', '/apis/olm.operatorframework.io/v1/clusterextensions/boxed-dup');
    await waitGone('boxed-dup', 120_000);
    await adminKube().request('DELETE', '/apis/olm.operatorframework.io/v1/clusterextensions/boxed');
    await waitGone('boxed', 120_000);
    expect(await revisions('boxed')).toEqual([]);
    await waitFor('deployment deleted', async () => (await get(depPath)).status === 404, { timeoutMs: 60_000 });
    await waitFor('CRD deleted', async () => (await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${bundles['1.1.0']!.crdName}`)).status === 404, { timeoutMs: 60_000 });
  });
});
