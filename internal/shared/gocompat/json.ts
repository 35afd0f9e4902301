// encoding/json's Marshal text for values JSON.stringify already orders as Go would (struct fields in declaration
// order, map keys sorted by the caller): Go additionally escapes <, >, & and U+2028/U+2029 inside strings.

const GO_ESCAPED = /[<>&\u2028\u2029]/g;
const GO_ESCAPES: Readonly<Record<string, string>> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** JSON text with Go's HTML-safe escapes (those characters only occur inside strings). */
export function goJSONMarshal(value: unknown): string {
  return JSON.stringify(value).replace(GO_ESCAPED, (c) => GO_ESCAPES[c]!);
}
