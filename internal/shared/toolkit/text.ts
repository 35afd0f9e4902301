// Text helpers for messages that must stay on one line (a status message, a log field, a CLI error).

/** `s` with each line break and the blanks around it folded into one space, trimmed. */
export const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();

/** The text of anything thrown: `Error.message`, or `String(value)` for non-errors (nothing for null and undefined). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err ?? '');
}
