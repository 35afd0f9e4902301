// The ClusterExtension reconciler: the shared object reconciler (shared/controller/object-reconciler.ts) running the
// step list (steps.ts) over a copy of the cached object. The steps record their effect on the copy's status; the
// status is written once at the end, only when it changed; a conflict re-runs the pass from fresh state. Nothing the
// pass decides on is kept in memory between passes: what is installed is read back from the cluster every time, so a
// process killed at any line converges on the next pass. The resourceVersions of its own writes are kept, so their
// update events bring no pass of their own (`ownWrite`).
import { ClusterExtensionConditionTypes, ClusterExtensionKind, ReasonFailed, type ClusterExtension } from '../../../api/v1/index.ts';
import { ObjectReconciler, errorMessage } from '../../shared/controller/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
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

export class ClusterExtensionReconciler extends ObjectReconciler<ClusterExtension, ExtensionState> {
  constructor(o: ClusterExtensionReconcilerOptions) {
    super({
      kind: ClusterExtensionKind,
      client: o.client,
      get: o.get,
      steps: o.steps,
      logger: o.logger,
      state: (pass) => ({ ext: pass.obj, log: pass.log, writeStatus: pass.writeStatus }),
      // A step that threw without recording status: report it as it is.
      onThrow: (ext, err) => setProgressing(ext, err),
      onError: (ext, err) => ensureFailureConditions(ext, ReasonFailed, errorMessage(err), ClusterExtensionConditionTypes),
      done: { requeueAfterMs: o.resyncMs ?? 600_000 },
      logPasses: true,
    });
  }
}

export type { BundleRef };
