// The ClusterExtension pipeline as a list of small steps over one state (upstream's
// ClusterExtensionReconcileSteps):
//
//   handleDeletion → ensureFinalizer → validate → readInstalled → resolve → unpack → render → preflights → apply
//   → reportInstalled
//
// Each step records its effect on the copy's status and either lets the next one run or ends the pass. The
// reconciler (reconciler.ts) runs the list and writes status once; `clusterExtensionSteps` assembles the default list
// from the ports and is called where the implementations are chosen (../setup.ts).
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { errorMessage, isTerminal, TerminalError, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import { addFinalizer, hasFinalizer, removeFinalizer, type EventRecorder, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import {
  setAvailable,
  setDeprecationConditions,
  setInstalledFromBundle,
  setInstalledUnknown,
  setProgressing,
  wrapWithResolution,
} from '../status/index.ts';
import {
  ServiceAccountNotFoundError,
  type BundleApplier,
  type BundleRef,
  type BundleRenderer,
  type BundleResolver,
  type BundleUnpacker,
  type InstallerIdentity,
  type InstallPreflight,
  type InstalledBundle,
  type Resolution,
  type RevisionStates,
} from './ports.ts';

/** Removes everything the extension installed before the ClusterExtension goes away. */
export const CLEANUP_FINALIZER = 'olm.operatorframework.io/cleanup-contentmanager-cache';

/** How soon an uninstall that waits for objects to be deleted looks again (their deletion also re-enqueues it). */
export const UNINSTALL_RECHECK_MS = 2_000;
/** How soon an install whose objects are not ready yet looks again. */
export const NOT_READY_RECHECK_MS = 5_000;

/** What one pass knows; the steps fill it in order. */
export interface ExtensionState {
  /** A copy of the cached object; steps change its status (and the finalizer steps its metadata). */
  readonly ext: ClusterExtension;
  readonly log: Logger;
  /** Writes `ext.status` now (for the steps that end the pass with `final`). */
  readonly writeStatus: (signal: AbortSignal) => Promise<void>;
  installed?: InstalledBundle;
  resolution?: Resolution;
  dir?: string;
  objects?: KubeObject[];
  /** The bundle's `olm.properties` (from render), recorded with the revision. */
  bundleProperties?: string;
  /** BoxcutterRuntime: the extension's ClusterObjectSets as read at the start of the pass. */
  revisionStates?: RevisionStates;
  /** BoxcutterRuntime: the installed bundle's image cannot be read; keep its revision as it is. */
  keepInstalled?: boolean;
}

/** The cleanup finalizer on the extension itself. */
export interface Finalizers {
  add(ext: ClusterExtension, signal: AbortSignal): Promise<void>;
  remove(ext: ClusterExtension, signal: AbortSignal): Promise<void>;
}

/** Finalizers changed on the API server (conflicts retried on a fresh read; a vanished object is fine to free). */
export function kubeFinalizers(client: KubeClient): Finalizers {
  return {
    add: async (ext, signal) => {
      await addFinalizer(client, ext, CLEANUP_FINALIZER, { signal });
    },
    remove: async (ext, signal) => {
      await removeFinalizer(client, ext, CLEANUP_FINALIZER, { signal });
    },
  };
}

/** The ports the steps use. */
export interface ExtensionStepPorts {
  readonly finalizers: Finalizers;
  readonly resolver: BundleResolver;
  readonly unpacker: BundleUnpacker;
  readonly renderer: BundleRenderer;
  readonly preflights: readonly InstallPreflight[];
  readonly applier: BundleApplier;
  /**
   * Only with the ServiceAccountInstalls gate (ours): checks that `spec.serviceAccount` exists before the install state
   * is read. Absent (the default, as upstream v1.11): `spec.serviceAccount` is ignored, and `validate` logs upstream's
   * deprecation line at info on each pass of an extension that sets it.
   */
  readonly identity?: InstallerIdentity;
  readonly events?: EventRecorder;
}

export type ExtensionStep = Step<ExtensionState>;

/** The default pipeline. */
export function clusterExtensionSteps(p: ExtensionStepPorts): ExtensionStep[] {
  return [
    handleDeletion(p),
    ensureFinalizer(p),
    validate(p),
    readInstalled(p),
    resolve(p),
    unpack(p),
    render(p),
    preflights(p),
    apply(p),
    reportInstalled(p),
  ];
}

/**
 * On delete: tear down, and let the extension go only once every object it installed is gone. The pass ends here
 * for a deleted extension, its status written by this step when it changed.
 */
export function handleDeletion(p: Pick<ExtensionStepPorts, 'finalizers' | 'events'> & { readonly applier: Pick<BundleApplier, 'uninstall'> }): ExtensionStep {
  return {
    name: 'handleDeletion',
    run: async ({ ext, log, writeStatus }, signal) => {
      if (!ext.metadata.deletionTimestamp) return undefined;
      if (!hasFinalizer(ext, CLEANUP_FINALIZER)) return { final: true };
      try {
        let outcome;
        try {
          outcome = await p.applier.uninstall(ext, signal);
        } catch (err) {
          setProgressing(ext, new Error(`uninstalling: ${errorMessage(err)}`, { cause: err }));
          await writeStatus(signal);
          return { final: true, err };
        }
        if (!outcome.done) {
          setProgressing(ext, new Error(`uninstalling: ${outcome.message ?? 'waiting for the installed objects to be deleted'}`));
          await writeStatus(signal);
          log.info('uninstall waits for objects to be deleted', { waitingFor: outcome.message });
          return { final: true, result: { requeueAfterMs: UNINSTALL_RECHECK_MS } };
        }
        await p.finalizers.remove(ext, signal);
      } catch (err) {
        return { final: true, err };
      }
      p.events?.normal(ext, 'Uninstalled', 'Removed every object the extension installed');
      log.info('uninstalled');
      return { final: true };
    },
  };
}

/** On create: add the cleanup finalizer and let the update event bring the extension back. */
export function ensureFinalizer(p: Pick<ExtensionStepPorts, 'finalizers'>): ExtensionStep {
  return {
    name: 'ensureFinalizer',
    run: async ({ ext }, signal) => {
      if (hasFinalizer(ext, CLEANUP_FINALIZER)) return undefined;
      return p.finalizers.add(ext, signal).then(
        (): StepOutcome => ({ final: true }),
        (err: unknown): StepOutcome => ({ final: true, err }),
      );
    },
  };
}

/**
 * Upstream's info line (ServiceAccountDeprecationWarning) for an extension that sets the deprecated, ignored
 * `spec.serviceAccount.name`; nothing in status changes.
 */
export const SERVICE_ACCOUNT_DEPRECATED =
  "spec.serviceAccount is deprecated, ignored, and will be removed in a future release - operator-controller's cluster-admin service account is used for all cluster interactions";

/**
 * Checks the API cannot express (the CRD validates the rest), and upstream's ServiceAccountDeprecationWarning: a set
 * `spec.serviceAccount.name` is logged at info, unless the ServiceAccountInstalls gate honours it (`identity` given).
 */
export function validate(p: Pick<ExtensionStepPorts, 'identity'> = {}): ExtensionStep {
  return {
    name: 'validate',
    run: async ({ ext, log }) => {
      if (!p.identity && ext.spec?.serviceAccount?.name) log.info(SERVICE_ACCOUNT_DEPRECATED);
      if (ext.spec?.source.catalog) return undefined;
      const err = new Error('operation cannot proceed due to the following validation error(s): spec.source.catalog is required');
      return installedUnknown(ext, err, err);
    },
  };
}

/** Progressing while the service account is missing (ServiceAccountInstalls gate): upstream's words before v1.11. */
export const MISSING_SERVICE_ACCOUNT = 'installation cannot proceed due to missing ServiceAccount';

/**
 * What the cluster says is installed, read back from the revision records (upstream's RetrieveRevisionStates). With
 * the ServiceAccountInstalls gate (`identity`), first the service account the extension installs as must exist: a
 * missing one (or a missing namespace) is one line in Installed and upstream's old words in Progressing, not every
 * permission a non-existent account lacks.
 */
export function readInstalled(p: Pick<ExtensionStepPorts, 'applier' | 'identity'>): ExtensionStep {
  return {
    name: 'readInstalled',
    run: async (state, signal) => {
      const { ext } = state;
      try {
        await p.identity?.check(ext, signal);
        state.installed = await p.applier.installed(ext, signal);
      } catch (err) {
        return installedUnknown(ext, err, err instanceof ServiceAccountNotFoundError ? new Error(MISSING_SERVICE_ACCOUNT) : undefined);
      }
      setInstalledFromBundle(ext, state.installed);
      return undefined;
    },
  };
}

/** The pass ends on `err` before anything is known installed: Installed Unknown with its message, Progressing `progressing`. */
export function installedUnknown(ext: ClusterExtension, err: unknown, progressing: unknown = new Error('retrying to get installed bundle')): StepOutcome {
  setInstalledUnknown(ext, errorMessage(err));
  setProgressing(ext, progressing);
  return { err };
}

/**
 * Picks the bundle (upstream's ResolveBundle). When resolution fails with a bundle installed whose catalogs are all
 * gone and no other version is asked for, the installed bundle is kept healthy instead (upstream's
 * handleResolutionError) and the pass ends there.
 */
export function resolve(p: Pick<ExtensionStepPorts, 'resolver' | 'applier'>): ExtensionStep {
  return {
    name: 'resolve',
    run: async (state, signal) => {
      const { ext, installed, log } = state;
      try {
        state.resolution = await p.resolver.resolve(ext, installed, signal);
      } catch (err) {
        setDeprecationConditions(ext, { hasCatalogData: false, installedBundleName: installed?.name });
        if (!installed) {
          setInstalledFromBundle(ext, undefined);
          setProgressing(ext, err);
          return { err };
        }
        const wanted = ext.spec?.source.catalog?.version ?? '';
        if ((wanted !== '' && wanted !== installed.version) || catalogsMayExist(p.resolver, ext, log)) {
          setProgressing(ext, err);
          return { err };
        }
        log.info('no catalog matches; keeping the installed bundle', { bundle: installed.name });
        try {
          const kept = await p.applier.maintain(ext, installed, signal);
          setAvailable(ext, kept);
          if (!kept.installed) {
            setProgressing(ext, new Error(kept.message ?? 'waiting for the installed bundle’s objects to become ready'));
            return { result: { requeueAfterMs: NOT_READY_RECHECK_MS } };
          }
        } catch (e) {
          setProgressing(ext, e);
          return { err: e };
        }
        setProgressing(ext, undefined);
        return {};
      }
      setDeprecationConditions(ext, { hasCatalogData: true, installedBundleName: installed?.name, entries: state.resolution.deprecations });
      return undefined;
    },
  };
}

/**
 * Whether a failed resolution should be retried because matching catalogs exist, or cannot be told not to (upstream's
 * handleResolutionError retries when CheckCatalogsExist fails, e.g. for an invalid selector).
 */
export function catalogsMayExist(resolver: Pick<BundleResolver, 'catalogsExist'>, ext: ClusterExtension, log: Logger): boolean {
  try {
    return resolver.catalogsExist(ext);
  } catch (err) {
    log.error('error checking if ClusterCatalogs exist, will retry resolution', { err });
    return true;
  }
}

/**
 * A failure after resolution, as upstream reports it: `error for resolved bundle "<name>" with version "<v>": …`
 * (terminal stays terminal), with an InstallFailed or UpgradeFailed Event.
 */
export function failForBundle(state: ExtensionState, events: EventRecorder | undefined, err: unknown): StepOutcome {
  const { ext, installed } = state;
  const bundle = resolved(state).bundle;
  const wrapped = isTerminal(err) ? new TerminalError(err.reason, wrapWithResolution(bundle, err), { cause: err }) : new Error(wrapWithResolution(bundle, err), { cause: err });
  setProgressing(ext, wrapped);
  if (!installed) events?.warning(ext, 'InstallFailed', errorMessage(wrapped));
  else if (installed.name !== bundle.name) events?.warning(ext, 'UpgradeFailed', errorMessage(wrapped));
  return { err: wrapped };
}

function resolved(state: ExtensionState): Resolution {
  if (!state.resolution) throw new Error('the pipeline reached a bundle step before resolution');
  return state.resolution;
}

/** The bundle image unpacked to a read-only directory. */
export function unpack(p: Pick<ExtensionStepPorts, 'unpacker' | 'events'>): ExtensionStep {
  return {
    name: 'unpack',
    run: async (state, signal) => {
      try {
        state.dir = await p.unpacker.unpack(resolved(state).bundle.image, signal);
      } catch (err) {
        return failForBundle(state, p.events, err);
      }
      return undefined;
    },
  };
}

/** registry+v1 → plain manifests for the extension's namespace and configuration. */
export function render(p: Pick<ExtensionStepPorts, 'renderer' | 'events'>): ExtensionStep {
  return {
    name: 'render',
    run: async (state) => {
      const { ext } = state;
      if (state.keepInstalled) return undefined;
      try {
        if (state.dir === undefined) throw new Error('the pipeline reached render before unpack');
        const config = ext.spec!.config?.inline;
        const rendered = await p.renderer.render(state.dir, { installNamespace: ext.spec!.namespace, ...(config !== undefined && { config }) });
        state.objects = rendered.objects;
        if (rendered.properties !== undefined) state.bundleProperties = rendered.properties;
      } catch (err) {
        return failForBundle(state, p.events, err);
      }
      return undefined;
    },
  };
}

/** Every preflight in order; the first that refuses ends the pass. */
export function preflights(p: Pick<ExtensionStepPorts, 'preflights' | 'events'>): ExtensionStep {
  return {
    name: 'preflights',
    run: async (state, signal) => {
      if (state.keepInstalled) return undefined;
      try {
        for (const check of p.preflights) await check.check(state.ext, state.objects ?? [], signal);
      } catch (err) {
        return failForBundle(state, p.events, err);
      }
      return undefined;
    },
  };
}

/** Applies the objects as a new revision (or keeps the current one); waits while they are not ready. */
export function apply(p: Pick<ExtensionStepPorts, 'applier' | 'events'>): ExtensionStep {
  return {
    name: 'apply',
    run: async (state, signal) => {
      const { ext } = state;
      let applied;
      try {
        const { bundle } = resolved(state);
        applied = await p.applier.apply(ext, state.bundleProperties === undefined ? bundle : { ...bundle, properties: state.bundleProperties }, state.objects ?? [], signal);
      } catch (err) {
        return failForBundle(state, p.events, err);
      }
      setAvailable(ext, applied);
      if (!applied.installed) {
        setProgressing(ext, new Error(applied.message ?? 'waiting for the bundle’s objects to become ready'));
        return { result: { requeueAfterMs: NOT_READY_RECHECK_MS } };
      }
      return undefined;
    },
  };
}

/** The new bundle is installed: status says so, and an Installed or Upgraded Event tells of a change. */
export function reportInstalled(p: Pick<ExtensionStepPorts, 'events'>): ExtensionStep {
  return {
    name: 'reportInstalled',
    run: async (state) => {
      const { ext, installed: previous, log } = state;
      const { bundle, deprecations } = resolved(state);
      setInstalledFromBundle(ext, bundle);
      setDeprecationConditions(ext, { hasCatalogData: true, installedBundleName: bundle.name, entries: deprecations });
      setProgressing(ext, undefined);
      reportBundleChange(p.events, ext, previous, bundle);
      log.debug('reconciled', { bundle: bundle.name });
      return undefined;
    },
  };
}

/** An Installed Event for a first bundle, an Upgraded Event when the installed bundle changed. */
export function reportBundleChange(events: EventRecorder | undefined, ext: ClusterExtension, before: Pick<BundleRef, 'name' | 'version'> | undefined, now: BundleRef): void {
  if (!before) events?.normal(ext, 'Installed', `Installed bundle ${now.name} (version ${now.version})`);
  else if (before.name !== now.name) events?.normal(ext, 'Upgraded', `Moved from bundle ${before.name} (version ${before.version}) to ${now.name} (version ${now.version})`);
}
