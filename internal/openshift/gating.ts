// The part both gating controllers share: one ClusterOperator, read, created when missing (as upstream does),
// its status recomputed and written only when it changed; an `OperatorStatusChanged` Event on the ClusterOperator
// when its Upgradeable condition changes (library-go's wording); the blocking-installs gauge.
import { Gauge, type Logger, type Registry } from '../shared/observability/index.ts';
import { Controller, type Reconciler, type Result } from '../shared/controller/index.ts';
import { eventRecorder, isAlreadyExists, isNoKindMatch, isNotFound, semanticEqual, informers } from '../shared/kube/index.ts';
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

/** Registers the gauge once per registry (both controllers may run in one process). */
function blockingGauge(registry: Registry): Gauge<'kind'> {
  return (
    (registry.getSingleMetric(BLOCKING_INSTALLS_METRIC) as Gauge<'kind'> | undefined) ??
    new Gauge({
      name: BLOCKING_INSTALLS_METRIC,
      help: 'Installed operators whose olm.maxOpenShiftVersion (or an invalid one) keeps the cluster from its next minor version, by kind (ClusterServiceVersion, ClusterExtension)',
      labelNames: ['kind'],
      registers: [registry],
    })
  );
}

/** What one pass decides: the status to write and how many installs of the gauge's kind block. */
export interface GatingOutcome {
  readonly status: ClusterOperatorStatus;
  /** Undefined when it could not be told (e.g. RELEASE_VERSION unusable): the gauge's series is dropped. */
  readonly blocking?: number;
}

export interface ClusterOperatorControllerOptions {
  /** The ClusterOperator's name; the controller's only key. */
  readonly name: string;
  /** The controller's name and the Events' component. */
  readonly controller: string;
  readonly component: string;
  /** The status over the current one (`undefined` for a new ClusterOperator). */
  readonly compute: (current: ClusterOperatorStatus | undefined) => GatingOutcome;
  /** The kind the gauge counts for this controller. */
  readonly kind: string;
}

/**
 * The controller both gating setups run: one key, the ClusterOperator's name; the ClusterOperator watched (deleted ⇒
 * recreated, edited ⇒ put back), `compute`'s status written, a safety-net resync every 10 minutes. The caller watches
 * what `compute` reads and enqueues the key. The ClusterOperator's informer starts only once its API is known to be
 * served: an informer of a kind that is not served would never sync, so it is not one the manager waits for; `close`
 * stops it with the process (a ManagerParts closer).
 */
export function clusterOperatorController(
  { client, logger, metrics }: ManagerContext,
  o: ClusterOperatorControllerOptions,
): { readonly controller: Controller; readonly close: () => Promise<void>; readonly log: Logger } {
  const log = logger.child({ controller: 'clusteroperator' });
  const informer = informers(client, logger)<ClusterOperator>(ConfigGroupVersion, ClusterOperatorKind, { name: 'clusteroperator', fieldSelector: { 'metadata.name': o.name } });
  let stopped = false;
  const gauge = blockingGauge(metrics.registry);
  const events = eventRecorder(client, o.component, log);
  const ref = { apiVersion: ConfigGroupVersion, kind: ClusterOperatorKind, name: o.name };
  let notServedLogged = false;
  const reconciler: Reconciler = {
    async reconcile(key, signal): Promise<Result | void> {
      if (key !== o.name) return; // only ours
      let current: ClusterOperator | undefined;
      try {
        current = await client.get<ClusterOperator>(ref, { signal });
      } catch (err) {
        if (isNoKindMatch(err)) {
          if (!notServedLogged) log.info('the ClusterOperator API (config.openshift.io/v1) is not served; looking again later', { clusterOperator: o.name });
          notServedLogged = true;
          return { requeueAfterMs: 60_000 }; // looked at again in a minute
        }
        if (!isNotFound(err)) throw err;
      }
      notServedLogged = false;
      if (!stopped) informer.start();
      if (!current) {
        // Missing: create it, as upstream does, and fill its status in the same pass.
        try {
          current = await client.create<ClusterOperator>(newClusterOperator(o.name), { signal });
          log.info('created ClusterOperator', { clusterOperator: o.name });
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          current = await client.get<ClusterOperator>(ref, { signal });
        }
      }
      const outcome = o.compute(current.status);
      if (outcome.blocking === undefined) gauge.remove({ kind: o.kind });
      else gauge.set({ kind: o.kind }, outcome.blocking);
      if (semanticEqual(current.status ?? {}, outcome.status)) return;
      await client.updateStatus<ClusterOperator>({ ...current, status: outcome.status }, { signal });
      const diff = conditionDiff(current.status, outcome.status, [OperatorUpgradeable]);
      if (diff !== '') {
        log.info('Upgradeable changed', { clusterOperator: o.name, change: diff });
        events.normal({ ...current, apiVersion: ConfigGroupVersion, kind: ClusterOperatorKind }, OperatorStatusChangedReason, operatorStatusChangedMessage(o.name, diff));
      }
    },
  };
  const resync = { periodMs: 10 * 60_000, keys: () => [o.name] }; // the safety net besides every change
  const controller = new Controller({ name: o.controller, reconciler, logger, metrics, resync });
  controller.watch(informer, () => o.name);
  const close = async (): Promise<void> => {
    stopped = true;
    await informer.stop();
  };
  return { controller, close, log };
}
