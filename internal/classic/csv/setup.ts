// csvSetup: the CSV side's five controllers over the shared classic caches, wired together — `clusterserviceversion`
// (controller-csv.ts) and, here, `csv-copy`, `csv-copied`, `csv-rbac-change` and `olmconfig` — with the ports their
// steps use.
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  CSVPhasePending,
  CSVReasons,
  ClusterServiceVersionKind,
  CopiedFromLabel,
  V1alpha1,
  type ClusterServiceVersion,
  type OperatorGroup,
} from '../../../api/operators/index.ts';
import { Controller, formatTime, type RateLimiter } from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX, eventRecorder, ignoreNotFound } from '../../shared/kube/index.ts';
import type { ManagerContext, ManagerParts } from '../../shared/manager/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import { clusterRequirements } from './cluster-requirements.ts';
import { csvController } from './controller-csv.ts';
import { syncCopied, syncCopy, syncOLMConfig, type CopyPorts } from './copy.ts';
import { csvMetrics } from './metrics.ts';
import { setPhase, type PhaseEvents } from './phase.ts';
import type { CSVStepPorts } from './steps.ts';
import { ALL, COPY_PARENT_INDEX, addCSVIndexes, key } from './watch-keys.ts';

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
  return ({ client, logger, metrics }) => {
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
    // The controllers enqueue into each other: each port and reconciler below names the others, which all exist by
    // the time anything is reconciled.
    const requirements = clusterRequirements(client, caches);
    const ports: CSVStepPorts = {
      client,
      caches,
      requirements,
      events,
      metrics: csvMetrics(metrics.registry, () => caches.csvs.keys().length),
      now: () => new Date(),
      installClient: (og: OperatorGroup) => {
        const sa = og.spec?.serviceAccountName;
        if (!sa) return client;
        return og.status?.serviceAccountRef ? client.asServiceAccount(og.metadata.namespace ?? '', sa) : undefined;
      },
      getCSV: (namespace, name, signal) => ignoreNotFound(client.get<ClusterServiceVersion>({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace, name }, { signal })),
      enqueue: (k) => main.enqueue(k),
    };
    const copyPorts: CopyPorts = {
      client,
      caches,
      requirements,
      logger: log,
      events: recorder,
      ...(options.protectedCopiedCSVNamespaces && { protectedNamespaces: options.protectedCopiedCSVNamespaces }),
      enqueueCopied: (k) => copied.enqueue(k),
    };
    const base = { logger, metrics };
    const limited = { ...base, ...(options.rateLimiter && { rateLimiter: options.rateLimiter }) };

    const main = csvController({
      ...limited,
      caches,
      ports,
      copy: copyPorts,
      log,
      resyncMs: options.resyncMs ?? 5 * 60_000,
      concurrency: options.concurrency ?? 4,
      enqueueCopy: (k) => copy.enqueue(k),
    });

    // `csv-copy`: a CSV's copies into its group's target namespaces (copy.ts `syncCopy`).
    const copy = new Controller({
      name: 'csv-copy',
      reconciler: {
        reconcile: async (k, signal) => {
          await syncCopy(copyPorts, k, signal);
          // upstream looks at the OLMConfig again 5 s after each copy.
          olmConfig.queue.addAfter('cluster', 5_000);
        },
      },
      ...base,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    // A new namespace needs the copies of CSVs whose group targets every namespace.
    copy.watch(caches.namespaces, (_ns, type) => (type === 'add' ? caches.csvs.list().filter((c) => c.metadata.annotations?.['olm.targetNamespaces'] === '').map(key) : undefined));

    // `csv-copied`: each copied CSV checked against its parent (copy.ts `syncCopied`); a copy that is deleted, or whose
    // parent needs it again, goes back to csv-copy.
    const copied = new Controller({
      name: 'csv-copied',
      reconciler: {
        reconcile: async (k, signal) => {
          const parent = await syncCopied(copyPorts, k, signal);
          if (parent) copy.enqueue(parent);
        },
      },
      ...base,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    copied.watch(caches.copiedCSVs, (c, type) => {
      // A deleted copy: its parent makes it again if it still belongs.
      if (type === 'delete') {
        const from = c.metadata.labels?.[CopiedFromLabel];
        if (from) copy.enqueue(`${from}/${c.metadata.name ?? ''}`);
        return undefined;
      }
      return key(c);
    });
    copied.watch(caches.csvs, (csv) => caches.copiedCSVs.byIndex(COPY_PARENT_INDEX, key(csv)).map(key));

    // `olmconfig`: the OLMConfig `cluster` — copies enabled or disabled, its DisabledCopiedCSVs condition (upstream's
    // syncOLMConfig).
    const olmConfig = new Controller({ name: 'olmconfig', reconciler: { reconcile: (k, signal) => syncOLMConfig(copyPorts, k, (c) => copy.enqueue(c), signal) }, ...base });
    olmConfig.watch(caches.olmConfigs);

    // `csv-rbac-change` (upstream's syncObject): a change of RBAC (or a service account) brings CSVs that failed without
    // retry in its namespace (every namespace for cluster-scoped RBAC) back to Pending/DetectedClusterChange.
    const rbacChange = new Controller({
      name: 'csv-rbac-change',
      reconciler: {
        reconcile: async (k, signal) => {
          const failed = (k === ALL ? caches.csvs.list() : caches.csvs.byIndex(NAMESPACE_INDEX, k)).filter((c) => c.status?.reason === CSVReasons.ComponentFailedNoRetry);
          for (const c of failed) {
            const out = structuredClone(c);
            setPhase(out, CSVPhasePending, CSVReasons.DetectedClusterChange, 'Cluster resources changed state', formatTime(ports.now()));
            await ignoreNotFound(client.updateStatus({ ...out, apiVersion: V1alpha1, kind: ClusterServiceVersionKind }, { signal }));
          }
        },
      },
      ...base,
    });
    const nsOf = (o: KubeObject): string => o.metadata.namespace ?? ALL;
    for (const inf of [caches.serviceAccounts, caches.roles, caches.roleBindings, caches.clusterRoles, caches.clusterRoleBindings] as const) rbacChange.watch(inf as never, nsOf);

    return { informers: [], controllers: [main, copy, copied, rbacChange, olmConfig], controller: main };
  };
}
