// The controller runtime: work queue, reconcile loop, terminal/retryable errors, conditions.
export type { Clock } from './clock.ts';
export { realClock } from './clock.ts';
export type { ConditionInput } from './conditions.ts';
export {
  MAX_CONDITION_MESSAGE_BYTES,
  TRUNCATION_SUFFIX,
  findCondition,
  formatTime,
  hasStatus,
  isTrue,
  removeCondition,
  setCondition,
  truncateMessage,
} from './conditions.ts';
export type { ControllerOptions, EventSource, EventType, MapFn, NamedObject, Reconciler, Result, WatchOptions } from './controller.ts';
export { Controller, objectKey, splitKey } from './controller.ts';
export { mapLimit } from './concurrency.ts';
export type { ObjectReconcilerOptions, ObjectWriter, Pass } from './object-reconciler.ts';
export { ObjectReconciler, kubeObjectWriter } from './object-reconciler.ts';
export type { Step, StepOutcome, StepsOutcome } from './steps.ts';
export { runSteps } from './steps.ts';
export type { Routine } from './errors.ts';
export { TerminalError, errorMessage, isTerminal, joinErrors, routine, routineOf, sanitizeNetworkError, withContext } from './errors.ts';
export type { RateLimiter } from './rate-limiter.ts';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.ts';
export type { WorkQueueOptions } from './workqueue.ts';
export { WorkQueue } from './workqueue.ts';
