// The part both gating controllers share: one ClusterOperator, read, created when missing (as upstream does),
// its status recomputed and written only when it changed; an `OperatorStatusChanged` Event on the ClusterOperator
// when its Upgradeable condition changes (library-go's wording); the blocking-installs gauge.
import { Gauge, type Logger, type Registry } from '../shared/observability/index.ts';
import { Controller, type Reconciler, type Result } from '../shared/controller/index.ts';
import type { Informer} from '../shared/kube/index.ts';
import { eventRecorder, isAlreadyExists, isNoKindMatch, isNotFound, semanticEqual, informers, type EventRecorder, type KubeClient } from '../shared/kube/index.ts';
import type { ManagerContext } from '../shared/manager/index.ts';
import {
  ClusterOperatorKind,
  ConfigGroupVersion,
  OperatorStatusChangedReason,
  OperatorUpgradeable,
  conditionDiff,
  newClusterOperator,
  operatorStatusChangedMessage,
  type ClusterOperator,
  type ClusterOperatorStatus,
} from './clusteroperator.ts';

/** The gauge of installs that keep a ClusterOperator's Upgradeable False, by kind. */
export const BLOCKING_INSTALLS_METRIC = 'olm_upgrade_blocking_installs';

export interface BlockingGauge {
  /** `count` installs of `kind` block; undefined: unknown (the series is dropped). */
  set(kind: string, count: number | undefined): void;
}

/** Registers the gauge once per registry (both controllers may run in one process). */
export function blockingGauge(registry: Registry): BlockingGauge {
  const existing = registry.getSingleMetric(BLOCKING_INSTALLS_METRIC) as Gauge<'kind'> | undefined;
  const gauge =
    existing ??
    new Gauge({
      name: BLOCKING_INSTALLS_METRIC,
      help: 'Installed operators whose olm.maxOpenShiftVersion (or an invalid one) keeps the cluster from its next minor version, by kind (ClusterServiceVersion, ClusterExtension)',
      labelNames: ['kind'],
      registers: [registry],
    });
  return {
    set: (kind, count) => (count === undefined ? gauge.remove({ kind }) : gauge.set({ kind }, count)),
  };
}

/** What one pass decides: the status to write and how many installs of the gauge's kind block. */
export interface GatingOutcome {
  readonly status: ClusterOperatorStatus;
  /** Undefined when it could not be told (e.g. RELEASE_VERSION unusable). */
  readonly blocking?: number;
}

export interface ClusterOperatorReconcilerOptions {
  /** The ClusterOperator's name; the controller's only key. */
  readonly name: string;
  readonly client: KubeClient;
  /** The status over the current one (`undefined` for a new ClusterOperator). */
  readonly compute: (current: ClusterOperatorStatus | undefined) => GatingOutcome;
  /** The kind the gauge counts for this controller. */
  readonly kind: string;
  readonly gauge?: BlockingGauge;
  readonly events?: EventRecorder;
  /** Wait before looking again when the ClusterOperator API is not served (default 60 s). */
  readonly notServedRetryMs?: number;
  /** Called on every pass that found the ClusterOperator API served. */
  readonly onServed?: () => void;
  readonly logger: Logger;
}

/**
 * A watch of the one ClusterOperator (deleted ⇒ recreated, edited ⇒ put back), started only once its API is
 * known to be served: an informer of a kind that is not served would never sync, so it is not one the manager
 * waits for. `close` stops it with the process (a ManagerParts closer).
 */
export function clusterOperatorWatch(client: KubeClient, name: string, logger: Logger): {
  readonly informer: Informer<ClusterOperator>;
  readonly served: () => void;
  readonly close: () => Promise<void>;
} {
  const informer = informers(client, logger)<ClusterOperator>(ConfigGroupVersion, ClusterOperatorKind, { name: 'clusteroperator', fieldSelector: { 'metadata.name': name } });
  let stopped = false;
  return {
    informer,
    served: () => {
      if (!stopped) informer.start();
    },
    close: async () => {
      stopped = true;
      await informer.stop();
    },
  };
}

/** A Reconciler for the one ClusterOperator key. */
export function newClusterOperatorReconciler(o: ClusterOperatorReconcilerOptions): Reconciler {
  const ref = { apiVersion: ConfigGroupVersion, kind: ClusterOperatorKind, name: o.name };
  let notServedLogged = false;
  return {
    async reconcile(key, signal): Promise<Result | void> {
      if (key !== o.name) return; // only ours
      let current: ClusterOperator | undefined;
      try {
        current = await o.client.get<ClusterOperator>(ref, { signal });
      } catch (err) {
        if (isNoKindMatch(err)) {
          if (!notServedLogged) o.logger.info('the ClusterOperator API (config.openshift.io/v1) is not served; looking again later', { clusterOperator: o.name });
          notServedLogged = true;
          return { requeueAfterMs: o.notServedRetryMs ?? 60_000 };
        }
        if (!isNotFound(err)) throw err;
      }
      notServedLogged = false;
      o.onServed?.();
      if (!current) {
        // Missing: create it, as upstream does, and fill its status in the same pass.
        try {
          current = await o.client.create<ClusterOperator>(newClusterOperator(o.name), { signal });
          o.logger.info('created ClusterOperator', { clusterOperator: o.name });
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          current = await o.client.get<ClusterOperator>(ref, { signal });
        }
      }
      const outcome = o.compute(current.status);
      o.gauge?.set(o.kind, outcome.blocking);
      if (semanticEqual(current.status ?? {}, outcome.status)) return;
      await o.client.updateStatus<ClusterOperator>({ ...current, status: outcome.status }, { signal });
      const diff = conditionDiff(current.status, outcome.status, [OperatorUpgradeable]);
      if (diff !== '') {
        o.logger.info('Upgradeable changed', { clusterOperator: o.name, change: diff });
        o.events?.normal({ ...current, apiVersion: ConfigGroupVersion, kind: ClusterOperatorKind }, OperatorStatusChangedReason, operatorStatusChangedMessage(o.name, diff));
      }
    },
  };
}

/**
 * The controller both gating setups run: one key, the ClusterOperator's name; the ClusterOperator watched (its
 * informer started once the API is found served), `compute`'s status written, a safety-net resync (default 10 min).
 * The caller watches what `compute` reads and enqueues the key.
 */
export function clusterOperatorController(
  { client, logger, metrics }: ManagerContext,
  o: Pick<ClusterOperatorReconcilerOptions, 'name' | 'kind' | 'compute' | 'notServedRetryMs'> & { readonly controller: string; readonly component: string; readonly resyncMs?: number | undefined },
): { readonly controller: Controller; readonly close: () => Promise<void>; readonly log: Logger } {
  const log = logger.child({ controller: 'clusteroperator' });
  const co = clusterOperatorWatch(client, o.name, logger);
  const reconciler = newClusterOperatorReconciler({
    name: o.name,
    client,
    onServed: co.served,
    kind: o.kind,
    gauge: blockingGauge(metrics.registry),
    events: eventRecorder(client, o.component, log),
    logger: log,
    ...(o.notServedRetryMs !== undefined && { notServedRetryMs: o.notServedRetryMs }),
    compute: o.compute,
  });
  const resync = { periodMs: o.resyncMs ?? 10 * 60_000, keys: () => [o.name] };
  const controller = new Controller({ name: o.controller, reconciler, logger, metrics, resync });
  controller.watch(co.informer, () => o.name);
  return { controller, close: co.close, log };
}
