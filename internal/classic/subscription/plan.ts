// An InstallPlan's steps as upstream's catalog operator writes them (R/steps.go, R/rbac.go, OrderSteps): the bundle's
// CSV (namespace, replaces, properties annotation set), its other objects (Secrets as the synthetic kind
// BundleSecret), the ServiceAccounts, Roles, RoleBindings, ClusterRoles and ClusterRoleBindings of the CSV's
// permissions, and a Subscription step for every resolved dependency nobody subscribed to.
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import { OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel, PropertiesAnnotation, StepStatusUnknown, type Step } from '../../../api/operators/index.ts';
import { goJSONParse, goJSONString } from '../../shared/gocompat/index.ts';
import { nonBlockingOwnerReference } from '../../shared/kube/index.ts';
import { isObject, jsonKind, tryOr } from '../../shared/toolkit/index.ts';
import { goPolicyRule, type PolicyRule, type RegistryV1 } from '../../shared/registryv1/index.ts';
import { BundleSecretKind } from '../installplan/index.ts';
import { base62Sha224 } from '../operatorgroup/index.ts';
import type { CatalogKey, Property } from '../resolver/index.ts';

const MAX_NAME = 63;
/** The content hash label of generated RBAC. */
export const ContentHashLabelKey = 'olm.permissions.hash';

interface Permission {
  serviceAccountName?: string;
  rules?: PolicyRule[] | null;
}
interface Csv extends KubeObject {
  spec?: { replaces?: string; install?: { strategy?: string; spec?: { permissions?: Permission[]; clusterPermissions?: Permission[] } } };
}

const goRules = (rules: readonly PolicyRule[] | null | undefined): string => (rules == null ? 'null' : `[${rules.map((r) => goPolicyRule(r)).join(',')}]`);

/** R/rbac.go PolicyRuleHashLabelValue: the `olm.permissions.hash` label of a generated (Cluster)Role. */
export const rulesHash = (rules: readonly PolicyRule[] | null | undefined): string => base62Sha224(goRules(rules));
const goPermission = (p: Permission): string => `{"serviceAccountName":${goJSONString(p.serviceAccountName ?? '')},"rules":${goRules(p.rules)}}`;

/** R/rbac.go generateName: base-<base62(sha224(json.Encoder of o))>, the base cut so the name fits 63 characters. */
function generateName(base: string, encoded: string): string {
  const hash = base62Sha224(`${encoded}\n`);
  if (base.length + hash.length > MAX_NAME) base = base.slice(0, MAX_NAME - hash.length - 1);
  return `${base}-${hash}`;
}

const omitEmpty = (key: string, value: string): string => (value === '' ? '' : `${goJSONString(key)}:${goJSONString(value)},`);

interface Subject {
  kind: string;
  name: string;
  namespace: string;
}
/** R/rbac.go RoleReferenceAndSubjectHashLabelValue: the `olm.permissions.hash` label of a generated (Cluster)RoleBinding. */
export function bindingHash(roleKind: string, roleName: string, subject: Subject): string {
  const roleRef = `{"apiGroup":"rbac.authorization.k8s.io","kind":${goJSONString(roleKind)},"name":${goJSONString(roleName)}}`;
  const subj = `{"kind":${goJSONString(subject.kind)},"name":${goJSONString(subject.name)}${subject.namespace ? `,"namespace":${goJSONString(subject.namespace)}` : ''}}`;
  return base62Sha224(`{"RoleRef":${roleRef},"Subjects":[${subj}]}`);
}

const nonBlockingOwner = (csv: Csv): OwnerReference => nonBlockingOwnerReference('operators.coreos.com/v1alpha1', 'ClusterServiceVersion', csv);
const ownerLabels = (csv: Csv): Record<string, string> => ({
  [OwnerLabel]: csv.metadata.name ?? '',
  [OwnerNamespaceLabel]: csv.metadata.namespace ?? '',
  [OwnerKindLabel]: 'ClusterServiceVersion',
});

/** R/rbac.go RBACForClusterServiceVersion, flattened in NewServiceAccountStepResources' order (per service account). */
export function rbacObjects(csv: Csv): KubeObject[] {
  const ns = csv.metadata.namespace ?? '';
  const csvName = csv.metadata.name ?? '';
  const install = csv.spec?.install;
  if (install?.strategy !== undefined && install.strategy !== 'deployment') {
    throw new Error(`could not assert strategy implementation as deployment for CSV ${csvName}`);
  }
  interface Group {
    sa: KubeObject;
    objects: { roles: KubeObject[]; roleBindings: KubeObject[]; clusterRoles: KubeObject[]; clusterRoleBindings: KubeObject[] };
  }
  const groups = new Map<string, Group>();
  const group = (sa: string, namespaced: boolean): Group => {
    let g = groups.get(sa);
    if (!g) {
      const meta: Record<string, unknown> = { name: sa, ...(namespaced && { namespace: ns }), ownerReferences: [nonBlockingOwner(csv)] };
      g = { sa: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta }, objects: { roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [] } };
      groups.set(sa, g);
    }
    return g;
  };
  // Role and RoleBinding per permission, ClusterRole and ClusterRoleBinding per cluster permission.
  const permission = (p: Permission, cluster: boolean): void => {
    const sa = p.serviceAccountName ?? '';
    const g = group(sa, !cluster);
    const name = cluster
      ? generateName(csvName, `{${omitEmpty('name', csvName)}${omitEmpty('namespace', ns)}"permission":${goPermission(p)}}`)
      : generateName(`${csvName}-${sa}`, `{${omitEmpty('name', csvName)}"permission":${goPermission(p)}}`);
    const kind = cluster ? 'ClusterRole' : 'Role';
    const owned = !cluster && { ownerReferences: [nonBlockingOwner(csv)] };
    (cluster ? g.objects.clusterRoles : g.objects.roles).push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name, ...(!cluster && { namespace: ns }), ...owned, labels: { ...ownerLabels(csv), [ContentHashLabelKey]: rulesHash(p.rules) } },
      rules: p.rules ?? null,
    } as KubeObject);
    const subject = { kind: 'ServiceAccount', name: sa, namespace: ns };
    (cluster ? g.objects.clusterRoleBindings : g.objects.roleBindings).push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: `${kind}Binding`,
      metadata: { name, namespace: ns, ...owned, labels: { ...ownerLabels(csv), [ContentHashLabelKey]: bindingHash(kind, name, subject) } },
      roleRef: { kind, name, apiGroup: 'rbac.authorization.k8s.io' },
      subjects: [subject],
    } as KubeObject);
  };
  for (const p of install?.spec?.permissions ?? []) permission(p, false);
  for (const p of install?.spec?.clusterPermissions ?? []) permission(p, true);
  const out: KubeObject[] = [];
  // upstream ranges over a Go map of service accounts; sorted here so a plan is deterministic
  for (const [sa, g] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (sa !== 'default') out.push(g.sa);
    out.push(...g.objects.roles, ...g.objects.roleBindings, ...g.objects.clusterRoles, ...g.objects.clusterRoleBindings);
  }
  return out;
}

/** projection.PropertiesAnnotationFromPropertyList: `{"properties":[…]}`, `{}` when there are none. */
export function propertiesAnnotation(properties: readonly Property[]): string {
  if (properties.length === 0) return '{}';
  const items = properties.map((p) => ({ type: p.type, value: tryOr(() => JSON.parse(p.value) as unknown, p.value) }));
  return JSON.stringify({ properties: items });
}

/** NewStepResourceFromObject: group/version/kind split from apiVersion, the manifest as JSON text, Secret → BundleSecret. */
export function stepFor(resolving: string, obj: KubeObject, catalog: CatalogKey): Step {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const kind = obj.kind ?? '';
  return {
    resolving,
    resource: {
      name: obj.metadata.name ?? obj.metadata.generateName ?? '',
      kind: kind === 'Secret' && slash < 0 ? BundleSecretKind : kind,
      group: slash < 0 ? '' : apiVersion.slice(0, slash),
      version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
      manifest: JSON.stringify(obj),
      sourceName: catalog.name,
      sourceNamespace: catalog.namespace,
    },
    status: StepStatusUnknown,
  };
}

export interface BundleStepOptions {
  readonly namespace: string;
  readonly replaces: string;
  readonly catalog: CatalogKey;
  /** The bundle's properties as the catalog serves them. */
  readonly properties: readonly Property[];
}

/** The bundle's CSV as a step installs it: namespace, replaces and the properties annotation set (throws upstream's errors). */
function stepCSV(source: KubeObject, o: BundleStepOptions): Csv {
  const csv = structuredClone(source) as Csv;
  const name = csv.metadata?.name ?? '';
  if (!csv.apiVersion) throw new Error(`bundle CSV ${name} missing APIVersion`);
  if (!csv.kind) throw new Error(`bundle CSV ${name} missing Kind`);
  csv.metadata = { ...csv.metadata, namespace: o.namespace };
  csv.spec = { ...csv.spec };
  if (o.replaces) csv.spec.replaces = o.replaces;
  else delete csv.spec.replaces;
  csv.metadata.annotations = { ...csv.metadata.annotations, [PropertiesAnnotation]: propertiesAnnotation(o.properties) };
  return csv;
}

/** NewStepsFromBundle for an unpacked registry+v1 bundle. Throws upstream's errors for a CSV without apiVersion/kind. */
export function bundleSteps(bundle: RegistryV1, o: BundleStepOptions): Step[] {
  const csv = stepCSV(bundle.csv as unknown as KubeObject, o);
  const name = csv.metadata.name ?? '';
  return [csv, ...bundle.crds, ...bundle.others, ...rbacObjects(csv)].map((obj) => stepFor(name, obj, o.catalog));
}

/** json.Unmarshal's error text for `text`, or the value. */
function unmarshal(text: string): unknown {
  goJSONParse(text);
  return JSON.parse(text) as unknown;
}

/**
 * NewStepsFromBundle for a bundle whose manifests the catalog serves (no image): the CSV from `csvJson`, then every
 * other object in order (a ClusterServiceVersion among them skipped), then the RBAC of the CSV's permissions; each
 * step resolving `csvName`. Throws upstream's errors (a CSV that is not JSON, without apiVersion/kind; an object
 * without a kind).
 */
export function inlineBundleSteps(csvName: string, m: { readonly csvJson: string; readonly objects: readonly string[] }, o: BundleStepOptions): Step[] {
  const parsed = unmarshal(m.csvJson) ?? {};
  if (!isObject(parsed)) throw new Error(`json: cannot unmarshal ${jsonKind(parsed)} into Go value of type v1alpha1.ClusterServiceVersion`);
  const csv = stepCSV({ metadata: {}, ...parsed } as KubeObject, o);
  const objects: KubeObject[] = [];
  for (const text of m.objects) {
    const obj = unmarshal(text);
    if (!isObject(obj) || typeof obj.kind !== 'string' || obj.kind === '') throw new Error(`Object 'Kind' is missing in '${text}'`);
    if (obj.kind === 'ClusterServiceVersion') continue;
    objects.push({ metadata: {}, ...obj } as KubeObject);
  }
  return [csv, ...objects, ...rbacObjects(csv)].map((obj) => stepFor(csvName, obj, o.catalog));
}

export interface DependencySubscription {
  readonly package: string;
  readonly channel: string;
  readonly catalog: CatalogKey;
  readonly startingCSV: string;
}

/** NewSubscriptionStepResource: `<package>-<channel>-<catalog>-<catalogNamespace>`, Automatic, from the same catalog. */
export function subscriptionStep(namespace: string, d: DependencySubscription): Step {
  const sub: KubeObject = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name: [d.package, d.channel, d.catalog.name, d.catalog.namespace].join('-'), namespace },
    spec: {
      source: d.catalog.name,
      sourceNamespace: d.catalog.namespace,
      name: d.package,
      channel: d.channel,
      startingCSV: d.startingCSV,
      installPlanApproval: 'Automatic',
    },
  } as KubeObject;
  return stepFor(d.startingCSV, sub, d.catalog);
}
