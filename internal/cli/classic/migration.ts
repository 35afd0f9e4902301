// `kubectl olm migrate check`'s verdicts: whether an operator OLM classic installed (a Subscription and its installed
// CSV) can move to OLM v1 in place, and if not, why. Pure: the caller reads the cluster and the catalogs, this module
// only classifies. The checks are upstream's v0→v1 migration's (operator-controller's migration library, library-olm:
// readiness — Subscription state, installed CSV healthy, not a dependency, one Subscription per package — and
// compatibility — AllNamespaces, no dependencies, no APIServices, no OperatorConditions), plus what OLM v1 itself needs
// of a bundle here: Single/OwnNamespace only with operator-controller's SingleOwnNamespaceInstallSupport gate,
// webhooks only with a certificate provider, and the same package and version in a serving ClusterCatalog, so the new
// ClusterExtension resolves to the installed bundle and operator-controller adopts the migrated revision 1.
import type { ClusterServiceVersion, InstallPlan, OperatorCondition, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import {
  CopiedFromLabel,
  CSVPhaseSucceeded,
  isCopiedCSV,
  PropertiesAnnotation,
  SubscriptionStateAtLatest,
  SubscriptionStateUpgradePending,
  UpgradeStrategyDefault,
} from '../../../api/operators/index.ts';
import type { ClusterExtension, ClusterObjectSet } from '../../../api/v1/index.ts';
import { BundleNameKey, MigratedFromSubscriptionKey, OwnerNameKey, PackageNameKey } from '../../../api/v1/index.ts';
import { isObject, tryOr } from '../../shared/toolkit/index.ts';
import { pendingPlan } from './logic.ts';

/** The exit code is 1 when any operator is ineligible or conflicting. */
export type Verdict = 'eligible' | 'already-migrated' | 'ineligible' | 'conflicting';

/** `olm.generated-by`: the Subscription was made by resolution, for another operator's dependency. */
export const GeneratedByAnnotation = 'olm.generated-by';

/** A bundle of the Subscription's package in a serving ClusterCatalog (on some channel). */
export interface CatalogBundle {
  readonly catalog: string;
  readonly name: string;
  readonly version: string;
  /** The bundle image the catalog names (what a ClusterExtension records as its bundle reference). */
  readonly image?: string;
}

/** What the cluster holds about one Subscription, read by the caller. */
export interface MigrationFacts {
  readonly sub: Subscription;
  /** The CSV `status.installedCSV` names, when it exists. */
  readonly csv?: ClusterServiceVersion | undefined;
  /** The OperatorGroups of the Subscription's namespace. */
  readonly operatorGroups: readonly OperatorGroup[];
  /** The OperatorCondition of the installed CSV, when there is one. */
  readonly operatorCondition?: OperatorCondition | undefined;
  /** The InstallPlans of the Subscription's namespace. */
  readonly plans: readonly InstallPlan[];
  /** Every Subscription of the cluster. */
  readonly subscriptions: readonly Subscription[];
  /** Every CSV of the cluster (copies are skipped here). */
  readonly csvs: readonly ClusterServiceVersion[];
  readonly extensions: readonly ClusterExtension[];
  readonly objectSets: readonly ClusterObjectSet[];
  /** The package's bundles in the serving ClusterCatalogs; `catalogs`: the names of those read. */
  readonly catalogBundles: readonly CatalogBundle[];
  readonly catalogs: readonly string[];
  /** operator-controller runs with SingleOwnNamespaceInstallSupport (the user says so). */
  readonly singleOwnNamespace: boolean;
  /**
   * The webhook certificate provider operator-controller uses (its WebhookProvider gates: cert-manager first, then
   * openshift-serviceca; none when both are off) and whether the cluster serves what it needs (cert-manager.io/v1).
   */
  readonly certificateProvider: { readonly name: string; readonly served: boolean } | undefined;
}

export interface MigrationCheck {
  readonly name: string;
  readonly namespace: string;
  readonly package: string;
  readonly csv: string;
  readonly version: string;
  readonly verdict: Verdict;
  /** The first of `reasons`, for the table. */
  readonly reason: string;
  readonly reasons: readonly string[];
  /** Eligible: the ClusterCatalog bundle the ClusterExtension would resolve to. */
  readonly catalogBundle?: CatalogBundle | undefined;
  /** The install mode the OperatorGroup gives the operator, when known. */
  readonly installMode?: string | undefined;
}

interface Property {
  readonly type: string;
  readonly value: unknown;
}

/** The CSV's bundle properties (`operatorframework.io/properties`: `{"properties":[…]}`, or a bare array). */
export function csvProperties(csv: ClusterServiceVersion | undefined): Property[] {
  const raw = csv?.metadata.annotations?.[PropertiesAnnotation];
  if (!raw) return [];
  const parsed = tryOr(() => JSON.parse(raw) as unknown, undefined);
  const list = Array.isArray(parsed) ? parsed : (parsed as { properties?: unknown } | null)?.properties;
  return Array.isArray(list) ? list.filter((p): p is Property => typeof (p as Property | null)?.type === 'string') : [];
}

const obj = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The dependencies a CSV declares, one phrase each. */
export function declaredDependencies(csv: ClusterServiceVersion | undefined): string[] {
  const out: string[] = [];
  for (const p of csvProperties(csv)) {
    const v = obj(p.value);
    if (p.type === 'olm.package.required') out.push(`depends on package "${str(v['packageName'])}" ${str(v['versionRange'])}`.trimEnd() + ' (olm.package.required)');
    else if (p.type === 'olm.gvk.required') out.push(`depends on ${str(v['group'])}/${str(v['version'])} ${str(v['kind'])} (olm.gvk.required)`);
    else if (p.type === 'olm.constraint') out.push('declares a dependency constraint (olm.constraint)');
  }
  for (const crd of csv?.spec.customresourcedefinitions?.required ?? []) out.push(`requires CRD ${crd.name} (spec.customresourcedefinitions.required)`);
  for (const api of csv?.spec.apiservicedefinitions?.required ?? []) out.push(`requires APIService ${api.version}.${api.group} (spec.apiservicedefinitions.required)`);
  return out;
}

/** Who depends on the Subscription's operator: other CSVs requiring its CRDs or its package, or resolution's own mark. */
export function dependents(f: Pick<MigrationFacts, 'sub' | 'csv' | 'csvs'>): string[] {
  const out: string[] = [];
  const by = f.sub.metadata.annotations?.[GeneratedByAnnotation];
  if (by !== undefined) out.push(`installed as a dependency of another operator (${GeneratedByAnnotation}: ${by})`);
  const owned = new Set((f.csv?.spec.customresourcedefinitions?.owned ?? []).map((c) => c.name));
  const pkg = f.sub.spec.name;
  for (const other of f.csvs) {
    if (isCopiedCSV(other) || other.metadata.labels?.[CopiedFromLabel] !== undefined) continue;
    if (other.metadata.name === f.csv?.metadata.name && other.metadata.namespace === f.csv?.metadata.namespace) continue;
    const who = `${other.metadata.namespace ?? ''}/${other.metadata.name ?? ''}`;
    const crd = (other.spec.customresourcedefinitions?.required ?? []).find((r) => owned.has(r.name));
    if (crd) out.push(`depended on by ${who} (requires CRD ${crd.name})`);
    else if (csvProperties(other).some((p) => p.type === 'olm.package.required' && str(obj(p.value)['packageName']) === pkg)) {
      out.push(`depended on by ${who} (olm.package.required "${pkg}")`);
    }
  }
  return out;
}

/** The install mode an OperatorGroup gives its members, with the namespaces it targets. */
export function installModeOf(og: OperatorGroup, namespace: string): { mode: 'AllNamespaces' | 'OwnNamespace' | 'SingleNamespace' | 'MultiNamespace'; targets: string[] } {
  const targets = (og.status?.namespaces ?? og.spec?.targetNamespaces ?? []).filter((n) => n !== '');
  if (targets.length === 0) return { mode: 'AllNamespaces', targets };
  if (targets.length > 1) return { mode: 'MultiNamespace', targets };
  return { mode: targets[0] === namespace ? 'OwnNamespace' : 'SingleNamespace', targets };
}

/** What keeps the operator from moving because of its OperatorGroup, and the install mode it has. */
function operatorGroupProblems(f: MigrationFacts): { problems: string[]; mode?: string } {
  const ns = f.sub.metadata.namespace ?? '';
  if (f.operatorGroups.length === 0) return { problems: [`no OperatorGroup in namespace "${ns}"`] };
  if (f.operatorGroups.length > 1) return { problems: [`${f.operatorGroups.length} OperatorGroups in namespace "${ns}" (${f.operatorGroups.map((o) => o.metadata.name).join(', ')})`] };
  const og = f.operatorGroups[0]!;
  const name = og.metadata.name ?? '';
  const problems: string[] = [];
  if (og.spec?.serviceAccountName) problems.push(`OperatorGroup "${name}" installs as ServiceAccount "${og.spec.serviceAccountName}"; OLM v1 has no scoped install account`);
  const selector = og.spec?.selector;
  if (selector && (Object.keys(selector.matchLabels ?? {}).length > 0 || (selector.matchExpressions ?? []).length > 0)) problems.push(`OperatorGroup "${name}" selects its namespaces by label; set spec.targetNamespaces instead first`);
  if (og.spec?.upgradeStrategy && og.spec.upgradeStrategy !== UpgradeStrategyDefault) problems.push(`OperatorGroup "${name}" has upgradeStrategy ${og.spec.upgradeStrategy}; OLM v1 has only ${UpgradeStrategyDefault}`);
  const { mode, targets } = installModeOf(og, ns);
  if (mode === 'MultiNamespace') problems.push(`installed MultiNamespace (OperatorGroup "${name}" targets ${targets.join(', ')}); OLM v1 has no MultiNamespace install mode`);
  else if (mode !== 'AllNamespaces' && !f.singleOwnNamespace) {
    problems.push(`installed ${mode} (OperatorGroup "${name}" targets "${targets[0]}"); OLM v1 needs AllNamespaces unless operator-controller runs with SingleOwnNamespaceInstallSupport`);
  }
  return { problems, mode };
}

/** The bundle of the installed version in a serving catalog: the same name first, then any of that version. */
function catalogMatch(f: MigrationFacts, version: string): { bundle?: CatalogBundle; problem?: string } {
  const pkg = f.sub.spec.name;
  if (f.catalogBundles.length === 0) {
    return { problem: f.catalogs.length === 0 ? `package "${pkg}" is in no ClusterCatalog (none is serving)` : `package "${pkg}" is in no serving ClusterCatalog` };
  }
  const same = f.catalogBundles.filter((b) => b.version === version);
  const bundle = same.find((b) => b.name === f.csv?.metadata.name) ?? same[0];
  if (bundle) return { bundle };
  const catalogs = [...new Set(f.catalogBundles.map((b) => b.catalog))].join(', ');
  return { problem: `no bundle of package "${pkg}" at version ${version || '(none)'} in ClusterCatalog ${catalogs}` };
}

/** The migrated revision that already holds this operator: annotated, same package and bundle. */
function migratedRevision(f: MigrationFacts): ClusterObjectSet | undefined {
  return f.objectSets.find((c) => {
    const a = c.metadata.annotations ?? {};
    return a[MigratedFromSubscriptionKey] !== undefined && a[PackageNameKey] === f.sub.spec.name && (f.csv === undefined || a[BundleNameKey] === f.csv.metadata.name);
  });
}

/** The verdict on one Subscription, with every reason found (the first is the one a table shows). */
export function classify(f: MigrationFacts): MigrationCheck {
  const sub = f.sub;
  const ns = sub.metadata.namespace ?? '';
  const pkg = sub.spec.name;
  const csvName = sub.status?.installedCSV ?? '';
  const version = f.csv?.spec.version ?? '';
  const base = { name: sub.metadata.name ?? '', namespace: ns, package: pkg, csv: csvName, version };
  const verdict = (v: Verdict, reasons: string[], extra: Partial<MigrationCheck> = {}): MigrationCheck => ({ ...base, verdict: v, reason: reasons[0] ?? '', reasons, ...extra });

  const migrated = migratedRevision(f);
  if (migrated) {
    const owner = migrated.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'ClusterExtension')?.name;
    const ext = owner ?? migrated.metadata.labels?.[OwnerNameKey] ?? '';
    return verdict('already-migrated', [
      `ClusterObjectSet "${migrated.metadata.name ?? ''}" (${MigratedFromSubscriptionKey}) holds it${owner ? `, adopted by ClusterExtension "${ext}"` : `; ClusterExtension "${ext}" not created yet`}`,
    ]);
  }

  const others = f.subscriptions.filter((o) => o.spec.name === pkg && !(o.metadata.name === sub.metadata.name && o.metadata.namespace === ns));
  const conflicts = [
    ...f.extensions.filter((e) => e.spec?.source.catalog?.packageName === pkg).map((e) => `ClusterExtension "${e.metadata.name ?? ''}" already installs package "${pkg}"`),
    ...others.map((o) => `Subscription ${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''} also subscribes to package "${pkg}"; OLM v1 installs a package once per cluster`),
  ];
  if (conflicts.length > 0) return verdict('conflicting', conflicts);

  const problems: string[] = [];
  if (!csvName) problems.push(`no installed CSV (Subscription state ${sub.status?.state || 'none'})`);
  else if (!f.csv) problems.push(`installed CSV "${csvName}" not found in namespace "${ns}"`);
  else if (isCopiedCSV(f.csv)) problems.push(`CSV "${csvName}" is a copied CSV (from ${f.csv.metadata.labels?.[CopiedFromLabel] ?? 'another namespace'}); check the Subscription in the operator's own namespace`);
  else if (f.csv.status?.phase !== CSVPhaseSucceeded) {
    problems.push(`CSV "${csvName}" is ${f.csv.status?.phase || 'Pending'}${f.csv.status?.reason ? ` (${f.csv.status.reason})` : ''}, not Succeeded`);
  }
  const state = sub.status?.state ?? '';
  if (csvName && state !== SubscriptionStateAtLatest && state !== SubscriptionStateUpgradePending) {
    problems.push(`Subscription state is ${state || 'none'}; it must be ${SubscriptionStateAtLatest} or ${SubscriptionStateUpgradePending}`);
  }
  const pending = pendingPlan(sub, f.plans);
  if (pending) problems.push(`InstallPlan "${pending.metadata.name ?? ''}" awaits Manual approval (${(pending.spec.clusterServiceVersionNames ?? []).join(', ')}); approve it or wait until it is gone first`);
  const og = operatorGroupProblems(f);
  problems.push(...og.problems);
  problems.push(...declaredDependencies(f.csv));
  problems.push(...dependents(f));
  const oc = f.operatorCondition;
  if (oc && ((oc.spec?.conditions ?? []).length > 0 || (oc.spec?.overrides ?? []).length > 0 || (oc.status?.conditions ?? []).length > 0)) {
    problems.push(`uses the OperatorCondition API (OperatorCondition "${oc.metadata.name ?? ''}" has conditions); OLM v1 does not support it`);
  }
  for (const api of f.csv?.spec.apiservicedefinitions?.owned ?? []) problems.push(`owns APIService ${api.version}.${api.group}; OLM v1 does not install APIServices`);
  const webhooks = f.csv?.spec.webhookdefinitions ?? [];
  if (webhooks.length > 0 && !f.certificateProvider) {
    problems.push(`has ${webhooks.length} webhook(s); OLM v1 needs a certificate provider for them and operator-controller has none (WebhookProvider gates off)`);
  } else if (webhooks.length > 0 && !f.certificateProvider!.served) {
    problems.push(`has ${webhooks.length} webhook(s); OLM v1's certificate provider "${f.certificateProvider!.name}" needs cert-manager.io/v1, which the cluster does not serve`);
  }
  const catalog = f.csv ? catalogMatch(f, version) : {};
  if (catalog.problem) problems.push(catalog.problem);
  const extra = { ...(og.mode && { installMode: og.mode }), ...(catalog.bundle && { catalogBundle: catalog.bundle }) };
  if (problems.length > 0) return verdict('ineligible', problems, extra);
  const b = catalog.bundle!;
  return verdict('eligible', [`${og.mode ?? ''}; bundle ${b.name} in ClusterCatalog "${b.catalog}"`], extra);
}

/** 0 when every operator is eligible or already migrated, 1 otherwise. */
export const exitCode = (checks: readonly MigrationCheck[]): number => (checks.every((c) => c.verdict === 'eligible' || c.verdict === 'already-migrated') ? 0 : 1);

/** A row of the table: NAME NAMESPACE PACKAGE VERSION VERDICT REASON (the first reason, and how many more). */
export function checkRow(c: MigrationCheck): string[] {
  const more = c.reasons.length > 1 ? ` (+${c.reasons.length - 1} more)` : '';
  return [c.name, c.namespace, c.package, c.version, c.verdict, `${c.reason}${more}`];
}

export const CHECK_HEADERS = ['NAME', 'NAMESPACE', 'PACKAGE', 'VERSION', 'VERDICT', 'REASON'] as const;
