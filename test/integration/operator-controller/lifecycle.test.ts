// operator-controller end to end against the real API server, registry and catalogd: install from
// a channel, a version range and a pinned version; upgrade along a successor edge when a new
// catalog image appears under the same tag; no move to a non-successor under CatalogProvided;
// SelfCertified forces an upgrade and a downgrade; deletion leaves nothing behind.
import { describe, expect, it } from 'vitest';
import { adminKube, registry } from '../../support/env.ts';
import { catalogFiles, pushTestBundle, type CatalogEntry, type TestBundle } from '../../support/bundles.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { waitForSettled } from '../../support/in-process.ts';
import { poll, waitFor } from '../../support/net.ts';
import { deleteCatalogs, waitForCatalog } from '../catalogd/catalogs.ts';
import { applyExtension, deleteExtension, extCondition, getExtension, installedBundle, operatorControllerSuite, SYSTEM_NAMESPACE, waitForExtension, waitGone } from './harness.ts';

const suite = operatorControllerSuite('oc-lifecycle');
const { install } = suite;
const ns = (): string => suite.namespace();

/** Pushes bundles of `pkg` and a catalog image listing them (`entries` by version), served by a new ClusterCatalog. */
async function publish(pkg: string, versions: readonly string[], edges: (b: Record<string, TestBundle>) => CatalogEntry[], poll = false): Promise<{ catalog: string; bundles: Record<string, TestBundle>; tag: string }> {
  const bundles: Record<string, TestBundle> = {};
  for (const v of versions) bundles[v] = await pushTestBundle(registry(), { packageName: pkg, version: v });
  const { catalog, tag } = await suite.serveCatalog(pkg, edges(bundles), { poll });
  return { catalog, bundles, tag };
}

/** The operator-controller's cache has extension `name` as the API server has it now. */
const cacheHasLatest = async (name: string): Promise<boolean> =>
  suite.controller().parts.extensions.get(name)?.metadata.resourceVersion === (await getExtension(name))?.metadata.resourceVersion;

const chain = (b: Record<string, TestBundle>, order: readonly string[]): CatalogEntry[] =>
  order.map((v, i) => ({ bundle: b[v]!, ...(i > 0 && { replaces: b[order[i - 1]!]!.name }) }));

describe('install', () => {
  it('from a channel: the highest bundle in it, with its objects applied and owned', async () => {
    const pkg = 'chan';
    const { catalog, bundles } = await publish(pkg, ['1.0.0', '1.1.0', '2.0.0'], (b) => [
      ...chain(b, ['1.0.0', '1.1.0']),
      { bundle: b['2.0.0']!, channels: ['candidate'], replaces: b['1.1.0']!.name },
    ]);
    await install('chan', { namespace: ns(), packageName: pkg, channels: ['stable'], catalogName: catalog });
    const ext = await waitForExtension('chan', 'installed 1.1.0', installedBundle(bundles['1.1.0']!.name));
    expect(ext.status?.install?.bundle).toEqual({ name: 'chan.v1.1.0', version: '1.1.0' });
    expect(extCondition(ext, 'Installed')?.message).toBe('Installed bundle ' + bundles['1.1.0']!.image + ' successfully');
    expect(extCondition(ext, 'Available')).toMatchObject({ status: 'True', reason: 'Available' });
    const crd = await adminKube().must<{ metadata: { labels?: Record<string, string> } }>(
      adminKube().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${bundles['1.1.0']!.crdName}`),
    );
    expect(crd.metadata.labels).toMatchObject({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'chan' });
    const dep = await adminKube().request('GET', `/apis/apps/v1/namespaces/${ns()}/deployments/${bundles['1.1.0']!.deploymentName}`);
    expect(dep.status).toBe(200);
    const events = await adminKube().request<{ items: { reason: string; message: string; involvedObject: { kind: string; name: string } }[] }>(
      'GET',
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=chan')}`,
    );
    expect(events.body.items.filter((e) => e.involvedObject.kind === 'ClusterExtension').map((e) => [e.reason, e.message])).toContainEqual([
      'Installed',
      'Installed bundle chan.v1.1.0 (version 1.1.0)',
    ]);
  });

  it('from a version range and from a pinned version', async () => {
    const pkg = 'ranged';
    const { catalog, bundles } = await publish(pkg, ['1.0.0', '1.5.0', '2.0.0'], (b) => chain(b, ['1.0.0', '1.5.0', '2.0.0']));
    await install('ranged', { namespace: ns(), packageName: pkg, version: '>=1.0.0 <2.0.0', catalogName: catalog });
    await waitForExtension('ranged', 'installed 1.5.0', installedBundle(bundles['1.5.0']!.name));

    const pinnedPkg = 'pinned';
    const pinned = await publish(pinnedPkg, ['1.0.0', '1.5.0'], (b) => chain(b, ['1.0.0', '1.5.0']));
    await install('pinned', { namespace: ns(), packageName: pinnedPkg, version: '1.0.0', catalogName: pinned.catalog });
    await waitForExtension('pinned', 'installed 1.0.0', installedBundle(pinned.bundles['1.0.0']!.name));
  });
});

describe('upgrade', () => {
  it('follows a successor added by a new catalog image, refuses a non-successor, and SelfCertified forces upgrades and downgrades', async () => {
    const pkg = 'upg';
    const first = await publish(pkg, ['1.0.0'], (b) => chain(b, ['1.0.0']), true);
    await install('upg', { namespace: ns(), packageName: pkg, catalogName: first.catalog });
    await waitForExtension('upg', 'installed 1.0.0', installedBundle('upg.v1.0.0'));

    // A successor appears: 1.1.0 replaces 1.0.0.
    const b110 = await pushTestBundle(registry(), { packageName: pkg, version: '1.1.0' });
    const b100 = first.bundles['1.0.0']!;
    await pushCatalogImage(registry(), first.tag, { files: catalogFiles(pkg, [{ bundle: b100 }, { bundle: b110, replaces: b100.name }]) });
    await waitForExtension('upg', 'upgraded to 1.1.0', installedBundle('upg.v1.1.0'));

    // 2.0.0 is in the channel but has no edge from 1.1.0: CatalogProvided stays.
    const b200 = await pushTestBundle(registry(), { packageName: pkg, version: '2.0.0' });
    const third = await pushCatalogImage(registry(), first.tag, {
      files: catalogFiles(pkg, [{ bundle: b100 }, { bundle: b110, replaces: b100.name }, { bundle: b200 }]),
    });
    await waitForCatalog(first.catalog, 'on the third image', (c) => c.status?.resolvedSource?.image.ref === third.digestRef, 30_000);
    // The controller saw the third image and is done with the extension for it (the pass it started has ended).
    const { parts } = suite.controller();
    await waitForSettled(
      'the third image seen',
      parts.controller.queue,
      'upg',
      async () => parts.catalogs.get(first.catalog)?.status?.resolvedSource?.image?.ref === third.digestRef && (await cacheHasLatest('upg')),
    );
    const stayed = await waitForExtension('upg', 'still 1.1.0', installedBundle('upg.v1.1.0'));
    expect(stayed.status?.install?.bundle.version).toBe('1.1.0');

    // SelfCertified: the highest version, edge or not …
    await applyExtension('upg', { namespace: ns(), packageName: pkg, catalogName: first.catalog, upgradeConstraintPolicy: 'SelfCertified' });
    await waitForExtension('upg', 'forced to 2.0.0', installedBundle('upg.v2.0.0'));
    // … and down again to a pinned older version.
    await applyExtension('upg', { namespace: ns(), packageName: pkg, version: '1.0.0', catalogName: first.catalog, upgradeConstraintPolicy: 'SelfCertified' });
    await waitForExtension('upg', 'downgraded to 1.0.0', installedBundle('upg.v1.0.0'));
  });
});

describe('recover', () => {
  it('repairs a deleted object, and keeps the installed bundle when its catalog is gone', async () => {
    const pkg = 'heal';
    const { catalog, bundles } = await publish(pkg, ['1.0.0'], (b) => chain(b, ['1.0.0']));
    await install('heal', { namespace: ns(), packageName: pkg, catalogName: catalog });
    await waitForExtension('heal', 'installed', installedBundle('heal.v1.0.0'));
    const b = bundles['1.0.0']!;
    const depPath = `/apis/apps/v1/namespaces/${ns()}/deployments/${b.deploymentName}`;
    expect((await adminKube().request('DELETE', depPath)).status).toBe(200);
    await poll(async () => (await adminKube().request('GET', depPath)).status === 200, { timeoutMs: 30_000, intervalMs: 250 });
    expect((await adminKube().request('GET', depPath)).status).toBe(200);

    await deleteCatalogs([catalog]);
    // The controller saw the catalog go and is done with the extension for it: a pass with no catalog has ended.
    const { parts } = suite.controller();
    await waitForSettled('the catalog gone', parts.controller.queue, 'heal', async () => parts.catalogs.get(catalog) === undefined && (await cacheHasLatest('heal')));
    const kept = await waitForExtension('heal', 'still installed without its catalog', installedBundle('heal.v1.0.0'));
    expect(extCondition(kept, 'Deprecated')?.reason).toBe('DeprecationStatusUnknown');
  });
});

describe('uninstall', () => {
  it('removes every object the extension installed; the garbage collector takes what they owned, and the namespace goes', async () => {
    const pkg = 'gone';
    const { catalog, bundles } = await publish(pkg, ['1.0.0'], (b) => chain(b, ['1.0.0']));
    const kube = adminKube();
    const installNs = await kube.namespace('gone');
    await install('gone', { namespace: installNs, packageName: pkg, catalogName: catalog });
    await waitForExtension('gone', 'installed', installedBundle('gone.v1.0.0'));
    const b = bundles['1.0.0']!;
    // The Deployment rolled out for real: a ReplicaSet and Pods owned through ownerReferences.
    type Owned = { metadata: { name: string; ownerReferences?: { kind: string; name: string }[] }; status?: { phase?: string } };
    const replicaSets = await kube.must<{ items: Owned[] }>(kube.request('GET', `/apis/apps/v1/namespaces/${installNs}/replicasets`));
    const rs = replicaSets.items.find((r) => r.metadata.ownerReferences?.some((o) => o.kind === 'Deployment' && o.name === b.deploymentName));
    expect(rs).toBeDefined();
    const pods = await kube.must<{ items: Owned[] }>(kube.request('GET', `/api/v1/namespaces/${installNs}/pods`));
    const owned = pods.items.filter((p) => p.metadata.ownerReferences?.some((o) => o.kind === 'ReplicaSet' && o.name === rs!.metadata.name));
    expect(owned.length).toBeGreaterThan(0);
    expect(owned.every((p) => p.status?.phase === 'Running')).toBe(true);

    await deleteExtension('gone');
    await waitGone('gone');
    // Deletion is asynchronous for CRDs (the API server's finalizer removes their objects first),
    // and the ReplicaSet and Pods go through the garbage collector.
    for (const path of [
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${b.crdName}`,
      `/apis/apps/v1/namespaces/${installNs}/deployments/${b.deploymentName}`,
      `/api/v1/namespaces/${installNs}/serviceaccounts/${b.serviceAccountName}`,
      `/apis/apps/v1/namespaces/${installNs}/replicasets/${rs!.metadata.name}`,
      ...owned.map((p) => `/api/v1/namespaces/${installNs}/pods/${p.metadata.name}`),
    ]) {
      await waitFor(`${path} to be gone`, async () => (await kube.request('GET', path)).status === 404, { timeoutMs: 30_000, intervalMs: 100 });
    }
    const left = await kube.request<{ items: unknown[] }>(
      'GET',
      `/apis/rbac.authorization.k8s.io/v1/clusterroles?labelSelector=${encodeURIComponent('olm.operatorframework.io/owner-name=gone')}`,
    );
    expect(left.body.items).toEqual([]);
    const records = await kube.request<{ items: unknown[] }>(
      'GET',
      `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets?labelSelector=${encodeURIComponent('olm.operatorframework.io/owner-name=gone')}`,
    );
    expect(records.body.items).toEqual([]);

    // The namespace controller empties and removes the install namespace.
    expect((await kube.request('DELETE', `/api/v1/namespaces/${installNs}`)).status).toBe(200);
    await waitFor(`namespace ${installNs} to be gone`, async () => (await kube.request('GET', `/api/v1/namespaces/${installNs}`)).status === 404, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  });
});
