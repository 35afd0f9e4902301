// operator-controller end to end with our ServiceAccountInstalls gate on (upstream v1.11 ignores spec.serviceAccount
// and has no permission preflight): a service account without permissions gets every missing rule reported and
// nothing applied; granting them installs. (Moved from scenarios.test.ts when the gate came.)
import { beforeAll, describe, expect, it } from 'vitest';
import { adminKube, registry } from '../../support/env.ts';
import { pushTestBundle } from '../../support/bundles.ts';
import { waitFor } from '../../support/net.ts';
import { extCondition, installedBundle, operatorControllerSuite, progressingWith, waitForExtension } from './harness.ts';

const suite = operatorControllerSuite('oc-least-privilege', { controller: { serviceAccountInstalls: true } });
let namespace = '';
beforeAll(() => {
  namespace = suite.namespace();
});

const exists = async (path: string): Promise<boolean> => (await adminKube().request('GET', path)).status === 200;
const crdPath = (name: string): string => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;

describe('least privilege (ServiceAccountInstalls gate)', () => {
  it('lists every missing permission of the service account, applies nothing, and installs once they are granted', async () => {
    const b = await pushTestBundle(registry(), { packageName: 'perm', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('perm', [{ bundle: b }]);
    const kube = adminKube();
    await kube.serviceAccountToken(namespace, 'perm-installer'); // creates the account
    await suite.install('perm', { namespace, packageName: 'perm', catalogName: catalog, serviceAccount: 'perm-installer' });
    const blocked = await waitForExtension('perm', 'refused by the permission preflight', progressingWith('Retrying', 'pre-authorization failed: service account requires the following permissions to manage cluster extension:'));
    const message = extCondition(blocked, 'Progressing')!.message;
    expect(message).toMatch(/^error for resolved bundle "perm\.v1\.0\.0" with version "1\.0\.0": pre-authorization failed: /);
    expect(message).toContain(`Namespace:"" APIGroups:[apiextensions.k8s.io] Resources:[customresourcedefinitions] ResourceNames:[${b.crdName}]`);
    expect(message).toContain(`Namespace:"${namespace}" APIGroups:[apps] Resources:[deployments]`);
    expect(await exists(crdPath(b.crdName))).toBe(false);
    expect(await exists(`/apis/apps/v1/namespaces/${namespace}/deployments/${b.deploymentName}`)).toBe(false);
    // Every retry fails the same way: one Warning event counting them, as client-go's recorder folds them.
    const failures = async () =>
      (
        await adminKube().request<{ items: { type: string; reason: string; count?: number; message: string }[] }>(
          'GET',
          `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.uid=${blocked.metadata.uid!}`)}`,
        )
      ).body.items.filter((e) => e.reason === 'InstallFailed');
    await waitFor('repeated failures folded into one event', async () => (await failures()).some((e) => (e.count ?? 0) >= 3), { timeoutMs: 30_000 });
    const [folded, ...others] = await failures();
    expect(others).toEqual([]);
    expect(folded!.type).toBe('Warning');
    expect(folded!.message).toBe(message.length > 1024 ? `${message.slice(0, 1021)}...` : message); // events are capped

    await kube.must(
      kube.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `perm-installer-${namespace}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'perm-installer', namespace }],
      }),
    );
    await waitForExtension('perm', 'installed after the grant', installedBundle(b.name), 90_000);
    expect(await exists(crdPath(b.crdName))).toBe(true);
  });
});
