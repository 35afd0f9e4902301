// The install preflights: the service account's permissions, then CRD upgrade safety. See README.md.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { InstallPreflight } from '../controller/index.ts';
import { CrdUpgradeSafetyPreflight, kubeCrdGetter, type CrdUpgradeSafetyOptions } from './crdupgradesafety/index.ts';
import { kubePermissionSource, PermissionPreflight } from './permissions/index.ts';

export type { CrdifyConfig, CrdUpgradeSafetyOptions, EnforcementPolicy, ValidationConfig } from './crdupgradesafety/index.ts';
export { CrdUpgradeSafetyError, CrdUpgradeSafetyPreflight, kubeCrdGetter, OLM_CRDIFY_CONFIG, removedStoredVersions } from './crdupgradesafety/index.ts';
export { kubePermissionSource, PermissionPreflight, PermissionPreflightError } from './permissions/index.ts';

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
  /** CRD upgrade safety's options (its crdify configuration); operator-controller's defaults when absent. */
  readonly crdUpgradeSafety?: CrdUpgradeSafetyOptions;
}

/** Both preflights over the API server, in upstream's order (pre-authorization before CRD safety). */
export function clusterPreflights(client: KubeClient, options: ClusterPreflightOptions = {}): Preflights {
  return new Preflights([
    new PermissionPreflight(kubePermissionSource(client)),
    new CrdUpgradeSafetyPreflight(kubeCrdGetter(client), options.crdUpgradeSafety),
  ]);
}
