// operator-controller against the real API server: an uninstall lets the ClusterExtension go only
// once every object it installed is really gone — a CRD held in Terminating by a custom resource
// with a finalizer of its own, then a bundle object with a foreign finalizer — and says in
// Progressing what it waits for; a CRD left with the establish-request annotation (the state an
// API-server crash leaves) loses it once it is Established.
import { describe, expect, it } from 'vitest';
const ESTABLISH_REQUESTED = 'olm.operatorframework.io/establish-requested';
import { adminKube, registry } from '../../support/env.ts';
import { pushTestBundle } from '../../support/bundles.ts';
import { waitFor } from '../../support/net.ts';
import {
  deleteExtension,
  extCondition,
  getExtension,
  installedBundle,
  operatorControllerSuite,
  progressingWith,
  SYSTEM_NAMESPACE,
  waitForExtension,
  waitGone,
} from './harness.ts';

const suite = operatorControllerSuite('oc-teardown');
const ns = (): string => suite.namespace();
const HOLD = 'test.olm.operatorframework.io/hold';
const status = async (path: string): Promise<number> => (await adminKube().request('GET', path)).status;

async function installed(pkg: string): Promise<Awaited<ReturnType<typeof pushTestBundle>>> {
  const bundle = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0' });
  const { catalog } = await suite.serveCatalog(pkg, [{ bundle }]);
  await suite.install(pkg, { namespace: ns(), packageName: pkg, catalogName: catalog });
  await waitForExtension(pkg, 'installed', installedBundle(bundle.name));
  return bundle;
}

describe('uninstall', () => {
  it('keeps the ClusterExtension until every object is gone, saying what it waits for', async () => {
    const pkg = 'held';
    const b = await installed(pkg);
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${b.crdName}`;
    const widgetPath = `/apis/${b.group}/v1/namespaces/${ns()}/widgets/w1`;
    const saPath = `/api/v1/namespaces/${ns()}/serviceaccounts/${b.serviceAccountName}`;
    // A custom resource with a finalizer of its own holds the CRD in Terminating; a foreign
    // finalizer holds the operator's ServiceAccount (a later phase of the teardown).
    await adminKube().must(
      adminKube().request('POST', `/apis/${b.group}/v1/namespaces/${ns()}/widgets`, {
        apiVersion: `${b.group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1', finalizers: [HOLD] },
        spec: { size: '1' },
      }),
    );
    await adminKube().must(adminKube().request('PATCH', saPath, { metadata: { finalizers: [HOLD] } }, 'application/merge-patch+json'));

    await deleteExtension(pkg);
    const waiting = await waitForExtension(
      pkg,
      'waiting for the CRD',
      progressingWith(
        'Retrying',
        new RegExp(
          `^uninstalling: waiting for 1 object to be deleted:\\nObject CustomResourceDefinition\\.apiextensions\\.k8s\\.io/v1 ${b.crdName.replace(/\./g, '\\.')}: ` +
            'being deleted since \\S+, finalizers \\[customresourcecleanup\\.apiextensions\\.k8s\\.io\\]; .*' +
            `1 Widget left: ${ns()}/w1 \\(being deleted since \\S+, finalizers \\[${HOLD.replace(/\./g, '\\.')}\\]\\)$`,
        ),
      ),
    );
    expect(extCondition(waiting, 'Progressing')?.status).toBe('True');
    // It stays while the CRD does; the objects of later phases and the records are not touched yet: two more
    // uninstall passes have ended since (so at least one began after the state above), each still waiting.
    const passes = (): number =>
      suite.controller().logs.filter((l) => l.msg === 'uninstall waits for objects to be deleted' && l['clusterExtension'] === pkg).length;
    const seen = passes();
    await waitFor('two more uninstall passes', async () => passes() >= seen + 2, { timeoutMs: 60_000, intervalMs: 50 });
    expect(await getExtension(pkg)).toBeDefined();
    expect(await status(crdPath)).toBe(200);
    expect(await status(saPath)).toBe(200);
    const records = await adminKube().must<{ items: unknown[] }>(
      adminKube().request('GET', `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${pkg}`)}`),
    );
    expect(records.items.length).toBeGreaterThan(0);

    // The custom resource goes: the API server removes the CRD; next the ServiceAccount is waited for.
    await adminKube().must(adminKube().request('PATCH', widgetPath, { metadata: { finalizers: null } }, 'application/merge-patch+json'));
    await waitForExtension(
      pkg,
      'waiting for the ServiceAccount',
      progressingWith(
        'Retrying',
        new RegExp(`^uninstalling: waiting for 1 object to be deleted:\\nObject ServiceAccount\\.v1 ${ns()}/${b.serviceAccountName}: being deleted since \\S+, finalizers \\[${HOLD.replace(/\./g, '\\.')}\\]$`),
      ),
      90_000,
    );
    expect(await status(crdPath)).toBe(404);
    expect(await getExtension(pkg)).toBeDefined();

    await adminKube().must(adminKube().request('PATCH', saPath, { metadata: { finalizers: null } }, 'application/merge-patch+json'));
    await waitGone(pkg);
    // Gone means its objects are gone: no polling needed after the extension disappeared.
    for (const path of [crdPath, saPath, `/apis/apps/v1/namespaces/${ns()}/deployments/${b.deploymentName}`]) expect(await status(path), path).toBe(404);
    const left = await adminKube().must<{ items: unknown[] }>(
      adminKube().request('GET', `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${pkg}`)}`),
    );
    expect(left.items).toEqual([]);
  });
});

describe('establish request', () => {
  it('is removed from a CRD once it is Established', async () => {
    const pkg = 'woken';
    const b = await installed(pkg);
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${b.crdName}`;
    // The state an API-server crash leaves behind once the request worked: Established, annotated.
    await adminKube().must(
      adminKube().request('PATCH', `${crdPath}?fieldManager=olm-e2e`, { metadata: { annotations: { [ESTABLISH_REQUESTED]: new Date().toISOString() } } }, 'application/merge-patch+json'),
    );
    const annotated = await adminKube().must<{ metadata: { annotations?: Record<string, string> }; status: { conditions: { type: string; status: string }[] } }>(
      adminKube().request('GET', crdPath),
    );
    expect(annotated.metadata.annotations?.[ESTABLISH_REQUESTED]).toBeDefined();
    expect(annotated.status.conditions.find((c) => c.type === 'Established')?.status).toBe('True');

    await waitFor(
      'the establish request to be removed',
      async () => {
        const crd = await adminKube().must<{ metadata: { annotations?: Record<string, string> } }>(adminKube().request('GET', crdPath));
        return crd.metadata.annotations?.[ESTABLISH_REQUESTED] === undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    await waitForExtension(pkg, 'still installed', installedBundle(b.name));
  });
});
