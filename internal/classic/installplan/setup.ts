// installPlanSetup: the InstallPlan informer, its controller, the RBAC-retry controller and the InstallPlan GC.
import {
  InstallPlanKind,
  OperatorGroupKind,
  V1,
  V1alpha1,
  type InstallPlan,
  type OperatorGroup,
} from '../../../api/operators/index.ts';
import { Controller, objectKey, type RateLimiter } from '../../shared/controller/index.ts';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { Informer} from '../../shared/kube/index.ts';
import { eventRecorder, NAMESPACE_INDEX, informers } from '../../shared/kube/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../../shared/manager/index.ts';
import { attenuatedClient } from './attenuate.ts';
import { executePlan } from './execute.ts';
import { gcInstallPlans } from './gc.ts';
import { installPlanMetrics } from './metrics.ts';
import { newInstallPlanReconciler, newRbacRetryReconciler, RBAC_RELATED_KINDS } from './reconciler.ts';

/** upstream's `--install-plan-retry-timeout` default. */
export const DEFAULT_INSTALL_PLAN_RETRY_TIMEOUT_MS = 60_000;

export interface InstallPlanOptions {
  /** upstream's operator namespace (`--namespace`): `Secret` steps copy the pull secret of that name from it. */
  readonly operatorNamespace: string;
  /** How long an Installing plan's errors are retried before it Fails (`--install-plan-retry-timeout`, 1m). */
  readonly retryTimeoutMs?: number;
  readonly rateLimiter?: () => RateLimiter<string>;
}

export interface InstallPlanParts extends ManagerParts {
  readonly installPlans: Informer<InstallPlan>;
  readonly controller: Controller;
  /**
   * One garbage-collection sweep of a namespace's InstallPlans (at most 5 kept, at most 5 deleted per sweep). The
   * `installplan-gc` controller runs it whenever a plan is created in the namespace.
   */
  readonly gc: (namespace: string) => Promise<string[]>;
}

export function installPlanSetup(options: InstallPlanOptions): (ctx: ManagerContext) => Promise<InstallPlanParts> {
  return async (ctx) => {
    const { client, logger, metrics } = ctx;
    const clock = clockOf(ctx);
    const log = logger.child({ controller: 'installplan' });
    const informer = informers(client, logger);
    const installPlans = informer<InstallPlan>(V1alpha1, InstallPlanKind);
    const operatorGroups = informer<OperatorGroup>(V1, OperatorGroupKind);
    // As upstream once its labeller is done: only OLM-managed RBAC objects are watched for the retry.
    const rbac = [...RBAC_RELATED_KINDS].map((kind) =>
      informer<KubeObject>(kind === 'ServiceAccount' ? 'v1' : 'rbac.authorization.k8s.io/v1', kind, { labelSelector: 'olm.managed=true' }),
    );

    const m = installPlanMetrics(metrics.registry, () => installPlans.keys().length);
    const events = eventRecorder(client, 'operator-lifecycle-manager', log);
    const writeStatus = (plan: InstallPlan, signal: AbortSignal): Promise<InstallPlan> =>
      client.updateStatus<InstallPlan>({ ...plan, apiVersion: V1alpha1, kind: InstallPlanKind }, { signal });
    const late: { controller?: Controller } = {};

    const reconciler = newInstallPlanReconciler({
      get: (key) => installPlans.get(key),
      operatorGroups: (ns) => operatorGroups.byIndex(NAMESPACE_INDEX, ns),
      writeStatus,
      execute: (plan, signal) =>
        executePlan(plan, {
          client,
          operatorNamespace: options.operatorNamespace,
          events,
          onWarning: () => m.warning(),
          logger: log,
          attenuate: (base, ref, s) => attenuatedClient(base, client, ref, s),
          signal,
        }),
      retryTimeoutMs: options.retryTimeoutMs ?? DEFAULT_INSTALL_PLAN_RETRY_TIMEOUT_MS,
      requeueAfter: (key, ms) => late.controller?.queue.addAfter(key, ms),
      now: () => clock.date(),
      logger: log,
    });
    const controller = new Controller({ name: 'installplan', reconciler, logger, metrics, ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }) });
    late.controller = controller;
    controller.watch(installPlans);
    // Ours: an OperatorGroup change (its service account synced) brings the namespace's plans back at once
    // instead of after their backoff.
    controller.watch(operatorGroups, (og) => installPlans.byIndex(NAMESPACE_INDEX, og.metadata.namespace ?? '').flatMap((ip) => objectKey(ip) ?? []));

    const retry = new Controller({
      name: 'installplan-rbac-retry',
      keyField: 'namespace',
      reconciler: newRbacRetryReconciler({ installPlans: (ns) => installPlans.byIndex(NAMESPACE_INDEX, ns), writeStatus, logger: log }),
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    for (const inf of rbac) retry.watch(inf, (obj) => obj.metadata.namespace);

    const gc = (namespace: string): Promise<string[]> =>
      gcInstallPlans(
        {
          list: (ns) => installPlans.byIndex(NAMESPACE_INDEX, ns),
          delete: async (ns, name) => void (await client.delete({ apiVersion: V1alpha1, kind: InstallPlanKind, namespace: ns, name })),
          logger: log,
        },
        namespace,
      );
    // Upstream sweeps at the start of every namespace sync, which a new plan triggers; here a new plan triggers
    // the sweep of its namespace directly, so the Subscription side needs no hook.
    const collector = new Controller({
      name: 'installplan-gc',
      keyField: 'namespace',
      reconciler: { reconcile: async (key) => void (await gc(key)) },
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    collector.watch(installPlans, (ip, type) => (type === 'add' ? ip.metadata.namespace : undefined));

    return { informers: [installPlans, operatorGroups, ...rbac], controllers: [controller, retry, collector], installPlans, controller, gc };
  };
}
