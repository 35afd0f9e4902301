// The ClusterExtension pipeline: the ports each stage implements (ports.ts), the reconciler that strings them
// together (reconciler.ts) and its Events (events.ts). See README.md.
export type {
  ApplyOutcome,
  BundleApplier,
  BundleRef,
  BundleRenderer,
  BundleResolver,
  BundleUnpacker,
  InstallPreflight,
  InstalledBundle,
  RenderRequest,
  Resolution,
  UninstallOutcome,
} from './ports.ts';
export { CLEANUP_FINALIZER, ClusterExtensionReconciler, type ClusterExtensionReconcilerOptions } from './reconciler.ts';
export { eventRecorder, type EventRecorder } from './events.ts';
