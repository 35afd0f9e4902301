// The HTTP side of `POST /catalogs/{catalog}/api/v1/graphql` (upstream's handleV1GraphQL, behind
// the GraphQLCatalogQueries feature gate): the body is read up to 1 MiB and decoded as Go's
// json.Decoder would decode `{"query": string}` — only the first JSON value counts, the key
// matches case-insensitively, unknown keys are ignored, `null` leaves it empty — then:
//
//   body not decodable (none, not JSON, not an object, query not a string, over 1 MiB)   400 "Invalid request body"
//   query ""                                                                             400 "Query cannot be empty"
//   query over 100,000 bytes                                                             400 "Query too large"
//   catalog without content                                                              404 "404 Not Found"
//   schema not available (other errors)                                                  500 "500 Internal Server Error"
//   anything else, GraphQL errors included                                               200 application/json, the result and "\n"
//
// The query runs through the GraphQLQueries seam (internal/catalogd/graphql implements it).
import { tryOr } from '../../shared/toolkit/index.ts';

/** What the endpoint needs from the GraphQL implementation. */
export interface GraphQLQueries {
  /**
   * The JSON text of the result of `query` against the catalog (no trailing newline). Rejects
   * with `code: 'ENOENT'` when the catalog has no content; any other rejection is a 500.
   */
  execute(catalog: string, query: string): Promise<string>;
}

/** A request body as read for the endpoint: its first GRAPHQL_BODY_LIMIT bytes (one more when longer). */
export interface RequestBody {
  readonly bytes: Buffer;
  /** The body was longer than GRAPHQL_BODY_LIMIT (the rest was not read). */
  readonly truncated: boolean;
}

/** http.MaxBytesReader's limit upstream puts on the body. */
export const GRAPHQL_BODY_LIMIT = 1 << 20;
/** Upstream's limit on the query text, in bytes. */
export const MAX_QUERY_BYTES = 100_000;

export const INVALID_BODY = 'Invalid request body';
export const EMPTY_QUERY = 'Query cannot be empty';
export const QUERY_TOO_LARGE = 'Query too large';

const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * Where the first JSON value of `text` from `start` ends (exclusive), or -1 when the text ends
 * inside it. Only the value's extent is found here; JSON.parse judges its syntax.
 */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 0x22) return stringEnd(text, start);
  if (first !== 0x7b && first !== 0x5b) {
    // a literal or number: up to the next delimiter (Go needs one, or the end, to finish it)
    let i = start;
    while (i < text.length && !isJsonSpace(text.charCodeAt(i)) && !',:]}[{"'.includes(text.charAt(i))) i++;
    return i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

function stringEnd(text: string, quote: number): number {
  for (let i = quote + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/**
 * The query of a body, as upstream's `json.NewDecoder(body).Decode(&struct{ Query string })`
 * sees it, or undefined when that decode fails.
 */
export function decodeQuery(body: RequestBody | undefined): string | undefined {
  if (body === undefined) return undefined; // EOF
  const text = body.bytes.toString('utf8', 0, Math.min(body.bytes.length, GRAPHQL_BODY_LIMIT));
  let start = 0;
  while (start < text.length && isJsonSpace(text.charCodeAt(start))) start++;
  if (start === text.length) return undefined; // EOF, or the limit reached before any value
  const end = valueEnd(text, start);
  if (end < 0) return undefined; // unexpected EOF, or the value runs past the limit
  const value = tryOr((): unknown => JSON.parse(text.slice(start, end)), undefined); // JSON.parse never gives undefined
  if (value === undefined) return undefined;
  if (value === null) return '';
  if (typeof value !== 'object' || Array.isArray(value)) return undefined; // cannot unmarshal into a struct
  // Go sets the field for every matching key in order (JSON.parse keeps only the last duplicate).
  let query = '';
  let typeError = false;
  for (const [key, v] of members(text, start)) {
    if (key.toLowerCase() !== 'query') continue;
    if (typeof v === 'string') query = v;
    else if (v !== null) typeError = true; // Go keeps decoding, then reports the type error
  }
  return typeError ? undefined : query;
}

/** The members of the (valid) JSON object at `start`, in order, duplicates included. */
function* members(text: string, start: number): Generator<[string, unknown]> {
  const skip = (i: number): number => {
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
    return i;
  };
  let i = skip(start + 1);
  while (text.charAt(i) === '"') {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skip(skip(keyEnd) + 1); // past the colon
    const end = valueEnd(text, i);
    yield [key, JSON.parse(text.slice(i, end))];
    i = skip(end);
    if (text.charAt(i) === ',') i = skip(i + 1);
  }
}

/** The endpoint's outcome before (or instead of) running the query. */
export type GraphQLRequest = { readonly query: string } | { readonly status: 400; readonly message: string };

/** Checks the body the way upstream's handler does, in its order. */
export function graphQLRequest(body: RequestBody | undefined): GraphQLRequest {
  const query = decodeQuery(body);
  if (query === undefined) return { status: 400, message: INVALID_BODY };
  if (query === '') return { status: 400, message: EMPTY_QUERY };
  if (Buffer.byteLength(query) > MAX_QUERY_BYTES) return { status: 400, message: QUERY_TOO_LARGE };
  return { query };
}
