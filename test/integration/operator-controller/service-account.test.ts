// operator-controller end to end with installs as a service account (issue 15 item 8) — our ServiceAccountInstalls
// gate, on here (upstream v1.11 ignores spec.serviceAccount: deprecated-service-account.test.ts) — under a backoff far
// longer than any poll here (60 s base), so only the ServiceAccount and RBAC watches can bring an extension back in
// time: a missing account (or namespace) is one line in status, creating the account re-enqueues the extension at
// once, and a grant installs it at once.
import { beforeAll, describe, expect, it } from 'vitest';
import { ItemExponentialFailureRateLimiter } from '../../../internal/shared/controller/index.ts';
import { adminKube, registry } from '../../support/env.ts';
import { pushTestBundle } from '../../support/bundles.ts';
import { deleteExtension, extCondition, installedBundle, operatorControllerSuite, progressingWith, waitForExtension, waitGone } from './harness.ts';

const LONG_BACKOFF_MS = 60_000;
const suite = operatorControllerSuite('oc-sa', {
  controller: {
    serviceAccountInstalls: true,
    rateLimiter: () => new ItemExponentialFailureRateLimiter(LONG_BACKOFF_MS, 10 * LONG_BACKOFF_MS),
    resyncMs: 10 * LONG_BACKOFF_MS,
  },
});
let namespace = '';
beforeAll(() => {
  namespace = suite.namespace();
});
/** Shorter than the backoff: reaching the state in time needs the watch. */
const POLL_MS = 30_000;
const MISSING_SA = 'installation cannot proceed due to missing ServiceAccount';

describe('installs as a service account (ServiceAccountInstalls gate)', () => {
  it('a missing account is one line; creating it and then granting RBAC each re-enqueue the extension at once', async () => {
    const b = await pushTestBundle(registry(), { packageName: 'sa-grant', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('sa-grant', [{ bundle: b }]);
    await suite.install('sa-grant', { namespace, packageName: 'sa-grant', catalogName: catalog, serviceAccount: 'sa-grant-installer' });

    const missing = await waitForExtension('sa-grant', 'waiting for its service account', progressingWith('Retrying', MISSING_SA), POLL_MS);
    expect(extCondition(missing, 'Progressing')!.message).toBe(MISSING_SA);
    expect(extCondition(missing, 'Installed')).toMatchObject({
      status: 'Unknown',
      reason: 'Failed',
      message: `service account "sa-grant-installer" not found in namespace "${namespace}": unable to authenticate with the Kubernetes cluster.`,
    });

    // The account appears: the extension is reconciled at once and now waits on its permissions.
    const kube = adminKube();
    await kube.serviceAccountToken(namespace, 'sa-grant-installer');
    const refused = await waitForExtension('sa-grant', 'refused by the permission preflight', progressingWith('Retrying', 'pre-authorization failed:'), POLL_MS);
    expect(extCondition(refused, 'Progressing')!.message).toContain(`Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] ResourceNames:[${b.crdName}]`);

    // A grant: the ClusterRoleBinding's event re-enqueues it, long before its backoff would.
    await kube.must(
      kube.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `sa-grant-installer-${namespace}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'sa-grant-installer', namespace }],
      }),
    );
    await waitForExtension('sa-grant', 'installed after the grant', installedBundle(b.name), POLL_MS);
    // Uninstalling runs as the account too: the grant goes only after the extension has.
    await deleteExtension('sa-grant');
    await waitGone('sa-grant');
    await kube.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/sa-grant-installer-${namespace}`);
  });

  it('an install namespace that does not exist is the same one line, not a list of permissions', async () => {
    const b = await pushTestBundle(registry(), { packageName: 'sa-nons', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('sa-nons', [{ bundle: b }]);
    const gone = `${namespace}-absent`;
    await suite.install('sa-nons', { namespace: gone, packageName: 'sa-nons', catalogName: catalog, serviceAccount: 'installer' });
    const missing = await waitForExtension('sa-nons', 'waiting for its service account', progressingWith('Retrying', MISSING_SA), POLL_MS);
    const installed = extCondition(missing, 'Installed')!;
    expect(installed.message).toBe(`service account "installer" not found in namespace "${gone}": unable to authenticate with the Kubernetes cluster.`);
    expect(installed.message).not.toContain('\n');
  });
});
