// `kubectl olm migrate <subscription>` against the real cluster: an operator the real olm-classic binary installed
// (AllNamespaces, its CRD with a custom resource, its Deployment) moves to a ClusterExtension run by operator-controller
// with the ClusterObjectSet runtime (BoxcutterRuntime), catalogd serving the same bundle. The Deployment keeps its
// UID, the custom resource stays, the extension is Installed at the same version from the one migrated revision, the
// classic objects are gone; a second run says it is already migrated and changes nothing. --dry-run changes nothing.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { runCaptured, type CapturedRun } from '../../../internal/cli/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { catalogFiles, pushTestBundle, widgetValidatingWebhook, type TestBundle } from '../../support/bundles.ts';
import { installClassicCRDs, installExperimentalCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createImageCatalogSource, createOperatorGroup, createSubscription } from '../../support/classic-olm.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';
import { createCatalog, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { startCatalogd } from '../catalogd/harness.ts';
import { installCertManagerCrds, startOperatorController } from '../operator-controller/harness.ts';
import { tearDownMigrate } from './migrate-fixture.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const kube = (): TestKube => adminKube();
const PKG = 'migrun';
const CATSRC = 'migrun-cat';
const clusterCatalog = uniqueName('migrun-v1');
let cwd = '';
const olm = (argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd, env: { KUBECONFIG: controlPlane().kubeconfigPath } });
let olmClassic: OlmClassicProcess | undefined;
let globalNs = '';
let ns = '';
let bundle: TestBundle;
/** The second operator, migrated in interrupted runs, in its own namespace. */
const PKG2 = 'migrun-two';
let ns2 = '';
let bundle2: TestBundle;
/** The third operator: a validating webhook olm-classic made a ValidatingWebhookConfiguration for. */
const PKG3 = 'migrun-hook';
let ns3 = '';
let bundle3: TestBundle;
/** Whether this file installed cert-manager's CRDs (the certificate provider `migrate check` wants for webhooks). */
let certManagerInstalled = false;
const get = async (path: string): Promise<{ status: number; body: Json }> => (await kube().request('GET', path)) as { status: number; body: Json };
const CE = `/apis/olm.operatorframework.io/v1/clusterextensions/${PKG}`;
const CE2 = `/apis/olm.operatorframework.io/v1/clusterextensions/${PKG2}`;
const CE3 = `/apis/olm.operatorframework.io/v1/clusterextensions/${PKG3}`;
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
/** The ValidatingWebhookConfigurations made for PKG3's webhook description (whoever owns them). */
const hookConfigs = async (): Promise<Json[]> =>
  ((await get(`${VWC}?labelSelector=${encodeURIComponent(`olm.webhook-description-generate-name=v${PKG3}.example.com`)}`)).body['items'] ?? []) as Json[];
const COS = '/apis/olm.operatorframework.io/v1/clusterobjectsets';
const cr = (): string => `/apis/${bundle.group}/v1/namespaces/${ns}/widgets/kept`;
const deployment = (): string => `/apis/apps/v1/namespaces/${ns}/deployments/${bundle.deploymentName}`;

/** PKG's Deployment's Pods (by its selector) and ReplicaSets (by owner), as `name/uid`, sorted. */
async function podsAndReplicaSets(): Promise<{ pods: string[]; replicaSets: string[] }> {
  const dep = (await get(deployment())).body;
  const selector = Object.entries(dep['spec']['selector']['matchLabels'] as Record<string, string>)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const q = `?labelSelector=${encodeURIComponent(selector)}`;
  const ids = (items: Json[]): string[] => items.map((o) => `${o['metadata']['name']}/${o['metadata']['uid']}`).sort();
  const pods = ((await get(`/api/v1/namespaces/${ns}/pods${q}`)).body['items'] ?? []) as Json[];
  const sets = (((await get(`/apis/apps/v1/namespaces/${ns}/replicasets${q}`)).body['items'] ?? []) as Json[]).filter((r) =>
    ((r['metadata']['ownerReferences'] ?? []) as Json[]).some((o) => o['uid'] === dep['metadata']['uid']),
  );
  return { pods: ids(pods.filter((p) => !p['metadata']['deletionTimestamp'])), replicaSets: ids(sets) };
}

beforeAll(async () => {
  await installClassicCRDs(kube());
  await installExperimentalCRDs(kube());
  globalNs = await kube().namespace('migrun-olm');
  ns = await kube().namespace('migrun-all');
  ns2 = await kube().namespace('migrun-int');
  ns3 = await kube().namespace('migrun-hook');
  certManagerInstalled = (await kube().request('GET', '/apis/cert-manager.io/v1')).status === 404;
  await installCertManagerCrds();
  cwd = await mkdtemp(join(tmpdir(), 'migrate-run-'));
  bundle = await pushTestBundle(registry(), { packageName: PKG, version: '1.0.0' });
  bundle2 = await pushTestBundle(registry(), { packageName: PKG2, version: '1.0.0' });
  bundle3 = await pushTestBundle(registry(), {
    packageName: PKG3,
    version: '1.0.0',
    installModes: { AllNamespaces: true, OwnNamespace: false, SingleNamespace: false, MultiNamespace: false },
    csvSpec: { webhookdefinitions: [widgetValidatingWebhook(PKG3)] },
  });
  const files = { ...catalogFiles(PKG, [{ bundle }]), ...catalogFiles(PKG2, [{ bundle: bundle2 }]), ...catalogFiles(PKG3, [{ bundle: bundle3 }]) };
  const classicImage = await pushCatalogImage(registry(), 'migrun/classic-catalog:v1', { files });
  const v1Image = await pushCatalogImage(registry(), 'migrun/v1-catalog:v1', { files });
  await createImageCatalogSource(globalNs, CATSRC, classicImage.digestRef);
  olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs });
  await startCatalogd();
  await startOperatorController({ boxcutterRuntime: true });
  await createCatalog(clusterCatalog, { ref: v1Image.ref });
  for (const [n, pkg] of [[ns, PKG], [ns2, PKG2], [ns3, PKG3]] as const) {
    await createOperatorGroup(n, 'og');
    await createSubscription(n, pkg, { name: pkg, channel: 'stable', source: CATSRC, sourceNamespace: globalNs, installPlanApproval: 'Automatic' });
  }
  await waitForCatalog(clusterCatalog, 'Serving', serving);
  for (const [n, pkg] of [[ns, PKG], [ns2, PKG2], [ns3, PKG3]] as const) {
    await waitFor(
      `${pkg} installed by olm-classic`,
      async () => {
        const sub = (await get(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, pkg, n))).body as ops.Subscription;
        const csv = sub.status?.installedCSV ? (await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, sub.status.installedCSV, n))).body : undefined;
        return (csv as ops.ClusterServiceVersion | undefined)?.status?.phase === 'Succeeded';
      },
      { timeoutMs: 240_000 },
    );
  }
  // a custom resource of the operator's CRD
  await kube().must(kube().request('POST', `/apis/${bundle.group}/v1/namespaces/${ns}/widgets`, { apiVersion: `${bundle.group}/v1`, kind: 'Widget', metadata: { name: 'kept' }, spec: { size: '3' } }));
}, 300_000);

afterAll(async () => {
  await tearDownMigrate({ extensions: [PKG, PKG2, PKG3], namespaces: [ns, ns2, ns3], globalNs, clusterCatalog, olmClassic, certManagerInstalled, cwd });
  for (const w of (await hookConfigs()).map((c) => c['metadata']['name'] as string)) await kube().request('DELETE', `${VWC}/${w}`);
}, 180_000);

/** The phases of the namespace's own CSVs (not copies) in every watch event from now until stopped. */
async function watchCSVPhases(namespace: string): Promise<{ phases: string[][]; stop: () => void }> {
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const kind = { apiVersion: ops.V1alpha1, kind: ops.ClusterServiceVersionKind, namespace };
  const phases: string[][] = [];
  const ac = new AbortController();
  let rv = (await client.list(kind)).metadata?.resourceVersion;
  void (async () => {
    while (!ac.signal.aborted) {
      try {
        for await (const e of client.watch(kind, { resourceVersion: rv, signal: ac.signal, timeoutSeconds: 600 })) {
          if (e.type === 'BOOKMARK') continue;
          rv = e.object.metadata.resourceVersion ?? rv;
          const csv = e.object as unknown as ops.ClusterServiceVersion;
          if (csv.metadata.labels?.['olm.copiedFrom'] === undefined) phases.push([e.type, csv.status?.phase ?? '', csv.status?.reason ?? '', csv.status?.message ?? '']);
        }
      } catch {
        if (ac.signal.aborted) return;
      }
    }
  })();
  return { phases, stop: () => ac.abort() };
}

const diag = (r: CapturedRun): string => `${JSON.stringify(r)}\nolm-classic said:\n${olmClassic?.logs.slice(-20).join('\n') ?? ''}`;

describe('kubectl olm migrate', () => {
  it('refuses, with the reason, unless migrate check says eligible, and changes nothing', async () => {
    // a second Subscription to the package (in a namespace without an OperatorGroup, so nothing installs)
    const other = await kube().namespace('migrun-dup');
    try {
      await createSubscription(other, 'dup', { name: PKG, channel: 'stable', source: CATSRC, sourceNamespace: globalNs });
      const r = await olm(['migrate', PKG, '-n', ns]);
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: `cannot migrate subscription "${PKG}" in namespace "${ns}": conflicting: Subscription ${other}/dup also subscribes to package "${PKG}"; OLM v1 installs a package once per cluster\n`,
      });
      expect((await get(`/api/v1/namespaces/${ns}/secrets/olm-migrate-backup-${PKG}`)).status).toBe(404);
      expect((await get(`${COS}/${PKG}-1`)).status).toBe(404);
    } finally {
      const dup = TestKube.path(ops.V1alpha1, ops.SubscriptionResource, 'dup', other);
      await kube().request('DELETE', dup);
      await waitFor('the second Subscription gone', async () => (await get(dup)).status === 404);
      await kube().request('DELETE', `/api/v1/namespaces/${other}`);
    }
  });

  it('--dry-run prints what it would do and changes nothing', async () => {
    const r = await olm(['migrate', PKG, '-n', ns, '--dry-run']);
    expect(r.code, diag(r)).toBe(0);
    expect(r.stdout).toContain(`would create ClusterObjectSet ${PKG}-1 (revision 1:`);
    expect(r.stdout).toContain(`would create ClusterExtension ${PKG} (package ${PKG}, version 1.0.0, channel stable)`);
    expect(r.stdout).toContain(`would delete Subscription ${ns}/${PKG}`);
    expect(r.stdout).toContain(`would delete ClusterServiceVersion ${ns}/${bundle.name} (propagationPolicy=Orphan)`);
    expect((await get(`${COS}/${PKG}-1`)).status).toBe(404);
    expect((await get(CE)).status).toBe(404);
    expect((await get(`/api/v1/namespaces/${ns}/secrets/olm-migrate-backup-${PKG}`)).status).toBe(404);
  });

  it('moves the operator in place: same Deployment, the custom resource intact, Installed at the same version from one revision, classic objects gone', async () => {
    const beforeFull = (await get(deployment())).body;
    const before = beforeFull['metadata'] as Json;
    const crBefore = (await get(cr())).body['metadata'] as Json;
    // the scheduler put the Deployment's Pod on a KWOK node: it and its ReplicaSet must survive the move
    await waitFor('the Deployment\'s Pod', async () => (await podsAndReplicaSets()).pods.length > 0);
    const podsBefore = await podsAndReplicaSets();
    expect(podsBefore.replicaSets).toHaveLength(1);
    const csvWatch = await watchCSVPhases(ns);
    const r = await olm(['migrate', PKG, '-n', ns, '--backup-dir', 'backup', '--timeout', '3m']);
    expect(r.code, diag(r)).toBe(0);
    await waitFor('the CSV deletion seen by the watch', async () => csvWatch.phases.some((p) => p[0] === 'DELETED')).finally(csvWatch.stop);
    // olm-classic never judged the CSV while v1 adopted its objects: it stayed Succeeded until deleted (no flap)
    expect(csvWatch.phases.filter((p) => p[1] !== 'Succeeded'), JSON.stringify(csvWatch.phases)).toEqual([]);
    expect(r.stdout).toContain(`subscription "${PKG}" in namespace "${ns}" migrated to ClusterExtension "${PKG}"`);

    const dep = (await get(deployment())).body as Json;
    expect(dep['metadata']['uid']).toBe(before['uid']);
    // adopted, not rolled: the spec is what it was (the generation moves with annotation changes, a Deployment's rule)
    expect(dep['spec']).toEqual(beforeFull['spec']);
    expect((dep['metadata']['ownerReferences'] as Json[]).map((o) => [o['kind'], o['name'], o['controller']])).toEqual([['ClusterObjectSet', `${PKG}-1`, true]]);
    expect(dep['metadata']['labels']['olm.owner']).toBeUndefined();
    expect(((await get(cr())).body['metadata'] as Json)['uid']).toBe(crBefore['uid']);

    const ext = (await get(CE)).body as Json;
    expect(ext['status']['install']['bundle']).toMatchObject({ name: bundle.name, version: '1.0.0' });
    expect(ext['status']['activeRevisions']).toEqual([{ name: `${PKG}-1` }]);
    expect((ext['status']['conditions'] as Json[]).find((c) => c['type'] === 'Installed')).toMatchObject({ status: 'True' });
    const revs = ((await get(`${COS}?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${PKG}`)}`)).body['items'] as Json[]).map((c) => c['metadata']['name']);
    expect(revs).toEqual([`${PKG}-1`]);

    expect((await get(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns))).status).toBe(404);
    expect((await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundle.name, ns))).status).toBe(404);
    expect(((await get(TestKube.path(ops.V1alpha1, 'installplans', undefined, ns))).body['items'] as Json[]).length).toBe(0);
    expect((await get(TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns))).status).toBe(404);

    // the backup: a file and a Secret
    const file = JSON.parse(await readFile(join(cwd, 'backup', 'backup.json'), 'utf8')) as { items: Json[] };
    expect(file.items.map((o) => o['kind'])).toEqual(expect.arrayContaining(['Subscription', 'ClusterServiceVersion', 'InstallPlan', 'OperatorGroup', 'Deployment', 'CustomResourceDefinition']));
    expect((await get(`/api/v1/namespaces/${ns}/secrets/olm-migrate-backup-${PKG}`)).status).toBe(200);

    // the Deployment stays after the classic objects are gone (nothing deletes it late)
    await waitFor('the extension still Installed', async () => (((await get(CE)).body['status']?.['conditions'] ?? []) as Json[]).some((c) => c['type'] === 'Installed' && c['status'] === 'True'));
    expect(((await get(deployment())).body['metadata'] as Json)['uid']).toBe(before['uid']);
    // the same Pods (UIDs) and the same ReplicaSet: nothing rolled or replaced
    expect(await podsAndReplicaSets()).toEqual(podsBefore);
  });

  it('run again, says it is already migrated and changes nothing', async () => {
    const cosBefore = ((await get(`${COS}/${PKG}-1`)).body['metadata'] as Json)['resourceVersion'];
    const extBefore = ((await get(CE)).body['metadata'] as Json)['generation'];
    const r = await olm(['migrate', PKG, '-n', ns]);
    expect(r.code, diag(r)).toBe(0);
    expect(r.stdout).toBe(`subscription "${PKG}" in namespace "${ns}" is already migrated to ClusterExtension "${PKG}"; nothing to do\n`);
    expect(((await get(`${COS}/${PKG}-1`)).body['metadata'] as Json)['resourceVersion']).toBe(cosBefore);
    expect(((await get(CE)).body['metadata'] as Json)['generation']).toBe(extBefore);
  });

  it('refuses a Subscription that is not there', async () => {
    expect(await olm(['migrate', 'nope', '-n', ns])).toEqual({ code: 1, stdout: '', stderr: 'subscriptions.operators.coreos.com "nope" not found\n' });
  });

  it('interrupted at any step, the next run goes on from there and ends in the same state', async () => {
    const depBefore = ((await get(`/apis/apps/v1/namespaces/${ns2}/deployments/${bundle2.deploymentName}`)).body['metadata'] as Json)['uid'];
    const cos = `${COS}/${PKG2}-1`;
    const run = (timeout: string): Promise<CapturedRun> => olm(['migrate', PKG2, '-n', ns2, '--backup-dir', 'backup2', '--timeout', timeout]);
    const stopped = (r: CapturedRun, what: string): void => {
      expect(r.code, diag(r)).toBe(1);
      expect(r.stderr).toContain(`migration of subscription "${PKG2}" in namespace "${ns2}" stopped: timed out waiting for ${what}`);
      expect(r.stderr).toContain('Run the same command again to go on.');
    };
    // 1: stops waiting for revision 1 (backup and revision written)
    stopped(await run('1ms'), `ClusterObjectSet ${PKG2}-1 to succeed`);
    expect((await get(`/api/v1/namespaces/${ns2}/secrets/olm-migrate-backup-${PKG2}`)).status).toBe(200);
    await waitFor('revision 1 succeeded', async () => (((await get(cos)).body['status']?.['conditions'] ?? []) as Json[]).some((c) => c['type'] === 'Succeeded' && c['status'] === 'True'));
    // 2: goes on from the backup, stops waiting for the extension
    const second = await run('1ms');
    stopped(second, `ClusterExtension ${PKG2} to be installed from ${PKG2}-1`);
    expect(second.stdout).not.toContain('wrote backup');
    expect(second.stdout).not.toContain('created ClusterObjectSet');
    await waitFor('the extension installed', async () => (((await get(CE2)).body['status']?.['conditions'] ?? []) as Json[]).some((c) => c['type'] === 'Installed' && c['status'] === 'True'), { timeoutMs: 120_000 });
    // 3: interrupted after the Subscription was deleted: the backup carries the rest
    await kube().request('DELETE', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG2, ns2));
    const third = await run('3m');
    expect(third.code, diag(third)).toBe(0);
    expect(third.stdout).toContain(`deleted ClusterServiceVersion ${ns2}/${bundle2.name} (propagationPolicy=Orphan)`);
    expect(third.stdout).not.toContain('created ClusterExtension');

    const dep = (await get(`/apis/apps/v1/namespaces/${ns2}/deployments/${bundle2.deploymentName}`)).body['metadata'] as Json;
    expect(dep['uid']).toBe(depBefore);
    expect((dep['ownerReferences'] as Json[]).map((o) => [o['kind'], o['name'], o['controller']])).toEqual([['ClusterObjectSet', `${PKG2}-1`, true]]);
    expect((await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundle2.name, ns2))).status).toBe(404);
    expect((await get(TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns2))).status).toBe(404);
    const revs = ((await get(`${COS}?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${PKG2}`)}`)).body['items'] as Json[]).map((c) => c['metadata']['name']);
    expect(revs).toEqual([`${PKG2}-1`]);
    const again = await run('3m');
    expect(again, diag(again)).toEqual({ code: 0, stdout: `subscription "${PKG2}" in namespace "${ns2}" is already migrated to ClusterExtension "${PKG2}"; nothing to do\n`, stderr: '' });
    const dry = await olm(['migrate', PKG2, '-n', ns2, '--dry-run']);
    expect(dry.stdout).toBe(`subscription "${PKG2}" in namespace "${ns2}" is already migrated to ClusterExtension "${PKG2}"; nothing to do\n`);
  });

  it("moves a webhook operator with the ValidatingWebhookConfiguration olm-classic made for it (same object, adopted), and rollback hands the same one back", async () => {
    const [cfg, ...more] = await hookConfigs();
    expect(more).toEqual([]);
    const uid = cfg!['metadata']['uid'];
    const caBundle = cfg!['webhooks'][0]['clientConfig']['caBundle'];
    const check = await olm(['migrate', 'check', PKG3, '-n', ns3]);
    expect(check.code, diag(check)).toBe(0);
    const r = await olm(['migrate', PKG3, '-n', ns3, '--backup-dir', 'backup3', '--timeout', '2m']);
    expect(r.code, `${diag(r)}\n${JSON.stringify((await get(`${COS}/${PKG3}-1`)).body['status'])}\n${JSON.stringify((await get(CE3)).body['status'])}`).toBe(0);
    expect(r.stdout).toContain(`patched ValidatingWebhookConfiguration ${cfg!['metadata']['name']}: remove labels olm.owner, olm.owner.kind, olm.owner.namespace`);

    // the same configuration, now revision 1's, with the CA olm-classic gave it; no other made
    const [moved, ...extra] = await hookConfigs();
    expect(extra).toEqual([]);
    expect(moved!['metadata']['uid']).toBe(uid);
    expect(moved!['webhooks'][0]['clientConfig']['caBundle']).toBe(caBundle);
    expect((moved!['metadata']['ownerReferences'] as Json[]).map((o) => [o['kind'], o['name'], o['controller']])).toEqual([['ClusterObjectSet', `${PKG3}-1`, true]]);
    expect(moved!['metadata']['labels']['olm.owner']).toBeUndefined();
    const listed = ((await get(`${COS}/${PKG3}-1`)).body['spec']['phases'] as Json[]).flatMap((ph) => (ph['objects'] as Json[]).map((o) => `${o['object']['kind']}/${o['object']['metadata']['name']}`));
    expect(listed).toContain(`ValidatingWebhookConfiguration/${cfg!['metadata']['name']}`);
    const file = JSON.parse(await readFile(join(cwd, 'backup3', 'backup.json'), 'utf8')) as { items: Json[] };
    expect(file.items.filter((o) => o['kind'] === 'ValidatingWebhookConfiguration').map((o) => o['metadata']['uid'])).toEqual([uid]);
    expect(((await get(CE3)).body['status']['conditions'] as Json[]).find((c) => c['type'] === 'Installed')).toMatchObject({ status: 'True' });

    // rollback: olm-classic finds the same configuration by its labels again instead of making a second one
    const back = await olm(['migrate', 'rollback', PKG3, '--timeout', '2m']);
    expect(back.code, diag(back)).toBe(0);
    const [returned, ...dup] = await hookConfigs();
    expect(dup).toEqual([]);
    expect(returned!['metadata']['uid']).toBe(uid);
    expect(returned!['metadata']['labels']).toMatchObject({ 'olm.owner': bundle3.name, 'olm.owner.namespace': ns3, 'olm.owner.kind': 'ClusterServiceVersion' });
    expect(((returned!['metadata']['ownerReferences'] ?? []) as Json[]).filter((o) => o['kind'] === 'ClusterObjectSet')).toEqual([]);
    expect(((await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundle3.name, ns3))).body as ops.ClusterServiceVersion).status?.phase).toBe('Succeeded');
  }, 360_000);

  it('rollback gives the operator back to OLM classic from the backup: same Deployment, the custom resource intact, the extension gone', async () => {
    const before = ((await get(deployment())).body['metadata'] as Json)['uid'];
    const crBefore = ((await get(cr())).body['metadata'] as Json)['uid'];
    const podsBefore = await podsAndReplicaSets();
    expect(podsBefore.pods.length).toBeGreaterThan(0);
    const dry = await olm(['migrate', 'rollback', PKG, '--dry-run']);
    expect(dry.code, diag(dry)).toBe(0);
    expect(dry.stdout).toContain(`would delete ClusterObjectSet ${PKG}-1 (propagationPolicy=Orphan: its objects stay)`);
    expect((await get(CE)).status).toBe(200);

    const r = await olm(['migrate', 'rollback', PKG, '--timeout', '90s']);
    expect(r.code, `${diag(r)}\n${JSON.stringify((await get(`${COS}/${PKG}-1`)).body.metadata)}\n${JSON.stringify((await get(`${COS}/${PKG}-1`)).body.status)}`).toBe(0);
    expect(r.stdout).toContain(`ClusterExtension "${PKG}" rolled back to subscription "${PKG}" in namespace "${ns}"`);
    expect((await get(CE)).status).toBe(404);
    expect((await get(`${COS}/${PKG}-1`)).status).toBe(404);
    expect(((await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundle.name, ns))).body as ops.ClusterServiceVersion).status?.phase).toBe('Succeeded');
    const dep = (await get(deployment())).body['metadata'] as Json;
    expect(dep['uid']).toBe(before);
    expect(((dep['ownerReferences'] ?? []) as Json[]).filter((o) => o['kind'] === 'ClusterObjectSet')).toEqual([]);
    expect(((await get(cr())).body['metadata'] as Json)['uid']).toBe(crBefore);
    expect((await get(`/api/v1/namespaces/${ns}/secrets/olm-migrate-backup-${PKG}`)).status).toBe(404);
    // the Subscription as it was backed up: the startingCSV pin that brought the CSV back is gone (it had none)
    expect(r.stdout).toContain(`patched Subscription ${ns}/${PKG}: restore startingCSV (absent, as backed up)`);
    const restored = (await get(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns))).body as ops.Subscription;
    expect(restored.spec).toEqual({ name: PKG, channel: 'stable', source: CATSRC, sourceNamespace: globalNs, installPlanApproval: 'Automatic' });
    // olm-classic takes it up again as its own: the Subscription AtLatestKnown at the CSV, which is Succeeded
    const subPath = TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns);
    await waitFor('the restored Subscription AtLatestKnown', async () => ((await get(subPath)).body as ops.Subscription).status?.state === 'AtLatestKnown', { timeoutMs: 120_000 });
    expect(((await get(subPath)).body as ops.Subscription).status).toMatchObject({ state: 'AtLatestKnown', installedCSV: bundle.name, currentCSV: bundle.name });
    expect(((await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundle.name, ns))).body as ops.ClusterServiceVersion).status?.phase).toBe('Succeeded');
    // the same Pods and ReplicaSet after the rollback too
    expect(await podsAndReplicaSets()).toEqual(podsBefore);
    // nothing left to roll back
    expect((await olm(['migrate', 'rollback', PKG, '-n', ns])).code).toBe(1);

    // and it migrates again: the objects carry no mark of the old revision that would keep the runtime from adopting them
    await waitFor('the Subscription at its CSV again', async () => ((await get(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns))).body as ops.Subscription).status?.installedCSV === bundle.name);
    const again = await olm(['migrate', PKG, '-n', ns, '--backup-dir', 'backup-again', '--timeout', '2m']);
    expect(again.code, diag(again)).toBe(0);
    expect(((await get(deployment())).body['metadata'] as Json)['uid']).toBe(before);
    expect(((await get(CE)).body['status']['activeRevisions'] as Json[])).toEqual([{ name: `${PKG}-1` }]);
  });

  it('a newer bundle in the catalog afterwards is taken by OLM v1: the pin relaxed, revision 2 at 1.1.0, the same Deployment updated in place', async () => {
    const depBefore = ((await get(deployment())).body['metadata'] as Json)['uid'];
    expect(((await get(CE)).body['spec']['source']['catalog'] as Json)['version']).toBe('1.0.0');
    // the catalog's next version: 1.1.0 replaces 1.0.0 (a new tag the ClusterCatalog is pointed at, as a user would)
    const next = await pushTestBundle(registry(), { packageName: PKG, version: '1.1.0' });
    const files = { ...catalogFiles(PKG, [{ bundle }, { bundle: next, replaces: bundle.name }]), ...catalogFiles(PKG2, [{ bundle: bundle2 }]), ...catalogFiles(PKG3, [{ bundle: bundle3 }]) };
    const v2Image = await pushCatalogImage(registry(), 'migrun/v1-catalog:v2', { files });
    await kube().must(kube().request('PATCH', `/apis/olm.operatorframework.io/v1/clustercatalogs/${clusterCatalog}`, { spec: { source: { type: 'Image', image: { ref: v2Image.ref } } } }, 'application/merge-patch+json'));
    await waitForCatalog(clusterCatalog, 'serving the new image', (c) => serving(c) && c.status?.resolvedSource?.image?.ref === v2Image.digestRef);
    // still pinned: nothing moves
    expect(((await get(CE)).body['status']['install']['bundle'] as Json)['version']).toBe('1.0.0');

    const up = await olm(['upgrade', PKG, '--version', '']);
    expect(up.code, diag(up)).toBe(0);
    await waitFor(
      'the extension installed at 1.1.0',
      async () => {
        const st = (await get(CE)).body['status'] as Json | undefined;
        return st?.['install']?.['bundle']?.['version'] === '1.1.0' && ((st['conditions'] ?? []) as Json[]).some((c) => c['type'] === 'Installed' && c['status'] === 'True');
      },
      { timeoutMs: 120_000 },
    );
    const ext = (await get(CE)).body as Json;
    expect(ext['status']['install']['bundle']).toMatchObject({ name: next.name, version: '1.1.0' });
    await waitFor('revision 1 archived', async () => JSON.stringify((await get(CE)).body['status']['activeRevisions']) === JSON.stringify([{ name: `${PKG}-2` }]), { timeoutMs: 120_000 });
    const dep = (await get(deployment())).body as Json;
    expect(dep['metadata']['uid']).toBe(depBefore);
    expect(dep['spec']['template']['spec']['containers'][0]['image']).toBe(`registry.test/${PKG}:v1.1.0`);
    expect((dep['metadata']['ownerReferences'] as Json[]).map((o) => [o['kind'], o['name'], o['controller']])).toEqual([['ClusterObjectSet', `${PKG}-2`, true]]);
    expect(((await get(cr())).body['metadata'] as Json)['name']).toBe('kept');
  }, 300_000);
});
