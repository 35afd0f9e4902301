// The ClusterExtension reconciler: one pass of the pipeline
//
//   finalizer → validate → installed? → resolve → unpack → render → preflight → apply → status
//
// over a copy of the cached object. Each step records its effect on the copy's status; the status
// is written once at the end (only when it changed, conflicts retried on a fresh read). Nothing is
// kept in memory between passes: what is installed is read back from the cluster every time, so a
// process killed at any line converges on the next pass.
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  ClusterExtensionConditionTypes,
  ClusterExtensionKind,
  GroupVersion,
  ReasonFailed,
  type ClusterExtension,
} from '../../../api/v1/index.ts';
import { errorMessage, isTerminal, TerminalError, type Reconciler, type Result } from '../../shared/controller/index.ts';
import { addFinalizer, hasFinalizer, isNotFound, removeFinalizer, updateStatus, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';
import {
  ensureFailureConditions,
  setAvailable,
  setDeprecationConditions,
  setInstalledFromBundle,
  setInstalledUnknown,
  setProgressing,
  wrapWithResolution,
} from '../status/index.ts';
import type { EventRecorder } from './events.ts';
import type { BundleApplier, BundleRef, BundleRenderer, BundleResolver, BundleUnpacker, InstallPreflight, InstalledBundle } from './ports.ts';

/** Removes everything the extension installed before the ClusterExtension goes away. */
export const CLEANUP_FINALIZER = 'olm.operatorframework.io/cleanup-contentmanager-cache';

export interface ClusterExtensionReconcilerOptions {
  readonly client: KubeClient;
  /** The cached ClusterExtension for a key (an informer's `get`). */
  readonly get: (key: string) => ClusterExtension | undefined;
  readonly resolver: BundleResolver;
  readonly unpacker: BundleUnpacker;
  readonly renderer: BundleRenderer;
  readonly preflights: readonly InstallPreflight[];
  readonly applier: BundleApplier;
  readonly events?: EventRecorder;
  readonly logger: Logger;
  /** Re-run every extension this often to repair drift nobody reported; default 10 min. */
  readonly resyncMs?: number;
}

/** How soon an uninstall that waits for objects to be deleted looks again (their deletion also re-enqueues it). */
const UNINSTALL_RECHECK_MS = 2_000;

/** A step's verdict: go on, or stop with this error (undefined = stop quietly). */
type Stop = { readonly stop: true; readonly err?: unknown; readonly result?: Result };

export class ClusterExtensionReconciler implements Reconciler {
  readonly #o: ClusterExtensionReconcilerOptions;

  constructor(options: ClusterExtensionReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<Result | void> {
    const cached = this.#o.get(key);
    if (!cached) return;
    const ext = structuredClone(cached);
    const log = this.#o.logger.child({ clusterExtension: key });

    // Finalizer: on create, add it and let the update event bring us back; on delete, tear down,
    // and let the extension go only once every object it installed is gone.
    if (ext.metadata.deletionTimestamp) {
      if (hasFinalizer(ext, CLEANUP_FINALIZER)) {
        let outcome;
        try {
          outcome = await this.#o.applier.uninstall(ext, signal);
        } catch (err) {
          setProgressing(ext, new Error(`uninstalling: ${errorMessage(err)}`, { cause: err }));
          await this.#writeStatus(cached, ext, signal);
          throw err;
        }
        if (!outcome.done) {
          setProgressing(ext, new Error(`uninstalling: ${outcome.message ?? 'waiting for the installed objects to be deleted'}`));
          await this.#writeStatus(cached, ext, signal);
          log.info('uninstall waits for objects to be deleted', { waitingFor: outcome.message });
          return { requeueAfterMs: UNINSTALL_RECHECK_MS };
        }
        await removeFinalizer(this.#o.client, ext, CLEANUP_FINALIZER, { signal });
        this.#o.events?.normal(ext, 'Uninstalled', 'Removed every object the extension installed');
        log.info('uninstalled');
      }
      return;
    }
    if (!hasFinalizer(ext, CLEANUP_FINALIZER)) {
      await addFinalizer(this.#o.client, ext, CLEANUP_FINALIZER, { signal });
      return;
    }

    let outcome: Stop | undefined;
    try {
      outcome = await this.#pipeline(ext, signal, log);
    } catch (err) {
      // A step that threw without recording status: report it as it is.
      setProgressing(ext, err);
      outcome = { stop: true, err };
    }
    ensureFailureConditions(ext, ReasonFailed, outcome?.err !== undefined ? errorMessage(outcome.err) : 'reconcile did not finish', ClusterExtensionConditionTypes);
    await this.#writeStatus(cached, ext, signal);
    if (outcome?.err !== undefined) {
      if (isTerminal(outcome.err)) log.warn('terminal error; not retrying until the extension changes', { err: outcome.err });
      throw outcome.err;
    }
    return outcome?.result ?? { requeueAfterMs: this.#o.resyncMs ?? 600_000 };
  }

  async #pipeline(ext: ClusterExtension, signal: AbortSignal, log: Logger): Promise<Stop | undefined> {
    const o = this.#o;
    const validation = validate(ext);
    if (validation.length) {
      const err = new Error(`operation cannot proceed due to the following validation error(s): ${validation.join(', ')}`);
      setInstalledUnknown(ext, err.message);
      setProgressing(ext, err);
      return { stop: true, err };
    }

    let installed: InstalledBundle | undefined;
    try {
      installed = await o.applier.installed(ext, signal);
    } catch (err) {
      setInstalledUnknown(ext, errorMessage(err));
      setProgressing(ext, new Error('retrying to get installed bundle'));
      return { stop: true, err };
    }
    setInstalledFromBundle(ext, installed);

    let resolution;
    try {
      resolution = await o.resolver.resolve(ext, installed, signal);
    } catch (err) {
      return this.#resolutionFailed(ext, installed, err, signal, log);
    }
    const bundle = resolution.bundle;
    setDeprecationConditions(ext, { hasCatalogData: true, installedBundleName: installed?.name, entries: resolution.deprecations });

    const fail = (err: unknown): Stop => {
      const wrapped = isTerminal(err) ? new TerminalError(err.reason, wrapWithResolution(bundle, err), { cause: err }) : new Error(wrapWithResolution(bundle, err), { cause: err });
      setProgressing(ext, wrapped);
      if (!installed) o.events?.warning(ext, 'InstallFailed', errorMessage(wrapped));
      else if (installed.name !== bundle.name) o.events?.warning(ext, 'UpgradeFailed', errorMessage(wrapped));
      return { stop: true, err: wrapped };
    };

    let objects: KubeObject[];
    try {
      const dir = await o.unpacker.unpack(bundle.image, signal);
      const config = ext.spec!.config?.inline;
      objects = await o.renderer.render(dir, { installNamespace: ext.spec!.namespace, ...(config !== undefined && { config }) });
      for (const p of o.preflights) await p.check(ext, objects, signal);
    } catch (err) {
      return fail(err);
    }

    let applied;
    try {
      applied = await o.applier.apply(ext, bundle, objects, signal);
    } catch (err) {
      return fail(err);
    }
    setAvailable(ext, applied);
    if (!applied.installed) {
      setProgressing(ext, new Error(applied.message ?? 'waiting for the bundle’s objects to become ready'));
      return { stop: true, result: { requeueAfterMs: 5_000 } };
    }
    const previous = installed;
    setInstalledFromBundle(ext, {
      name: bundle.name,
      version: bundle.version,
      image: bundle.image,
      ...(bundle.release !== undefined && { release: bundle.release }),
    });
    setDeprecationConditions(ext, { hasCatalogData: true, installedBundleName: bundle.name, entries: resolution.deprecations });
    setProgressing(ext, undefined);
    if (!previous) o.events?.normal(ext, 'Installed', `Installed bundle ${bundle.name} (version ${bundle.version})`);
    else if (previous.name !== bundle.name) o.events?.normal(ext, 'Upgraded', `Moved from bundle ${previous.name} (version ${previous.version}) to ${bundle.name} (version ${bundle.version})`);
    log.debug('reconciled', { bundle: bundle.name });
    return undefined;
  }

  /** upstream's handleResolutionError: retry, or keep the installed bundle healthy when its catalogs are gone. */
  async #resolutionFailed(ext: ClusterExtension, installed: InstalledBundle | undefined, err: unknown, signal: AbortSignal, log: Logger): Promise<Stop | undefined> {
    setDeprecationConditions(ext, { hasCatalogData: false, installedBundleName: installed?.name });
    if (!installed) {
      setInstalledFromBundle(ext, undefined);
      setProgressing(ext, err);
      return { stop: true, err };
    }
    const wanted = ext.spec?.source.catalog?.version ?? '';
    if ((wanted !== '' && wanted !== installed.version) || this.#o.resolver.catalogsExist(ext)) {
      setProgressing(ext, err);
      return { stop: true, err };
    }
    log.info('no catalog matches; keeping the installed bundle', { bundle: installed.name });
    try {
      const kept = await this.#o.applier.maintain(ext, installed, signal);
      setAvailable(ext, kept);
      if (!kept.installed) {
        setProgressing(ext, new Error(kept.message ?? 'waiting for the installed bundle’s objects to become ready'));
        return { stop: true, result: { requeueAfterMs: 5_000 } };
      }
    } catch (e) {
      setProgressing(ext, e);
      return { stop: true, err: e };
    }
    setProgressing(ext, undefined);
    return undefined;
  }

  async #writeStatus(cached: ClusterExtension, ext: ClusterExtension, signal: AbortSignal): Promise<void> {
    if (JSON.stringify(cached.status ?? null) === JSON.stringify(ext.status ?? null)) return;
    try {
      await updateStatus<ClusterExtension>(
        this.#o.client,
        { apiVersion: GroupVersion, kind: ClusterExtensionKind, name: ext.metadata.name! },
        (fresh) => {
          fresh.status = ext.status ?? {};
        },
        { current: cached, signal },
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** Checks the API cannot express (the CRD validates the rest). */
function validate(ext: ClusterExtension): string[] {
  const problems: string[] = [];
  if (!ext.spec?.source.catalog) problems.push('spec.source.catalog is required');
  return problems;
}

export type { BundleRef };
