// Turning BoxcutterRuntime on for an extension the standard runtime installed: its newest revision record becomes
// ClusterObjectSet revision 1 (adopting the objects in place), later revisions take over from it, and no object is
// deleted or re-created on the way.
import { describe, expect, it } from 'vitest';
import type { ClusterObjectSet } from '../../../api/v1/index.ts';
import { pushTestBundle } from '../../support/bundles.ts';
import { installExperimentalCRDs, installStandardCRDs } from '../../support/crds.ts';
import { adminKube, registry } from '../../support/env.ts';
import { waitFor } from '../../support/net.ts';
import { extCondition, installedBundle, operatorControllerSuite, startOperatorController, waitForExtension } from './harness.ts';

const suite = operatorControllerSuite('cos-migrate', {
  before: async () => void (await installExperimentalCRDs(adminKube())),
  after: async () => void (await installStandardCRDs(adminKube())),
});
const ns = (): string => suite.namespace();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const get = async (path: string): Promise<Json> => (await adminKube().request('GET', path)).body as Json;
const uid = async (path: string): Promise<string> => (await get(path))['metadata'].uid as string;

describe('standard runtime → ClusterObjectSets', () => {
  it('moves the installed revision to ClusterObjectSet revision 1 without re-creating anything', async () => {
    const bundle = await pushTestBundle(registry(), { packageName: 'moving', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('moving', [{ bundle }]);
    await suite.install('moving', { namespace: ns(), packageName: 'moving', catalogName: catalog });
    await waitForExtension('moving', 'installed by the standard runtime', installedBundle(bundle.name), 120_000);
    const paths = [
      `/apis/apps/v1/namespaces/${ns()}/deployments/${bundle.deploymentName}`,
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${bundle.crdName}`,
      `/api/v1/namespaces/${ns()}/serviceaccounts/${bundle.serviceAccountName}`,
    ];
    const before = await Promise.all(paths.map(uid));
    const podsBefore = ((await get(`/api/v1/namespaces/${ns()}/pods`))['items'] as Json[]).map((p) => p['metadata'].uid as string).sort();

    await suite.controller().stop();
    await startOperatorController({ boxcutterRuntime: true });

    const ext = await waitForExtension(
      'moving',
      'installed from ClusterObjectSets',
      (e) => installedBundle(bundle.name)(e) && (e.status?.activeRevisions?.length ?? 0) === 1 && extCondition(e, 'Available')?.reason === 'ProbesSucceeded',
      120_000,
    );
    expect(extCondition(ext, 'Available')).toMatchObject({ status: 'True', reason: 'ProbesSucceeded' });
    const revs = ((await get(`/apis/olm.operatorframework.io/v1/clusterobjectsets?labelSelector=${encodeURIComponent('olm.operatorframework.io/owner-name=moving')}`))['items'] as ClusterObjectSet[]).sort(
      (a, b) => (a.spec?.revision ?? 0) - (b.spec?.revision ?? 0),
    );
    expect(revs[0]!.metadata.name).toBe('moving-1');
    expect(revs[0]!.metadata.labels?.['olm.operatorframework.io/migrated-from-revision-secrets']).toBe('true');
    expect(revs[0]!.spec?.collisionProtection).toBe('None');
    expect(revs[0]!.status?.conditions?.find((c) => c.type === 'Succeeded')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    const newest = revs.at(-1)!;
    await waitFor('objects controlled by the newest revision', async () => {
      const dep = await get(paths[0]!);
      return (dep['metadata'].ownerReferences as Json[] | undefined)?.some((r) => r['controller'] === true && r['uid'] === newest.metadata.uid) ?? false;
    });
    expect(await Promise.all(paths.map(uid))).toEqual(before);
    const podsAfter = ((await get(`/api/v1/namespaces/${ns()}/pods`))['items'] as Json[]).map((p) => p['metadata'].uid as string).sort();
    expect(podsAfter).toEqual(podsBefore);
  });
});
