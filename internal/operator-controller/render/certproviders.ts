// Certificate providers for bundles with webhooks (render/certprovider.go, certproviders/*.go):
// names per deployment as OLMv0 chose them, CA injection annotations, the secret the Deployment
// mounts, and any extra objects (cert-manager's Issuer and Certificate).
import type { KubeObject } from '../../../api/meta/v1.ts';
import { objectNameForBaseAndSuffix } from './names.ts';

export interface CertConfig {
  readonly serviceName: string;
  readonly certName: string;
  readonly namespace: string;
}

export interface CertSecretInfo {
  readonly secretName: string;
  readonly certificateKey: string;
  readonly privateKeyKey: string;
}

export interface CertificateProvider {
  readonly name: string;
  /** The kinds of `additionalObjects`: the cluster must serve them (cert-manager's CRDs) for the install to work. */
  readonly requiredKinds: readonly { readonly apiVersion: string; readonly kind: string }[];
  /** Adds what the provider needs to a webhook configuration, CRD or Service (in place). */
  injectCABundle(obj: KubeObject, cfg: CertConfig): void;
  additionalObjects(cfg: CertConfig): KubeObject[];
  certSecretInfo(cfg: CertConfig): CertSecretInfo;
}

/** OLMv0's names: `<deployment with . → ->-service` and `<service>-cert`. */
export function certConfigFor(deploymentName: string, installNamespace: string): CertConfig {
  const serviceName = objectNameForBaseAndSuffix(deploymentName.replaceAll('.', '-'), 'service');
  return { serviceName, certName: objectNameForBaseAndSuffix(serviceName, 'cert'), namespace: installNamespace };
}

const WEBHOOK_OR_CRD = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'CustomResourceDefinition']);

function annotate(obj: KubeObject, key: string, value: string): void {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [key]: value };
}

const tlsSecret = (cfg: CertConfig): CertSecretInfo => ({ secretName: cfg.certName, certificateKey: 'tls.crt', privateKeyKey: 'tls.key' });

export const CERT_MANAGER_INJECT_CA = 'cert-manager.io/inject-ca-from';

export const certManagerProvider: CertificateProvider = {
  name: 'cert-manager',
  requiredKinds: [
    { apiVersion: 'cert-manager.io/v1', kind: 'Certificate' },
    { apiVersion: 'cert-manager.io/v1', kind: 'Issuer' },
  ],
  injectCABundle(obj, cfg) {
    if (WEBHOOK_OR_CRD.has(obj.kind ?? '')) annotate(obj, CERT_MANAGER_INJECT_CA, `${cfg.namespace}/${cfg.certName}`);
  },
  additionalObjects(cfg) {
    const issuerName = objectNameForBaseAndSuffix(cfg.certName, 'selfsigned-issuer');
    const host = `${cfg.serviceName}.${cfg.namespace}`;
    return [
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: issuerName, namespace: cfg.namespace },
        spec: { selfSigned: {} },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: cfg.certName, namespace: cfg.namespace },
        spec: {
          secretName: cfg.certName,
          commonName: host,
          dnsNames: [host, `${host}.svc`, `${host}.svc.cluster.local`],
          usages: ['server auth'],
          issuerRef: { name: issuerName },
          duration: '17520h0m0s',
          renewBefore: '24h0m0s',
        },
      },
    ];
  },
  certSecretInfo: tlsSecret,
};

export const OPENSHIFT_INJECT_CABUNDLE = 'service.beta.openshift.io/inject-cabundle';
export const OPENSHIFT_SERVING_CERT_SECRET = 'service.beta.openshift.io/serving-cert-secret-name';

export const openshiftServiceCAProvider: CertificateProvider = {
  name: 'openshift-serviceca',
  requiredKinds: [], // annotations only: OpenShift's service-ca operator acts on them
  injectCABundle(obj, cfg) {
    if (WEBHOOK_OR_CRD.has(obj.kind ?? '')) annotate(obj, OPENSHIFT_INJECT_CABUNDLE, 'true');
    else if (obj.kind === 'Service') annotate(obj, OPENSHIFT_SERVING_CERT_SECRET, cfg.certName);
  },
  additionalObjects: () => [],
  certSecretInfo: tlsSecret,
};

export const CERT_PROVIDERS: Readonly<Record<string, CertificateProvider>> = {
  'cert-manager': certManagerProvider,
  'openshift-serviceca': openshiftServiceCAProvider,
};
