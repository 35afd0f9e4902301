// ClusterServiceVersions of classic (upstream's olm-operator CSV side): the state machine, requirements, install
// strategy, replacement, copies into target namespaces and the CSV metrics. See README.md.
import { CopiedFromLabel, OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel } from '../../../api/operators/index.ts';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { CSVPhasePending, CSVReasons, ClusterServiceVersionKind, V1alpha1, type ClusterServiceVersion, type OperatorGroup } from '../../../api/operators/index.ts';
import { Controller, formatTime, objectKey, realClock, type Clock, type RateLimiter } from '../../shared/controller/index.ts';
import { NAMESPACE_INDEX, eventRecorder, isNoKindMatch, isNotFound, type KubeClient } from '../../shared/kube/index.ts';
import type { ManagerContext, ManagerParts } from '../../shared/manager/index.ts';
import { type CachedCRD, type OlmCaches } from '../olmcache/index.ts';
import { syncCopied, syncCopy, syncOLMConfig, type CopyPorts } from './copy.ts';
import { csvMetrics } from './metrics.ts';
import { setPhase, type PhaseEvents } from './phase.ts';
import { csvReconciler } from './reconciler.ts';
import type { CRDInfo, RequirementSource } from './requirements.ts';
import { csvSteps, type CSVStepPorts } from './steps.ts';

export { CSV_FINALIZER, INSTALL_TIMEOUT_MS, csvSteps, type CSVState, type CSVStep, type CSVStepPorts } from './steps.ts';
export { CONDITIONS_LENGTH_LIMIT, isCopied, isObsolete, isUncopiable, setPhase, setPhaseWithEvent, setPhaseWithEventIfChanged, type PhaseEvents } from './phase.ts';
export { installModeSet, unsupportedTargets } from './installmodes.ts';
export { DEPLOYMENT_SPEC_HASH_LABEL, buildDeployment, checkInstalled, deploymentStatus } from './install.ts';
export { requirementAndPermissionStatus, type RequirementSource } from './requirements.ts';
export { copyPrototype, operatorGroupFromAnnotations } from './copy.ts';
export { csvMetrics, type CSVMetrics } from './metrics.ts';

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

function crdInfo(crd: CachedCRD): CRDInfo {
  const conditions = crd.status?.conditions ?? [];
  const isTrue = (type: string): boolean => conditions.some((c) => c.type === type && c.status === 'True');
  return {
    ...(crd.metadata.uid && { uid: crd.metadata.uid }),
    ...(crd.metadata.annotations && { annotations: crd.metadata.annotations }),
    versions: crd.spec.versions,
    established: isTrue('Established'),
    namesAccepted: isTrue('NamesAccepted'),
  };
}

/** The requirement check's view of the cluster: the shared caches, discovery and live reads. */
export function clusterRequirements(client: KubeClient, caches: OlmCaches, clock: Clock = realClock): RequirementSource {
  let version: { at: number; value: Promise<string> } | undefined;
  return {
    serverVersion: () => {
      if (!version || clock.now() - version.at > 10 * 60_000) {
        const value = client.connection.request<{ gitVersion?: string }>({ method: 'GET', path: '/version' }).then((v) => v.gitVersion ?? '');
        version = { at: clock.now(), value };
        value.catch(() => (version = undefined));
      }
      return version.value;
    },
    crd: (name) => {
      const crd = caches.crds.get(name);
      return crd ? crdInfo(crd) : undefined;
    },
    csv: (namespace, name) => caches.csvs.get(`${namespace}/${name}`),
    gvkRegistered: async (group, version, kind) => {
      try {
        await client.mapping(group ? `${group}/${version}` : version, kind);
        return true;
      } catch (err) {
        if (isNoKindMatch(err)) return false;
        throw err;
      }
    },
    apiService: async (name) => {
      try {
        const svc = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name });
        return { ...(svc.metadata.uid && { uid: svc.metadata.uid }), available: (svc.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True') };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    serviceAccount: (namespace, name) => caches.serviceAccounts.get(`${namespace}/${name}`),
    rbac: {
      role: (namespace, name) => caches.roles.get(`${namespace}/${name}`) as never,
      clusterRole: (name) => caches.clusterRoles.get(name) as never,
      roleBindings: (namespace) => caches.roleBindings.byIndex(NAMESPACE_INDEX, namespace) as never,
      clusterRoleBindings: () => caches.clusterRoleBindings.list() as never,
    },
  };
}

const REPLACES_INDEX = 'replaces';
/** The csv-rbac-change key of cluster-scoped RBAC: every namespace. */
const ALL = '*';
const CRD_INDEX = 'crd';
const COPY_PARENT_INDEX = 'copiedFrom';

const key = (o: KubeObject): string => objectKey(o) ?? '';
const notSucceeded = (csv: ClusterServiceVersion): boolean => csv.status?.phase !== 'Succeeded';

/** The CSV an object is labelled or referenced as owned by. */
function ownerCSVKey(o: KubeObject): string | undefined {
  const l = o.metadata.labels ?? {};
  if (l[OwnerKindLabel] === ClusterServiceVersionKind && l[OwnerLabel]) return `${l[OwnerNamespaceLabel] ?? ''}/${l[OwnerLabel]}`;
  const ref = (o.metadata.ownerReferences ?? []).find((r) => r.kind === ClusterServiceVersionKind);
  return ref && o.metadata.namespace ? `${o.metadata.namespace}/${ref.name}` : undefined;
}

export function csvSetup(caches: OlmCaches, options: CSVOptions = {}): (ctx: ManagerContext) => CSVParts {
  return ({ client, logger, metrics }) => {
    const log = logger.child({ controller: 'clusterserviceversion' });
    caches.csvs.addIndex(REPLACES_INDEX, (csv) => (csv.spec.replaces ? [`${csv.metadata.namespace ?? ''}/${csv.spec.replaces}`] : []));
    caches.csvs.addIndex(CRD_INDEX, (csv) => [...(csv.spec.customresourcedefinitions?.owned ?? []), ...(csv.spec.customresourcedefinitions?.required ?? [])].map((d) => d.name));
    caches.copiedCSVs.addIndex(COPY_PARENT_INDEX, (c) => [`${c.metadata.labels?.[CopiedFromLabel] ?? ''}/${c.metadata.name ?? ''}`]);

    const recorder = eventRecorder(client, 'operator-lifecycle-manager', log);
    const events: PhaseEvents = {
      phase: (csv, type, reason, message) => {
        const obj = { ...csv, apiVersion: V1alpha1, kind: ClusterServiceVersionKind };
        if (type === 'Warning') recorder.warning(obj, reason, message);
        else recorder.normal(obj, reason, message);
      },
    };
    const late: { main?: Controller; copy?: Controller; copied?: Controller; olmConfig?: Controller } = {};
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
      getCSV: async (namespace, name, signal) => {
        try {
          return await client.get<ClusterServiceVersion>({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace, name }, { signal });
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      },
      enqueue: (k) => late.main?.enqueue(k),
    };
    const copyPorts: CopyPorts = {
      client,
      caches,
      requirements,
      logger: log,
      events: recorder,
      ...(options.protectedCopiedCSVNamespaces && { protectedNamespaces: options.protectedCopiedCSVNamespaces }),
      enqueueCopied: (k) => late.copied?.enqueue(k),
    };

    const main = new Controller({
      name: 'clusterserviceversion',
      reconciler: csvReconciler({ ports, copy: copyPorts, steps: csvSteps(ports), logger: log, resyncMs: options.resyncMs ?? 5 * 60_000, enqueueCopy: (k) => late.copy?.enqueue(k) }),
      concurrency: options.concurrency ?? 4,
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    late.main = main;
    main.watch(caches.csvs, (csv, type) => {
      if (type === 'delete') ports.metrics?.forget(csv);
      const ns = csv.metadata.namespace ?? '';
      const keys = [key(csv), ...caches.csvs.byIndex(REPLACES_INDEX, key(csv)).map(key)];
      if (csv.spec.replaces) keys.push(`${ns}/${csv.spec.replaces}`);
      return keys;
    });
    main.watch(caches.operatorGroups, (og) => {
      const keys = caches.csvs.byIndex(NAMESPACE_INDEX, og.metadata.namespace ?? '').map(key);
      for (const csv of caches.csvs.list()) if (csv.status?.phase === 'Failed' && csv.metadata.namespace !== og.metadata.namespace) keys.push(key(csv));
      return keys;
    });
    main.watch(caches.deployments, ownerCSVKey);
    main.watch(caches.operatorConditions, (oc) => caches.csvs.byIndex(REPLACES_INDEX, key(oc)).map(key));
    main.watch(caches.crds, (crd) => caches.csvs.byIndex(CRD_INDEX, crd.metadata.name ?? '').map(key));
    main.watch(caches.subscriptions, (sub) => (sub.status?.installedCSV ? `${sub.metadata.namespace ?? ''}/${sub.status.installedCSV}` : undefined));
    const inNamespaceWaiting = (o: KubeObject): string[] => {
      const keys = caches.csvs.byIndex(NAMESPACE_INDEX, o.metadata.namespace ?? '').filter(notSucceeded).map(key);
      const owner = ownerCSVKey(o);
      return owner ? [...keys, owner] : keys;
    };
    const anyWaiting = (o: KubeObject): string[] => {
      const keys = caches.csvs.list().filter(notSucceeded).map(key);
      const owner = ownerCSVKey(o);
      return owner ? [...keys, owner] : keys;
    };
    main.watch(caches.serviceAccounts, inNamespaceWaiting);
    main.watch(caches.roles, inNamespaceWaiting);
    main.watch(caches.roleBindings, inNamespaceWaiting);
    main.watch(caches.clusterRoles, anyWaiting);
    main.watch(caches.clusterRoleBindings, anyWaiting);

    const copy = new Controller({
      name: 'csv-copy',
      reconciler: {
        reconcile: async (k, signal) => {
          await syncCopy(copyPorts, k, signal);
          // upstream looks at the OLMConfig again 5 s after each copy.
          late.olmConfig?.queue.addAfter('cluster', 5_000);
        },
      },
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    late.copy = copy;
    // A new namespace needs the copies of CSVs whose group targets every namespace.
    copy.watch(caches.namespaces, (_ns, type) => (type === 'add' ? caches.csvs.list().filter((c) => c.metadata.annotations?.['olm.targetNamespaces'] === '').map(key) : undefined));

    const copied = new Controller({
      name: 'csv-copied',
      reconciler: {
        reconcile: async (k, signal) => {
          const parent = await syncCopied(copyPorts, k, signal);
          if (parent) copy.enqueue(parent);
        },
      },
      logger,
      metrics,
      ...(options.rateLimiter && { rateLimiter: options.rateLimiter() }),
    });
    late.copied = copied;
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

    // The OLMConfig `cluster`: copies enabled or disabled, its DisabledCopiedCSVs condition (upstream's syncOLMConfig).
    const olmConfig = new Controller({
      name: 'olmconfig',
      reconciler: { reconcile: (k, signal) => syncOLMConfig(copyPorts, k, (key) => copy.enqueue(key), signal) },
      logger,
      metrics,
    });
    late.olmConfig = olmConfig;
    olmConfig.watch(caches.olmConfigs);

    // upstream's syncObject: a change of RBAC (or a service account) brings CSVs that failed without retry in its
    // namespace (every namespace for cluster-scoped RBAC) back to Pending/DetectedClusterChange.
    const rbacChange = new Controller({
      name: 'csv-rbac-change',
      reconciler: {
        reconcile: async (k, signal) => {
          const failed = (k === ALL ? caches.csvs.list() : caches.csvs.byIndex(NAMESPACE_INDEX, k)).filter((c) => c.status?.reason === CSVReasons.ComponentFailedNoRetry);
          for (const c of failed) {
            const out = structuredClone(c);
            setPhase(out, CSVPhasePending, CSVReasons.DetectedClusterChange, 'Cluster resources changed state', formatTime(ports.now()));
            try {
              await client.updateStatus({ ...out, apiVersion: V1alpha1, kind: ClusterServiceVersionKind }, { signal });
            } catch (err) {
              if (!isNotFound(err)) throw err;
            }
          }
        },
      },
      logger,
      metrics,
    });
    const nsOf = (o: KubeObject): string => o.metadata.namespace ?? ALL;
    for (const inf of [caches.serviceAccounts, caches.roles, caches.roleBindings, caches.clusterRoles, caches.clusterRoleBindings] as const) rbacChange.watch(inf as never, nsOf);

    return { informers: [], controllers: [main, copy, copied, rbacChange, olmConfig], controller: main };
  };
}
