// Time source for the queue, rate limiters and controller: the toolkit's Clock (milliseconds on a monotonic scale).
export type { Clock } from '../toolkit/index.ts';
export { realClock } from '../toolkit/index.ts';
