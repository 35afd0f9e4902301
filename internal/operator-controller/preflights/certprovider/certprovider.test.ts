// The certificate-provider preflight over a fake discovery: which provider and kinds it names, and when it asks.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import { certManagerProvider, openshiftServiceCAProvider, renderRegistryV1 } from '../../render/index.ts';
import { CertificateProviderError, CertificateProviderPreflight } from './index.ts';

const signal = new AbortController().signal;
const ext = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', metadata: { name: 'e' } } as ClusterExtension;

function served(kinds: readonly string[]): { asked: string[]; served: (apiVersion: string, kind: string) => Promise<boolean> } {
  const asked: string[] = [];
  return { asked, served: async (apiVersion, kind) => (asked.push(`${apiVersion} ${kind}`), kinds.includes(`${apiVersion} ${kind}`)) };
}

/** A bundle with one validating webhook, rendered with `provider`. */
function webhookObjects(provider: typeof certManagerProvider): KubeObject[] {
  const deployment = { name: 'op', spec: { selector: { matchLabels: { app: 'op' } }, template: { metadata: { labels: { app: 'op' } }, spec: { containers: [{ name: 'm', image: 'i' }] } } } };
  return renderRegistryV1(
    {
      packageName: 'p',
      csv: {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        metadata: { name: 'p.v1.0.0' },
        spec: {
          installModes: [{ type: 'AllNamespaces', supported: true }],
          install: { strategy: 'deployment', spec: { deployments: [deployment] } },
          webhookdefinitions: [
            { type: 'ValidatingAdmissionWebhook', generateName: 'v.example.com', deploymentName: 'op', containerPort: 443, admissionReviewVersions: ['v1'], sideEffects: 'None' },
          ],
        },
      },
      crds: [],
      others: [],
    } as unknown as Parameters<typeof renderRegistryV1>[0],
    { installNamespace: 'ns', certProvider: provider },
  );
}

describe('CertificateProviderPreflight', () => {
  it('a webhook bundle with cert-manager not served: names the provider and each missing kind', async () => {
    const objects = webhookObjects(certManagerProvider);
    expect(objects.map((o) => o.kind)).toEqual(expect.arrayContaining(['Issuer', 'Certificate']));
    const none = served([]);
    const err = await new CertificateProviderPreflight(certManagerProvider, none.served).check(ext, objects, signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CertificateProviderError);
    expect((err as Error).message).toBe(
      'bundle has webhooks and certificate provider "cert-manager" needs kinds Certificate (cert-manager.io/v1), Issuer (cert-manager.io/v1), which the cluster does not serve: ' +
        'install it, or start operator-controller with another provider: --feature-gates=WebhookProviderCertManager=false (OpenShift service-ca: WebhookProviderOpenshiftServiceCA=true, the default)',
    );
    const onlyCertificate = served(['cert-manager.io/v1 Certificate']);
    await expect(new CertificateProviderPreflight(certManagerProvider, onlyCertificate.served).check(ext, objects, signal)).rejects.toThrow(
      'needs kind Issuer (cert-manager.io/v1), which the cluster does not serve',
    );
  });

  it('passes when the kinds are served', async () => {
    const all = served(['cert-manager.io/v1 Certificate', 'cert-manager.io/v1 Issuer']);
    await expect(new CertificateProviderPreflight(certManagerProvider, all.served).check(ext, webhookObjects(certManagerProvider), signal)).resolves.toBeUndefined();
  });

  it('asks nothing for a bundle without webhooks, or for OpenShift service-ca (annotations only)', async () => {
    const none = served([]);
    await new CertificateProviderPreflight(certManagerProvider, none.served).check(ext, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }], signal);
    await new CertificateProviderPreflight(openshiftServiceCAProvider, none.served).check(ext, webhookObjects(openshiftServiceCAProvider), signal);
    expect(none.asked).toEqual([]);
  });
});
