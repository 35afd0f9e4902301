// The informers behind the installer identity: ServiceAccounts (whose cache answers "does it exist") and the four
// RBAC kinds, each object slimmed to its name before it is cached, and every change mapped to the extensions it
// could unblock (requeue.ts) so they are reconciled at once rather than after their backoff.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { informers, type Informer, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import type { InstallerIdentity } from '../controller/index.ts';
import { cachedServiceAccounts } from './identity.ts';
import { extensionsToRequeue, type IdentityChange } from './requeue.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';
const KINDS: readonly { apiVersion: string; kind: IdentityChange['kind'] }[] = [
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: RBAC, kind: 'Role' },
  { apiVersion: RBAC, kind: 'ClusterRole' },
  { apiVersion: RBAC, kind: 'RoleBinding' },
  { apiVersion: RBAC, kind: 'ClusterRoleBinding' },
];

/** Only what identifies the object: rules, subjects and secrets are never kept. */
export function slimToName<T extends KubeObject>(obj: T): T {
  const { name, namespace, uid, resourceVersion } = obj.metadata;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { name, ...(namespace !== undefined && { namespace }), ...(uid !== undefined && { uid }), ...(resourceVersion !== undefined && { resourceVersion }) },
  } as T;
}

export interface InstallerWatchesOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  /** The cached ClusterExtensions. */
  readonly extensions: () => readonly ClusterExtension[];
  /** Reconcile this extension now. */
  readonly enqueue: (name: string) => void;
}

export interface InstallerWatches {
  /** To start and sync with the process's other informers. */
  readonly informers: readonly Informer[];
  /** Whether `spec.serviceAccount` exists, from the ServiceAccount cache. */
  readonly identity: InstallerIdentity;
}

export function installerWatches(o: InstallerWatchesOptions): InstallerWatches {
  const informerOf = informers(o.client, o.logger);
  const watched = KINDS.map(({ apiVersion, kind }) => {
    const informer = informerOf<KubeObject>(apiVersion, kind, { transform: slimToName });
    informer.onEvent((_type, obj) => {
      const change: IdentityChange = { kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
      for (const key of extensionsToRequeue(change, o.extensions())) o.enqueue(key);
    });
    return informer;
  });
  const serviceAccounts = watched[0]!;
  return { informers: watched, identity: cachedServiceAccounts((key) => serviceAccounts.get(key)) };
}
