// The service-account permission preflight (operator-controller's historical PreflightPermissions,
// olmv1.md §5.5): before applying, ask the authorizer whether `system:serviceaccount:<ns>:<sa>` may
// do everything the apply needs, and report every missing rule at once.
import type { KubeObject } from '../../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import { mapLimit } from '../../../shared/controller/index.ts';
import type { InstallPreflight } from '../../controller/index.ts';
import {
  attributesKey,
  breakdownRule,
  compactRules,
  preAuthorizationMessage,
  ruleFromAttributes,
  type Attributes,
  type PolicyRule,
  type ScopedPolicyRules,
} from './rules.ts';

/** What the preflight needs from the cluster. */
export interface PermissionSource {
  /** Whether `user` (no groups) may do `attributes` (a SubjectAccessReview). */
  allowed(user: string, attributes: Attributes, signal: AbortSignal): Promise<boolean>;
  /** apiVersion + kind → group, version, plural resource and scope; throws when the kind is unknown. */
  mapping(apiVersion: string, kind: string): Promise<ResourceScope>;
  /** The rules of an existing ClusterRole (`namespace` '') or Role; `undefined` when it does not exist. */
  roleRules(kind: 'ClusterRole' | 'Role', namespace: string, name: string, signal: AbortSignal): Promise<PolicyRule[] | undefined>;
}

/** A kind's resource and whether its objects live in a namespace (cluster-scoped ones never do). */
export interface ResourceScope {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

export class PermissionPreflightError extends Error {
  override readonly name = 'PermissionPreflightError';
}

/** Verbs on each named object, in the object's namespace. */
const OBJECT_VERBS = ['get', 'patch', 'update', 'delete'];
/** Verbs on the collection, per namespace holding objects of the resource. */
const NAMESPACED_COLLECTION_VERBS = ['create'];
/** Verbs on the collection cluster-wide (the tracking cache watches everywhere). */
const CLUSTER_COLLECTION_VERBS = ['list', 'watch'];

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];
/** SubjectAccessReviews in flight at once. */
const CONCURRENCY = 4;

interface RbacRole {
  readonly namespace: string;
  readonly name: string;
  readonly rules: PolicyRule[];
  readonly aggregated: boolean;
}
interface RbacBinding {
  readonly namespace: string;
  readonly roleRef: { kind: string; name: string };
}

export class PermissionPreflight implements InstallPreflight {
  readonly #source: PermissionSource;

  constructor(source: PermissionSource) {
    this.#source = source;
  }

  async check(ext: ClusterExtension, objects: readonly KubeObject[], signal: AbortSignal): Promise<void> {
    const message = await this.evaluate(ext, objects, signal);
    if (message !== undefined) throw new PermissionPreflightError(message);
  }

  /** The failure message, or `undefined` when the service account may do it all (or none is set). */
  async evaluate(ext: ClusterExtension, objects: readonly KubeObject[], signal: AbortSignal): Promise<string | undefined> {
    const sa = ext.spec?.serviceAccount?.name;
    if (!sa) return undefined; // the controller's own identity applies
    const user = `system:serviceaccount:${ext.spec?.namespace ?? ''}:${sa}`;

    let requests: Attributes[];
    try {
      requests = await this.#requests(ext, objects);
    } catch (err) {
      return preAuthorizationMessage([], (err as Error).message);
    }

    const missing = new Map<string, PolicyRule[]>();
    const addMissing = (namespace: string, rules: PolicyRule[]): void => {
      if (rules.length > 0) missing.set(namespace, [...(missing.get(namespace) ?? []), ...rules]);
    };
    const evaluationErrors: string[] = [];
    const ask = this.#asker(user, signal, evaluationErrors);

    for (const [a, ok] of await ask(requests)) {
      if (!ok) addMissing(a.kind === 'resource' ? a.namespace : '', [ruleFromAttributes(a)]);
    }
    for (const [namespace, rules] of await this.#escalationMissing(objects, ask, evaluationErrors, signal)) addMissing(namespace, rules);

    const scoped: ScopedPolicyRules[] = [...missing].map(([namespace, rules]) => ({ namespace, missingRules: compactRules(rules) }));
    const evaluationError =
      evaluationErrors.length > 0
        ? `missing rules may be incomplete: failed to resolve or evaluate permissions: ${evaluationErrors.join('\n')}`
        : undefined;
    return preAuthorizationMessage(scoped, evaluationError);
  }

  /** Every request the apply makes, per resource (in first-seen order), de-duplicated. */
  async #requests(ext: ClusterExtension, objects: readonly KubeObject[]): Promise<Attributes[]> {
    const byResource = new Map<string, { group: string; version: string; resource: string; namespaced: boolean; objects: KubeObject[] }>();
    const errors: string[] = [];
    for (const [i, obj] of objects.entries()) {
      const apiVersion = obj.apiVersion ?? '';
      const kind = obj.kind ?? '';
      const mapping = await this.#source.mapping(apiVersion, kind).catch((err: unknown) => {
        const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
        const name = obj.metadata.name ? ` (name: ${obj.metadata.name})` : '';
        errors.push(`could not get REST mapping for object ${i} in manifest with GVK ${group}/${version}, Kind=${kind}${name}: ${(err as Error).message}`);
      });
      if (!mapping) continue;
      const key = `${mapping.group}/${mapping.version}/${mapping.resource}`;
      const entry = byResource.get(key) ?? { ...mapping, objects: [] };
      entry.objects.push(obj);
      byResource.set(key, entry);
    }
    if (errors.length > 0) throw new Error(errors.join('\n'));

    const requests = new Map<string, Attributes>();
    const add = (a: Attributes): void => {
      const key = attributesKey(a);
      if (!requests.has(key)) requests.set(key, a);
    };
    for (const { group, version, resource, namespaced, objects: objs } of byResource.values()) {
      const namespaces = new Set<string>();
      for (const obj of objs) {
        // A cluster-scoped object is asked about (and reported) at cluster scope, whatever namespace its manifest
        // carries: the API server ignores it there, and a RoleBinding in that namespace could not grant it.
        const namespace = namespaced ? (obj.metadata.namespace ?? '') : '';
        namespaces.add(namespace);
        for (const verb of OBJECT_VERBS) add({ kind: 'resource', verb, namespace, group, version, resource, name: obj.metadata.name ?? '' });
      }
      for (const namespace of [...namespaces].sort()) {
        for (const verb of NAMESPACED_COLLECTION_VERBS) add({ kind: 'resource', verb, namespace, group, version, resource, name: '' });
      }
      for (const verb of CLUSTER_COLLECTION_VERBS) add({ kind: 'resource', verb, namespace: '', group, version, resource, name: '' });
    }
    add({
      kind: 'resource',
      verb: 'update',
      namespace: '',
      group: 'olm.operatorframework.io',
      version: 'v1',
      resource: 'clusterextensions/finalizers',
      name: ext.metadata.name ?? '',
    });
    return [...requests.values()];
  }

  /**
   * Runs the requests with bounded concurrency; a failed review is recorded and counts as allowed, so no call
   * throws and `mapLimit` runs every request.
   */
  #asker(user: string, signal: AbortSignal, errors: string[]) {
    return (requests: readonly Attributes[]): Promise<[Attributes, boolean][]> =>
      mapLimit(requests, CONCURRENCY, async (a): Promise<[Attributes, boolean]> => {
        try {
          return [a, await this.#source.allowed(user, a, signal)];
        } catch (err) {
          errors.push((err as Error).message);
          return [a, true];
        }
      });
  }

  /**
   * RBAC objects in the manifest may only grant what the service account holds (or may `escalate` /
   * `bind`): the rules it would be granting without holding them, per namespace of the RBAC object.
   */
  async #escalationMissing(
    objects: readonly KubeObject[],
    ask: (requests: readonly Attributes[]) => Promise<[Attributes, boolean][]>,
    errors: string[],
    signal: AbortSignal,
  ): Promise<Map<string, PolicyRule[]>> {
    const roles: (RbacRole & { kind: 'ClusterRole' | 'Role' })[] = [];
    const bindings: (RbacBinding & { kind: 'ClusterRoleBinding' | 'RoleBinding' })[] = [];
    for (const obj of objects) {
      if (!obj.apiVersion?.startsWith(`${RBAC_GROUP}/`)) continue;
      const namespace = obj.metadata.namespace ?? '';
      const name = obj.metadata.name ?? '';
      if (obj.kind === 'ClusterRole' || obj.kind === 'Role') {
        const selectors = (obj['aggregationRule'] as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors;
        const rules = (obj['rules'] as PolicyRule[] | undefined) ?? [];
        roles.push({ kind: obj.kind, namespace: obj.kind === 'Role' ? namespace : '', name, rules, aggregated: obj.kind === 'ClusterRole' && (selectors?.length ?? 0) > 0 });
      } else if (obj.kind === 'ClusterRoleBinding' || obj.kind === 'RoleBinding') {
        const roleRef = (obj['roleRef'] as { kind?: string; name?: string } | undefined) ?? {};
        bindings.push({ kind: obj.kind, namespace: obj.kind === 'RoleBinding' ? namespace : '', roleRef: { kind: roleRef.kind ?? '', name: roleRef.name ?? '' } });
      }
    }
    const missing = new Map<string, PolicyRule[]>();
    const notHeld = async (namespace: string, rules: readonly PolicyRule[]): Promise<void> => {
      const answers = await ask(rules.flatMap((rule) => breakdownRule(rule, namespace)));
      const denied = answers.filter(([, ok]) => !ok).map(([a]) => ruleFromAttributes(a));
      if (denied.length > 0) missing.set(namespace, [...(missing.get(namespace) ?? []), ...denied]);
    };
    const allowedTo = async (a: Attributes): Promise<boolean> => (await ask([a]))[0]![1];

    for (const role of roles) {
      const resource = role.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
      if (await allowedTo({ kind: 'resource', verb: 'escalate', namespace: role.namespace, group: RBAC_GROUP, version: '*', resource, name: '' })) continue;
      // An aggregationRule can gather anything, so setting one takes * on *.*.
      await notHeld(role.namespace, role.aggregated ? [...FULL_AUTHORITY, ...role.rules] : role.rules);
    }
    for (const binding of bindings) {
      const refKind = binding.roleRef.kind === 'ClusterRole' ? 'ClusterRole' : 'Role';
      const resource = refKind === 'ClusterRole' ? 'clusterroles' : 'roles';
      const bind: Attributes = { kind: 'resource', verb: 'bind', namespace: binding.namespace, group: RBAC_GROUP, version: '*', resource, name: binding.roleRef.name };
      if (await allowedTo(bind)) continue;
      const refNamespace = refKind === 'Role' ? binding.namespace : '';
      const rules: PolicyRule[] = [];
      try {
        rules.push(...((await this.#source.roleRules(refKind, refNamespace, binding.roleRef.name, signal)) ?? []));
      } catch (err) {
        errors.push((err as Error).message);
      }
      const fromManifest = roles.find((r) => r.kind === refKind && r.name === binding.roleRef.name && r.namespace === refNamespace);
      if (fromManifest) rules.push(...fromManifest.rules);
      await notHeld(binding.namespace, rules);
    }
    return missing;
  }
}
