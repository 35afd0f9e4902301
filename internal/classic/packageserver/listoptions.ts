// A list or watch request's query as k8s.io/apiserver decodes and validates it before the storage sees it
// (endpoints/handlers/get.go listOpts): url.Values → metav1.ListOptions (apimachinery runtime/conversion.go: the first
// value of each parameter; booleans true unless "0" or "false"; integers by strconv.ParseInt), then
// metainternalversion/validation ValidateListOptions (422 Invalid ListOptions.meta.k8s.io). Selectors are parsed
// after these (server.ts), as the v1 → internal conversion does.
import { goQuote } from '../../shared/gocompat/index.ts';

export interface ListQuery {
  readonly watch: boolean;
  readonly limit?: bigint;
  readonly timeoutSeconds?: bigint;
}

export type ListQueryError = { code: 400; reason: 'BadRequest'; message: string } | { code: 422; reason: 'Invalid'; message: string; causes: { reason: string; message: string; field: string }[] };

/** runtime.Convert_Slice_string_To_bool: present and neither "0" nor "false" (any case). */
export const queryBool = (q: URLSearchParams, name: string): boolean | undefined => {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
};

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
/** strconv.ParseInt(s, 10, 64) with Go's error words. */
export function parseInt64(s: string): bigint {
  if (!/^[+-]?\d+$/.test(s)) throw new Error(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > INT64_MAX || n < INT64_MIN) throw new Error(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  return n;
}

export function decodeListQuery(q: URLSearchParams): ListQuery | { error: ListQueryError } {
  const ints: { timeoutSeconds?: bigint; limit?: bigint } = {};
  // the generated conversion's order: timeoutSeconds, then limit
  for (const name of ['timeoutSeconds', 'limit'] as const) {
    const v = q.get(name);
    if (v === null) continue;
    try {
      ints[name] = parseInt64(v);
    } catch (err) {
      return { error: { code: 400, reason: 'BadRequest', message: (err as Error).message } };
    }
  }
  const watch = queryBool(q, 'watch') ?? false;
  const errs = validate(q, watch);
  if (errs.length > 0) {
    const summary = errs.length === 1 ? `${errs[0]!.field}: ${errs[0]!.message}` : `[${errs.map((e) => `${e.field}: ${e.message}`).join(', ')}]`;
    return { error: { code: 422, reason: 'Invalid', message: `ListOptions.meta.k8s.io "" is invalid: ${summary}`, causes: errs } };
  }
  return { watch, ...ints };
}

const forbidden = (field: string, detail: string): { reason: string; message: string; field: string } => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field });
const notSupported = (field: string, value: string, supported: string[]): { reason: string; message: string; field: string } => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`,
  field,
});

/** ValidateListOptions and validateWatchOptions (the WatchList feature on, as in the API server's defaults). */
function validate(q: URLSearchParams, watch: boolean): { reason: string; message: string; field: string }[] {
  const match = q.get('resourceVersionMatch') ?? '';
  const rv = q.get('resourceVersion') ?? '';
  const cont = q.get('continue') ?? '';
  const sendInitialEvents = q.get('sendInitialEvents') !== null;
  const errs: { reason: string; message: string; field: string }[] = [];
  if (watch) {
    if (sendInitialEvents && match !== 'NotOlderThan') errs.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (match !== '') {
      if (!sendInitialEvents) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (cont !== '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return errs;
  }
  if (match !== '') {
    if (rv === '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (cont !== '') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (sendInitialEvents) errs.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}
