// Go's encoding/json output for the values this project hashes or writes byte for byte: strings (HTML-safe by
// default, as json.Marshal and json.Encoder write them; U+2028/U+2029 always escaped) and compact values the way a
// json.RawMessage is re-encoded.

/** A JSON string as Go's encoding/json writes it; `html: false` is an Encoder with SetEscapeHTML(false). */
export function goJSONString(s: string, { html = true }: { readonly html?: boolean } = {}): string {
  const quoted = JSON.stringify(s);
  return html
    ? quoted.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : quoted.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Compact JSON as Go writes a json.RawMessage (HTML-safe strings); `sortKeys` for values that came through YAML. */
export function goJSONValue(v: unknown, sortKeys = false): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJSONString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goJSONValue(x, sortKeys)).join(',')}]`;
  const keys = Object.keys(v);
  if (sortKeys) keys.sort();
  return `{${keys.map((k) => `${goJSONString(k)}:${goJSONValue((v as Record<string, unknown>)[k], sortKeys)}`).join(',')}}`;
}
