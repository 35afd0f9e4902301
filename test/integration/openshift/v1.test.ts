// OLM v1's OpenShift gating against the real cluster: OpenShift's ClusterOperator CRD installed, catalogd and
// operator-controller in process with the demo catalog, and operator-controller's gating controller writing
// ClusterOperator `olm` with RELEASE_VERSION 4.22.0. The demo's 0.1.0 declares olm.maxOpenShiftVersion 4.22, so
// installing it blocks 4.23; upgrading to 0.3.0 (no limit) lifts the block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revisionHeadSource } from '../../../internal/operator-controller/index.ts';
import { v1CurrentMinor, v1GatingSetup } from '../../../internal/openshift/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { createMetrics, type Metrics } from '../../../internal/shared/observability/index.ts';
import { installOpenShiftCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane } from '../../support/env.ts';
import { capturedLogger, inProcessManagerOptions, runParts } from '../../support/in-process.ts';
import { createCatalog, deleteCatalogs, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { SYSTEM_NAMESPACE, applyExtension, installedBundle, operatorControllerSuite, waitForExtension } from '../operator-controller/harness.ts';
import { runCaptured } from '../../../internal/cli/index.ts';
import { clusterOperatorEvents, coCondition, deleteClusterOperator, getClusterOperator, publishDemo, setClusterVersion, waitForCondition } from './demo.ts';

const CO = 'olm';
const suite = operatorControllerSuite('gating-v1', { before: async () => void (await installOpenShiftCRDs(adminKube())) });
const catalogs = new Set<string>();
let stopGating: (() => Promise<void>) | undefined;
let metrics: Metrics;
let catalog = '';

beforeAll(async () => {
  await deleteClusterOperator(CO);
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const { logger } = capturedLogger('gating-v1', 'GATING_TEST_LOG');
  metrics = createMetrics({ defaultMetrics: false });
  const parts = v1GatingSetup({ name: CO, currentMinor: v1CurrentMinor('4.22.0'), revisions: revisionHeadSource(SYSTEM_NAMESPACE) })({
    options: inProcessManagerOptions('gating-v1'),
    client,
    logger,
    metrics,
  });
  const run = await runParts(parts, { client, sandbox: '/nonexistent-gating-v1' });
  stopGating = () => run.stop();
  const ref = await publishDemo();
  catalog = uniqueName('olm-demo');
  catalogs.add(catalog);
  await createCatalog(catalog, { ref });
  await waitForCatalog(catalog, 'Serving', serving);
});

afterAll(async () => {
  await stopGating?.();
  await deleteCatalogs(catalogs);
  await deleteClusterOperator(CO);
  await adminKube().request('DELETE', '/apis/config.openshift.io/v1/clusterversions/version');
});

const blockingMessage = (ext: string): string =>
  `InstalledOLMOperatorsUpgradeable: Found ClusterExtensions that require upgrades prior to upgrading cluster to version 4.23: bundle "demo-operator.v0.1.0" for ClusterExtension "${ext}".`;

const gauge = async (): Promise<string> => (await metrics.registry.getSingleMetricAsString('olm_upgrade_blocking_installs')).split('\n').filter((l) => l.startsWith('olm_upgrade_blocking_installs{')).join('\n');

describe('v1 gating: ClusterOperator olm', () => {
  const ext = `demo-gating-${Math.random().toString(36).slice(2, 7)}`;

  it('is created, and Upgradeable while nothing blocks', async () => {
    const c = await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'True');
    expect(c).toMatchObject({ status: 'True', reason: 'AsExpected', message: 'All is well' });
  });

  it('installing the demo’s 0.1.0 (max 4.22) turns it False with upstream’s reason and message, an Event and the gauge', async () => {
    await suite.install(ext, { namespace: suite.namespace(), packageName: 'demo-operator', channels: ['stable'], version: '0.1.0', catalogName: catalog });
    await waitForExtension(ext, 'installed 0.1.0', installedBundle('demo-operator.v0.1.0'), 120_000);
    const c = await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'False');
    expect(c).toMatchObject({ status: 'False', reason: 'InstalledOLMOperators_IncompatibleOperatorsInstalled', message: blockingMessage(ext) });
    // The record says which properties the bundle had.
    const heads = await adminKube().must<{ items: { metadata: { annotations?: Record<string, string> } }[] }>(
      adminKube().request('GET', `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${ext},!olm.operatorframework.io/revision-chunk`)}`),
    );
    expect(heads.items.map((h) => h.metadata.annotations?.['olm.properties'])).toEqual(['[{"type":"olm.maxOpenShiftVersion","value":"4.22"}]']);
    await expect.poll(async () => (await clusterOperatorEvents(CO)).map((e) => `${e.type} ${e.reason}: ${e.message}`)).toContain(
      `Normal OperatorStatusChanged: Status for clusteroperator/${CO} changed: Upgradeable changed from True to False (${JSON.stringify(blockingMessage(ext))})`,
    );
    expect(await gauge()).toBe('olm_upgrade_blocking_installs{kind="ClusterExtension"} 1');
  });

  it('upgrade-check reads the ClusterVersion, names the extension and the bundle to upgrade to (exit 1)', async () => {
    await setClusterVersion('4.22.0');
    const r = await runCaptured(['upgrade-check', '-o', 'json', '--kubeconfig', controlPlane().kubeconfigPath, '--system-namespace', SYSTEM_NAMESPACE], { env: {} });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { current: string; target: string; blocking: { kind: string; name: string }[] };
    expect(report).toMatchObject({ current: '4.22.0', target: '4.23' });
    expect(report.blocking.filter((b) => b.kind === 'ClusterExtension')).toEqual([
      {
        kind: 'ClusterExtension',
        name: ext,
        bundle: 'demo-operator.v0.1.0',
        maxOpenShiftVersion: '4.22',
        // Pinned to 0.1.0, the extension’s range allows nothing newer: the resolver’s pick with the range widened.
        upgradeTo: { bundle: 'demo-operator.v0.3.0', version: '0.3.0', source: `ClusterCatalog ${catalog}`, note: 'outside spec.source.catalog.version "0.1.0": widen it' },
      },
    ]);
    const table = await runCaptured(['upgrade-check', '--kubeconfig', controlPlane().kubeconfigPath, '--system-namespace', SYSTEM_NAMESPACE], { env: {} });
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('Cluster version 4.22.0; checking the upgrade to 4.23.');
    const row = table.stdout.split('\n').find((l) => l.startsWith('ClusterExtension') && l.includes(` ${ext} `));
    expect(row?.split(/ {2,}/)).toEqual(['ClusterExtension', ext, 'demo-operator.v0.1.0', '4.22', `demo-operator.v0.3.0 (ClusterCatalog ${catalog}; outside spec.source.catalog.version "0.1.0": widen it)`]);
    // Checked against 4.22 itself, nothing blocks.
    const same = await runCaptured(['upgrade-check', '--to', '4.22', '-o', 'yaml', '--kubeconfig', controlPlane().kubeconfigPath, '--system-namespace', SYSTEM_NAMESPACE], { env: {} });
    expect(same.stdout).not.toContain(ext);
    expect(same.code).toBe(0);
    expect(same.stdout).toBe("current: 4.22.0\ntarget: '4.22'\nblocking: []\n");
  });

  it('a record from before properties were kept gets them on the next pass (no new revision)', async () => {
    const path = `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets/${ext}-1`;
    await adminKube().must(adminKube().request('PATCH', path, { metadata: { annotations: { 'olm.properties': null } } }, 'application/merge-patch+json'));
    // Gating sees a head without properties as blocking nothing — unless the extension was reconciled first (any
    // event for it: its service account, a resync) and wrote them back already, which is what this test is after.
    const annotation = async (): Promise<string | undefined> =>
      (await adminKube().request<{ metadata: { annotations?: Record<string, string> } }>('GET', path)).body.metadata.annotations?.['olm.properties'];
    await expect.poll(async () => coCondition(await getClusterOperator(CO), 'Upgradeable')?.status === 'True' || (await annotation()) !== undefined, { timeout: 60_000 }).toBe(true);
    // Nudge the extension: its next pass writes the annotation back onto the same head.
    await adminKube().must(
      adminKube().request('PATCH', `/apis/olm.operatorframework.io/v1/clusterextensions/${ext}`, { metadata: { annotations: { 'gating.test/nudge': '1' } } }, 'application/merge-patch+json'),
    );
    await expect.poll(annotation, { timeout: 60_000 }).toBe('[{"type":"olm.maxOpenShiftVersion","value":"4.22"}]');
    await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'False');
    const heads = await adminKube().must<{ items: { metadata: { name: string } }[] }>(
      adminKube().request('GET', `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${ext},!olm.operatorframework.io/revision-chunk`)}`),
    );
    expect(heads.items.map((h) => h.metadata.name)).toEqual([`${ext}-1`]);
  });

  it('upgrading to 0.3.0 (no limit) turns it True again', async () => {
    await applyExtension(ext, { namespace: suite.namespace(), packageName: 'demo-operator', channels: ['stable'], version: '>=0.1.0 <1.0.0', catalogName: catalog });
    await waitForExtension(ext, 'installed 0.3.0', installedBundle('demo-operator.v0.3.0'), 120_000);
    const c = await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'True');
    expect(c).toMatchObject({ reason: 'AsExpected', message: 'All is well' });
    expect(await gauge()).toBe('olm_upgrade_blocking_installs{kind="ClusterExtension"} 0');
    const r = await runCaptured(['upgrade-check', '-o', 'json', '--kubeconfig', controlPlane().kubeconfigPath, '--system-namespace', SYSTEM_NAMESPACE], { env: {} });
    expect((JSON.parse(r.stdout) as { blocking: { name: string }[] }).blocking.map((b) => b.name)).not.toContain(ext);
    await expect.poll(async () => (await clusterOperatorEvents(CO)).map((e) => e.message)).toContain(
      `Status for clusteroperator/${CO} changed: Upgradeable changed from False to True ("All is well")`,
    );
  });

  it('a deleted ClusterOperator comes back', async () => {
    const before = await getClusterOperator(CO);
    await deleteClusterOperator(CO);
    await expect.poll(async () => (await getClusterOperator(CO))?.metadata.uid, { timeout: 30_000 }).not.toBe(before?.metadata.uid);
    await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'True');
  });
});
