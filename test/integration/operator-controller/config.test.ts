// The experimental ClusterExtension CRD (config/crd/experimental) and `spec.config`: the
// admission rule of the config union, an invalid watchNamespace refused with upstream's message
// in Progressing (nothing applied), OwnNamespace and SingleNamespace installs, and
// deploymentConfig merged into the operator's Deployment. The experimental CRD is installed for
// this file and the standard one put back afterwards; operator-controller runs with the
// SingleOwnNamespaceInstallSupport and DeploymentConfig gates on, as upstream's experimental manifests set them.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../../support/crds.ts';
import { adminKube, registry } from '../../support/env.ts';
import { pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { applyExtension, extCondition, extensionManifest, installedBundle, operatorControllerSuite, progressingWith, waitForExtension } from './harness.ts';

const CRD_DIR = fileURLToPath(new URL('../../../config/crd/', import.meta.url));
const CE_CRD = 'olm.operatorframework.io_clusterextensions.yaml';
const suite = operatorControllerSuite('oc-config', {
  before: async () => void (await installCrds(adminKube(), [`${CRD_DIR}experimental/${CE_CRD}`])),
  after: async () => void (await installCrds(adminKube(), [`${CRD_DIR}bases/${CE_CRD}`])),
  controller: { singleOwnNamespaceInstallSupport: true, deploymentConfig: true },
});
const { install } = suite;
let namespace = '';
beforeAll(() => {
  namespace = suite.namespace();
});

async function publish(pkg: string, modes: Partial<Record<'AllNamespaces' | 'OwnNamespace' | 'SingleNamespace', boolean>>): Promise<{ catalog: string; bundle: TestBundle }> {
  const bundle = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0', installModes: { AllNamespaces: false, OwnNamespace: false, SingleNamespace: false, ...modes } });
  const { catalog } = await suite.serveCatalog(pkg, [{ bundle }]);
  return { catalog, bundle };
}

async function deployment(name: string): Promise<{ spec: { template: { metadata: { annotations?: Record<string, string> }; spec: { containers: { env?: { name: string; value: string }[] }[] } } } }> {
  return adminKube().must(adminKube().request('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`));
}

describe('spec.config (experimental CRD)', () => {
  it('is a union: inline is required with configType Inline (upstream’s admission message)', async () => {
    const body = extensionManifest('badconfig', { namespace, packageName: 'x' }) as unknown as { spec: Record<string, unknown> };
    body.spec['config'] = { configType: 'Inline' };
    const res = await adminKube().request('POST', '/apis/olm.operatorframework.io/v1/clusterextensions', body);
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('inline is required when configType is Inline, and forbidden otherwise');
  });

  it('an invalid watchNamespace is InvalidConfiguration with upstream’s message and applies nothing; the right one installs', async () => {
    const { catalog, bundle } = await publish('ownns', { OwnNamespace: true });
    await install('ownns', { namespace, packageName: 'ownns', catalogName: catalog, config: { watchNamespace: 'wrong' } });
    const bad = await waitForExtension(
      'ownns',
      'refused as InvalidConfiguration',
      progressingWith(
        'InvalidConfiguration',
        `error for resolved bundle "ownns.v1.0.0" with version "1.0.0": invalid ClusterExtension configuration: invalid configuration: invalid format for field "watchNamespace": 'wrong' is not valid ownNamespaceInstallMode: invalid value "wrong": must be "${namespace}" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode`,
      ),
    );
    expect(extCondition(bad, 'Progressing')?.status).toBe('False');
    expect((await adminKube().request('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/${bundle.deploymentName}`)).status).toBe(404);

    await applyExtension('ownns', { namespace, packageName: 'ownns', catalogName: catalog, config: { watchNamespace: namespace } });
    await waitForExtension('ownns', 'installed in OwnNamespace mode', installedBundle(bundle.name));
    expect((await deployment(bundle.deploymentName)).spec.template.metadata.annotations?.['olm.targetNamespaces']).toBe(namespace);
  });

  it('SingleNamespace watches the named namespace; deploymentConfig env reaches the Deployment', async () => {
    const watched = await adminKube().namespace('oc-watched');
    const { catalog, bundle } = await publish('singlens', { SingleNamespace: true });
    await install('singlens', {
      namespace,
      packageName: 'singlens',
      catalogName: catalog,
      config: { watchNamespace: watched, deploymentConfig: { env: [{ name: 'FROM_CONFIG', value: 'yes' }] } },
    });
    await waitForExtension('singlens', 'installed in SingleNamespace mode', installedBundle(bundle.name));
    const dep = await deployment(bundle.deploymentName);
    expect(dep.spec.template.metadata.annotations?.['olm.targetNamespaces']).toBe(watched);
    expect(dep.spec.template.spec.containers[0]!.env).toContainEqual({ name: 'FROM_CONFIG', value: 'yes' });
  });
});
