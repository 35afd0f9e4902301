// spec.serviceAccount as upstream v1.11 has it (#2770), end to end with the real kubectl and API server and
// operator-controller without our ServiceAccountInstalls gate: `kubectl apply` of a ClusterExtension that sets it
// prints upstream's exact warning (config/admission's ValidatingAdmissionPolicy, installed by the global setup), the
// extension installs although the account does not exist, and operator-controller logs the deprecation at info; once
// the field is cleared, apply prints no warning and the new generation is reconciled (upstream's e2e scenarios
// "Applying ClusterExtension with deprecated serviceAccount emits warning" and "Clearing deprecated serviceAccount
// field is reconciled without warnings").
import { execFile } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { SERVICE_ACCOUNT_DEPRECATED } from '../../../internal/operator-controller/controller/index.ts';
import { binaries } from '../../support/binaries.ts';
import { pushTestBundle } from '../../support/bundles.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { waitFor } from '../../support/net.ts';
import { deleteExtension, extCondition, installedBundle, operatorControllerSuite, waitForExtension, waitGone } from './harness.ts';

const suite = operatorControllerSuite('oc-sa-deprecated');
const NAME = 'sa-deprecated';

/** What kubectl prints on stderr for the policy's warning (upstream's e2e expects exactly this line). */
const WARNING =
  "Warning: Validation failed for ValidatingAdmissionPolicy 'clusterextension-serviceaccount-deprecated' with binding 'clusterextension-serviceaccount-deprecated': spec.serviceAccount is deprecated, ignored, and will be removed in a future release. The operator-controller's cluster-admin service account is used for all cluster interactions.";

afterAll(async () => {
  await deleteExtension(NAME);
  await waitGone(NAME).catch(() => undefined);
});

/** `kubectl apply -f -` (client-side apply, as upstream's e2e) of `manifest`; its stdout and stderr. */
async function kubectlApply(manifest: unknown): Promise<{ stdout: string; stderr: string }> {
  const { apiserver } = await binaries();
  return new Promise((resolve, reject) => {
    const child = execFile(apiserver, ['kubectl', `--kubeconfig=${controlPlane().kubeconfigPath}`, 'apply', '-f', '-'], (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl apply: ${err.message}\n${stdout}${stderr}`));
      else resolve({ stdout, stderr });
    });
    child.stdin?.end(JSON.stringify(manifest));
  });
}

function manifest(catalog: string, serviceAccount?: string, labels?: Record<string, string>): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: NAME, ...(labels && { labels }) },
    spec: {
      namespace: suite.namespace(),
      ...(serviceAccount && { serviceAccount: { name: serviceAccount } }),
      source: { sourceType: 'Catalog', catalog: { packageName: 'sa-deprecated', selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } } } },
    },
  };
}

const reconciledLatest = (bundle: string) => (e: ClusterExtension): boolean =>
  installedBundle(bundle)(e) && extCondition(e, 'Progressing')?.observedGeneration === e.metadata.generation && extCondition(e, 'Installed')?.observedGeneration === e.metadata.generation;

describe('deprecated spec.serviceAccount (upstream v1.11: ignored)', () => {
  it('apply warns with upstream’s exact text on create and update, installs with an account that does not exist, and reconciles once it is cleared', async () => {
    const b = await pushTestBundle(registry(), { packageName: 'sa-deprecated', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('sa-deprecated', [{ bundle: b }]);
    const kube = adminKube();
    expect((await kube.request('GET', `/api/v1/namespaces/${suite.namespace()}/serviceaccounts/some-sa`)).status).toBe(404);

    // Create: the warning, exactly one line of it; the extension installs as operator-controller.
    const created = await kubectlApply(manifest(catalog, 'some-sa'));
    expect(created.stdout).toBe(`clusterextension.olm.operatorframework.io/${NAME} created\n`);
    expect(created.stderr).toBe(`${WARNING}\n`);
    const installed = await waitForExtension(NAME, 'installed', reconciledLatest(b.name));
    expect(installed.spec?.serviceAccount).toEqual({ name: 'some-sa' });
    expect(JSON.stringify(installed.status)).not.toMatch(/service ?account/i);
    expect((await kube.request('GET', `/apis/apps/v1/namespaces/${suite.namespace()}/deployments/${b.deploymentName}`)).status).toBe(200);
    const deprecation = suite.controller().logs.filter((l) => l.msg === SERVICE_ACCOUNT_DEPRECATED && l['clusterExtension'] === NAME);
    expect(deprecation.length).toBeGreaterThan(0);
    expect(new Set(deprecation.map((l) => l.level))).toEqual(new Set(['info']));

    // Update keeping the field: warned again.
    const updated = await kubectlApply(manifest(catalog, 'some-sa', { touched: 'yes' }));
    expect(updated.stdout).toBe(`clusterextension.olm.operatorframework.io/${NAME} configured\n`);
    expect(updated.stderr).toBe(`${WARNING}\n`);

    // Cleared: no warning, and the new generation is reconciled (installed, nothing to change).
    const cleared = await kubectlApply(manifest(catalog, undefined, { touched: 'yes' }));
    expect(cleared.stdout).toBe(`clusterextension.olm.operatorframework.io/${NAME} configured\n`);
    expect(cleared.stderr).toBe('');
    const after = await waitForExtension(NAME, 'reconciled at its new generation', reconciledLatest(b.name));
    expect(after.spec?.serviceAccount).toBeUndefined();
    expect(after.metadata.generation).toBeGreaterThan(installed.metadata.generation!);
    expect(extCondition(after, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    // Passes of one extension never overlap, so every pass logged from here on reads the cleared spec: the next one
    // (a label change brings it at once) logs no deprecation.
    const logs = suite.controller().logs;
    const from = logs.length;
    expect((await kubectlApply(manifest(catalog, undefined, { touched: 'again' }))).stderr).toBe('');
    await waitFor('another pass of the extension', async () => logs.slice(from).some((l) => l.msg === 'reconciled' && l['clusterExtension'] === NAME));
    expect(logs.slice(from).filter((l) => l.msg === SERVICE_ACCOUNT_DEPRECATED && l['clusterExtension'] === NAME)).toEqual([]);
  });
});
