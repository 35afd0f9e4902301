// clusterRequirements: the requirement check's view of the cluster (RequirementSource of requirements.ts) over the
// shared caches, discovery and live reads.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { NAMESPACE_INDEX, isNoKindMatch, ignoreNotFound, type KubeClient } from '../../shared/kube/index.ts';
import { realClock, type Clock } from '../../shared/toolkit/index.ts';
import type { CachedCRD, OlmCaches } from '../olmcache/index.ts';
import type { CRDInfo, RequirementSource } from './requirements.ts';

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
      const svc = await ignoreNotFound(client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name }));
      return svc && { ...(svc.metadata.uid && { uid: svc.metadata.uid }), available: (svc.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True') };
    },
    serviceAccount: (namespace, name) => caches.serviceAccounts.get(`${namespace}/${name}`),
    rbac: {
      role: (namespace, name) => caches.roles.get(`${namespace}/${name}`) as never,
      clusterRole: (name) => caches.clusterRoles.get(name) as never,
      roles: (namespace) => caches.roles.byIndex(NAMESPACE_INDEX, namespace) as never,
      clusterRoles: () => caches.clusterRoles.list() as never,
      roleBindings: (namespace) => caches.roleBindings.byIndex(NAMESPACE_INDEX, namespace) as never,
      clusterRoleBindings: () => caches.clusterRoleBindings.list() as never,
    },
  };
}
