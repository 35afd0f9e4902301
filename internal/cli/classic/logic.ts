// The classic commands' pure logic: --approval, choosing the CatalogSource and the startingCSV, the OperatorGroup to
// create, the pending plan, the table row, the operands' scope (unit-tested in classic.test.ts).
import type { ClusterServiceVersion, InstallPlan, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import {
  ApprovalAutomatic,
  ApprovalManual,
  InstallPlanPhaseRequiresApproval,
  InstallModeTypeAllNamespaces,
  InstallModeTypeMultiNamespace,
  InstallModeTypeOwnNamespace,
  InstallModeTypeSingleNamespace,
  OperatorGroupTargetsAnnotationKey,
  type Approval,
} from '../../../api/operators/index.ts';
import type { CatalogContent, ContentPackage } from '../../classic/catalogsource/index.ts';
import { realClock, tryOr } from '../../shared/toolkit/index.ts';
import { age } from '../output.ts';
import { CliUsageError } from '../types.ts';

/** What one read of a `--wait --classic` found: the Subscription, its InstallPlan and its CSV. */
export interface Observed {
  readonly sub: Subscription | undefined;
  readonly plan: InstallPlan | undefined;
  readonly csv: ClusterServiceVersion | undefined;
}

/** `--approval`: Automatic (the default, as a Subscription without one) or Manual. */
export function approvalFlag(value: string | undefined): Approval {
  if (value === undefined || value === '') return ApprovalAutomatic;
  if (value === ApprovalAutomatic || value === ApprovalManual) return value;
  throw new CliUsageError(`invalid argument "${value}" for "--approval" flag: invalid approval value "${value}"`);
}

/** One CatalogSource that serves the package, with its content. */
export interface PackageSource {
  readonly namespace: string;
  readonly name: string;
  readonly pkg: ContentPackage;
  readonly content: CatalogContent;
}

/** What `install --classic` subscribes to: the catalog, the channel, and the startingCSV for `--version`. */
export interface SubscriptionTarget {
  readonly source: string;
  readonly sourceNamespace: string;
  readonly channel: string;
  readonly startingCSV?: string;
}

/** kubectl-operator's names for the problems of finding a package (`get package manifest: …`). */
export class PackageLookupError extends Error {
  override readonly name = 'PackageLookupError';
}

/**
 * The one CatalogSource among `found` to subscribe to; none or more than one is an error naming what to do. With
 * more than one, the candidates are listed as `--catalog`/`--catalog-namespace` pairs.
 */
export function chooseSource(packageName: string, found: readonly PackageSource[], searched: readonly string[]): PackageSource {
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    const where = searched.map((n) => `"${n}"`).join(' and ');
    throw new PackageLookupError(`package "${packageName}" not found in the CatalogSources of namespace${searched.length > 1 ? 's' : ''} ${where}`);
  }
  const list = found.map((f) => `--catalog ${f.name} --catalog-namespace ${f.namespace}`).join('; ');
  throw new PackageLookupError(`package "${packageName}" is served by ${found.length} CatalogSources; choose one: ${list}`);
}

/** The channel (the package's default when not given) and, for `--version`, the CSV to start from. */
export function subscriptionTarget(src: PackageSource, channel: string | undefined, version: string | undefined): SubscriptionTarget {
  const name = channel || src.pkg.defaultChannel;
  if (!name) throw new PackageLookupError(`package "${src.pkg.name}" does not have a default channel`);
  const ch = src.pkg.channels.find((c) => c.name === name);
  if (!ch) throw new PackageLookupError(`channel "${name}" does not exist for package "${src.pkg.name}"`);
  const base = { source: src.name, sourceNamespace: src.namespace, channel: name };
  if (!version) return base;
  const want = version.replace(/^v/, '');
  const versions = new Map(src.content.bundles.filter((b) => b.package === src.pkg.name).map((b) => [b.name, b.version]));
  const entry = ch.entries.find((e) => versions.get(e.name) === want);
  if (!entry) throw new PackageLookupError(`version "${version}" not found in channel "${name}"`);
  return { ...base, startingCSV: entry.name };
}

/** The CSV a new Subscription to `target` starts from: its startingCSV, else the channel's head (replaced and skipped by none). */
export function firstCSV(src: PackageSource, target: SubscriptionTarget): string | undefined {
  if (target.startingCSV) return target.startingCSV;
  const entries = src.pkg.channels.find((c) => c.name === target.channel)?.entries ?? [];
  const behind = new Set(entries.flatMap((e) => [e.replaces, ...e.skips]));
  return entries.find((e) => !behind.has(e.name))?.name;
}

/**
 * The install modes a bundle supports, from its `olm.csv.metadata` property (what `opm render` writes); undefined when
 * the catalog does not say.
 */
export function supportedInstallModes(content: CatalogContent, pkg: string, bundle: string): string[] | undefined {
  const prop = content.bundles.find((b) => b.package === pkg && b.name === bundle)?.properties.find((p) => p.type === 'olm.csv.metadata');
  if (!prop) return undefined;
  return tryOr(() => {
    const modes = (JSON.parse(prop.value) as { installModes?: { type?: unknown; supported?: unknown }[] }).installModes;
    if (!Array.isArray(modes)) return undefined;
    return modes.filter((m) => m.supported === true && typeof m.type === 'string').map((m) => m.type as string).sort();
  }, undefined);
}

/** The install modes an OperatorGroup watching `watch` allows (kubectl-operator's rule; none named: all or own). */
export function possibleInstallModes(watch: readonly string[], ns: string): string[] {
  if (watch.length === 0 || (watch.length === 1 && watch[0] === '')) return [InstallModeTypeAllNamespaces, InstallModeTypeOwnNamespace];
  if (watch.length === 1) return watch[0] === ns ? [InstallModeTypeOwnNamespace] : [InstallModeTypeSingleNamespace];
  return [InstallModeTypeMultiNamespace];
}

export const quotedList = (modes: readonly string[]): string => `"${[...modes].sort().join(',')}"`;

/**
 * The OperatorGroup an install needs (kubectl-operator's `ensureOperatorGroup`): with none in the namespace, the
 * target namespaces of the one to create — all namespaces when the operator and the desired watches allow it, else
 * its own namespace, else the watches; with one, whether it fits (its `status.namespaces`). `supported` undefined:
 * the catalog does not say, so the watches decide (the namespace alone when none are named).
 */
export function planOperatorGroup(
  pkg: string,
  supported: readonly string[] | undefined,
  watch: readonly string[],
  ns: string,
  existing: OperatorGroup | undefined,
): { readonly problem: string } | { readonly targetNamespaces: string[] | undefined } {
  const desired = possibleInstallModes(watch, ns);
  if (supported === undefined) return { targetNamespaces: watch.length > 0 ? [...watch] : [ns] };
  if (supported.length === 0) return { problem: `operator "${pkg}" is not installable: operator defined no supported install modes` };
  const both = supported.filter((m) => desired.includes(m));
  if (both.length === 0) {
    return { problem: `operator "${pkg}" is not installable: install modes supported by operator (${quotedList(supported)}) not compatible with install modes supported by desired watches (${quotedList(desired)})` };
  }
  if (existing) {
    const ogModes = possibleInstallModes(existing.status?.namespaces ?? existing.spec?.targetNamespaces ?? [], ns);
    const clash = !supported.some((m) => ogModes.includes(m))
      ? `install modes supported by operator (${quotedList(supported)}) not compatible with install modes supported by existing operator group (${quotedList(ogModes)})`
      : !desired.some((m) => ogModes.includes(m))
        ? `install modes supported by desired watches (${quotedList(desired)}) not compatible with install modes supported by existing operator group (${quotedList(ogModes)})`
        : !both.some((m) => ogModes.includes(m))
          ? `install modes supported by operator and desired watches (${quotedList(both)}) not compatible with install modes supported by existing operator group (${quotedList(ogModes)})`
          : undefined;
    return clash ? { problem: `operator "${pkg}" not installable: ${clash}` } : { targetNamespaces: existing.spec?.targetNamespaces };
  }
  if (both.includes(InstallModeTypeAllNamespaces)) return { targetNamespaces: undefined };
  if (both.includes(InstallModeTypeOwnNamespace)) return { targetNamespaces: [ns] };
  return { targetNamespaces: [...watch] };
}

/** The InstallPlan of the Subscription's namespace that waits for approval, named by the Subscription. */
export function pendingPlan(sub: Subscription, plans: readonly InstallPlan[]): InstallPlan | undefined {
  const ref = sub.status?.installPlanRef?.name;
  if (!ref) return undefined;
  const plan = plans.find((p) => p.metadata.name === ref && p.metadata.namespace === sub.metadata.namespace);
  return plan?.status?.phase === InstallPlanPhaseRequiresApproval && !plan.spec.approved ? plan : undefined;
}

/** The CSV a Subscription installed (or is installing): status.installedCSV, else status.currentCSV (kubectl-operator). */
export const csvNameOf = (sub: Subscription): string => sub.status?.installedCSV || sub.status?.currentCSV || '';

/** A row of `list --classic`. */
export function subscriptionRow(sub: Subscription, plans: readonly InstallPlan[], now = realClock.date().getTime(), wide = false): string[] {
  const failing = sub.status?.conditions?.find((c) => c.type === 'ResolutionFailed' && c.status === 'True');
  const state = sub.status?.state || (failing ? 'ResolutionFailed' : 'Pending');
  return [
    sub.metadata.name ?? '',
    sub.metadata.namespace ?? '',
    sub.spec.name,
    sub.spec.channel ?? '',
    sub.status?.installedCSV ?? '',
    state,
    pendingPlan(sub, plans)?.metadata.name ?? '',
    age(sub.metadata.creationTimestamp, now),
    ...(wide ? [`${sub.spec.sourceNamespace}/${sub.spec.source}`, sub.spec.installPlanApproval ?? 'Automatic', sub.status?.currentCSV ?? ''] : []),
  ];
}

export const SUBSCRIPTION_HEADERS = ['NAME', 'NAMESPACE', 'PACKAGE', 'CHANNEL', 'INSTALLED CSV', 'STATE', 'AWAITING APPROVAL', 'AGE'];
/** `-o wide` adds the CatalogSource (namespace/name), the approval mode and the CSV the Subscription is heading for. */
export const SUBSCRIPTION_WIDE_HEADERS = [...SUBSCRIPTION_HEADERS, 'CATALOG', 'APPROVAL', 'CURRENT CSV'];

/**
 * The namespaces an installed operator watches, from its CSV's `olm.targetNamespaces` annotation (the OperatorGroup's
 * namespaces); `undefined` means all namespaces (`""`, or no annotation: the CSV's own namespace then).
 */
export function watchedNamespaces(csv: ClusterServiceVersion): string[] | undefined {
  const targets = csv.metadata.annotations?.[OperatorGroupTargetsAnnotationKey];
  if (targets === undefined) return csv.metadata.namespace ? [csv.metadata.namespace] : undefined;
  const list = targets.split(',').map((s) => s.trim());
  return list.includes('') ? undefined : list;
}

/** The owned CRDs of a CSV as apiVersion + kind (`widgets.example.com` v1 Widget → example.com/v1 Widget). */
export function ownedKinds(csv: ClusterServiceVersion): { apiVersion: string; kind: string; crd: string }[] {
  return (csv.spec.customresourcedefinitions?.owned ?? []).map((d) => {
    const group = d.name.slice(d.name.indexOf('.') + 1);
    return { apiVersion: `${group}/${d.version}`, kind: d.kind, crd: d.name };
  });
}
