// The controller runtime: work queue, reconcile loop, terminal/retryable errors, conditions.
export type { Clock } from './clock.ts';
export { realClock } from './clock.ts';
export type { ConditionInput } from './conditions.ts';
export { findCondition, formatTime, isTrue, removeCondition, setCondition } from './conditions.ts';
export type { EventSource, EventType, Reconciler, Result, WatchOptions } from './controller.ts';
export { Controller, objectKey, splitKey } from './controller.ts';
export { mapLimit } from './concurrency.ts';
export type { ObjectWriter, Pass } from './object-reconciler.ts';
export { ObjectReconciler, kubeObjectWriter } from './object-reconciler.ts';
export type { Step, StepOutcome } from './steps.ts';
export { runSteps } from './steps.ts';
export type { Routine } from './errors.ts';
export { TerminalError, errorMessage, isTerminal, joinErrors, routine, routineOf, sanitizeNetworkError, withContext } from './errors.ts';
export type { RateLimiter } from './rate-limiter.ts';
export { ItemExponentialFailureRateLimiter, defaultControllerRateLimiter } from './rate-limiter.ts';
export { WorkQueue } from './workqueue.ts';
