// Preflights (in order, first failure stops) and clusterPreflights: the preflights over the API server.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { InstallPreflight } from '../controller/index.ts';
import { CertificateProviderPreflight, kubeKindServed, type ProviderKinds } from './certprovider/index.ts';
import { CrdUpgradeSafetyPreflight, kubeCrdGetter } from './crdupgradesafety/index.ts';
import { kubePermissionSource, PermissionPreflight } from './permissions/index.ts';

/** Runs each preflight in order; the first that fails stops the install with its message. */
export class Preflights implements InstallPreflight {
  readonly #steps: readonly InstallPreflight[];

  constructor(steps: readonly InstallPreflight[]) {
    this.#steps = steps;
  }

  async check(ext: ClusterExtension, objects: readonly KubeObject[], signal: AbortSignal): Promise<void> {
    for (const step of this.#steps) await step.check(ext, objects, signal);
  }
}

export interface ClusterPreflightOptions {
  /** The certificate provider webhook bundles render with; its kinds are checked first. None: no check. */
  readonly certProvider?: ProviderKinds;
  /**
   * The ServiceAccountInstalls gate (ours): check that `spec.serviceAccount` may do what the bundle needs. Default
   * false: as upstream v1.11, which deleted this pre-authorization, there is no permission check.
   */
  readonly serviceAccountPermissions?: boolean;
}

/**
 * The preflights over the API server: the certificate provider's kinds (ours, first, so a missing provider is named
 * rather than reported as a REST-mapping error), then upstream's order (pre-authorization, when the gate asks for it,
 * before CRD safety).
 */
export function clusterPreflights(client: KubeClient, options: ClusterPreflightOptions = {}): Preflights {
  return new Preflights([
    ...(options.certProvider ? [new CertificateProviderPreflight(options.certProvider, kubeKindServed(client))] : []),
    ...(options.serviceAccountPermissions ? [new PermissionPreflight(kubePermissionSource(client))] : []),
    new CrdUpgradeSafetyPreflight(kubeCrdGetter(client)),
  ]);
}
