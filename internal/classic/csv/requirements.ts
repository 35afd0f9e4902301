// A CSV's requirements and its service accounts' permissions, as `status.requirementStatus` (upstream's
// requirementAndPermissionStatus in olm/requirements.go): minKubeVersion, owned and required CRDs, required and
// owned APIServices, nativeAPIs, then per service account every permission rule. Messages are upstream's.
import {
  ClusterServiceVersionKind,
  DependentStatusReasonNotSatisfied,
  OwnerKindLabel,
  OwnerLabel,
  OwnerNamespaceLabel,
  DependentStatusReasonSatisfied,
  RequirementStatusReasonNotAvailable,
  RequirementStatusReasonNotPresent,
  RequirementStatusReasonPresent,
  RequirementStatusReasonPresentNotSatisfied,
  type ClusterServiceVersion,
  type DependentStatus,
  type RequirementStatus,
  type StrategyDeploymentPermissions,
} from '../../../api/operators/index.ts';
import { goPolicyRule } from '../../shared/registryv1/index.ts';
import { tryOr } from '../../shared/toolkit/index.ts';
import { bindingHash, ContentHashLabelKey, rulesHash } from '../subscription/index.ts';
import { isCopied } from './phase.ts';
import { rulesFor, ruleSatisfied, serviceAccountUser, type RbacSource } from './rbac.ts';

/** What the requirement check needs of a CRD (an informer keeps only this). */
export interface CRDInfo {
  readonly uid?: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly versions: readonly { readonly name: string; readonly served: boolean }[];
  readonly established: boolean;
  readonly namesAccepted: boolean;
}

export interface ServiceAccountInfo {
  readonly metadata: { readonly uid?: string; readonly ownerReferences?: readonly { kind?: string; uid?: string }[] };
}

/** The cluster as the requirement check reads it. */
export interface RequirementSource {
  /** The API server's gitVersion (`v1.36.3`); throws when discovery fails. */
  serverVersion(): Promise<string>;
  crd(name: string): CRDInfo | undefined;
  csv(namespace: string, name: string): ClusterServiceVersion | undefined;
  /** Whether discovery serves the kind in group/version. */
  gvkRegistered(group: string, version: string, kind: string): Promise<boolean>;
  /** An APIService: its uid and whether its Available condition is True; undefined when absent. */
  apiService(name: string): Promise<{ readonly uid?: string; readonly available: boolean } | undefined>;
  serviceAccount(namespace: string, name: string): ServiceAccountInfo | undefined;
  readonly rbac: RbacSource;
}

export interface RequirementResult {
  readonly met: boolean;
  readonly statuses: RequirementStatus[];
}

/** coreos/go-semver: `X.Y.Z[-pre][+meta]`, numbers as Go's ParseInt. */
function coreosVersion(text: string): { nums: [number, number, number]; pre: string } {
  let v = text;
  const plus = v.indexOf('+');
  if (plus >= 0) v = v.slice(0, plus);
  let pre = '';
  const dash = v.indexOf('-');
  if (dash >= 0) {
    pre = v.slice(dash + 1);
    v = v.slice(0, dash);
  }
  const parts = v.split('.');
  if (parts.length !== 3) throw new Error(`${text} is not in dotted-tri format`);
  const nums = parts.map((p) => {
    if (!/^[+-]?\d+$/.test(p)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(p)}: invalid syntax`);
    return Number(p);
  }) as [number, number, number];
  return { nums, pre };
}

function compareCoreos(a: ReturnType<typeof coreosVersion>, b: ReturnType<typeof coreosVersion>): number {
  for (let i = 0; i < 3; i++) if (a.nums[i] !== b.nums[i]) return a.nums[i]! < b.nums[i]! ? -1 : 1;
  if (a.pre === b.pre) return 0;
  if (a.pre === '') return 1;
  if (b.pre === '') return -1;
  return a.pre < b.pre ? -1 : 1;
}

export async function minKubeVersionStatus(src: Pick<RequirementSource, 'serverVersion'>, name: string, minKubeVersion: string | undefined): Promise<RequirementResult> {
  if (!minKubeVersion) return { met: true, statuses: [] };
  const base = { group: 'operators.coreos.com', version: 'v1alpha1', kind: 'ClusterServiceVersion', name };
  const notSatisfied = (message: string): RequirementResult => ({ met: false, statuses: [{ ...base, status: RequirementStatusReasonPresentNotSatisfied, message }] });
  let gitVersion: string;
  try {
    gitVersion = await src.serverVersion();
  } catch {
    return notSatisfied('Server version discovery error');
  }
  const server = tryOr(() => coreosVersion(gitVersion.replace(/^v/, '').split('-')[0]!), undefined);
  if (!server) return notSatisfied('Server version parsing error');
  const wanted = tryOr(() => coreosVersion(minKubeVersion.replace(/^v/, '')), undefined);
  if (!wanted) return notSatisfied('CSV version parsing error');
  if (compareCoreos(wanted, server) > 0) {
    return notSatisfied(`CSV version requirement not met: minKubeVersion (${minKubeVersion}) > server version (${server.nums.join('.')}${server.pre ? `-${server.pre}` : ''})`);
  }
  return {
    met: true,
    statuses: [{ ...base, status: RequirementStatusReasonPresent, message: `CSV minKubeVersion (${minKubeVersion}) less than server version (${gitVersion})` }],
  };
}

const ALONGSIDE_PREFIX = 'operatorframework.io/installed-alongside-';

/**
 * upstream's othersInstalledAlongside: the CSVs a CRD was installed alongside (annotations
 * `operatorframework.io/installed-alongside-<hash>: <ns>/<name>`) that `target` directly or transitively replaces.
 */
export function othersInstalledAlongside(crd: CRDInfo, target: ClusterServiceVersion, src: Pick<RequirementSource, 'csv'>): string[] {
  const ns = target.metadata.namespace ?? '';
  const byName = new Map<string, ClusterServiceVersion>();
  for (const [k, v] of Object.entries(crd.annotations ?? {})) {
    if (!k.startsWith(ALONGSIDE_PREFIX)) continue;
    const tokens = v.split('/');
    if (tokens.length !== 2 || tokens[0] !== ns) continue;
    if (tokens[1] === target.metadata.name) return [];
    const csv = src.csv(ns, tokens[1]!);
    if (!csv || isCopied(csv)) continue;
    byName.set(tokens[1]!, csv);
  }
  const replacees = new Map<string, string>();
  for (const [name, csv] of byName) if (csv.spec.replaces && byName.has(csv.spec.replaces)) replacees.set(name, csv.spec.replaces);
  if (target.spec.replaces) replacees.set(target.metadata.name ?? '', target.spec.replaces);
  const ancestors = new Set<string>();
  for (let current = target.metadata.name ?? ''; current !== ''; ) {
    const replacee = replacees.get(current);
    if (replacee !== undefined) ancestors.add(replacee);
    replacees.delete(current);
    current = replacee ?? '';
  }
  return [...byName.keys()].filter((n) => ancestors.has(n) && n !== target.metadata.name).sort();
}

/** CRDs, APIServices and native APIs (upstream's requirementStatus). */
export async function apiRequirementStatus(src: RequirementSource, csv: ClusterServiceVersion): Promise<RequirementResult> {
  const statuses: RequirementStatus[] = [];
  let met = true;
  const owned = new Set((csv.spec.customresourcedefinitions?.owned ?? []).map((c) => c.name));
  const all = new Map([...(csv.spec.customresourcedefinitions?.required ?? []), ...(csv.spec.customresourcedefinitions?.owned ?? [])].map((d) => [d.name, d]));
  for (const name of [...all.keys()].sort()) {
    const desc = all.get(name)!;
    const base = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name };
    const crd = src.crd(name);
    if (!crd) {
      met = false;
      statuses.push({ ...base, status: RequirementStatusReasonNotPresent, message: 'CRD is not present' });
      continue;
    }
    const others = othersInstalledAlongside(crd, csv, src);
    if (others.length > 0 && owned.has(name)) {
      met = false;
      statuses.push({ ...base, status: RequirementStatusReasonPresentNotSatisfied, message: `CRD installed alongside other CSV(s): ${others.join(', ')}` });
      continue;
    }
    const version = crd.versions.find((v) => v.name === desc.version);
    if (!version?.served) {
      met = false;
      statuses.push({ ...base, status: RequirementStatusReasonNotPresent, message: 'CRD version not served' });
      continue;
    }
    if (crd.established && crd.namesAccepted) {
      statuses.push({ ...base, status: RequirementStatusReasonPresent, message: 'CRD is present and Established condition is true', ...(crd.uid && { uuid: crd.uid }) });
    } else {
      met = false;
      statuses.push({ ...base, status: RequirementStatusReasonNotAvailable, message: 'CRD is present but the Established condition is False (not available)' });
    }
  }

  const apiServiceName = (d: { version: string; group: string }): string => `${d.version}.${d.group}`;
  const ownedAPIServices = csv.spec.apiservicedefinitions?.owned ?? [];
  const ownedNames = new Set(ownedAPIServices.map(apiServiceName));
  const required = new Map<string, { group: string; version: string; kind: string }>();
  for (const d of csv.spec.apiservicedefinitions?.required ?? []) if (!ownedNames.has(apiServiceName(d))) required.set(apiServiceName(d), d);
  for (const name of [...required.keys()].sort()) {
    const d = required.get(name)!;
    const base = { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', name, message: '' };
    const registered = await src.gvkRegistered(d.group, d.version, d.kind).catch(() => false);
    const svc = registered ? await src.apiService(name) : undefined;
    if (!svc || !svc.available) {
      met = false;
      statuses.push({ ...base, status: RequirementStatusReasonNotPresent });
      continue;
    }
    statuses.push({ ...base, status: RequirementStatusReasonPresent, ...(svc.uid && { uuid: svc.uid }) });
  }

  const deploymentNames = new Set((csv.spec.install.spec?.deployments ?? []).map((d) => d.name));
  const ownedByName = new Map(ownedAPIServices.map((d) => [d.name, d] as const));
  for (const key of [...ownedByName.keys()].sort()) {
    const d = ownedByName.get(key)!;
    const base = { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', name: apiServiceName(d), message: '' };
    if (d.deploymentName !== undefined && deploymentNames.has(d.deploymentName)) statuses.push({ ...base, status: 'DeploymentFound' });
    else {
      met = false;
      statuses.push({ ...base, status: 'DeploymentNotFound' });
    }
  }

  for (const r of csv.spec.nativeAPIs ?? []) {
    const base = { group: r.group, version: r.version, kind: r.kind, name: `${r.version}.${r.group}` };
    const ok = await src.gvkRegistered(r.group, r.version, r.kind).catch(() => false);
    if (ok) statuses.push({ ...base, status: RequirementStatusReasonPresent, message: 'Native API exists' });
    else {
      met = false;
      statuses.push({ ...base, status: RequirementStatusReasonNotPresent, message: 'Native API does not exist' });
    }
  }
  return { met, statuses };
}

const ownedByOtherCSV = (sa: ServiceAccountInfo, csv: ClusterServiceVersion): boolean => {
  const refs = sa.metadata.ownerReferences ?? [];
  return refs.some((r) => r.kind === 'ClusterServiceVersion') && !refs.some((r) => r.uid !== undefined && r.uid === csv.metadata.uid);
};

const hasLabels = (o: { metadata: { labels?: Record<string, string> } }, want: Record<string, string>): boolean =>
  Object.entries(want).every(([k, v]) => o.metadata.labels?.[k] === v);

/**
 * upstream's permissionsPreviouslyCreated (olm-operator's informers are label-filtered, so it looks for the RBAC it
 * generated first): a (Cluster)Role owned by the CSV with the rules' hash label, and a binding owned by the CSV whose
 * hash label is that of a binding of the service account to that role. As upstream, the binding's hash is always
 * computed with roleRef kind `Role` (RoleReferenceAndSubjectHashLabelValue's arguments), so OLM's own
 * ClusterRoleBindings (hashed with `ClusterRole`) never match and cluster permissions always get the rule check.
 */
function previouslyCreated(rbac: RbacSource, csv: ClusterServiceVersion, perm: StrategyDeploymentPermissions, namespace: string): boolean {
  const owner = { [OwnerLabel]: csv.metadata.name ?? '', [OwnerNamespaceLabel]: csv.metadata.namespace ?? '', [OwnerKindLabel]: ClusterServiceVersionKind };
  const roles = (namespace === '' ? rbac.clusterRoles() : rbac.roles(namespace)).filter((r) => hasLabels(r, { ...owner, [ContentHashLabelKey]: rulesHash(perm.rules) }));
  if (roles.length === 0) return false;
  const subject = { kind: 'ServiceAccount', name: perm.serviceAccountName, namespace: csv.metadata.namespace ?? '' };
  const want = { ...owner, [ContentHashLabelKey]: bindingHash('Role', roles[0]!.metadata.name ?? '', subject) };
  return (namespace === '' ? rbac.clusterRoleBindings() : rbac.roleBindings(namespace)).some((b) => hasLabels(b, want));
}

/**
 * Each service account's permissions (upstream's permissionStatus): namespaced rules in `namespace`, cluster rules
 * cluster-wide. One status per service account, in the order they first appear; each rule checked one dependent
 * (permissions OLM generated itself are met and listed nowhere: with OLM's own RBAC in place a service account lists
 * only its cluster rules, and one with only namespaced permissions is not listed).
 * Throws `rule invalid: …` for an invalid rule (the CSV's install strategy is then invalid).
 */
export function permissionStatus(
  src: Pick<RequirementSource, 'serviceAccount' | 'rbac'>,
  csv: ClusterServiceVersion,
  namespace: string,
  permissions: readonly StrategyDeploymentPermissions[],
  clusterPermissions: readonly StrategyDeploymentPermissions[],
): RequirementResult {
  const statuses = new Map<string, RequirementStatus>();
  const csvNamespace = csv.metadata.namespace ?? '';
  const check = (perms: readonly StrategyDeploymentPermissions[], scopeNamespace: string): boolean => {
    let met = true;
    for (const perm of perms) {
      const saName = perm.serviceAccountName;
      const status: RequirementStatus = statuses.get(saName) ?? { group: '', version: 'v1', kind: 'ServiceAccount', name: saName, status: RequirementStatusReasonPresent, message: '' };
      const sa = src.serviceAccount(csvNamespace, saName);
      if (!sa) {
        met = false;
        status.status = RequirementStatusReasonNotPresent;
        status.message = 'Service account does not exist';
        statuses.set(saName, status);
        continue;
      }
      if (ownedByOtherCSV(sa, csv)) {
        met = false;
        status.status = RequirementStatusReasonPresentNotSatisfied;
        status.message = 'Service account is owned by another ClusterServiceVersion';
        statuses.set(saName, status);
        continue;
      }
      const scope = scopeNamespace === '' ? 'cluster' : 'namespaced';
      // Permissions OLM generated itself are taken as met without the rule check, and (as upstream's early
      // `continue`) the dependents listed for them are dropped: the status is not stored for this pass.
      if (previouslyCreated(src.rbac, csv, perm, scopeNamespace)) continue;
      const granted = rulesFor(src.rbac, serviceAccountUser(csvNamespace, saName), scopeNamespace);
      for (const rule of perm.rules ?? []) {
        const dependent: DependentStatus = { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'PolicyRule', status: DependentStatusReasonSatisfied, message: `${scope} rule:${goPolicyRule(rule)}` };
        if (!ruleSatisfied(granted, rule)) {
          met = false;
          dependent.status = DependentStatusReasonNotSatisfied;
          status.status = RequirementStatusReasonPresentNotSatisfied;
          status.message = 'Policy rule not satisfied for service account';
        }
        (status.dependents ??= []).push(dependent);
      }
      statuses.set(saName, status);
    }
    return met;
  };
  const permMet = check(permissions, namespace);
  const clusterMet = check(clusterPermissions, '');
  return { met: permMet && clusterMet, statuses: [...statuses.values()] };
}

/** Everything, as upstream aggregates it: minKubeVersion, APIs, then permissions. Throws for an invalid strategy. */
export async function requirementAndPermissionStatus(src: RequirementSource, csv: ClusterServiceVersion): Promise<RequirementResult> {
  if (csv.spec.install?.strategy !== 'deployment') throw new Error('unrecognized install strategy');
  const minKube = await minKubeVersionStatus(src, csv.metadata.name ?? '', csv.spec.minKubeVersion);
  const apis = await apiRequirementStatus(src, csv);
  const spec = csv.spec.install.spec;
  const perms = permissionStatus(src, csv, csv.metadata.namespace ?? '', spec?.permissions ?? [], spec?.clusterPermissions ?? []);
  return { met: minKube.met && apis.met && perms.met, statuses: [...minKube.statuses, ...apis.statuses, ...perms.statuses] };
}
