// Small pieces of Go standard-library behaviour that the two upstream libraries lean on, so that
// their error messages and edge cases come out the same here: fmt's %q, strings.TrimSpace,
// strings.SplitN, strconv.ParseUint / Atoi / Itoa, unicode.IsDigit.

const UINT64_MAX = 18446744073709551615n;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const GO_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
const UNICODE_DIGIT = /\p{Nd}/u;
const CONTROL_ESCAPES: Readonly<Record<number, string>> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
};

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** Go's `%q` for a string (strconv.Quote): double quotes, Go escapes, printable Unicode kept as is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      // A lone surrogate cannot exist in a Go string; Go would have decoded it as U+FFFD.
      out += '\ufffd';
    } else if (ch === '"' || ch === '\\') {
      out += '\\' + ch;
    } else if (cp >= 0x20 && cp < 0x7f) {
      out += ch;
    } else if (cp < 0x80) {
      out += CONTROL_ESCAPES[cp] ?? `\\x${hex(cp, 2)}`;
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else {
      out += cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    }
  }
  return out + '"';
}

const isGoSpace = (ch: string): boolean => GO_SPACE.has(ch.codePointAt(0) ?? -1);

/** strings.TrimSpace: trims Unicode White_Space as Go defines it (U+0085 yes, U+FEFF no). */
export function goTrimSpace(s: string): string {
  const chars = Array.from(s);
  let start = 0;
  let end = chars.length;
  while (start < end && isGoSpace(chars[start] ?? '')) start++;
  while (end > start && isGoSpace(chars[end - 1] ?? '')) end--;
  return chars.slice(start, end).join('');
}

/** strings.SplitN(s, sep, n) for n > 0: at most n parts, the last one keeps the rest. */
export function goSplitN(s: string, sep: string, n: number): string[] {
  const parts: string[] = [];
  let rest = s;
  while (parts.length < n - 1) {
    const at = rest.indexOf(sep);
    if (at < 0) break;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + sep.length);
  }
  parts.push(rest);
  return parts;
}

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

/** len(s) in Go: the UTF-8 byte length. */
export function goLen(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
