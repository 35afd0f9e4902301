// csvSetup: the CSV side's five controllers over the shared classic caches, wired together — `clusterserviceversion`
// (controller-csv.ts), `csv-copy` (controller-copy.ts), `csv-copied` (controller-copied.ts), `csv-rbac-change`
// (controller-rbac-change.ts) and `olmconfig` (controller-olmconfig.ts) — with the ports their steps use.
import { ClusterServiceVersionKind, V1alpha1, type ClusterServiceVersion, type OperatorGroup } from '../../../api/operators/index.ts';
import type { Controller, RateLimiter } from '../../shared/controller/index.ts';
import { eventRecorder, ignoreNotFound } from '../../shared/kube/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../../shared/manager/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import { clusterRequirements } from './cluster-requirements.ts';
import { copiedController } from './controller-copied.ts';
import { copyController } from './controller-copy.ts';
import { csvController } from './controller-csv.ts';
import { olmConfigController } from './controller-olmconfig.ts';
import { rbacChangeController } from './controller-rbac-change.ts';
import type { CopyPorts } from './copy.ts';
import { csvMetrics } from './metrics.ts';
import type { PhaseEvents } from './phase.ts';
import type { CSVStepPorts } from './steps.ts';
import { addCSVIndexes } from './watch-keys.ts';

export interface CSVOptions {
  /** Every CSV again after this long (upstream's olm `--interval`, 5 minutes). */
  readonly resyncMs?: number;
  /** Namespaces that keep copied CSVs when OLMConfig disables copies (upstream's --protectedCopiedCSVNamespaces). */
  readonly protectedCopiedCSVNamespaces?: readonly string[];
  readonly rateLimiter?: () => RateLimiter<string>;
  /** Workers of the CSV controller; default 4. */
  readonly concurrency?: number;
}

export interface CSVParts extends ManagerParts {
  readonly controller: Controller;
}

export function csvSetup(caches: OlmCaches, options: CSVOptions = {}): (ctx: ManagerContext) => CSVParts {
  return (ctx) => {
    const { client, logger, metrics } = ctx;
    const clock = clockOf(ctx);
    const log = logger.child({ controller: 'clusterserviceversion' });
    addCSVIndexes(caches);

    const recorder = eventRecorder(client, 'operator-lifecycle-manager', log);
    const events: PhaseEvents = {
      phase: (csv, type, reason, message) => {
        const obj = { ...csv, apiVersion: V1alpha1, kind: ClusterServiceVersionKind };
        if (type === 'Warning') recorder.warning(obj, reason, message);
        else recorder.normal(obj, reason, message);
      },
    };
    // The controllers enqueue into each other; each is bound here once it exists.
    const late: { main?: Controller; copy?: Controller; copied?: Controller; olmConfig?: Controller } = {};
    const requirements = clusterRequirements(client, caches, clock);
    const ports: CSVStepPorts = {
      client,
      caches,
      requirements,
      events,
      metrics: csvMetrics(metrics.registry, () => caches.csvs.keys().length),
      now: () => clock.date(),
      installClient: (og: OperatorGroup) => {
        const sa = og.spec?.serviceAccountName;
        if (!sa) return client;
        return og.status?.serviceAccountRef ? client.asServiceAccount(og.metadata.namespace ?? '', sa) : undefined;
      },
      getCSV: (namespace, name, signal) => ignoreNotFound(client.get<ClusterServiceVersion>({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace, name }, { signal })),
      enqueue: (k) => late.main?.enqueue(k),
    };
    const copyPorts: CopyPorts = {
      client,
      caches,
      requirements,
      logger: log,
      events: recorder,
      ...(options.protectedCopiedCSVNamespaces && { protectedNamespaces: options.protectedCopiedCSVNamespaces }),
      now: () => clock.date(),
      enqueueCopied: (k) => late.copied?.enqueue(k),
    };
    const base = { logger, metrics, ...(options.rateLimiter && { rateLimiter: options.rateLimiter }) };

    const main = (late.main = csvController({
      ...base,
      caches,
      ports,
      copy: copyPorts,
      log,
      resyncMs: options.resyncMs ?? 5 * 60_000,
      concurrency: options.concurrency ?? 4,
      enqueueCopy: (k) => late.copy?.enqueue(k),
    }));
    const copy = (late.copy = copyController({ ...base, caches, copy: copyPorts, olmConfigAfter: (k, ms) => late.olmConfig?.queue.addAfter(k, ms) }));
    const copied = (late.copied = copiedController({ ...base, caches, copy: copyPorts, copier: copy }));
    const olmConfig = (late.olmConfig = olmConfigController({ logger, metrics, caches, copy: copyPorts, copier: copy }));
    const rbacChange = rbacChangeController({ logger, metrics, client, caches, now: ports.now });

    return { informers: [], controllers: [main, copy, copied, rbacChange, olmConfig], controller: main };
  };
}
