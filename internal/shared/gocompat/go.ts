// Go standard-library behaviour that upstream's messages depend on: fmt's %q (strconv.Quote), %v of a []string,
// strings.TrimSpace, strings.SplitN and unicode.IsSpace.

const GO_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
/** strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const NAMED_ESCAPES: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/**
 * fmt's %q for a string (strconv.Quote): double quotes, Go's escapes, printable Unicode kept as is. A lone UTF-16
 * surrogate cannot reach Go: its decoders (encoding/json, yaml) turn one into U+FFFD, which is printable, so it is
 * written as U+FFFD.
 */
export function goQuote(s: string): string {
  if (/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (cp < 0x80) out += NAMED_ESCAPES[cp] ?? `\\x${hex(cp, 2)}`;
    else if (PRINTABLE.test(ch)) out += ch;
    else out += cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
  }
  return out + '"';
}

/** unicode.IsSpace for one code point (U+0085 and U+00A0 yes, U+FEFF no). */
export function isGoSpace(cp: number): boolean {
  return GO_SPACE.has(cp);
}

/** strings.TrimSpace. */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && GO_SPACE.has(s.charCodeAt(start))) start++;
  while (end > start && GO_SPACE.has(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** strings.SplitN(s, sep, n) for n > 0: at most n parts, the last one keeps the rest. */
export function goSplitN(s: string, sep: string, n: number): string[] {
  const parts = s.split(sep);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** len(s): the UTF-8 byte length. */
export const goLen = (s: string): number => Buffer.byteLength(s, 'utf8');

/** fmt's %v for a []string: `[a b c]`. */
export function goStringSlice(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}
