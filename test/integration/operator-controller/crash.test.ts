// Crash safety: the real operator-controller binary is killed with SIGKILL at a random moment
// while it installs, upgrades or downgrades an extension, then started again; 20 runs in a row.
// Every run must end with exactly the target bundle's objects (nothing of the other version left,
// nothing missing) and every revision head with all its chunks (no orphaned chunk Secrets).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../../internal/shared/toolkit/index.ts';
import { poll } from '../../support/net.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { startBinary, type ControllerProcess } from '../../support/process.ts';
import { createCatalog, deleteCatalogs, releaseFinalizers, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { startCatalogd, stopAll } from '../catalogd/harness.ts';
import { applyExtension, deleteExtension, installedBundle, revisionProblems, SYSTEM_NAMESPACE, waitForExtension, waitGone } from './harness.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUNS = 20;
const OWNER = 'olm.operatorframework.io/owner-name=crash';
let catalog: string;
let namespace: string;
let bundles: Record<string, TestBundle>;

let current: ControllerProcess | undefined;
const startController = (): ControllerProcess =>
  (current = startBinary('operator-controller', ['--health-probe-bind-address=0', `--system-namespace=${SYSTEM_NAMESPACE}`, `--cache-path=${ROOT}.cache/crash-test`], {
    KUBECONFIG: controlPlane().kubeconfigPath,
    OLM_INSECURE_REGISTRIES: registry().host,
  }));

beforeAll(async () => {
  await startCatalogd();
  namespace = await adminKube().namespace('oc-crash');
  await adminKube().request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NAMESPACE } });
  const cm = (name: string) => ({ [`${name}.yaml`]: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { version: name } } });
  bundles = {
    '1.0.0': await pushTestBundle(registry(), { packageName: 'crash', version: '1.0.0', extraManifests: cm('crash-a') }),
    '1.1.0': await pushTestBundle(registry(), { packageName: 'crash', version: '1.1.0', extraManifests: cm('crash-b') }),
  };
  const pushed = await pushCatalogImage(registry(), 'catalogs/crash:latest', {
    files: catalogFiles('crash', [{ bundle: bundles['1.0.0']! }, { bundle: bundles['1.1.0']!, replaces: bundles['1.0.0']!.name }]),
  });
  catalog = uniqueName('crash');
  await createCatalog(catalog, { ref: pushed.ref });
  await waitForCatalog(catalog, 'Serving', serving);
});

afterAll(async () => {
  await current?.stop('SIGKILL');
  const c = startController();
  await deleteExtension('crash');
  await waitGone('crash').catch(() => undefined);
  await c.stop();
  await deleteCatalogs([catalog]);
  await stopAll();
  await releaseFinalizers();
});

const names = async (path: string): Promise<string[]> => {
  const r = await adminKube().request<{ items?: { metadata: { name: string } }[] }>('GET', `${path}?labelSelector=${encodeURIComponent(OWNER)}`);
  return (r.body.items ?? []).map((i) => i.metadata.name).sort();
};

/** Every object labelled as the extension's, by kind. */
async function owned(): Promise<Record<string, string[]>> {
  return {
    configmaps: await names(`/api/v1/namespaces/${namespace}/configmaps`),
    deployments: await names(`/apis/apps/v1/namespaces/${namespace}/deployments`),
    serviceaccounts: await names(`/api/v1/namespaces/${namespace}/serviceaccounts`),
    crds: await names('/apis/apiextensions.k8s.io/v1/customresourcedefinitions'),
  };
}

describe('SIGKILL at a random point', () => {
  it(`converges to exactly the target bundle's objects, ${RUNS} runs in a row`, async () => {
    const targets: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const version = run % 2 === 0 ? '1.0.0' : '1.1.0';
      targets.push(version);
      await applyExtension('crash', { namespace, packageName: 'crash', version, catalogName: catalog, upgradeConstraintPolicy: 'SelfCertified' });
      const first = startController();
      await first.started;
      await sleep(Math.floor(Math.random() * 1500)); // a kill at a random moment
      await first.stop('SIGKILL');

      const second = startController();
      const b = bundles[version]!;
      await waitForExtension('crash', `installed ${version} after the kill (run ${run})`, installedBundle(b.name), 90_000);
      // The status is written after the old revision is pruned; give a late prune one resync.
      const want = {
        configmaps: [version === '1.0.0' ? 'crash-a' : 'crash-b'],
        deployments: [b.deploymentName],
        serviceaccounts: [b.serviceAccountName],
        crds: [b.crdName],
      };
      let got = await owned();
      await poll(async () => JSON.stringify((got = await owned())) === JSON.stringify(want), { timeoutMs: 5000, intervalMs: 250 });
      expect(got, `run ${run} (${version})`).toEqual(want);
      expect(await revisionProblems('crash'), `run ${run}`).toEqual([]);
      await second.stop();
    }
    expect(targets).toHaveLength(RUNS);
  }, 600_000); // 20 × (two process starts + convergence): about 160 s on an idle 2-core machine
});
