// Classic OLM's ClusterOperator controller against the real cluster: the classic and OpenShift CRDs installed,
// the controller in process (as olm-classic runs it with --writeStatusName) watching one namespace, and CSVs
// created directly — what OLM's CSV controllers would leave there, with the `operatorframework.io/properties`
// annotation OLM projects a bundle's properties into.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classicGatingSetup, type ClassicGatingOptions } from '../../../internal/openshift/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { createMetrics, type Metrics } from '../../../internal/shared/observability/index.ts';
import { installClassicCRDs, installOpenShiftCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane } from '../../support/env.ts';
import { capturedLogger, inProcessManagerOptions, runParts } from '../../support/in-process.ts';
import { runCaptured } from '../../../internal/cli/index.ts';
import { registry } from '../../support/env.ts';
import { clusterOperatorEvents, deleteClusterOperator, getClusterOperator, publishDemo, waitForCondition } from './demo.ts';

const CO = 'operator-lifecycle-manager';
const HEADER = 'ClusterServiceVersions blocking minor version upgrades to 4.23 or major version upgrades to 5.0:';
let ns = '';
const stops: (() => Promise<void>)[] = [];
const names: string[] = [];

async function startClassic(o: Partial<ClassicGatingOptions> & { name: string }): Promise<Metrics> {
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const { logger } = capturedLogger('gating-classic', 'GATING_TEST_LOG');
  const metrics = createMetrics({ defaultMetrics: false });
  const parts = classicGatingSetup({ releaseVersion: '4.22.0', namespace: ns, watchedNamespace: ns, ...o })({
    options: inProcessManagerOptions('gating-classic'),
    client,
    logger,
    metrics,
  });
  const run = await runParts(parts, { client, sandbox: '/nonexistent-gating-classic' });
  stops.push(() => run.stop());
  names.push(o.name);
  return metrics;
}

/** The properties annotation OLM writes for the demo operator's 0.1.0 (its catalog properties, values as raw JSON). */
const demoProperties = (max: string | undefined, version = '0.1.0'): Record<string, string> => ({
  'operatorframework.io/properties': JSON.stringify({
    properties: [
      { type: 'olm.gvk', value: { group: 'demo.olm.dev', kind: 'Greeting', version: 'v1alpha1' } },
      ...(max === undefined ? [] : [{ type: 'olm.maxOpenShiftVersion', value: max }]),
      { type: 'olm.package', value: { packageName: 'demo-operator', version } },
    ],
  }),
});

const CSV_PATH = (name?: string): string => `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/clusterserviceversions${name ? `/${name}` : ''}`;
async function putCsv(name: string, annotations: Record<string, string>, labels?: Record<string, string>): Promise<void> {
  const body = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name, namespace: ns, annotations, ...(labels && { labels }) },
    spec: { displayName: name, install: { strategy: 'deployment', spec: { deployments: [] } } },
  };
  const existing = await adminKube().request<{ metadata: { resourceVersion: string } }>('GET', CSV_PATH(name));
  if (existing.status === 200) {
    await adminKube().must(adminKube().request('PUT', CSV_PATH(name), { ...body, metadata: { ...body.metadata, resourceVersion: existing.body.metadata.resourceVersion } }));
  } else await adminKube().must(adminKube().request('POST', CSV_PATH(), body));
}
const deleteCsv = (name: string) => adminKube().request('DELETE', CSV_PATH(name));

beforeAll(async () => {
  await installClassicCRDs(adminKube());
  await installOpenShiftCRDs(adminKube());
  ns = await adminKube().namespace('gating-classic');
});

afterAll(async () => {
  for (const stop of stops) await stop();
  for (const n of names) await deleteClusterOperator(n);
  if (ns) await adminKube().request('DELETE', `/api/v1/namespaces/${ns}`);
});

describe('classic gating: ClusterOperator operator-lifecycle-manager', () => {
  let metrics: Metrics;
  const gauge = async (): Promise<string> =>
    (await metrics.registry.getSingleMetricAsString('olm_upgrade_blocking_installs')).split('\n').filter((l) => l.startsWith('olm_upgrade_blocking_installs{')).join('\n');

  it('creates the ClusterOperator: at its versions, Deployed, Available, not Degraded, Upgradeable', async () => {
    await deleteClusterOperator(CO);
    await putCsv('packageserver', {});
    metrics = await startClassic({ name: CO });
    await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'True');
    const co = await getClusterOperator(CO);
    expect(co?.status?.versions).toEqual([
      { name: 'operator', version: '4.22.0' },
      { name: CO, version: '0.1.0' },
    ]);
    expect(co?.status?.conditions?.map(({ type, status, reason, message }) => ({ type, status, reason, message }))).toEqual([
      { type: 'Progressing', status: 'False', reason: undefined, message: 'Deployed 0.1.0' },
      { type: 'Available', status: 'True', reason: undefined, message: undefined },
      { type: 'Degraded', status: 'False', reason: undefined, message: undefined },
      { type: 'Upgradeable', status: 'True', reason: undefined, message: undefined },
    ]);
    expect(co?.status?.relatedObjects).toEqual([{ group: 'operators.coreos.com', resource: 'clusterserviceversions', namespace: ns, name: 'packageserver' }]);
    expect(await gauge()).toBe('olm_upgrade_blocking_installs{kind="ClusterServiceVersion"} 0');
  });

  it('the demo operator’s 0.1.0 (max 4.22) blocks 4.23: IncompatibleOperatorsInstalled with upstream’s message, an Event', async () => {
    await putCsv('demo-operator.v0.1.0', demoProperties('4.22'));
    const c = await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'False');
    const message = `${HEADER}\n- maximum supported OCP version for ${ns}/demo-operator.v0.1.0 is 4.22`;
    expect(c).toMatchObject({ reason: 'IncompatibleOperatorsInstalled', message });
    await expect.poll(async () => (await clusterOperatorEvents(CO)).map((e) => `${e.reason}: ${e.message}`)).toContain(
      `OperatorStatusChanged: Status for clusteroperator/${CO} changed: Upgradeable changed from True to False (${JSON.stringify(message)})`,
    );
    expect(await gauge()).toBe('olm_upgrade_blocking_installs{kind="ClusterServiceVersion"} 1');
  });

  it('an invalid property is an error line, listed before the valid blockers; copied CSVs do not count', async () => {
    await putCsv('garbage.v1', { 'operatorframework.io/properties': '{"properties":[{"type":"olm.maxOpenShiftVersion","value":"garbage"}]}' });
    await putCsv('copied.v1', demoProperties('4.1'), { 'olm.copiedFrom': 'elsewhere' });
    await putCsv('older.v1', demoProperties('4.21'));
    const c = await waitForCondition(CO, 'Upgradeable', (c) => (c.message ?? '').includes('garbage') && (c.message ?? '').includes('older'));
    // Blockers in reverse list order (upstream fills its lines from both ends); the list is in name order here.
    expect(c.message).toBe(
      [
        HEADER,
        `- ${ns}/garbage.v1 has invalid olm.maxOpenShiftVersion properties: failed to parse "garbage" as semver: Invalid character(s) found in major number "0garbage"`,
        `- maximum supported OCP version for ${ns}/older.v1 is 4.21`,
        `- maximum supported OCP version for ${ns}/demo-operator.v0.1.0 is 4.22`,
      ].join('\n'),
    );
    expect(await gauge()).toBe('olm_upgrade_blocking_installs{kind="ClusterServiceVersion"} 3');
  });

  it('upgrade-check names them, and for the subscribed demo operator the newest bundle reachable in its CatalogSource’s channel', async () => {
    const image = await publishDemo();
    const base = `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}`;
    await adminKube().must(
      adminKube().request('POST', `${base}/catalogsources`, {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'CatalogSource',
        metadata: { name: 'demo', namespace: ns },
        spec: { sourceType: 'grpc', image },
      }),
    );
    await adminKube().must(
      adminKube().request('POST', `${base}/subscriptions`, {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'Subscription',
        metadata: { name: 'demo-operator', namespace: ns },
        spec: { name: 'demo-operator', source: 'demo', sourceNamespace: ns, channel: 'stable' },
      }),
    );
    const r = await runCaptured(
      ['upgrade-check', '--current', '4.22.0', '-o', 'json', '--kubeconfig', controlPlane().kubeconfigPath, '--insecure-registries', registry().host],
      { env: {} },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { current: string; target: string; blocking: { namespace?: string }[] };
    expect(report.current).toBe('4.22.0');
    expect(report.target).toBe('4.23');
    expect(report.blocking.filter((b) => b.namespace === ns)).toEqual([
      {
        kind: 'ClusterServiceVersion',
        namespace: ns,
        name: 'demo-operator.v0.1.0',
        bundle: 'demo-operator.v0.1.0',
        maxOpenShiftVersion: '4.22',
        upgradeTo: { bundle: 'demo-operator.v0.3.0', version: '0.3.0', source: `CatalogSource ${ns}/demo channel stable` },
      },
      {
        kind: 'ClusterServiceVersion',
        namespace: ns,
        name: 'garbage.v1',
        bundle: 'garbage.v1',
        error: 'failed to parse "garbage" as semver: Invalid character(s) found in major number "0garbage"',
        upgradeTo: { none: `no Subscription in ${ns} installs it` },
      },
      {
        kind: 'ClusterServiceVersion',
        namespace: ns,
        name: 'older.v1',
        bundle: 'older.v1',
        maxOpenShiftVersion: '4.21',
        upgradeTo: { none: `no bundle reachable from older.v1 in channel stable of CatalogSource ${ns}/demo allows it` },
      },
    ]);
    // --to 4.21: the 4.21 and 4.22 maxima allow it; only the invalid property still blocks.
    const lower = await runCaptured(['upgrade-check', '--current', '4.20.0', '--to', '4.21', '--kubeconfig', controlPlane().kubeconfigPath, '--insecure-registries', registry().host], { env: {} });
    expect(lower.stdout).toContain('Cluster version 4.20.0; checking the upgrade to 4.21.');
    expect(lower.stdout).not.toContain('older.v1');
    expect(lower.stdout).toContain('garbage.v1');
  });

  it('upgrading to a bundle without the limit and removing the others turns it True again', async () => {
    await putCsv('demo-operator.v0.1.0', demoProperties(undefined, '0.3.0'));
    await deleteCsv('garbage.v1');
    await deleteCsv('older.v1');
    await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'True');
    expect(await gauge()).toBe('olm_upgrade_blocking_installs{kind="ClusterServiceVersion"} 0');
  });

  it('a deleted ClusterOperator is created again', async () => {
    const before = await getClusterOperator(CO);
    await deleteClusterOperator(CO);
    await expect.poll(async () => (await getClusterOperator(CO))?.metadata.uid, { timeout: 30_000 }).not.toBe(before?.metadata.uid);
    await waitForCondition(CO, 'Upgradeable', (c) => c.status === 'True');
  });

  it('RELEASE_VERSION missing or invalid: ErrorCheckingOperatorCompatibility with upstream’s message', async () => {
    await startClassic({ name: 'olm-gating-no-release', releaseVersion: undefined });
    expect(await waitForCondition('olm-gating-no-release', 'Upgradeable', (c) => c.reason === 'ErrorCheckingOperatorCompatibility')).toMatchObject({
      status: 'False',
      message: 'Encountered errors while checking compatibility with the next minor version of OpenShift: desired release version missing from RELEASE_VERSION env variable',
    });
    await startClassic({ name: 'olm-gating-bad-release', releaseVersion: 'four.twenty-two' });
    expect((await waitForCondition('olm-gating-bad-release', 'Upgradeable', (c) => c.reason === 'ErrorCheckingOperatorCompatibility')).message).toMatch(
      /^Encountered errors while checking compatibility with the next minor version of OpenShift: cluster version has invalid desired release version: /,
    );
  });
});
