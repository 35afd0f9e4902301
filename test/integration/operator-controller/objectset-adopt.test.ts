// The OLM v0→v1 migration's hand-over (upstream operator-controller #2936) against the real API server: the migration
// writes ClusterObjectSet `<extension>-1`, annotated olm.operatorframework.io/migrated-from-subscription, before the
// ClusterExtension exists; the COS controller rolls it out; then the extension is created. When it resolves to the
// very bundle the revision records, that revision is its revision 1 — the extension becomes its controller owner, no
// revision 2 is made and the objects are not written again. When it resolves to another bundle, the normal path makes
// revision 2.
import { describe, expect, it } from 'vitest';
import type { ClusterObjectSet } from '../../../api/v1/index.ts';
import { pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installExperimentalCRDs, installStandardCRDs } from '../../support/crds.ts';
import { adminKube, registry } from '../../support/env.ts';
import { poll, waitFor } from '../../support/net.ts';
import { extCondition, installedBundle, operatorControllerSuite, waitForExtension } from './harness.ts';

const suite = operatorControllerSuite('cos-adopt', {
  before: async () => void (await installExperimentalCRDs(adminKube())),
  after: async () => void (await installStandardCRDs(adminKube())),
  controller: { boxcutterRuntime: true },
});
const ns = (): string => suite.namespace();

const COS_PATH = '/apis/olm.operatorframework.io/v1/clusterobjectsets';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const get = async (path: string): Promise<{ status: number; body: Json }> => (await adminKube().request('GET', path)) as { status: number; body: Json };

async function revisions(ext: string): Promise<ClusterObjectSet[]> {
  const items = (await get(`${COS_PATH}?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${ext}`)}`)).body['items'] as ClusterObjectSet[];
  return items.sort((a, b) => (a.spec?.revision ?? 0) - (b.spec?.revision ?? 0));
}

/** What the migration writes: revision 1 of `ext` recording `recorded`, holding one ConfigMap; waits until it succeeded. */
async function migratedRevision(ext: string, recorded: { package: string; name: string; version: string; image: string }): Promise<{ cos: ClusterObjectSet; cmPath: string }> {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${ext}-migrated`, namespace: ns() }, data: { from: 'subscription' } };
  const body = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterObjectSet',
    metadata: {
      name: `${ext}-1`,
      labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': ext },
      annotations: {
        'olm.operatorframework.io/migrated-from-subscription': 'true',
        'olm.operatorframework.io/package-name': recorded.package,
        'olm.operatorframework.io/bundle-name': recorded.name,
        'olm.operatorframework.io/bundle-version': recorded.version,
        'olm.operatorframework.io/bundle-reference': recorded.image,
      },
    },
    spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'None', phases: [{ name: 'configuration', objects: [{ object: cm }] }] },
  };
  const r = await adminKube().request('POST', COS_PATH, body);
  if (r.status !== 201) throw new Error(`create ClusterObjectSet: ${r.status} ${JSON.stringify(r.body)}`);
  let last: ClusterObjectSet | undefined;
  const ok = await poll(
    async () => {
      last = (await get(`${COS_PATH}/${ext}-1`)).body as ClusterObjectSet;
      return last.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True') ?? false;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  if (!ok) throw new Error(`ClusterObjectSet ${ext}-1 never succeeded: ${JSON.stringify(last?.status ?? null)}`);
  return { cos: last!, cmPath: `/api/v1/namespaces/${ns()}/configmaps/${cm.metadata.name}` };
}

describe('a ClusterObjectSet migrated from a Subscription', () => {
  let bundle: TestBundle;
  let next: TestBundle;
  let catalog = '';
  it('is taken as revision 1 when the extension resolves to the same bundle: owned by the extension, nothing re-created or re-applied', async () => {
    bundle = await pushTestBundle(registry(), { packageName: 'adopted', version: '1.0.0' });
    next = await pushTestBundle(registry(), { packageName: 'adopted', version: '1.1.0' });
    ({ catalog } = await suite.serveCatalog('adopted', [{ bundle }, { bundle: next, replaces: bundle.name }]));
    const { cos, cmPath } = await migratedRevision('adopted', { package: 'adopted', name: bundle.name, version: bundle.version, image: bundle.image });
    const cmBefore = (await get(cmPath)).body['metadata'] as Json;

    await suite.install('adopted', { namespace: ns(), packageName: 'adopted', version: '1.0.0', catalogName: catalog });
    const ext = await waitForExtension('adopted', 'installed from the migrated revision', installedBundle(bundle.name), 120_000);
    expect(ext.status?.activeRevisions).toEqual([{ name: 'adopted-1' }]);
    expect(extCondition(ext, 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    await waitFor('the extension owns adopted-1', async () => {
      const [only] = await revisions('adopted');
      return only?.metadata.ownerReferences?.some((r) => r.kind === 'ClusterExtension' && r.uid === ext.metadata.uid && r.controller === true) ?? false;
    });
    // the owner reference's write re-enqueued the extension; that pass changed nothing either
    const revs = await revisions('adopted');
    expect(revs.map((r) => [r.metadata.name, r.metadata.uid, r.metadata.generation])).toEqual([['adopted-1', cos.metadata.uid, cos.metadata.generation]]);
    expect(revs[0]!.spec).toEqual(cos.spec);
    const cmAfter = (await get(cmPath)).body['metadata'] as Json;
    expect([cmAfter['uid'], cmAfter['resourceVersion']]).toEqual([cmBefore['uid'], cmBefore['resourceVersion']]);
    // the bundle's own objects were not applied on top: the revision is what the migration wrote
    expect((await get(`/apis/apps/v1/namespaces/${ns()}/deployments/${bundle.deploymentName}`)).status).toBe(404);
  });

  it('is not adopted when the extension resolves to another bundle: the normal upgrade path makes revision 2', async () => {
    // the migration recorded 1.0.0; the extension (no version asked) resolves to its successor 1.1.0
    const { cos, cmPath } = await migratedRevision('reinstalled', { package: 'adopted', name: bundle.name, version: bundle.version, image: bundle.image });
    await suite.install('reinstalled', { namespace: ns(), packageName: 'adopted', catalogName: catalog });
    const ext = await waitForExtension(
      'reinstalled',
      'installed as revision 2',
      (e) => installedBundle(next.name)(e) && e.status?.activeRevisions?.length === 1 && e.status.activeRevisions[0]!.name === 'reinstalled-2',
      120_000,
    );
    expect(extCondition(ext, 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    const revs = await revisions('reinstalled');
    expect(revs.map((r) => [r.metadata.name, r.spec?.lifecycleState])).toEqual([
      ['reinstalled-1', 'Archived'],
      ['reinstalled-2', 'Active'],
    ]);
    expect(revs[0]!.metadata.uid).toBe(cos.metadata.uid);
    expect(revs[1]!.metadata.annotations).toMatchObject({ 'olm.operatorframework.io/bundle-version': '1.1.0' });
    expect(revs[1]!.metadata.annotations?.['olm.operatorframework.io/migrated-from-subscription']).toBeUndefined();
    // what revision 2 does not hold goes with the archived revision 1
    await waitFor('the migrated ConfigMap removed', async () => (await get(cmPath)).status === 404, { timeoutMs: 60_000 });
  });
});
