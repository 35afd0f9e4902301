// Shared parts of the applier's integration tests: clients, namespaces, a hand-written bundle
// (the renderer is tested elsewhere), a stand-in for the Deployment controller (this control plane
// runs no kube-controller-manager), and what an extension owns on the cluster.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { RevisionApplier, RevisionSecretType, type RevisionApplierOptions } from '../../../internal/operator-controller/applier/index.ts';
import type { BundleRef } from '../../../internal/operator-controller/controller/index.ts';
import { KubeClient, isNotFound, type ApplyOptions, type DeleteOptions, type ObjectRef, type PatchOptions, type PatchType, type WriteOptions } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { poll } from '../../support/net.ts';
import { widgetCrdWithSchema } from '../../support/bundles.ts';

export const adminClient = (): Promise<KubeClient> => KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });

export const suffix = (): string => Math.random().toString(36).slice(2, 8);

export async function createNamespace(client: KubeClient, prefix: string): Promise<string> {
  const name = `${prefix}-${suffix()}`;
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

export function extension(name: string, namespace: string, serviceAccount?: string): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, uid: `uid-${name}` },
    spec: {
      namespace,
      ...(serviceAccount && { serviceAccount: { name: serviceAccount } }),
      source: { sourceType: 'Catalog', catalog: { packageName: 'widgets' } },
    },
  } as ClusterExtension;
}

export const bundleRef = (version: string): BundleRef => ({
  package: 'widgets',
  name: `widgets.v${version}`,
  version,
  image: `registry.test/widgets-bundle@sha256:${version.replace(/\D/g, '').padEnd(64, '0')}`,
});

/** A CRD `Widget` in `group`; `padding` bytes of description make it as large as wanted. */
export function widgetCrd(group: string, padding = ''): KubeObject {
  const free = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return widgetCrdWithSchema(group, { type: 'object', ...(padding && { description: padding }), properties: { spec: free } });
}

export interface BundleOptions {
  readonly ns: string;
  readonly group: string;
  /** Distinguishes object names between versions, so an upgrade has something to prune. */
  readonly version: string;
  readonly crdPadding?: string;
  readonly configData?: Record<string, string>;
}

/** The objects a small operator bundle renders to, one or more per phase. */
export function bundleObjects(o: BundleOptions): KubeObject[] {
  const v = o.version.replace(/\./g, '-');
  const labels = { app: `widgets-${o.ns}` };
  return [
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'widgets-operator', namespace: o.ns }, spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { serviceAccountName: 'widgets-operator', containers: [{ name: 'manager', image: `registry.test/widgets:${o.version}` }] } },
    } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'widgets-operator', namespace: o.ns } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `widgets-config-${v}`, namespace: o.ns }, data: o.configData ?? { version: o.version } },
    widgetCrd(o.group, o.crdPadding),
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `widgets-${o.ns}-${v}` }, rules: [{ apiGroups: [o.group], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `widgets-${o.ns}-${v}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `widgets-${o.ns}-${v}` },
      subjects: [{ kind: 'ServiceAccount', name: 'widgets-operator', namespace: o.ns }] },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'widgets-metrics', namespace: o.ns }, spec: { selector: labels, ports: [{ port: 8443, targetPort: 8443 }] } },
    // A custom resource of the bundle's own CRD: applied after the CRD is Established.
    { apiVersion: `${o.group}/v1`, kind: 'Widget', metadata: { name: `default-${v}`, namespace: o.ns }, spec: { size: 1 } },
  ];
}

/** Plays the Deployment controller: reports the Deployment rolled out and Available. */
/**
 * Waits until the cluster's deployment controller has rolled the Deployment out, as `kubectl rollout
 * status` decides it: the current generation observed, every replica updated, no old replica left,
 * every updated replica available (Pods Running and Ready on KWOK nodes), Available=True.
 */
export async function waitForRollout(client: KubeClient, ns: string, name = 'widgets-operator'): Promise<void> {
  type RolloutStatus = {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    conditions?: { type: string; status: string }[];
  };
  let status: RolloutStatus = {};
  const rolledOut = async (): Promise<boolean> => {
    const d = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name });
    const want = ((d['spec'] ?? {}) as { replicas?: number }).replicas ?? 1;
    status = (d['status'] ?? {}) as RolloutStatus;
    return (
      (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 1) &&
      status.updatedReplicas === want &&
      status.replicas === want &&
      status.availableReplicas === want &&
      (status.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True')
    );
  };
  if (!(await poll(rolledOut, { timeoutMs: 60_000, intervalMs: 100 }))) throw new Error(`Deployment ${ns}/${name} not rolled out after 60 s: ${JSON.stringify(status)}`);
}

export async function getOrUndefined(client: KubeClient, ref: ObjectRef): Promise<KubeObject | undefined> {
  try {
    return await client.get(ref);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const KINDS: readonly { apiVersion: string; kind: string; namespaced: boolean }[] = [
  { apiVersion: 'v1', kind: 'ServiceAccount', namespaced: true },
  { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true },
  { apiVersion: 'v1', kind: 'Service', namespaced: true },
  { apiVersion: 'apps/v1', kind: 'Deployment', namespaced: true },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespaced: false },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespaced: false },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespaced: false },
];

/** `Kind/[ns/]name` of every object of the test kinds carrying the extension's owner label (plus Widgets of `group`). */
export async function ownedObjects(client: KubeClient, ext: string, group?: string): Promise<string[]> {
  const selector = `olm.operatorframework.io/owner-kind=ClusterExtension,olm.operatorframework.io/owner-name=${ext}`;
  const kinds = group ? [...KINDS, { apiVersion: `${group}/v1`, kind: 'Widget', namespaced: true }] : KINDS;
  const out: string[] = [];
  for (const k of kinds) {
    let items: KubeObject[] = [];
    try {
      items = (await client.list({ apiVersion: k.apiVersion, kind: k.kind }, { labelSelector: selector })).items;
    } catch (err) {
      if ((err as Error).name !== 'NoKindMatchError' && !isNotFound(err)) throw err;
    }
    for (const i of items) if (!i.metadata.deletionTimestamp) out.push(`${k.kind}/${i.metadata.namespace ? `${i.metadata.namespace}/` : ''}${i.metadata.name}`);
  }
  return out.sort();
}

/**
 * Revision records of an extension: `<head> <lifecycle>[ Succeeded][ (N chunks)]`, after checking
 * that every Secret is immutable and every head has all its chunks; a chunk without its head is
 * listed as `orphan <name>`.
 */
export async function revisionSecrets(client: KubeClient, systemNs: string, ext: string): Promise<string[]> {
  const list = await client.list<KubeObject & { type?: string; immutable?: boolean }>(
    { apiVersion: 'v1', kind: 'Secret', namespace: systemNs },
    { labelSelector: `olm.operatorframework.io/owner-name=${ext}` },
  );
  const secrets = list.items.filter((s) => s.type === RevisionSecretType);
  const isChunk = (s: KubeObject): boolean => s.metadata.labels?.['olm.operatorframework.io/revision-chunk'] !== undefined;
  const chunks = new Set(secrets.filter(isChunk).map((s) => s.metadata.name!));
  const out: string[] = [];
  for (const s of secrets) {
    if (!s.immutable) throw new Error(`revision Secret ${s.metadata.name} is not immutable`);
    if (isChunk(s)) continue;
    const a = s.metadata.annotations ?? {};
    const n = Number(a['olm.operatorframework.io/revision-chunks']);
    for (let i = 0; i < n; i++) {
      if (!chunks.delete(`${s.metadata.name}.${i}`)) throw new Error(`revision ${s.metadata.name} lacks chunk ${i}`);
    }
    out.push(`${s.metadata.name} ${a['olm.operatorframework.io/lifecycle-state']}${a['olm.operatorframework.io/succeeded'] === 'True' ? ' Succeeded' : ''}${n > 1 ? ` (${n} chunks)` : ''}`);
  }
  for (const c of chunks) out.push(`orphan ${c}`);
  return out.sort();
}

export const expectedObjects = (o: BundleOptions, withWidget = true): string[] => {
  const v = o.version.replace(/\./g, '-');
  return [
    `ClusterRole/widgets-${o.ns}-${v}`,
    `ClusterRoleBinding/widgets-${o.ns}-${v}`,
    `ConfigMap/${o.ns}/widgets-config-${v}`,
    `CustomResourceDefinition/widgets.${o.group}`,
    `Deployment/${o.ns}/widgets-operator`,
    `Service/${o.ns}/widgets-metrics`,
    `ServiceAccount/${o.ns}/widgets-operator`,
    ...(withWidget ? [`Widget/${o.ns}/default-${v}`] : []),
  ].sort();
};

export type Write = { readonly verb: string; readonly what: string };

/**
 * A client that records every write, and can abort a signal just before its n-th write (the
 * write then fails as a killed process's would have: it never reaches the server).
 */
export class RecordingClient extends KubeClient {
  readonly writes: Write[] = [];
  abortBefore: { readonly n: number; readonly controller: AbortController } | undefined;

  static from(base: KubeClient): RecordingClient {
    return new RecordingClient(base.connection, base.mapper);
  }

  #count(verb: string, what: string): void {
    if (this.abortBefore && this.writes.length + 1 >= this.abortBefore.n) {
      this.abortBefore.controller.abort(new Error(`killed before write ${this.abortBefore.n}`));
      throw new Error(`killed before write ${this.abortBefore.n}: ${verb} ${what}`);
    }
    this.writes.push({ verb, what });
  }

  override apply<T extends KubeObject = KubeObject>(obj: KubeObject, options: ApplyOptions): Promise<T> {
    this.#count('apply', `${obj.kind}/${obj.metadata.name}`);
    return super.apply<T>(obj, options);
  }

  override create<T extends KubeObject = KubeObject>(obj: T, options?: WriteOptions): Promise<T> {
    this.#count('create', `${obj.kind}/${obj.metadata.name}`);
    return super.create<T>(obj, options);
  }

  override patch<T extends KubeObject = KubeObject>(ref: ObjectRef, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T> {
    this.#count('patch', `${ref.kind}/${ref.name}`);
    return super.patch<T>(ref, type, patch, options);
  }

  override delete<T extends KubeObject = KubeObject>(ref: ObjectRef, options?: DeleteOptions): Promise<T | undefined> {
    this.#count('delete', `${ref.kind}/${ref.name}`);
    return super.delete<T>(ref, options);
  }
}

export function newApplier(client: KubeClient, systemNamespace: string, extra: Partial<RevisionApplierOptions> = {}): RevisionApplier {
  return new RevisionApplier({ client, systemNamespace, crdEstablishedTimeoutMs: 20_000, ...extra });
}

/**
 * Uninstalls as the controller does: calls `uninstall` again while it reports objects still being
 * deleted (each call waits a few seconds; a CRD whose custom resources go first can take longer on
 * a busy machine), until `timeoutMs`, then fails with the last "waiting for …" message. An error
 * (e.g. Forbidden) reaches the caller at once.
 */
export async function uninstallFully(applier: RevisionApplier, ext: ClusterExtension, timeoutMs = 120_000): Promise<void> {
  const never = new AbortController().signal;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await applier.uninstall(ext, never);
    if (outcome.done) return;
    if (Date.now() >= deadline) throw new Error(`uninstall of ${ext.metadata.name} not done after ${timeoutMs}ms: ${outcome.message}`);
  }
}
