// The ClusterExtension reconciler: one pass of the step list (steps.ts) over a copy of the cached
// object. The steps record their effect on the copy's status; the status is written once at the end
// (only when it changed, conflicts retried on a fresh read). Nothing the pass decides on is kept in
// memory between passes: what is installed is read back from the cluster every time, so a process
// killed at any line converges on the next pass. The resourceVersions of its own status writes are
// kept, so their update events bring no pass of their own (`ownWrite`).
import { ClusterExtensionConditionTypes, ClusterExtensionKind, GroupVersion, ReasonFailed, type ClusterExtension } from '../../../api/v1/index.ts';
import { errorMessage, isTerminal, runSteps, type Reconciler, type Result, type StepsOutcome } from '../../shared/controller/index.ts';
import { isNotFound, updateStatus, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import { ensureFailureConditions, setProgressing } from '../status/index.ts';
import type { BundleRef } from './ports.ts';
import type { ExtensionState, ExtensionStep } from './steps.ts';

export { CLEANUP_FINALIZER } from './steps.ts';

export interface ClusterExtensionReconcilerOptions {
  readonly client: KubeClient;
  /** The cached ClusterExtension for a key (an informer's `get`). */
  readonly get: (key: string) => ClusterExtension | undefined;
  /** The pipeline (`clusterExtensionSteps(ports)` in the process). */
  readonly steps: readonly ExtensionStep[];
  readonly logger: Logger;
  /** Re-run every extension this often to repair drift nobody reported; default 10 min. */
  readonly resyncMs?: number;
}

export class ClusterExtensionReconciler implements Reconciler {
  readonly #o: ClusterExtensionReconcilerOptions;
  /** By extension name: the resourceVersions its own recent status writes gave it. */
  readonly #written = new Map<string, string[]>();

  constructor(options: ClusterExtensionReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<Result | void> {
    const cached = this.#o.get(key);
    if (!cached) {
      this.#written.delete(key);
      return;
    }
    const ext = structuredClone(cached);
    const log = this.#o.logger.child({ clusterExtension: key });
    const state: ExtensionState = { ext, log, writeStatus: (s) => this.#writeStatus(cached, ext, s) };

    let outcome: StepsOutcome | undefined;
    try {
      outcome = await runSteps(this.#o.steps, state, signal);
    } catch (err) {
      // A step that threw without recording status: report it as it is.
      setProgressing(ext, err);
      outcome = { err, step: 'unknown' };
    }
    if (outcome?.final) {
      if (outcome.err !== undefined) throw outcome.err;
      return outcome.result;
    }
    if (outcome?.err !== undefined) ensureFailureConditions(ext, ReasonFailed, errorMessage(outcome.err), ClusterExtensionConditionTypes);
    await this.#writeStatus(cached, ext, signal);
    if (outcome?.err !== undefined) {
      if (isTerminal(outcome.err)) log.warn('terminal error; not retrying until the extension changes', { err: outcome.err, step: outcome.step });
      throw outcome.err;
    }
    return outcome?.result ?? { requeueAfterMs: this.#o.resyncMs ?? 600_000 };
  }

  async #writeStatus(cached: ClusterExtension, ext: ClusterExtension, signal: AbortSignal): Promise<void> {
    if (JSON.stringify(cached.status ?? null) === JSON.stringify(ext.status ?? null)) return;
    try {
      let basis: string | undefined;
      const written = await updateStatus<ClusterExtension>(
        this.#o.client,
        { apiVersion: GroupVersion, kind: ClusterExtensionKind, name: ext.metadata.name! },
        (fresh) => {
          basis = fresh.metadata.resourceVersion;
          fresh.status = ext.status ?? {};
        },
        { current: cached, signal },
      );
      // A new resourceVersion is ours; the one of the object read (nothing written) is not.
      const name = ext.metadata.name ?? '';
      const rv = written.metadata.resourceVersion;
      if (rv && rv !== basis) this.#written.set(name, [rv, ...(this.#written.get(name) ?? [])].slice(0, 4));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * Whether a pass of this reconciler wrote the extension's status at this resourceVersion: the pass decided with that
   * state, so the update event it causes needs no pass of its own.
   */
  ownWrite(name: string, resourceVersion: string | undefined): boolean {
    return resourceVersion !== undefined && (this.#written.get(name)?.includes(resourceVersion) ?? false);
  }
}

export type { BundleRef };
