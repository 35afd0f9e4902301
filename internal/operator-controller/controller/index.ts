// The ClusterExtension pipeline: the ports each stage implements (ports.ts), the steps over them (steps.ts), the
// reconciler that runs the step list and writes status (reconciler.ts). See README.md.
export type {
  ApplyOutcome,
  BundleApplier,
  BundleRef,
  BundleRenderer,
  BundleResolver,
  BundleUnpacker,
  InstallPreflight,
  InstalledBundle,
  InstallerIdentity,
  RenderRequest,
  RenderedBundle,
  Resolution,
  UninstallOutcome,
} from './ports.ts';
export { ServiceAccountNotFoundError } from './ports.ts';
export { ClusterExtensionReconciler, type ClusterExtensionReconcilerOptions } from './reconciler.ts';
export {
  CLEANUP_FINALIZER,
  MISSING_SERVICE_ACCOUNT,
  NOT_READY_RECHECK_MS,
  SERVICE_ACCOUNT_DEPRECATED,
  UNINSTALL_RECHECK_MS,
  apply,
  clusterExtensionSteps,
  kubeFinalizers,
  ensureFinalizer,
  handleDeletion,
  preflights,
  readInstalled,
  render,
  reportInstalled,
  resolve,
  unpack,
  validate,
  type ExtensionState,
  type ExtensionStep,
  type ExtensionStepPorts,
  type Finalizers,
} from './steps.ts';
