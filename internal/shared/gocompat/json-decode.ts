// Go's encoding/json reading of a document, for callers whose messages quote it: the syntax check json.Unmarshal
// runs before decoding (its scanner's SyntaxError texts, e.g. `invalid character '}' looking for beginning of
// object key string`, `unexpected end of JSON input`), and every value's raw bytes, as a json.RawMessage field
// receives them (a number keeps the digits it was written with: `4.80` stays `4.80`).

/** One JSON value with the exact text it was written as (`raw`, no surrounding whitespace). */
export type GoJSONValue =
  | { readonly kind: 'object'; readonly raw: string; readonly entries: readonly { readonly key: string; readonly value: GoJSONValue }[] }
  | { readonly kind: 'array'; readonly raw: string; readonly items: readonly GoJSONValue[] }
  | { readonly kind: 'string'; readonly raw: string; readonly value: string }
  | { readonly kind: 'number' | 'bool' | 'null'; readonly raw: string };

/** A document json.Unmarshal refuses before decoding; `message` is Go's SyntaxError text. */
export class GoJSONSyntaxError extends Error {
  override readonly name = 'GoJSONSyntaxError';
}

const NAMED: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** The scanner's quoteChar: one input byte as Go prints it in a SyntaxError (`'x'`, `'\n'`, `'\x00'`, `'Ã'`). */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  if (c === 0x5c) return `'\\\\'`;
  if (c >= 0x20 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
  if (c < 0x80) return `'${NAMED[c] ?? `\\x${c.toString(16).padStart(2, '0')}`}'`;
  // The scanner hands a byte to string(rune(c)): bytes 0x80–0xff read as U+0080–U+00FF.
  const ch = String.fromCharCode(c);
  return PRINTABLE.test(ch) ? `'${ch}'` : `'\\u${c.toString(16).padStart(4, '0')}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * Parses `text` as json.Unmarshal reads it; throws GoJSONSyntaxError with Go's message when Go's scanner would
 * refuse it (the first offending byte, as Go's checkValid finds it).
 */
export function goJSONParse(text: string): GoJSONValue {
  const b = Buffer.from(text, 'utf8');
  let i = 0;
  const eof = (): never => {
    throw new GoJSONSyntaxError('unexpected end of JSON input');
  };
  const bad = (context: string): never => {
    throw new GoJSONSyntaxError(`invalid character ${quoteChar(b[i]!)} ${context}`);
  };
  const skip = (): void => {
    while (i < b.length && isSpace(b[i]!)) i++;
  };
  const peek = (): number => (i < b.length ? b[i]! : eof());
  const raw = (start: number): string => b.subarray(start, i).toString('utf8');

  const literal = (word: string, kind: 'bool' | 'null'): GoJSONValue => {
    const start = i;
    i++;
    for (let k = 1; k < word.length; k++) {
      if (peek() !== word.charCodeAt(k)) bad(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      i++;
    }
    return { kind, raw: raw(start) };
  };

  const string = (): GoJSONValue & { kind: 'string' } => {
    const start = i;
    i++;
    for (;;) {
      const c = peek();
      if (c === 0x22) break;
      if (c < 0x20) bad('in string literal');
      if (c === 0x5c) {
        i++;
        const e = peek();
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!isHex(peek())) bad('in \\u hexadecimal character escape');
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) bad('in string escape code');
      }
      i++;
    }
    i++;
    const rawText = raw(start);
    return { kind: 'string', raw: rawText, value: JSON.parse(rawText) as string };
  };

  const number = (): GoJSONValue => {
    const start = i;
    if (b[i] === 0x2d) {
      i++;
      if (!isDigit(peek())) bad('in numeric literal');
    }
    if (b[i] === 0x30) i++;
    else while (i < b.length && isDigit(b[i]!)) i++;
    if (i < b.length && b[i] === 0x2e) {
      i++;
      if (!isDigit(peek())) bad('after decimal point in numeric literal');
      while (i < b.length && isDigit(b[i]!)) i++;
    }
    if (i < b.length && (b[i] === 0x65 || b[i] === 0x45)) {
      i++;
      if (peek() === 0x2b || b[i] === 0x2d) i++;
      if (!isDigit(peek())) bad('in exponent of numeric literal');
      while (i < b.length && isDigit(b[i]!)) i++;
    }
    return { kind: 'number', raw: raw(start) };
  };

  const value = (): GoJSONValue => {
    skip();
    const c = peek();
    if (c === 0x7b) return object();
    if (c === 0x5b) return array();
    if (c === 0x22) return string();
    if (c === 0x2d || isDigit(c)) return number();
    if (c === 0x74) return literal('true', 'bool');
    if (c === 0x66) return literal('false', 'bool');
    if (c === 0x6e) return literal('null', 'null');
    return bad('looking for beginning of value');
  };

  /** An object's or array's elements, from its opening byte to `close`, each read by `element`. */
  const elements = <T>(close: number, element: () => T, after: string): T[] => {
    i++;
    const out: T[] = [];
    skip();
    if (peek() === close) {
      i++;
      return out;
    }
    for (;;) {
      out.push(element());
      skip();
      const c = peek();
      if (c !== 0x2c && c !== close) bad(after);
      i++;
      if (c === close) return out;
    }
  };

  const entry = (): { key: string; value: GoJSONValue } => {
    skip();
    if (peek() !== 0x22) bad('looking for beginning of object key string');
    const key = string().value;
    skip();
    if (peek() !== 0x3a) bad('after object key');
    i++;
    return { key, value: value() };
  };

  const object = (): GoJSONValue => {
    const start = i;
    const entries = elements(0x7d, entry, 'after object key:value pair');
    return { kind: 'object', raw: raw(start), entries };
  };

  const array = (): GoJSONValue => {
    const start = i;
    const items = elements(0x5d, value, 'after array element');
    return { kind: 'array', raw: raw(start), items };
  };

  const top = value();
  skip();
  if (i < b.length) bad('after top-level value');
  return top;
}

/**
 * A struct field as encoding/json fills it from an object: keys are decoded in order and each one equal to `name`
 * under case folding (Go matches untagged case differences) overwrites the field, so the last such key wins.
 */
export function goJSONField(obj: GoJSONValue & { kind: 'object' }, name: string): GoJSONValue | undefined {
  const fold = name.toLowerCase();
  let found: GoJSONValue | undefined;
  for (const e of obj.entries) if (e.key === name || e.key.toLowerCase() === fold) found = e.value;
  return found;
}
