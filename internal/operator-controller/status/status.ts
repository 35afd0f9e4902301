// ClusterExtension status conditions as upstream operator-controller writes them: Installed,
// Progressing and the four deprecation conditions. Pure functions over the conditions array;
// the reconciler decides what happened, these decide how it reads.
//
//   Installed    True/Succeeded  "Installed bundle <image> successfully"     (status.install set)
//                False/Failed    "No bundle installed"
//                Unknown/Failed  <why the install state could not be read>
//   Progressing  True/Succeeded  "Desired state reached"
//                True/Retrying   <sanitized error>        (retryable)
//                False/Blocked   <error>                  (terminal)
//   Available    True/Available  "every object of the installed bundle is healthy"   (beyond upstream)
//                False/Unavailable <one line per unhealthy object>
//   Deprecated + Package/Channel/BundleDeprecated: see setDeprecationConditions.
import type { Condition } from '../../../api/meta/v1.ts';
import {
  ReasonAbsent,
  ReasonAvailable,
  ReasonBlocked,
  ReasonDeprecated,
  ReasonDeprecationStatusUnknown,
  ReasonFailed,
  ReasonNotDeprecated,
  ReasonRetrying,
  ReasonSucceeded,
  ReasonUnavailable,
  TypeAvailable,
  TypeBundleDeprecated,
  TypeChannelDeprecated,
  TypeDeprecated,
  TypeInstalled,
  TypePackageDeprecated,
  TypeProgressing,
  type ClusterExtension,
} from '../../../api/v1/index.ts';
import { goQuote } from '../../shared/gocompat/index.ts';
import { errorMessage, findCondition, isTerminal, sanitizeNetworkError, setCondition } from '../../shared/controller/index.ts';

/** The installed bundle as the status reports it. */
export interface InstalledBundleInfo {
  readonly name: string;
  readonly version: string;
  /** The bundle's release, recorded only under BundleReleaseSupport; `""` is an explicit empty release. */
  readonly release?: string;
  /** The bundle image reference it was installed from. */
  readonly image: string;
}

/** One `olm.deprecations` entry of the extension's package. */
export interface DeprecationEntryInfo {
  readonly reference: { readonly schema: string; readonly name?: string };
  readonly message: string;
}

export const MSG_DESIRED_STATE = 'Desired state reached';
export const MSG_NO_BUNDLE_INSTALLED = 'No bundle installed';
export const MSG_DEPRECATION_UNKNOWN = 'deprecation status unknown: catalog data unavailable';
export const MSG_NO_BUNDLE_YET = 'no bundle installed yet';

const conditionsOf = (ext: ClusterExtension): Condition[] => {
  ext.status ??= {};
  ext.status.conditions ??= [];
  return ext.status.conditions;
};

/** One condition of the extension, observed at its generation. */
function set(ext: ClusterExtension, type: string, status: Condition['status'], reason: string, message: string, now: Date | undefined): void {
  setCondition(conditionsOf(ext), { type, status, reason, message, observedGeneration: ext.metadata.generation ?? 0 }, now);
}

/**
 * Progressing from the outcome of a reconcile: no error → True/Succeeded "Desired state reached";
 * a terminal error → False/<its reason> (Blocked, InvalidConfiguration); anything else → True/Retrying. The message is the error text
 * with network addresses stripped, so retries do not churn the status.
 */
export function setProgressing(ext: ClusterExtension, err: unknown, now?: Date): void {
  if (err === undefined || err === null) return set(ext, TypeProgressing, 'True', ReasonSucceeded, MSG_DESIRED_STATE, now);
  const message = sanitizeNetworkError(errorMessage(err));
  if (isTerminal(err)) set(ext, TypeProgressing, 'False', err.reason || ReasonBlocked, message, now);
  else set(ext, TypeProgressing, 'True', ReasonRetrying, message, now);
}

/** Installed and status.install from what is installed (or False/Failed when nothing is). */
export function setInstalledFromBundle(ext: ClusterExtension, installed: InstalledBundleInfo | undefined, now?: Date): void {
  if (!installed) {
    if (ext.status) delete ext.status.install;
    set(ext, TypeInstalled, 'False', ReasonFailed, MSG_NO_BUNDLE_INSTALLED, now);
    return;
  }
  // As upstream, release is reported when the install record carries one (BundleReleaseSupport); the standard CRD
  // has no such field, so there the API server prunes it.
  const bundle = { name: installed.name, version: installed.version, ...(installed.release !== undefined && { release: installed.release }) };
  set(ext, TypeInstalled, 'True', ReasonSucceeded, `Installed bundle ${installed.image} successfully`, now);
  (ext.status ??= {}).install = { bundle };
}

export const MSG_AVAILABLE = 'every object of the installed bundle is healthy';

/** Available from the applier's health verdict on the objects it just applied or maintained. */
export function setAvailable(ext: ClusterExtension, outcome: { readonly installed: boolean; readonly message?: string }, now?: Date): void {
  if (outcome.installed) set(ext, TypeAvailable, 'True', ReasonAvailable, MSG_AVAILABLE, now);
  else set(ext, TypeAvailable, 'False', ReasonUnavailable, outcome.message ?? 'waiting for the bundle’s objects to become healthy', now);
}

/** Installed=Unknown/Failed with the reason the install state could not be read. */
export function setInstalledUnknown(ext: ClusterExtension, message: string, now?: Date): void {
  if (ext.status) delete ext.status.install;
  set(ext, TypeInstalled, 'Unknown', ReasonFailed, message, now);
}

const DEPRECATION_TYPES = new Set([TypeDeprecated, TypePackageDeprecated, TypeChannelDeprecated, TypeBundleDeprecated]);

/**
 * Fills every missing non-deprecation condition with False/<reason>/<message>, so a failed
 * reconcile never leaves a condition type absent; existing conditions are left alone.
 */
export function ensureFailureConditions(ext: ClusterExtension, reason: string, message: string, types: readonly string[], now?: Date): void {
  const conds = conditionsOf(ext);
  for (const type of types) {
    if (DEPRECATION_TYPES.has(type) || findCondition(conds, type)) continue;
    set(ext, type, 'False', reason, message, now);
  }
}

/**
 * The four deprecation conditions from the package's `olm.deprecations` entries:
 * - no catalog data → all Unknown/DeprecationStatusUnknown (BundleDeprecated Unknown/Absent
 *   "no bundle installed yet" when nothing is installed);
 * - otherwise True/Deprecated with the entries' messages joined by newlines, or
 *   False/NotDeprecated "<package|channel|bundle> not deprecated" / "not deprecated";
 * - channel entries count when the extension names no channels or names that channel;
 * - bundle entries count only for the installed bundle; nothing installed → Unknown/Absent.
 * Empty messages are dropped.
 */
export function setDeprecationConditions(
  ext: ClusterExtension,
  input: { readonly installedBundleName?: string | undefined; readonly entries?: readonly DeprecationEntryInfo[] | undefined; readonly hasCatalogData: boolean },
  now?: Date,
): void {
  const put = (type: string, status: Condition['status'], reason: string, message: string): void => set(ext, type, status, reason, message, now);
  const installed = input.installedBundleName ?? '';
  if (!input.hasCatalogData) {
    for (const type of [TypeDeprecated, TypePackageDeprecated, TypeChannelDeprecated]) put(type, 'Unknown', ReasonDeprecationStatusUnknown, MSG_DEPRECATION_UNKNOWN);
    if (installed === '') put(TypeBundleDeprecated, 'Unknown', ReasonAbsent, MSG_NO_BUNDLE_YET);
    else put(TypeBundleDeprecated, 'Unknown', ReasonDeprecationStatusUnknown, MSG_DEPRECATION_UNKNOWN);
    return;
  }
  const channels = new Set(ext.spec?.source.catalog?.channels ?? []);
  const pkg: string[] = [];
  const chan: string[] = [];
  const bundle: string[] = [];
  for (const e of input.entries ?? []) {
    const name = e.reference.name ?? '';
    if (e.message === '') continue;
    if (e.reference.schema === 'olm.package') pkg.push(e.message);
    else if (e.reference.schema === 'olm.channel' && (channels.size === 0 || channels.has(name))) chan.push(e.message);
    else if (e.reference.schema === 'olm.bundle' && installed !== '' && name === installed) bundle.push(e.message);
  }
  const deprecated = (type: string, messages: readonly string[], none: string): void =>
    messages.length ? put(type, 'True', ReasonDeprecated, messages.join('\n')) : put(type, 'False', ReasonNotDeprecated, none);
  deprecated(TypeDeprecated, [...pkg, ...chan, ...bundle], 'not deprecated');
  deprecated(TypePackageDeprecated, pkg, 'package not deprecated');
  deprecated(TypeChannelDeprecated, chan, 'channel not deprecated');
  if (installed === '') put(TypeBundleDeprecated, 'Unknown', ReasonAbsent, MSG_NO_BUNDLE_YET);
  else deprecated(TypeBundleDeprecated, bundle, 'bundle not deprecated');
}

/** upstream's wrapping of pull/apply failures once a bundle is resolved. */
export function wrapWithResolution(bundle: { readonly name: string; readonly version: string }, err: unknown): string {
  return `error for resolved bundle ${goQuote(bundle.name)} with version ${goQuote(bundle.version)}: ${errorMessage(err)}`;
}

/** A ClusterObjectSet as the extension's status reads it (BoxcutterRuntime). */
export interface RevisionInfo {
  readonly name: string;
  readonly bundle: InstalledBundleInfo;
  readonly conditions: readonly Condition[];
}

/**
 * Installed and status.install from the extension's revisions (upstream's setInstalledStatusFromRevisionStates):
 * the installed revision's bundle, or False with reason Absent while the newest revision rolls out healthily and
 * Failed when it retries an error or there is none.
 */
export function setInstalledFromRevisions(ext: ClusterExtension, states: { readonly installed?: RevisionInfo | undefined; readonly rollingOut: readonly RevisionInfo[] }, now?: Date): void {
  if (states.installed) {
    setInstalledFromBundle(ext, states.installed.bundle, now);
    return;
  }
  if (ext.status) delete ext.status.install;
  const latest = states.rollingOut.at(-1);
  const retrying = latest !== undefined && findCondition(latest.conditions, TypeProgressing)?.reason === ReasonRetrying;
  const reason = latest === undefined || retrying ? ReasonFailed : ReasonAbsent;
  set(ext, TypeInstalled, 'False', reason, MSG_NO_BUNDLE_INSTALLED, now);
}

/**
 * status.activeRevisions and the mirrored conditions (upstream's ApplyBundleWithBoxcutter): Available and Progressing
 * of the installed revision, then Progressing of the newest revision still rolling out; each revision rolling out is
 * listed with its own Available and Progressing. Conditions keep the revision's lastTransitionTime and take the
 * extension's generation.
 */
export function mirrorRevisions(ext: ClusterExtension, states: { readonly installed?: RevisionInfo | undefined; readonly rollingOut: readonly RevisionInfo[] }, now?: Date): void {
  const g = ext.metadata.generation ?? 0;
  /** `from`'s conditions of these types into `to`, at the extension's generation. */
  const copy = (to: Condition[], from: readonly Condition[], types: readonly string[]): void => {
    for (const type of types) {
      const c = findCondition(from, type);
      if (c) setCondition(to, { ...c, observedGeneration: g }, now);
    }
  };
  const active: { name: string; conditions?: Condition[] }[] = [];
  const status = (ext.status ??= {});
  if (states.installed) {
    copy(conditionsOf(ext), states.installed.conditions, [TypeAvailable, TypeProgressing]);
    const { name, version, release } = states.installed.bundle;
    status.install = { bundle: { name, version, ...(release !== undefined && { release }) } };
    active.push({ name: states.installed.name });
  }
  states.rollingOut.forEach((r, i) => {
    const conditions: Condition[] = [];
    copy(conditions, r.conditions, [TypeAvailable, TypeProgressing]);
    if (i === states.rollingOut.length - 1) copy(conditionsOf(ext), r.conditions, [TypeProgressing]);
    active.push({ name: r.name, ...(conditions.length && { conditions }) });
  });
  status.activeRevisions = active;
}
