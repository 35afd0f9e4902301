// The ClusterExtension pipeline under BoxcutterRuntime (upstream's Boxcutter reconcile steps,
// operator-controller controllers/boxcutter_reconcile_steps.go and clusterextension_reconcile_steps.go, v1.11):
//
//   handleDeletion → ensureFinalizer → validate → migrateStorage → readRevisionStates → resolveRevision → unpack
//   → render → applyObjectSet (the preflights run inside, only when a new revision is to be made, as upstream)
//
// Revisions are ClusterObjectSets, rolled out by their own controller (../objectset). This pipeline writes the
// desired revision and reads the revisions' state back: status.activeRevisions, Installed from the newest revision
// that succeeded, Available and Progressing mirrored from the revisions.
import { ReasonRetrying, TypeProgressing } from '../../../api/v1/index.ts';
import { errorMessage, findCondition, isTerminal } from '../../shared/controller/index.ts';
import {
  ensureFailureConditions,
  mirrorRevisions,
  setDeprecationConditions,
  setInstalledFromRevisions,
  setProgressing,
} from '../status/index.ts';
import type { BundleRef, ObjectSetApplier, RevisionStates } from './ports.ts';
import {
  ensureFinalizer,
  failForBundle,
  handleDeletion,
  installedUnknown,
  render,
  reportBundleChange,
  unpack,
  validate,
  type ExtensionState,
  type ExtensionStep,
  type ExtensionStepPorts,
} from './steps.ts';

export interface ObjectSetStepPorts extends Omit<ExtensionStepPorts, 'applier' | 'identity'> {
  readonly objectSets: ObjectSetApplier;
}

/** The pipeline under BoxcutterRuntime. */
export function clusterExtensionObjectSetSteps(p: ObjectSetStepPorts): ExtensionStep[] {
  return [
    handleDeletion({ finalizers: p.finalizers, applier: p.objectSets, ...(p.events && { events: p.events }) }),
    ensureFinalizer(p),
    validate(),
    migrateStorage(p),
    readRevisionStates(p),
    resolveRevision(p),
    keepInstalledWhenUnpackFails(unpack(p)),
    render(p),
    applyObjectSet(p),
  ];
}

function states(state: ExtensionState): RevisionStates {
  if (!state.revisionStates) throw new Error('the pipeline reached a revision step before the revisions were read');
  return state.revisionStates;
}

/** An extension installed by the standard runtime gets its installed revision as ClusterObjectSet revision 1. */
export function migrateStorage(p: Pick<ObjectSetStepPorts, 'objectSets'>): ExtensionStep {
  return {
    name: 'migrateStorage',
    run: async ({ ext }, signal) => {
      try {
        await p.objectSets.migrate(ext, signal);
      } catch (err) {
        const wrapped = new Error(`migrating storage: ${errorMessage(err)}`, { cause: err });
        setProgressing(ext, wrapped);
        return { err: wrapped };
      }
      return undefined;
    },
  };
}

/** The extension's revisions (upstream's RetrieveRevisionStates with the Boxcutter getter). */
export function readRevisionStates(p: Pick<ObjectSetStepPorts, 'objectSets'>): ExtensionStep {
  return {
    name: 'readRevisionStates',
    run: async (state, signal) => {
      const { ext } = state;
      try {
        state.revisionStates = await p.objectSets.revisionStates(ext, signal);
      } catch (err) {
        return installedUnknown(ext, err);
      }
      if (state.revisionStates.installed) {
        const { bundle, name } = state.revisionStates.installed;
        state.installed = { ...bundle, revision: name };
      }
      return undefined;
    },
  };
}

/**
 * The bundle to roll out (upstream's ResolveBundle): while a revision is rolling out, the oldest such revision's
 * bundle, without resolving; otherwise resolution against the installed revision. When resolution fails with a bundle
 * installed, no other version asked for and no catalog matching, the installed bundle is kept (upstream's
 * handleResolutionError).
 */
export function resolveRevision(p: Pick<ObjectSetStepPorts, 'resolver'>): ExtensionStep {
  return {
    name: 'resolveRevision',
    run: async (state, signal) => {
      const { ext } = state;
      const revs = states(state);
      const installedName = revs.installed?.bundle.name;
      const rolling = revs.rollingOut[0];
      if (rolling) {
        setDeprecationConditions(ext, { hasCatalogData: false, installedBundleName: installedName });
        state.resolution = { bundle: rolling.bundle, catalog: '', deprecations: [] };
        return undefined;
      }
      try {
        state.resolution = await p.resolver.resolve(ext, revs.installed?.bundle, signal);
      } catch (err) {
        setDeprecationConditions(ext, { hasCatalogData: false, installedBundleName: installedName });
        const retry = (msg: string): { err: unknown } => {
          setProgressing(ext, err);
          setInstalledFromRevisions(ext, revs);
          ensureFailureConditions(ext, ReasonRetrying, msg, [TypeProgressing]);
          return { err };
        };
        if (!revs.installed) return retry(`failed to resolve bundle: ${errorMessage(err)}`);
        const wanted = ext.spec?.source.catalog?.version ?? '';
        if (wanted !== '' && wanted !== revs.installed.bundle.version) {
          return retry(`unable to upgrade to version ${wanted}: ${errorMessage(err)} (currently installed: ${revs.installed.bundle.version})`);
        }
        let exist: boolean;
        try {
          exist = p.resolver.catalogsExist(ext);
        } catch (checkErr) {
          state.log.error('error checking if ClusterCatalogs exist, will retry resolution', { err: checkErr, resolutionError: errorMessage(err) });
          return retry(`failed to resolve bundle: ${errorMessage(err)}`);
        }
        if (exist) return retry(`failed to resolve bundle, retrying: ${errorMessage(err)}`);
        state.log.info('matching ClusterCatalogs unavailable or deleted - falling back to installed bundle to maintain workload', {
          resolutionError: errorMessage(err),
          installedBundle: revs.installed.bundle.name,
        });
        setInstalledFromRevisions(ext, revs);
        state.resolution = { bundle: revs.installed.bundle, catalog: '', deprecations: [] };
        return undefined;
      }
      setDeprecationConditions(ext, { hasCatalogData: true, installedBundleName: installedName, entries: state.resolution.deprecations });
      return undefined;
    },
  };
}

/** A bundle image that cannot be pulled while it is the installed one: keep the installed revision as it is. */
export function keepInstalledWhenUnpackFails(inner: ExtensionStep): ExtensionStep {
  return {
    name: inner.name,
    run: async (state, signal) => {
      const outcome = await inner.run(state, signal);
      const installed = state.revisionStates?.installed?.bundle;
      const bundle = state.resolution?.bundle;
      if (outcome?.err !== undefined && installed && bundle && installed.name === bundle.name && installed.version === bundle.version) {
        state.log.debug('bundle content unavailable but version unchanged, maintaining current installation', { bundle: bundle.name });
        state.keepInstalled = true;
        return undefined;
      }
      return outcome;
    },
  };
}

/** The resolved bundle's objects as the newest revision; then the revisions' state mirrored into status. */
export function applyObjectSet(p: Pick<ObjectSetStepPorts, 'objectSets' | 'events'> & Partial<Pick<ObjectSetStepPorts, 'preflights'>>): ExtensionStep {
  return {
    name: 'applyObjectSet',
    run: async (state, signal) => {
      const { ext } = state;
      const revs = states(state);
      if (!state.keepInstalled) {
        if (!state.resolution) throw new Error('the pipeline reached apply before resolution');
        const bundle: BundleRef = state.bundleProperties === undefined ? state.resolution.bundle : { ...state.resolution.bundle, properties: state.bundleProperties };
        const checks = p.preflights ?? [];
        const preflight = async (): Promise<void> => {
          for (const check of checks) await check.check(ext, state.objects ?? [], signal);
        };
        try {
          await p.objectSets.apply(ext, bundle, state.objects ?? [], signal, preflight);
        } catch (err) {
          const outcome = failForBundle(state, p.events, err);
          if (!isTerminal(err)) setInstalledFromRevisions(ext, revs);
          return outcome;
        }
      }
      const before = ext.status?.install?.bundle;
      mirrorRevisions(ext, revs);
      setInstalledFromRevisions(ext, revs);
      const now = revs.installed?.bundle;
      if (now) reportBundleChange(p.events, ext, before, now);
      if (!findCondition(ext.status?.conditions, TypeProgressing)) state.log.debug('waiting for the new revision to report its rollout');
      return undefined;
    },
  };
}
