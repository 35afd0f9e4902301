// operator-controller and catalogd when the API server goes away, on a control plane of this
// file's own: the kube-apiserver (with its etcd) is SIGKILLed in the middle of an install, and
// while a new catalog image waits to be noticed; it comes back on the same data. Nothing is lost:
// the install converges with every object and a complete revision record, the upgrade happens.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../../internal/shared/toolkit/index.ts';
import { installAdmissionPolicies } from '../../support/admission.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { ControlPlane } from '../../support/control-plane.ts';
import { installCrds, yamlFiles } from '../../support/crds.ts';
import { adminKube, registry, useControlPlane } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { fetchAll, getCatalog } from '../catalogd/catalogs.ts';
import { installedBundle, operatorControllerSuite, revisionProblems, waitForExtension } from './harness.ts';

const cp = new ControlPlane();
const suite = operatorControllerSuite('oc-restart', {
  async before() {
    const info = await cp.start();
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(fileURLToPath(new URL('../../../config/crd/bases', import.meta.url))));
    await installAdmissionPolicies(kube, fileURLToPath(new URL('../../../config/admission', import.meta.url)));
    useControlPlane(info);
  },
  async after() {
    useControlPlane(undefined);
    await cp.stop();
  },
});

/** A bundle with a few more objects than the default, so an install takes several writes. */
async function bundle(pkg: string, version: string): Promise<TestBundle> {
  const configMaps = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [`cm${i}.yaml`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkg}-cm${i}` }, data: { version } }]),
  );
  return pushTestBundle(registry(), { packageName: pkg, version, extraManifests: configMaps });
}

async function names(path: string): Promise<string[]> {
  const r = await adminKube().must<{ items: { metadata: { name: string } }[] }>(adminKube().request('GET', path));
  return r.items.map((i) => i.metadata.name).sort();
}

/** SIGKILLs the API server, runs `meanwhile`, waits `downMs`, and starts it again on the same data. */
async function outage(downMs: number, meanwhile: () => Promise<void> = async () => undefined): Promise<void> {
  await cp.kill();
  await meanwhile();
  await sleep(downMs);
  await cp.resume();
  // Ready is said before the CRD handlers have caught up (503 "Resource kind … not found"): the
  // controllers retry through it; the test's own requests wait for it here (a create, as admission
  // plugins catch up too).
  const probe = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'probe' }, spec: { source: { type: 'Image', image: { ref: 'registry.test/probe:v1' } } } };
  await waitFor('ClusterCatalogs created again', async () => (await adminKube().request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs?dryRun=All', probe)).status === 201);
}

describe('the API server is killed and comes back', () => {
  it('in the middle of an install: the install converges with every object and a complete revision record', async () => {
    const ns = suite.namespace();
    const b = await bundle('midway', '1.0.0');
    const { catalog } = await suite.serveCatalog('midway', [{ bundle: b }]);
    await suite.install('midway', { namespace: ns, packageName: 'midway', catalogName: catalog });
    // Kill as soon as the bundle's CRD exists: the revision record is written, the CRD is being
    // established, the other objects follow. When the kill lands between the CRD's names being
    // accepted and it being established, the API server never establishes it by itself; the
    // applier notices and asks again (applier README, "stuck CRDs").
    await waitFor('the CRD', async () => (await adminKube().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${b.crdName}`)).status === 200, {
      intervalMs: 5,
      timeoutMs: 60_000,
    });
    await outage(2_000);

    await waitForExtension('midway', 'installed after the outage', installedBundle(b.name), 120_000);
    expect(await names(`/api/v1/namespaces/${ns}/configmaps?labelSelector=olm.operatorframework.io%2Fowner-name%3Dmidway`)).toEqual(
      Array.from({ length: 12 }, (_, i) => `midway-cm${i}`).sort(),
    );
    expect(await names(`/apis/apps/v1/namespaces/${ns}/deployments?labelSelector=olm.operatorframework.io%2Fowner-name%3Dmidway`)).toEqual([b.deploymentName]);
    expect(await revisionProblems('midway')).toEqual([]);
    // If the applier had to ask for the CRD to be established, the request does not stay behind.
    await waitFor('no establish request left on the CRD', async () => {
      const crd = await adminKube().must<{ metadata: { annotations?: Record<string, string> } }>(
        adminKube().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${b.crdName}`),
      );
      return crd.metadata.annotations?.['olm.operatorframework.io/establish-requested'] === undefined;
    }, { timeoutMs: 15_000 });
  });

  it('while a successor is published: once it is back, the catalog serves the new image and the extension upgrades', async () => {
    const ns = suite.namespace();
    const v1 = await bundle('later', '1.0.0');
    const { catalog, tag } = await suite.serveCatalog('later', [{ bundle: v1 }], { poll: true });
    await suite.install('later', { namespace: ns, packageName: 'later', catalogName: catalog });
    await waitForExtension('later', 'installed 1.0.0', installedBundle(v1.name));

    const v2 = await bundle('later', '1.1.0');
    const base = (await getCatalog(catalog))!.status!.urls!.base;
    const served = await fetchAll(base);
    expect(served.status).toBe(200);
    // catalogd polls every second in the tests: it sees the new digest while its writes fail, and
    // keeps serving what it served.
    await outage(3_000, async () => {
      await pushCatalogImage(registry(), tag, { files: catalogFiles('later', [{ bundle: v1 }, { bundle: v2, replaces: v1.name }]) });
      const during = await fetchAll(base);
      expect(during.status).toBe(200);
      expect(during.body).toBe(served.body);
    });

    await waitForExtension('later', 'upgraded to 1.1.0 after the outage', installedBundle(v2.name), 120_000);
    expect(await names(`/api/v1/namespaces/${ns}/configmaps?labelSelector=olm.operatorframework.io%2Fowner-name%3Dlater`)).toEqual(
      Array.from({ length: 12 }, (_, i) => `later-cm${i}`).sort(),
    );
    expect(await revisionProblems('later')).toEqual([]);
  });
});
