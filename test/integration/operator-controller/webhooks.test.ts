// operator-controller end to end with a webhook bundle (issue 15 item 9): when the cluster does not serve the
// certificate provider's kinds (cert-manager's Certificate and Issuer, the default provider), Progressing names the
// provider and the kinds; once cert-manager's CRDs are there the same extension installs.
import { describe, expect, it } from 'vitest';
import { adminKube, registry } from '../../support/env.ts';
import { pushTestBundle, widgetValidatingWebhook } from '../../support/bundles.ts';
import { extCondition, installCertManagerCrds, installedBundle, operatorControllerSuite, progressingWith, removeCertManagerCrds, waitForExtension } from './harness.ts';

const suite = operatorControllerSuite('oc-webhooks', { certManager: true, before: removeCertManagerCrds, after: installCertManagerCrds });

describe('a bundle with webhooks', () => {
  it('names the certificate provider and the kinds the cluster does not serve, and installs once they are served', async () => {
    const pkg = 'hooked-ext';
    const b = await pushTestBundle(registry(), {
      packageName: pkg,
      version: '1.0.0',
      csvSpec: { webhookdefinitions: [widgetValidatingWebhook(pkg)] },
    });
    const { catalog } = await suite.serveCatalog(pkg, [{ bundle: b }]);
    await suite.install(pkg, { namespace: suite.namespace(), packageName: pkg, catalogName: catalog });

    const blocked = await waitForExtension(pkg, 'refused for want of cert-manager', progressingWith('Retrying', 'certificate provider "cert-manager"'));
    expect(extCondition(blocked, 'Progressing')!.message).toBe(
      `error for resolved bundle "${b.name}" with version "1.0.0": bundle has webhooks and certificate provider "cert-manager" needs kinds ` +
        'Certificate (cert-manager.io/v1), Issuer (cert-manager.io/v1), which the cluster does not serve: install it, or start operator-controller with another provider: ' +
        '--feature-gates=WebhookProviderCertManager=false (OpenShift service-ca: WebhookProviderOpenshiftServiceCA=true, the default)',
    );
    expect((await adminKube().request('GET', `/apis/apps/v1/namespaces/${suite.namespace()}/deployments/${b.deploymentName}`)).status).toBe(404);

    await installCertManagerCrds();
    await waitForExtension(pkg, 'installed once cert-manager is served', installedBundle(b.name), 90_000);
  });
});
