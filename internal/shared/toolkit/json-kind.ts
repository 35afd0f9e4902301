// The kind of a decoded JSON value as Go's encoding/json names it in an UnmarshalTypeError
// (`json: cannot unmarshal <kind> into Go value of type …`).

/** `null`, `array`, `bool`, `number`, `string` or `object`. */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}
