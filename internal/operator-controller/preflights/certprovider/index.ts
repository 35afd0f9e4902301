// The certificate-provider preflight. See README.md.
export { kubeKindServed } from './kube.ts';
export type { KindServed, ProviderKind, ProviderKinds } from './preflight.ts';
export { CertificateProviderError, CertificateProviderPreflight, certificateProviderMessage } from './preflight.ts';
