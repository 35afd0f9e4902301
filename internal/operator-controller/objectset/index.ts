// The ClusterObjectSet runtime (BoxcutterRuntime): revisions as ClusterObjectSets, their controller, and the
// ClusterExtension side that writes and reads them. See README.md.
export type { ObjectSetRuntime, ObjectSetRuntimeOptions } from './setup.ts';
export { objectSetRuntime } from './setup.ts';
export type { Action, ObjectResult, PhaseResult, RevisionIdentity, RevisionResult } from './engine.ts';
export { RevisionEngine, StaleError, collisionReport, inTransition, objectRefString, objectTitle, revisionComplete, validateRevision } from './engine.ts';
export type { Prober, ProbeResult, ProbeStatus } from './probes.ts';
export { and, conditionEqual, fieldValue, fieldsEqual, observedGeneration, progressionProber } from './probes.ts';
export type { ResolvedObject, ResolvedPhase, SecretReader } from './resolve.ts';
export { effectiveCollisionProtection, mutableSecretsProblem, observedPhasesProblem, phaseDigest, resolvePhases, resolveRef } from './resolve.ts';
export { DeadlineAwareRateLimiter, msUntilDeadline } from './deadline.ts';
export { ClusterObjectSetReconciler, RETRY_COLLISION_MS, RETRY_TEARDOWN_MS, type ClusterObjectSetReconcilerOptions } from './reconciler.ts';
export { DEFAULT_PROGRESSION_PROBES, ExtensionObjectSets, MAX_SECRET_DATA_BYTES, RETENTION_LIMIT, desiredRevision, packIntoSecrets, revisionStates } from './extension.ts';
export { MANAGED_SELECTOR, ManagedObjectWatcher, controllingObjectSet } from './watch.ts';
