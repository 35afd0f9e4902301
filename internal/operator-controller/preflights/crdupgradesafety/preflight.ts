// The CRD upgrade safety preflight: every CRD about to be applied that already exists on the cluster
// is checked against the existing one; all failures are reported in one error.
import type { KubeObject } from '../../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import type { InstallPreflight } from '../../controller/index.ts';
import { OLM_CRDIFY_CONFIG, resolveConfig, type CrdifyConfig } from './config.ts';
import { isCrd, type Crd } from './schema.ts';
import { upgradeMessage, validateUpgrade } from './validate.ts';

/** Reads the CRD of that name from the cluster; `undefined` when there is none. */
export type CrdGetter = (name: string, signal: AbortSignal) => Promise<Crd | undefined>;

export class CrdUpgradeSafetyError extends Error {
  override readonly name = 'CrdUpgradeSafetyError';
}

/** Whether the extension turned the check off (`spec.install.preflight.crdUpgradeSafety.enforcement: None`). */
export const crdUpgradeSafetyDisabled = (ext: ClusterExtension): boolean =>
  ext.spec?.install?.preflight?.crdUpgradeSafety?.enforcement === 'None';

export interface CrdUpgradeSafetyOptions {
  /**
   * crdify's configuration: per-check enforcement (`Error`, `Warn`, `None`) and options, unhandled-change
   * enforcement, conversion policy. Defaults to operator-controller's (`OLM_CRDIFY_CONFIG`). Checks not listed
   * run with `Error` and crdify's defaults, as crdify's configuration is additive.
   */
  readonly config?: CrdifyConfig;
}

export class CrdUpgradeSafetyPreflight implements InstallPreflight {
  readonly #getCrd: CrdGetter;
  readonly #config: CrdifyConfig;

  constructor(getCrd: CrdGetter, options: CrdUpgradeSafetyOptions = {}) {
    this.#getCrd = getCrd;
    this.#config = options.config ?? OLM_CRDIFY_CONFIG;
  }

  async check(ext: ClusterExtension, objects: readonly KubeObject[], signal: AbortSignal): Promise<void> {
    if (crdUpgradeSafetyDisabled(ext) || objects.length === 0) return;
    // As upstream, a bad configuration fails each check that has objects to look at (crdify's runner error).
    const config = resolveConfig(this.#config);
    const failures: string[] = [];
    for (const obj of objects) {
      if (!isCrd(obj)) continue;
      const name = obj.metadata.name ?? '';
      let existing: Crd | undefined;
      try {
        existing = await this.#getCrd(name, signal);
      } catch (err) {
        throw new Error(`getting existing resource for CRD ${JSON.stringify(name)}: ${(err as Error).message}`, { cause: err });
      }
      if (!existing) continue; // a new CRD has nothing to break
      const lines = validateUpgrade(existing, obj, config);
      if (lines.length > 0) failures.push(upgradeMessage(name, lines));
    }
    if (failures.length > 0) throw new CrdUpgradeSafetyError(failures.join('\n'));
  }
}
