// Small pieces of Go standard-library behaviour that the two upstream libraries lean on, so that
// their error messages and edge cases come out the same here: strconv.ParseUint / Atoi / Itoa,
// unicode.IsDigit. fmt's %q, len, strings.TrimSpace and strings.SplitN come from ../gocompat.
import { goQuote } from '../gocompat/index.ts';

export { goLen, goQuote, goSplitN, goTrimSpace } from '../gocompat/index.ts';

const UINT64_MAX = 18446744073709551615n;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

const UNICODE_DIGIT = /\p{Nd}/u;
/** Result of a Go-style parse: a value, or the text of the Go error. */
export type GoResult<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * strconv.ParseUint(s, 10, 64). Values above Number.MAX_SAFE_INTEGER are accepted (as Go does) but
 * lose precision as a JS number; see the package README.
 */
export function goParseUint(s: string): GoResult<number> {
  if (!/^[0-9]+$/.test(s)) return { ok: false, error: `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax` };
  if (BigInt(s) > UINT64_MAX) {
    return { ok: false, error: `strconv.ParseUint: parsing ${goQuote(s)}: value out of range` };
  }
  return { ok: true, value: Number(s) };
}

/** True when strconv.ParseUint(s, 10, 64) would succeed. */
export function fitsUint64(s: string): boolean {
  return /^[0-9]+$/.test(s) && BigInt(s) <= UINT64_MAX;
}

/** strconv.Atoi on a 64-bit platform (optional sign, ASCII digits, int64 range), as a bigint. */
export function goAtoi(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > INT64_MAX || n < INT64_MIN ? undefined : n;
}

/** `i + 1` on a Go int followed by strconv.Itoa (wraps at the int64 maximum). */
export function goIncrementItoa(n: bigint): string {
  return (n === INT64_MAX ? INT64_MIN : n + 1n).toString();
}

/** strings.IndexFunc(s, unicode.IsDigit), as a JS string index (-1 if none). */
export function indexOfUnicodeDigit(s: string): number {
  const m = UNICODE_DIGIT.exec(s);
  return m ? m.index : -1;
}
