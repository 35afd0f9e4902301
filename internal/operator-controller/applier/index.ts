// operator-controller's applier: revisions of a ClusterExtension's objects, applied in phases.
export type { RevisionApplierOptions } from './applier.ts';
export { CollisionError, RevisionApplier, collisionMessage } from './applier.ts';
export type { Phase, PhaseName } from './phases.ts';
export { PHASE_ORDER, compareObjects, groupOf, objectKey, phaseOf, sortIntoPhases, versionOf } from './phases.ts';
export { ESTABLISH_REQUESTED, STUCK_CRD_MS, establishAction, probe, probeAll } from './health.ts';
export type { Remaining } from './teardown.ts';
export { describeRemaining } from './teardown.ts';
export type { RevisionRecord } from './record.ts';
export { BundlePropertiesAnnotation, CHUNK_BYTES, bundleAnnotations, bundleFromAnnotations, decodeRecord, encodeRecord, ownedBy, revisionName, sanitize } from './record.ts';
export type { RevisionHead } from './store.ts';
export { RevisionHeadsSelector, RevisionSecretType, RevisionStore, readRevisionHead } from './store.ts';
export type { OwnedObjectWatcherOptions } from './watch.ts';
export { OwnedObjectWatcher, drifted } from './watch.ts';
