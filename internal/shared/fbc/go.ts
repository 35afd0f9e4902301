// Small pieces of Go behaviour that opm's messages depend on: fmt's %q, %v and %t on decoded
// JSON values, strings.TrimSpace, unicode.IsSpace, sort order of Go strings (UTF-8 bytes), and
// Unicode case folding for map keys. Private to this folder; %q, TrimSpace, IsSpace and %v of a []string come
// from ../gocompat.
export { goQuote, goStringSlice, goTrimSpace, isGoSpace } from '../gocompat/index.ts';

/**
 * fmt's %v of a float64: strconv.FormatFloat(f, 'g', -1, 64), i.e. shortest digits, exponent form
 * when the decimal exponent is < -4 or >= 6 (`1e+06`, `4.294967296e+09`, `1e-05`).
 */
export function goFloatV(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant = '', e = '0'] = f.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' + abs : abs}`;
  }
  return String(f);
}

/** Go type name of a value decoded by encoding/json into interface{}. */
export function goJsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** fmt's %v of a value decoded by encoding/json into interface{}. */
export function goValueV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloatV(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValueV).join(' ')}]`;
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj).sort(compareGoStrings);
  return `map[${keys.map((k) => `${k}:${goValueV(obj[k])}`).join(' ')}]`;
}

/** fmt's %t of a value decoded into interface{}: `true`/`false`, else `%!t(type=value)`. */
export function goBoolT(v: unknown): string {
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '%!t(<nil>)';
  return `%!t(${goJsonTypeName(v)}=${goValueV(v)})`;
}

const isSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdfff;

/**
 * Orders strings as Go does (byte-wise on UTF-8), which is code-point order. JavaScript's `<`
 * compares UTF-16 code units, which differs only when a surrogate meets a BMP char ≥ U+E000.
 */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    const sa = isSurrogate(ca);
    const sb = isSurrogate(cb);
    if (sa === sb) return ca < cb ? -1 : 1;
    return sa ? 1 : -1; // a supplementary character sorts after every BMP character
  }
  return a.length < b.length ? -1 : 1;
}

/** Sorted copy, Go string order. */
export function sortedGoStrings(items: Iterable<string>): string[] {
  return [...items].sort(compareGoStrings);
}

const NON_ASCII = /[^\x20-\x7e\t\n\r]/;

/**
 * Unicode case folding (golang.org/x/text/cases.Fold and, for field names, bytes.EqualFold), as
 * closely as JavaScript allows: ASCII lower-casing, and upper-then-lower for other text (maps
 * `ſ`→`s`, `K` (Kelvin)→`k`, `ß`→`ss`).
 */
export function goFold(s: string): string {
  return NON_ASCII.test(s) ? s.toUpperCase().toLowerCase() : s.toLowerCase();
}

/**
 * A copy of `s` that does not keep a larger string alive. Parsers hand out substrings of their
 * input (V8 "sliced strings" for 13+ characters); keeping one would pin the whole document.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}
