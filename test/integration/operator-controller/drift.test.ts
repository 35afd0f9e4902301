// operator-controller end to end: drift of installed objects is repaired as soon as it happens,
// not at the next resync (set to 10 minutes here, so only the owned-object watches can do it).
import { describe, expect, it } from 'vitest';
import { adminKube, registry } from '../../support/env.ts';
import { pushTestBundle } from '../../support/bundles.ts';
import { waitFor } from '../../support/net.ts';
import { installedBundle, operatorControllerSuite, waitForExtension } from './harness.ts';

const suite = operatorControllerSuite('oc-drift', { controller: { resyncMs: 600_000 } });

type Deployment = { spec: { template: { spec: { containers: { name: string; image: string }[] } } } };

describe('drift repair', () => {
  it('restores a deleted Deployment and ServiceAccount and undoes an edit of the Deployment, without a resync', async () => {
    const ns = suite.namespace();
    const b = await pushTestBundle(registry(), { packageName: 'drift', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('drift', [{ bundle: b }]);
    await suite.install('drift', { namespace: ns, packageName: 'drift', catalogName: catalog });
    await waitForExtension('drift', 'installed', installedBundle(b.name));
    expect(suite.controller().parts.owned.kinds()).toEqual(expect.arrayContaining(['apps/v1/Deployment', 'v1/ServiceAccount', 'apiextensions.k8s.io/v1/CustomResourceDefinition']));

    const kube = adminKube();
    const depPath = `/apis/apps/v1/namespaces/${ns}/deployments/${b.deploymentName}`;
    const saPath = `/api/v1/namespaces/${ns}/serviceaccounts/${b.serviceAccountName}`;
    const original = await kube.must<Deployment>(kube.request('GET', depPath));
    const image = original.spec.template.spec.containers[0]!.image;

    // An edit by someone else is undone (the controller's apply forces its own fields back).
    const edited = { spec: { template: { spec: { containers: [{ name: original.spec.template.spec.containers[0]!.name, image: 'registry.test/tampered:v9' }] } } } };
    await kube.must(kube.request('PATCH', depPath, edited, 'application/strategic-merge-patch+json'));
    await waitFor(
      'the image put back',
      async () => (await kube.must<Deployment>(kube.request('GET', depPath))).spec.template.spec.containers[0]!.image === image,
      { timeoutMs: 60_000 },
    );

    // Deleted objects come back.
    expect((await kube.request('DELETE', depPath)).status).toBe(200);
    expect((await kube.request('DELETE', saPath)).status).toBe(200);
    await waitFor('the Deployment re-created', async () => (await kube.request('GET', depPath)).status === 200, { timeoutMs: 60_000 });
    await waitFor('the ServiceAccount re-created', async () => (await kube.request('GET', saPath)).status === 200, { timeoutMs: 60_000 });
    await waitForExtension('drift', 'still installed', installedBundle(b.name));
  });
});
