// Terminal vs retryable errors, and stable error text for status conditions.
//
// Retry is the default: any error a reconciler throws is retried with backoff. An error that a
// retry cannot fix (bad configuration, an unsatisfiable request) must say so by being a
// TerminalError; its `reason` becomes the condition reason (Progressing=False/<reason>).
// Mirrors controller-runtime's reconcile.TerminalError and operator-controller's
// internal/shared/util/error (NewTerminalError, ExtractTerminalReason, SanitizeNetworkError).
import { errorMessage } from '../toolkit/index.ts';

// A registry-wide brand, so `isTerminal` also recognises errors made by a second copy of this
// module (two bundled copies, a test importing by another path): `instanceof` alone would not.
const TERMINAL = Symbol.for('olmv1.controller.TerminalError');

export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  /** CamelCase reason for the Progressing condition, e.g. `Blocked`, `InvalidConfiguration`. */
  readonly reason: string;

  constructor(reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
    Object.defineProperty(this, TERMINAL, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // Subclasses keep ordinary prototype-chain instanceof.
    if (this !== TerminalError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TERMINAL] === true;
  }
}

// A registry-wide brand, as TERMINAL: an error a reconciler expects on the way to the goal (a dependent not
// gone yet, a requirement not there yet, a refusal by design that status already reports).
const ROUTINE = Symbol.for('olmv1.controller.RoutineError');

/** How a routine error is logged: its reason and the level (debug for plain waits, info for what a reader may want). */
export interface Routine {
  readonly reason: string;
  readonly level: 'debug' | 'info';
}

/**
 * Marks `err` as routine and returns it unchanged (same class, message, cause and terminal-ness): the controller
 * retries it exactly as any other error, counts it in the same metrics, and logs it at `level` (default debug)
 * with `reason` instead of as a `Reconciler error`. For retries that need no one to act; status says the rest.
 */
export function routine<E>(err: E, reason: string, level: Routine['level'] = 'debug'): E {
  if (typeof err === 'object' && err !== null) Object.defineProperty(err, ROUTINE, { value: { reason, level } satisfies Routine, configurable: true });
  return err;
}

/** The routine mark of `err` or of an error in its cause chain (wrapping keeps it; a join may say "not"), or undefined. */
export function routineOf(err: unknown): Routine | undefined {
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const mark = (e as Record<symbol, unknown>)[ROUTINE] as Routine | null | undefined;
    if (mark !== undefined) return mark ?? undefined;
  }
  return undefined;
}

/** True when `err` is a TerminalError: the controller must not retry it. */
export function isTerminal(err: unknown): err is TerminalError {
  return err instanceof TerminalError;
}

export { errorMessage }; // the toolkit's, re-exported for the controllers that read errors through this folder

/**
 * Adds context in front of an error's message (`<prefix>: <message>`) and keeps the original
 * as `cause`. A terminal error stays terminal with the same reason, so wrapping at each layer
 * never turns "do not retry" into "retry".
 */
export function withContext(err: unknown, prefix: string): Error {
  const message = `${prefix}: ${errorMessage(err)}`;
  return isTerminal(err) ? new TerminalError(err.reason, message, { cause: err }) : new Error(message, { cause: err });
}

/** Go's errors.Join: one message a line; terminal (its reason) when the first is, routine only when every one is. */
export function joinErrors([first, ...rest]: readonly unknown[]): unknown {
  if (rest.length === 0) return first;
  const message = [first, ...rest].map(errorMessage).join('\n');
  const joined = isTerminal(first) ? new TerminalError(first.reason, message, { cause: first }) : new Error(message, { cause: first });
  const routineAll = [first, ...rest].every((e) => routineOf(e) !== undefined);
  return Object.defineProperty(joined, ROUTINE, { value: routineAll ? routineOf(first) : null, configurable: true });
}

// read|write tcp|udp <IPv4 or [IPv6]>[:port]-><IPv4 or [IPv6]>[:port][: ]: the same pattern as
// upstream's SanitizeNetworkError (operator-controller internal/shared/util/error/sanitize.go).
const EPHEMERAL_NETWORK_ERROR =
  /(read|write) (tcp|udp) ((?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9a-fA-F:]+\])(?::[0-9]+)?)->((?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9a-fA-F:]+\])(?::[0-9]+)?)(: )?/g;

/**
 * Removes `read|write tcp|udp <src>-><dst>: ` from an error message. The source port changes on
 * every attempt, so without this a retried network error rewrites status on each retry.
 * Accepts an error (its message is used), a string, or nothing (returns "").
 */
export function sanitizeNetworkError(err: unknown): string {
  const message = typeof err === 'string' ? err : errorMessage(err);
  return message.replace(EPHEMERAL_NETWORK_ERROR, '');
}
