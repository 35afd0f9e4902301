// Decoding one catalog file the way opm does: k8s.io/apimachinery's YAMLOrJSONDecoder (sniff a
// leading `{`, JSON stream or `---`-separated YAML documents) with each YAML document converted
// by sigs.k8s.io/yaml (go-yaml v2, YAML 1.1 scalar resolution, timestamps kept as strings).
// js-yaml does the YAML parsing; the schema below reproduces go-yaml v2's plain-scalar rules.

import { isAscii } from 'node:buffer';
import { FAILSAFE_SCHEMA, Type, load, loadAll, type YAMLException } from 'js-yaml';
import { goTrimSpace, isGoSpace } from './go.ts';
import { msg } from './messages.ts';

// ---------------------------------------------------------------------------------------------
// Scalar resolution (gopkg.in/yaml.v2 resolve.go)

const TRUE_WORDS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSE_WORDS = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const NULL_WORDS = new Set(['', '~', 'null', 'Null', 'NULL']);
const POS_INF = new Set(['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']);
const NEG_INF = new Set(['-.inf', '-.Inf', '-.INF']);
const NAN = new Set(['.nan', '.NaN', '.NAN']);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const DIGITS: Readonly<Record<number, RegExp>> = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/,
};

/** strconv.ParseInt(s, 0, 64) then ParseUint(s, 0, 64); undefined when both fail. */
function parseGoInt(s: string): number | undefined {
  let i = 0;
  let negative = false;
  let signed = false;
  if (s[0] === '+' || s[0] === '-') {
    negative = s[0] === '-';
    signed = true;
    i = 1;
  }
  let base = 10;
  let digits = s.slice(i);
  if (digits.length > 1 && digits[0] === '0') {
    const p = digits[1];
    if (p === 'x' || p === 'X') base = 16;
    else if (p === 'o' || p === 'O') base = 8;
    else if (p === 'b' || p === 'B') base = 2;
    else {
      base = 8;
      digits = digits.slice(1);
    }
    if (base !== 8 || p === 'o' || p === 'O') digits = digits.slice(2);
  }
  const re = DIGITS[base];
  if (digits === '' || re === undefined || !re.test(digits)) return undefined;
  const prefix = base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : '';
  let v = BigInt(prefix + digits);
  if (negative) v = -v;
  if (v >= INT64_MIN && v <= INT64_MAX) return Number(v);
  if (!signed && v <= UINT64_MAX) return Number(v); // ParseUint takes no sign
  return undefined;
}

type Resolved = { readonly value: unknown } | undefined;
let lastInput: string | undefined;
let lastResolved: Resolved;

/** go-yaml v2's resolve() for an untagged plain scalar; undefined means "it is a string". */
function resolvePlain(s: string): Resolved {
  if (s === lastInput) return lastResolved;
  lastInput = s;
  lastResolved = resolveUncached(s);
  return lastResolved;
}

function resolveUncached(s: string): Resolved {
  if (s === '') return { value: null };
  const c = s.charCodeAt(0);
  // resolveTable hints: 'M' (yYnNtTfFoO~), '.', 'S' (+-), 'D' (digits); anything else is a string.
  const isDigit = c >= 0x30 && c <= 0x39;
  const isSign = c === 0x2b || c === 0x2d;
  if (c === 0x2e /* . */) {
    if (POS_INF.has(s)) return { value: Infinity };
    if (NAN.has(s)) return { value: NaN };
    if (DOT_FLOAT.test(s)) {
      const f = Number(s);
      return Number.isFinite(f) ? { value: f } : undefined;
    }
    return undefined;
  }
  if (isDigit || isSign) {
    if (POS_INF.has(s)) return { value: Infinity };
    if (NEG_INF.has(s)) return { value: -Infinity };
    const plain = s.includes('_') ? s.replaceAll('_', '') : s;
    const n = parseGoInt(plain);
    if (n !== undefined) return { value: n };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = Number(plain);
      // strconv.ParseFloat reports overflow as an error, so go-yaml keeps the text as a string.
      return Number.isFinite(f) ? { value: f } : undefined;
    }
    return undefined;
  }
  // 'M' hint: only words starting with one of yYnNtTfFoO~ can be booleans or nulls (and they
  // are short, so the set lookups below never hash a long string).
  if (s.length > 5 || !'yYnNtTfFoO~'.includes(s[0] as string)) return undefined;
  if (TRUE_WORDS.has(s)) return { value: true };
  if (FALSE_WORDS.has(s)) return { value: false };
  if (NULL_WORDS.has(s)) return { value: null };
  return undefined;
}

const isNullWord = (d: unknown): boolean => d === null || (typeof d === 'string' && NULL_WORDS.has(d));
const isBoolWord = (d: unknown): boolean => typeof d === 'string' && (TRUE_WORDS.has(d) || FALSE_WORDS.has(d));
const isNumberWord = (d: unknown): boolean => {
  if (typeof d !== 'string' || d === '') return false;
  const c = d.charCodeAt(0);
  if (!((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e)) return false;
  const r = resolvePlain(d);
  return r !== undefined && typeof r.value === 'number';
};

// Untagged plain scalars go through one implicit type (js-yaml tries every implicit type in
// turn, so one combined check is cheaper); explicit `!!null`/`!!bool`/`!!int`/`!!float` tags use
// the per-kind types.
const goPlain = new Type('tag:yaml.org,2002:go-plain', {
  kind: 'scalar',
  resolve: (d: unknown) => typeof d === 'string' && resolvePlain(d) !== undefined,
  construct: (d: string) => resolvePlain(d)?.value,
});
const goNull = new Type('tag:yaml.org,2002:null', { kind: 'scalar', resolve: isNullWord, construct: () => null });
const goBool = new Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: isBoolWord,
  construct: (d: string) => TRUE_WORDS.has(d),
});
/** `!!int` / `!!float`: any number word, as go-yaml v2 resolves it. */
const goNumber = (kind: 'int' | 'float'): Type =>
  new Type(`tag:yaml.org,2002:${kind}`, {
    kind: 'scalar',
    resolve: isNumberWord,
    construct: (d: string) => resolvePlain(d)?.value,
  });
const goMerge = new Type('tag:yaml.org,2002:merge', { kind: 'scalar', resolve: (d: unknown) => d === '<<' || d === null });
// go-yaml v2 decodes `!!binary` into the decoded bytes, which sigs.k8s.io/yaml emits as a string.
const goBinary = new Type('tag:yaml.org,2002:binary', {
  kind: 'scalar',
  resolve: (d: unknown) => typeof d === 'string' && /^[A-Za-z0-9+/=\s]*$/.test(d),
  construct: (d: string) => Buffer.from(d.replace(/\s+/g, ''), 'base64').toString('utf8'),
});
// An explicit `!!timestamp` stays text as well (no time.Time round trip).
const goTimestamp = new Type('tag:yaml.org,2002:timestamp', { kind: 'scalar', resolve: (d: unknown) => typeof d === 'string', construct: (d: string) => d });

/**
 * go-yaml v2 (YAML 1.1) scalars: yes/no/on/off booleans, 0777 octal, 0x/0o/0b, `_` separators,
 * `.inf`/`.nan`; timestamps stay strings; no binary-to-bytes, no Date objects.
 */
export const GO_YAML_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [goPlain, goMerge],
  explicit: [goNull, goBool, goNumber('int'), goNumber('float'), goBinary, goTimestamp],
});

// ---------------------------------------------------------------------------------------------
// Documents

/** One document of a file: its text, where it starts, and its decoded value. */
export interface DecodedDocument {
  /** 1-based document number within the file. */
  readonly index: number;
  /** 1-based line where the document starts. */
  readonly line: number;
  /** Decoded value; `undefined` for a document without any node (comment-only, blank, `null`). */
  readonly value: unknown;
}

/** A syntax problem in one document; the caller adds the file name. */
export class DocumentSyntaxError extends Error {
  readonly kind: 'yaml' | 'json';
  readonly index: number;
  readonly line: number;
  constructor(kind: 'yaml' | 'json', message: string, index: number, line: number) {
    super(message);
    this.name = 'DocumentSyntaxError';
    this.kind = kind;
    this.index = index;
    this.line = line;
  }
}

const SNIFF_BYTES = 4096;

/** apimachinery's hasJSONPrefix over the first 4096 bytes: the first non-space character is `{`. */
export function looksLikeJSON(text: string): boolean {
  const end = Math.min(text.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isGoSpace(c)) continue;
    return c === 0x7b;
  }
  return false;
}

/** looksLikeJSON over a file's first 4096 bytes (apimachinery peeks bytes, not characters). */
export function bytesLookLikeJSON(bytes: Buffer): boolean {
  return looksLikeJSON(bytes.toString('utf8', 0, Math.min(bytes.length, SNIFF_BYTES)));
}

/** What the YAML splitter reads: a string or a file's bytes (separators and line ends are ASCII in both). */
interface YAMLSource {
  readonly length: number;
  /** Offset of the next `\n` from `pos`, or -1. */
  newline(pos: number): number;
  /** Whether a line starting at `pos` starts with `---`. */
  separator(pos: number): boolean;
  text(start: number, end: number): string;
}

const textSource = (text: string): YAMLSource => ({
  length: text.length,
  newline: (pos) => text.indexOf('\n', pos),
  separator: (pos) => text.startsWith('---', pos),
  text: (start, end) => text.slice(start, end),
});

/** Decodes every document of one file, in order. Throws DocumentSyntaxError. */
export function* decodeDocuments(text: string): Generator<DecodedDocument> {
  const rest = looksLikeJSON(text) ? yield* decodeJSONStream(text) : { offset: 0, index: 0, line: 1 };
  if (rest !== undefined) yield* decodeYAMLStream(textSource(text), rest.offset, rest.index, rest.line);
}

/** UTF-8 text of `bytes[start, end)`; pure ASCII (the usual case) decodes faster as latin1, with the same result. */
export function decodeText(bytes: Buffer, start = 0, end = bytes.length): string {
  const part = bytes.subarray(start, end);
  return part.toString(isAscii(part) ? 'latin1' : 'utf8');
}

/**
 * `decodeDocuments` over a file's bytes. YAML files are split into documents on the bytes and
 * only one document at a time becomes a string, so a big file never exists as one big string
 * (which V8 keeps in large-object space until a full GC). The result is the same as decoding
 * the whole text: separators and line ends are ASCII, which never occurs inside a multi-byte
 * UTF-8 sequence. JSON streams (rare in catalogs) are decoded from the whole text.
 */
export function* decodeDocumentBytes(bytes: Buffer): Generator<DecodedDocument> {
  if (bytesLookLikeJSON(bytes)) {
    yield* decodeDocuments(decodeText(bytes));
    return;
  }
  const source: YAMLSource = {
    length: bytes.length,
    newline: (pos) => bytes.indexOf(0x0a, pos),
    separator: (pos) => bytes[pos] === 0x2d && bytes[pos + 1] === 0x2d && bytes[pos + 2] === 0x2d,
    text: (start, end) => decodeText(bytes, start, end),
  };
  yield* decodeYAMLStream(source, 0, 0, 1);
}

const countLines = (text: string, from: number, to: number): number => {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/**
 * A stream of JSON values. As apimachinery does, when a syntax error hits before a second value
 * was decoded, the rest of the input (from the end of the last good value) is read as YAML;
 * returns where that is, or undefined at the end of the input.
 */
function* decodeJSONStream(text: string): Generator<DecodedDocument, { offset: number; index: number; line: number } | undefined> {
  let pos = 0;
  let line = 1;
  let index = 0;
  for (;;) {
    let start = pos;
    while (start < text.length && isJSONSpace(text.charCodeAt(start))) start++;
    if (start >= text.length) return undefined;
    const startLine = line + countLines(text, pos, start);
    const end = scanJSONValue(text, start);
    let value: unknown;
    let error: string | undefined;
    if (end === undefined) error = msg.unexpectedEndOfJSON;
    else {
      try {
        value = JSON.parse(text.slice(start, end));
      } catch (e) {
        error = (e as Error).message;
      }
    }
    if (error !== undefined || end === undefined) {
      if (index <= 1) return { offset: pos, index, line };
      throw new DocumentSyntaxError('json', msg.jsonSyntax(error ?? ''), index + 1, startLine);
    }
    index++;
    // A JSON `null` reaches Meta.UnmarshalJSON, which re-encodes it as the blob `null`.
    yield { index, line: startLine, value };
    line = startLine + countLines(text, start, end);
    pos = end;
  }
}

const isJSONSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** End offset of the JSON value starting at `start` (strings and nesting respected), or undefined. */
function scanJSONValue(text: string, start: number): number | undefined {
  const first = text.charCodeAt(start);
  if (first === 0x22 /* " */) return scanString(text, start);
  if (first !== 0x7b && first !== 0x5b) {
    // A bare literal: up to the next delimiter.
    let i = start;
    while (i < text.length && !/[\s{}[\],"]/.test(text[i] ?? '')) i++;
    return i === start ? start + 1 : i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = scanString(text, i);
      if (end === undefined) return undefined;
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

function scanString(text: string, start: number): number | undefined {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return undefined;
}

/**
 * YAML documents split as apimachinery's YAMLReader does: a line starting with `---` ends the
 * current document; only spaces or a `#` comment may follow it on that line. Separator lines are
 * not part of any document, and a separator with nothing before it starts nothing.
 */
function* decodeYAMLStream(src: YAMLSource, from: number, startIndex: number, startLine: number): Generator<DecodedDocument> {
  let index = startIndex;
  let docStart = from;
  let docLine = startLine;
  let line = startLine;
  let pos = from;
  const emit = function* (end: number): Generator<DecodedDocument> {
    if (end > docStart) {
      index++;
      yield { index, line: docLine, value: parseYAMLDocument(src.text(docStart, end), index, docLine) };
    }
  };
  while (pos < src.length) {
    const nl = src.newline(pos);
    const lineEnd = nl === -1 ? src.length : nl + 1;
    if (src.separator(pos)) {
      const rest = goTrimSpace(src.text(pos + 3, nl === -1 ? src.length : nl));
      if (rest !== '' && !rest.startsWith('#')) {
        throw new DocumentSyntaxError('yaml', msg.invalidYamlSeparator(rest), index + 1, line);
      }
      yield* emit(pos);
      docStart = lineEnd;
      docLine = line + 1;
    }
    pos = lineEnd;
    line++;
  }
  yield* emit(src.length);
}

const MULTI_DOC = 'expected a single document in the stream, but found more';

function parseYAMLDocument(doc: string, index: number, line: number): unknown {
  try {
    return load(doc, { schema: GO_YAML_SCHEMA, json: true }) ?? undefined;
  } catch (e) {
    const err = e as YAMLException;
    if (err.reason === MULTI_DOC) {
      // go-yaml's Unmarshal reads the first document of the chunk (after a `...` end marker).
      try {
        return loadAll(doc, null, { schema: GO_YAML_SCHEMA, json: true })[0] ?? undefined;
      } catch (e2) {
        throw toSyntaxError(e2 as YAMLException, index, line);
      }
    }
    throw toSyntaxError(err, index, line);
  }
}

function toSyntaxError(err: YAMLException, index: number, line: number): DocumentSyntaxError {
  if (typeof err.reason !== 'string' || !err.mark) return new DocumentSyntaxError('yaml', msg.yamlOther(err.message), index, line);
  const at = line + err.mark.line;
  return new DocumentSyntaxError('yaml', msg.yamlSyntax(at, err.reason), index, line);
}

/**
 * yaml.ToJSON for an `olm.bundle.object` manifest: JSON (leading `{`) is taken as is, anything
 * else must be one YAML document. Returns an error text or undefined.
 */
export function checkYAMLOrJSON(data: string): string | undefined {
  if (looksLikeJSON(data)) return undefined;
  try {
    load(data, { schema: GO_YAML_SCHEMA, json: true });
    return undefined;
  } catch (e) {
    const err = e as YAMLException;
    if (err.reason === MULTI_DOC) return undefined;
    return typeof err.reason === 'string' && err.mark ? msg.yamlSyntax(err.mark.line + 1, err.reason) : msg.yamlOther(err.message);
  }
}
