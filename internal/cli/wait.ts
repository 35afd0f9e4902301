// Waiting for the cluster (`--wait`): poll an object every 250 ms (kubectl-operator's interval)
// until a test passes or the timeout ends; while waiting, one line on stderr per condition that
// changed since the command started — only when stderr is a terminal, so scripts and pipes see nothing but the
// result. A cause waiting will not fix (failfast.ts) ends the wait early, unless the caller keeps waiting for a fix.
import type { Condition } from '../../api/meta/v1.ts';
import { realClock, sleep, type Clock } from '../shared/toolkit/index.ts';
import type { Unfixable } from './failfast.ts';
import type { CliIO } from './types.ts';

export const POLL_INTERVAL_MS = 250;

/** Whether progress may be shown: stderr is a terminal. */
export const isTerminal = (stream: NodeJS.WritableStream): boolean => (stream as { isTTY?: boolean }).isTTY === true;

export interface WaitOptions<T> {
  /** Reads the object; undefined when it does not exist. */
  readonly get: () => Promise<T | undefined>;
  /** True when waiting is over. */
  readonly done: (obj: T | undefined) => boolean;
  /** The object's conditions, for progress lines. */
  readonly conditions?: (obj: T | undefined) => readonly Condition[] | undefined;
  readonly timeoutMs: number;
  readonly io: CliIO;
  /** Progress prefix, e.g. `clusterextension/foo`. */
  readonly label: string;
  /** The conditions when the command started: progress shows only what changes from them (no replay). */
  readonly baseline?: readonly Condition[] | undefined;
  /** A cause waiting will not fix, once it has stayed long enough (CauseTracker); the wait then ends. */
  readonly giveUp?: ((obj: T | undefined) => Unfixable | undefined) | undefined;
  /** What the timeout and the progress lines' elapsed time are read on (default the monotonic realClock). */
  readonly clock?: Clock;
}

export type WaitResult<T> =
  | { readonly ok: true; readonly last: T | undefined }
  | { readonly ok: false; readonly last: T | undefined; readonly reason: 'timeout' | 'aborted' }
  | { readonly ok: false; readonly last: T | undefined; readonly reason: 'unfixable'; readonly unfixable: Unfixable };

/** Why a wait stopped, in Go's context error words (kubectl-operator's messages end with them). */
export const contextError = (reason: 'timeout' | 'aborted' | 'unfixable'): string => (reason === 'aborted' ? 'context canceled' : 'context deadline exceeded');

/** One progress line per condition whose status, reason or message changed since the last read. */
export function conditionChanges(before: ReadonlyMap<string, string>, conditions: readonly Condition[] | undefined): { lines: string[]; now: Map<string, string> } {
  const now = new Map<string, string>();
  const lines: string[] = [];
  for (const c of conditions ?? []) {
    const text = `${c.type}=${c.status} ${c.reason}${c.message ? `: ${c.message}` : ''}`;
    now.set(c.type, text);
    if (before.get(c.type) !== text) lines.push(text);
  }
  return { lines, now };
}

const elapsed = (clock: Clock, start: number): string => {
  const s = Math.floor((clock.now() - start) / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

export async function waitFor<T>(o: WaitOptions<T>): Promise<WaitResult<T>> {
  const clock = o.clock ?? realClock;
  const start = clock.now();
  const deadline = start + o.timeoutMs;
  const progress = isTerminal(o.io.stderr);
  let seen = conditionChanges(new Map(), o.baseline).now;
  let last: T | undefined;
  for (;;) {
    if (o.io.signal?.aborted) return { ok: false, last, reason: 'aborted' };
    last = await o.get();
    if (progress && o.conditions) {
      const { lines, now } = conditionChanges(seen, o.conditions(last));
      seen = now;
      for (const l of lines) o.io.stderr.write(`[${elapsed(clock, start)}] ${o.label}: ${l}\n`);
    }
    if (o.done(last)) return { ok: true, last };
    const u = o.giveUp?.(last);
    if (u) return { ok: false, last, reason: 'unfixable', unfixable: u };
    const left = deadline - clock.now();
    if (left <= 0) return { ok: false, last, reason: 'timeout' };
    await sleep(Math.min(POLL_INTERVAL_MS, left), o.io.signal);
  }
}
