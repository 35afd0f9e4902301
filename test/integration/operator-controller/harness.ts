// Runs operator-controller in this process against the shared control plane, registry and a
// catalogd started by the catalogd harness, the way the manager runs it, with its cache in a
// sandbox directory and its logs kept for assertions. Helpers create ClusterExtensions and wait
// for their conditions.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Condition } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { defaultImplementations } from '../../../internal/operator-controller/index.ts';
import { operatorControllerSetup, type OperatorControllerOptions, type OperatorControllerParts } from '../../../internal/operator-controller/index.ts';
import { ItemExponentialFailureRateLimiter } from '../../../internal/shared/controller/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { createMetrics } from '../../../internal/shared/observability/index.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { afterAll, beforeAll } from 'vitest';
import { catalogFiles, type CatalogEntry } from '../../support/bundles.ts';
import { certManagerCrds } from '../../support/crds.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { simulateCertManager } from '../../support/workloads.ts';
import { createCatalog, deleteCatalogs, releaseFinalizers, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { startCatalogd, stopAll } from '../catalogd/harness.ts';
import { capturedLogger, inProcessManagerOptions, runParts, type LogLine } from '../../support/in-process.ts';
import { poll } from '../../support/net.ts';

export interface RunningOperatorController {
  readonly parts: OperatorControllerParts;
  readonly logs: LogLine[];
  stop(): Promise<void>;
}

const running = new Set<RunningOperatorController>();

export async function stopAllOperatorControllers(): Promise<void> {
  for (const r of [...running]) await r.stop();
}

/** Where revision records live in the tests (created when missing). */
export const SYSTEM_NAMESPACE = 'olmv1-system';

export async function startOperatorController(overrides: Partial<OperatorControllerOptions> = {}): Promise<RunningOperatorController> {
  const ns = await adminKube().request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NAMESPACE } });
  if (ns.status !== 201 && ns.status !== 409) throw new Error(`create namespace ${SYSTEM_NAMESPACE}: ${ns.status} ${JSON.stringify(ns.body)}`);
  const sandbox = await mkdtemp(join(tmpdir(), 'operator-controller-it-'));
  const { logger, logs } = capturedLogger('operator-controller', 'OC_TEST_LOG');
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const managerOptions = inProcessManagerOptions('9c4404e7.operatorframework.io');
  const options: OperatorControllerOptions = {
    cachePath: join(sandbox, 'cache'),
    systemNamespace: SYSTEM_NAMESPACE,
    insecureRegistries: [registry().host],
    registry: { retries: 1, retryDelayMs: 50 },
    rateLimiter: () => new ItemExponentialFailureRateLimiter(100, 2000),
    resyncMs: 5_000,
    ...overrides,
  };
  const parts = await operatorControllerSetup(options, defaultImplementations)({ options: managerOptions, client, logger, metrics: createMetrics({ defaultMetrics: false }) });
  const run = await runParts(parts, { client, sandbox });
  const handle: RunningOperatorController = {
    parts,
    logs,
    async stop() {
      running.delete(handle);
      await run.stop();
    },
  };
  running.add(handle);
  return handle;
}

// ---------------------------------------------------------------------------------------------
// ClusterExtensions

export interface ExtensionSpec {
  readonly namespace: string;
  readonly packageName: string;
  readonly version?: string;
  readonly channels?: readonly string[];
  readonly catalogName?: string;
  readonly upgradeConstraintPolicy?: 'CatalogProvided' | 'SelfCertified';
  readonly serviceAccount?: string;
  readonly crdUpgradeSafety?: 'None' | 'Strict';
  /** `spec.config.inline` (experimental CRD only). */
  readonly config?: Record<string, unknown>;
}

export function extensionManifest(name: string, s: ExtensionSpec): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    spec: {
      namespace: s.namespace,
      ...(s.serviceAccount && { serviceAccount: { name: s.serviceAccount } }),
      source: {
        sourceType: 'Catalog',
        catalog: {
          packageName: s.packageName,
          ...(s.version && { version: s.version }),
          ...(s.channels && { channels: [...s.channels] }),
          ...(s.upgradeConstraintPolicy && { upgradeConstraintPolicy: s.upgradeConstraintPolicy }),
          ...(s.catalogName && { selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': s.catalogName } } }),
        },
      },
      ...(s.crdUpgradeSafety && { install: { preflight: { crdUpgradeSafety: { enforcement: s.crdUpgradeSafety } } } }),
      ...(s.config && { config: { configType: 'Inline', inline: s.config } }),
    },
  };
}

const CE_PATH = '/apis/olm.operatorframework.io/v1/clusterextensions';

export async function applyExtension(name: string, s: ExtensionSpec): Promise<void> {
  const kube = adminKube();
  const body = extensionManifest(name, s);
  const res = await kube.request('PATCH', `${CE_PATH}/${name}?fieldManager=e2e&force=true`, body, 'application/apply-patch+yaml');
  if (res.status >= 300) throw new Error(`apply ClusterExtension ${name}: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function getExtension(name: string): Promise<ClusterExtension | undefined> {
  const res = await adminKube().request('GET', `${CE_PATH}/${name}`);
  return res.status === 404 ? undefined : (res.body as unknown as ClusterExtension);
}

export async function deleteExtension(name: string): Promise<void> {
  await adminKube().request('DELETE', `${CE_PATH}/${name}`);
}

export const extCondition = (ext: ClusterExtension | undefined, type: string): Condition | undefined => ext?.status?.conditions?.find((c) => c.type === type);

export async function waitForExtension(name: string, what: string, ok: (e: ClusterExtension) => boolean, timeoutMs = 60_000): Promise<ClusterExtension> {
  let last: ClusterExtension | undefined;
  const met = await poll(async () => !!(last = await getExtension(name)) && ok(last), { timeoutMs, intervalMs: 250 });
  if (!met) throw new Error(`ClusterExtension ${name} never became ${what}; last status: ${JSON.stringify(last?.status ?? null)}`);
  return last!;
}

export const installedBundle = (name: string) => (e: ClusterExtension): boolean =>
  e.status?.install?.bundle.name === name && extCondition(e, 'Installed')?.status === 'True' && extCondition(e, 'Progressing')?.reason === 'Succeeded';

export const progressingWith = (reason: string, message: RegExp | string) => (e: ClusterExtension): boolean => {
  const c = extCondition(e, 'Progressing');
  if (!c || c.reason !== reason) return false;
  return typeof message === 'string' ? c.message.includes(message) : message.test(c.message);
};

/** The revision Secrets of extension `ext`: every head's chunks present, and no chunk without its head. */
export async function revisionProblems(ext: string): Promise<string[]> {
  const r = await adminKube().must<{ items: { metadata: { name: string; annotations?: Record<string, string> } }[] }>(
    adminKube().request('GET', `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${ext}`)}`),
  );
  const present = new Set(r.items.map((s) => s.metadata.name));
  const problems: string[] = [];
  for (const s of r.items) {
    const chunks = s.metadata.annotations?.['olm.operatorframework.io/revision-chunks'];
    if (chunks !== undefined) {
      for (let i = 0; i < Number(chunks); i++) if (!present.has(`${s.metadata.name}.${i}`)) problems.push(`head ${s.metadata.name} misses chunk ${i}`);
    } else if (!present.has(s.metadata.name.replace(/\.\d+$/, ''))) problems.push(`chunk ${s.metadata.name} has no head`);
  }
  return problems;
}

export async function waitGone(name: string, timeoutMs = 60_000): Promise<void> {
  if (!(await poll(async () => !(await getExtension(name)), { timeoutMs, intervalMs: 250 }))) throw new Error(`ClusterExtension ${name} was not deleted`);
}

// ---------------------------------------------------------------------------------------------
// One e2e file's environment

export interface Suite {
  /** A fresh namespace for the file's extensions (set in beforeAll). */
  readonly namespace: () => string;
  /** The operator-controller of the file (set in beforeAll). */
  readonly controller: () => RunningOperatorController;
  /** Applies a ClusterExtension and deletes it (waiting for its finalizer) after the file. */
  install(name: string, spec: ExtensionSpec): Promise<void>;
  /** Pushes a catalog image of `pkg` listing `entries` and creates a ClusterCatalog for it; waits for Serving. */
  serveCatalog(pkg: string, entries: readonly CatalogEntry[], opts?: { readonly tag?: string; readonly poll?: boolean }): Promise<{ catalog: string; tag: string }>;
}

/**
 * Registers beforeAll/afterAll for an e2e file: catalogd and operator-controller in process, a
 * namespace; afterwards extensions, catalogs and processes are cleaned up. Deployments roll out
 * through the cluster's own controllers and nodes.
 */
export function operatorControllerSuite(
  prefix: string,
  hooks: {
    readonly before?: () => Promise<void>;
    readonly after?: () => Promise<void>;
    readonly controller?: Partial<OperatorControllerOptions>;
    /** Do cert-manager's part for owned Issuers and Certificates (default false; cert-manager is not part of the cluster). */
    readonly certManager?: boolean;
  } = {},
): Suite {
  const catalogs = new Set<string>();
  const extensions = new Set<string>();
  let stopCertManager: (() => Promise<void>) | undefined;
  let namespace = '';
  let controller: RunningOperatorController | undefined;
  beforeAll(async () => {
    await hooks.before?.();
    await startCatalogd();
    controller = await startOperatorController(hooks.controller);
    if (hooks.certManager) stopCertManager = simulateCertManager();
    namespace = await adminKube().namespace(prefix);
  });
  afterAll(async () => {
    for (const e of extensions) await deleteExtension(e);
    for (const e of extensions) await waitGone(e).catch(() => undefined);
    await deleteCatalogs(catalogs);
    await stopCertManager?.();
    await stopAllOperatorControllers();
    await stopAll();
    await releaseFinalizers();
    // The namespace controller removes what is left in the file's namespace.
    if (namespace) await adminKube().request('DELETE', `/api/v1/namespaces/${namespace}`);
    await hooks.after?.();
  });
  return {
    namespace: () => namespace,
    controller: () => controller!,
    async install(name, spec) {
      extensions.add(name);
      await applyExtension(name, spec);
    },
    async serveCatalog(pkg, entries, opts = {}) {
      const tag = opts.tag ?? `catalogs/${pkg}:latest`;
      const pushed = await pushCatalogImage(registry(), tag, { files: catalogFiles(pkg, entries) });
      const catalog = uniqueName(pkg);
      catalogs.add(catalog);
      await createCatalog(catalog, { ref: pushed.ref, ...(opts.poll && { pollIntervalMinutes: 1 }) });
      await waitForCatalog(catalog, 'Serving', serving);
      return { catalog, tag };
    },
  };
}

/** cert-manager's Certificate and Issuer CRDs (the kinds of the default webhook certificate provider); idempotent. */
export async function installCertManagerCrds(): Promise<void> {
  for (const crd of certManagerCrds()) {
    const r = await adminKube().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (r.status !== 201 && r.status !== 409) throw new Error(`cert-manager CRD ${crd.metadata.name}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/** Removes cert-manager's CRDs and waits until discovery no longer serves cert-manager.io/v1. */
export async function removeCertManagerCrds(): Promise<void> {
  for (const plural of ['certificates', 'issuers']) await adminKube().request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.cert-manager.io`);
  const gone = await poll(async () => (await adminKube().request('GET', '/apis/cert-manager.io/v1')).status === 404, { timeoutMs: 60_000, intervalMs: 250 });
  if (!gone) throw new Error('cert-manager.io/v1 is still served');
}
