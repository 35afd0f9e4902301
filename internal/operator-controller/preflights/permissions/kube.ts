// The PermissionSource over the API server: SubjectAccessReviews, the client's REST mapper and
// role reads.
import type { KubeObject } from '../../../../api/meta/v1.ts';
import { ignoreNotFound, type KubeClient } from '../../../shared/kube/index.ts';
import type { PermissionSource } from './preflight.ts';
import type { Attributes, PolicyRule } from './rules.ts';

interface SubjectAccessReview extends KubeObject {
  status?: { allowed?: boolean; denied?: boolean; evaluationError?: string };
}

/** Asks with `client`'s identity, which needs `create subjectaccessreviews` and `get` on roles and clusterroles. */
export function kubePermissionSource(client: KubeClient): PermissionSource {
  return {
    async allowed(user: string, a: Attributes, signal: AbortSignal): Promise<boolean> {
      const spec: Record<string, unknown> = { user };
      if (a.kind === 'nonResource') spec['nonResourceAttributes'] = { path: a.path, verb: a.verb };
      else {
        const [resource, subresource] = a.resource.split('/', 2);
        spec['resourceAttributes'] = {
          verb: a.verb,
          group: a.group,
          version: a.version,
          resource,
          ...(subresource && { subresource }),
          ...(a.namespace && { namespace: a.namespace }),
          ...(a.name && { name: a.name }),
        };
      }
      const review = await client.create<SubjectAccessReview>(
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec },
        { signal },
      );
      return review.status?.allowed === true;
    },
    async mapping(apiVersion: string, kind: string) {
      const m = await client.mapping(apiVersion, kind);
      return { group: m.group, version: m.version, resource: m.resource, namespaced: m.namespaced };
    },
    async roleRules(kind, namespace, name, signal): Promise<PolicyRule[] | undefined> {
      const role = await ignoreNotFound(client.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, name, ...(kind === 'Role' && { namespace }) }, { signal }));
      return role && ((role['rules'] as PolicyRule[] | undefined) ?? []);
    },
  };
}
