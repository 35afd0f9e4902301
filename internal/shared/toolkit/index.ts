// The small helpers every layer uses, each written once: abortable waits, the logger shape, one-line text.
export { raceAbort, sleep, sleepOrThrow, untilAborted } from './abort.ts';
export type { Clock } from './clock.ts';
export { ManualClock, realClock } from './clock.ts';
export type { LogFields, Logger } from './logger.ts';
export { noopLogger } from './logger.ts';
export { errorMessage, oneLine } from './text.ts';
export { tryOr, tryOrThrow, withErrorPrefix } from './fallback.ts';
export { jsonKind } from './json-kind.ts';
export { memoize } from './memo.ts';
export { isObject } from './record.ts';
export { fnv64a } from './fnv.ts';
export { aggregateMessages } from './aggregate.ts';
export { listen } from './listen.ts';
