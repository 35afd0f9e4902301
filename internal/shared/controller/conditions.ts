// status.conditions helpers with apimachinery's meta.SetStatusCondition semantics, plus the
// message truncation operator-controller applies to every condition it writes.
import type { Condition, ConditionStatus } from '../../../api/meta/v1.ts';
import { realClock } from './clock.ts';

/** The API server's limit on condition messages, in bytes of UTF-8. */
export const MAX_CONDITION_MESSAGE_BYTES = 32768;
/** Appended to a message cut to fit; exact upstream text (operator-controller common_controller.go). */
export const TRUNCATION_SUFFIX = '\n\n... [message truncated]';

const encoder = new TextEncoder();
const SUFFIX_BYTES = encoder.encode(TRUNCATION_SUFFIX).length;

/**
 * Cuts `message` so that it fits in {@link MAX_CONDITION_MESSAGE_BYTES} UTF-8 bytes, suffix
 * included. Messages that already fit are returned unchanged (a message of exactly 32768 bytes
 * is not cut). Unlike upstream's byte slice, the cut never splits a character: when the limit
 * falls inside a multi-byte character, that whole character is dropped, so the result stays
 * valid UTF-8 and may be up to 3 bytes shorter than the limit.
 */
export function truncateMessage(message: string): string {
  // Each UTF-16 code unit is at most 3 UTF-8 bytes: short strings cannot exceed the limit.
  if (message.length * 3 <= MAX_CONDITION_MESSAGE_BYTES) return message;
  const bytes = encoder.encode(message);
  if (bytes.length <= MAX_CONDITION_MESSAGE_BYTES) return message;
  let end = MAX_CONDITION_MESSAGE_BYTES - SUFFIX_BYTES;
  // Back up over continuation bytes (10xxxxxx) to the start of the character the cut falls in.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end)) + TRUNCATION_SUFFIX;
}

/** metav1.Time text: RFC 3339 in UTC with whole seconds, e.g. `2026-11-22T07:40:00Z`. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** What a caller decides; `lastTransitionTime` is normally left to {@link setCondition}. */
export interface ConditionInput {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  /** Used only when the condition is new or its status changes; defaults to `now`. */
  readonly lastTransitionTime?: string;
}

/**
 * Sets the condition of `input.type` in `conditions`, in place (meta.SetStatusCondition):
 * - absent: appended, `lastTransitionTime` = input's or `now`;
 * - present: `status` updated, and `lastTransitionTime` moved to input's or `now` only when the
 *   status changed; `reason`, `message` and `observedGeneration` are updated in place.
 * The message is truncated to fit (see {@link truncateMessage}). Returns whether anything
 * changed, so a caller can skip a status write.
 */
export function setCondition(conditions: Condition[], input: ConditionInput, now: Date = realClock.date()): boolean {
  const message = truncateMessage(input.message);
  const existing = findCondition(conditions, input.type);
  if (existing === undefined) {
    conditions.push({
      type: input.type,
      status: input.status,
      lastTransitionTime: input.lastTransitionTime ?? formatTime(now),
      reason: input.reason,
      message,
      ...(input.observedGeneration !== undefined && { observedGeneration: input.observedGeneration }),
    });
    return true;
  }
  const changed =
    existing.status !== input.status || existing.reason !== input.reason || existing.message !== message || existing.observedGeneration !== input.observedGeneration;
  if (existing.status !== input.status) existing.lastTransitionTime = input.lastTransitionTime ?? formatTime(now);
  Object.assign(existing, { status: input.status, reason: input.reason, message });
  if (input.observedGeneration === undefined) delete existing.observedGeneration;
  else existing.observedGeneration = input.observedGeneration;
  return changed;
}

/** The condition of `type`, or undefined. The returned object is the array's own element. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Removes every condition of `type`, in place. Returns whether one was removed. */
export function removeCondition(conditions: Condition[], type: string): boolean {
  let kept = 0;
  for (const c of conditions) if (c.type !== type) conditions[kept++] = c;
  const removed = kept !== conditions.length;
  conditions.length = kept;
  return removed;
}

/** True when the condition is present with `status`. */
export function hasStatus(conditions: readonly Condition[] | undefined, type: string, status: ConditionStatus): boolean {
  return findCondition(conditions, type)?.status === status;
}

/** True when the condition is present and True. */
export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return hasStatus(conditions, type, 'True');
}
