// The certificate-provider preflight: a bundle with webhooks gets its serving certificates from the provider
// operator-controller was started with (cert-manager by default); when the rendered objects use kinds of that
// provider the cluster does not serve, say which provider and which kinds, instead of a REST-mapping error.
import type { KubeObject } from '../../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import type { InstallPreflight } from '../../controller/index.ts';

/** A kind a provider's objects use. */
export interface ProviderKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** What the preflight needs to know of the chosen certificate provider. */
export interface ProviderKinds {
  readonly name: string;
  /** The kinds of the objects the provider adds for a bundle with webhooks (none: nothing to check). */
  readonly requiredKinds: readonly ProviderKind[];
}

/** Whether the API server serves a kind (discovery; a network failure throws). */
export type KindServed = (apiVersion: string, kind: string, signal: AbortSignal) => Promise<boolean>;

export class CertificateProviderError extends Error {
  override readonly name = 'CertificateProviderError';
}

/** How to get out: install the provider, or choose another one (docs/configuration.md, "Webhook certificate providers"). */
const WAY_OUT =
  'install it, or start operator-controller with another provider: --feature-gates=WebhookProviderCertManager=false ' +
  '(OpenShift service-ca: WebhookProviderOpenshiftServiceCA=true, the default)';

export function certificateProviderMessage(provider: string, missing: readonly ProviderKind[]): string {
  const kinds = missing.map((k) => `${k.kind} (${k.apiVersion})`).join(', ');
  return `bundle has webhooks and certificate provider "${provider}" needs ${missing.length === 1 ? 'kind' : 'kinds'} ${kinds}, which the cluster does not serve: ${WAY_OUT}`;
}

export class CertificateProviderPreflight implements InstallPreflight {
  readonly #provider: ProviderKinds;
  readonly #served: KindServed;

  constructor(provider: ProviderKinds, served: KindServed) {
    this.#provider = provider;
    this.#served = served;
  }

  async check(_ext: ClusterExtension, objects: readonly KubeObject[], signal: AbortSignal): Promise<void> {
    const required = this.#provider.requiredKinds;
    const uses = objects.some((o) => required.some((k) => k.apiVersion === o.apiVersion && k.kind === o.kind));
    if (!uses) return; // no webhooks, or a provider that adds no objects (OpenShift service-ca's annotations)
    const missing: ProviderKind[] = [];
    for (const k of required) if (!(await this.#served(k.apiVersion, k.kind, signal))) missing.push(k);
    if (missing.length > 0) throw new CertificateProviderError(certificateProviderMessage(this.#provider.name, missing));
  }
}
