// The process's stage implementations take operator-controller's feature gates as upstream's main.go
// hands them out: SingleOwnNamespaceInstallSupport and DeploymentConfig to the manifest provider
// (renderer), BundleReleaseSupport to bundle version/release parsing (resolver).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterCatalog, ClusterExtension } from '../../api/v1/index.ts';
import { TerminalError } from '../shared/controller/index.ts';
import { createMetrics } from '../shared/observability/index.ts';
import type { CatalogContentClient, PackageContent } from './contentclient/index.ts';
import { defaultImplementations } from './implementations.ts';

const DEMO = join(import.meta.dirname, '../../demo/bundles/demo-operator.v0.1.0');

describe('defaultImplementations and the feature gates', () => {
  it('renderer: DeploymentConfig decides whether deploymentConfig is part of the configuration', async () => {
    const config = { deploymentConfig: { env: [{ name: 'A', value: 'b' }] } };
    const off = defaultImplementations.renderer({ certProvider: 'cert-manager', singleOwnNamespaceInstallSupport: false, deploymentConfig: false });
    const err = await off.render(DEMO, { installNamespace: 'demo', config }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as Error).message).toBe('invalid ClusterExtension configuration: invalid configuration: unknown field "deploymentConfig"');
    const on = defaultImplementations.renderer({ certProvider: 'cert-manager', singleOwnNamespaceInstallSupport: false, deploymentConfig: true });
    expect((await on.render(DEMO, { installNamespace: 'demo', config })).objects.some((o) => o.kind === 'Deployment')).toBe(true);
  });

  it('renderer: SingleOwnNamespaceInstallSupport decides whether the configuration is read without spec.config', async () => {
    // The demo bundle supports AllNamespaces only: with the gate on its (empty) configuration is validated and passes.
    for (const singleOwnNamespaceInstallSupport of [false, true]) {
      const r = defaultImplementations.renderer({ certProvider: 'cert-manager', singleOwnNamespaceInstallSupport, deploymentConfig: false });
      expect((await r.render(DEMO, { installNamespace: 'demo' })).objects.length).toBeGreaterThan(0);
    }
  });

  it('resolver: BundleReleaseSupport decides whether an explicit olm.package release counts', async () => {
    const content: PackageContent = {
      packages: [{ name: 'p', defaultChannel: '' }],
      channels: [{ package: 'p', name: 'stable', entries: [{ name: 'p.v1.0.0-r3', replaces: '', skips: [], skipRange: '' }] }],
      bundles: [{ name: 'p.v1.0.0-r3', package: 'p', image: 'quay.io/p:1', properties: [{ type: 'olm.package', value: { packageName: 'p', version: '1.0.0+git.abc', release: '3' } }] }],
      deprecations: [],
    };
    const client: CatalogContentClient = { getPackage: () => Promise.resolve(content) };
    const catalog: ClusterCatalog = {
      metadata: { name: 'c', labels: { 'olm.operatorframework.io/metadata.name': 'c' } },
      spec: { source: { type: 'Image', image: { ref: 'quay.io/c:latest' } } },
      status: { conditions: [{ type: 'Serving', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    };
    const ext: ClusterExtension = { metadata: { name: 'e' }, spec: { namespace: 'ns', source: { sourceType: 'Catalog', catalog: { packageName: 'p' } } } };
    const resolve = (bundleReleaseSupport: boolean) =>
      defaultImplementations
        .resolver({ listCatalogs: () => [catalog], content: client, metrics: createMetrics({ defaultMetrics: false }), bundleReleaseSupport })
        .resolve(ext, undefined, AbortSignal.timeout(10_000));
    // Off: the legacy registry+v1 reading, build metadata that is a valid release is the release, folded back into the version.
    expect((await resolve(false)).bundle).toMatchObject({ version: '1.0.0+git.abc' });
    expect((await resolve(false)).bundle.release).toBeUndefined();
    // On: the explicit release, the build metadata kept in the version.
    expect((await resolve(true)).bundle).toMatchObject({ version: '1.0.0+git.abc', release: '3' });
  });
});
