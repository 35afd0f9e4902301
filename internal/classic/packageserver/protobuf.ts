// Protobuf, as far as the package server needs it: upstream's package server negotiates
// application/vnd.kubernetes.protobuf (its codec factory offers it) but its PackageManifest types have no protobuf
// encoding, so a client that accepts only protobuf is answered 406 NotAcceptable (apimachinery's
// runtime/serializer/protobuf errNotMarshalable), that Status itself encoded as protobuf — what client-go decodes.

/** The media type, and the four bytes every Kubernetes protobuf body starts with ("k8s\0"). */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}
/** A length-delimited field (wire type 2): strings, bytes and embedded messages, written even when empty (gogo's proto2). */
const bytesField = (field: number, data: Buffer | string): Buffer => {
  const b = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return Buffer.concat([varint((field << 3) | 2), varint(b.length), b]);
};

/**
 * A failure metav1.Status (k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto: metadata 1, status 2, message 3,
 * reason 4, details 5 — left out, code 6) inside a runtime.Unknown (typeMeta 1 {apiVersion 1, kind 2}, raw 2,
 * contentEncoding 3, contentType 4), after the magic bytes.
 */
export function statusProtobuf(s: { message: string; reason?: string; code: number }): Buffer {
  const status = Buffer.concat([
    bytesField(1, Buffer.alloc(0)),
    bytesField(2, 'Failure'),
    bytesField(3, s.message),
    bytesField(4, s.reason ?? ''),
    Buffer.from([6 << 3]),
    varint(s.code),
  ]);
  const typeMeta = Buffer.concat([bytesField(1, 'v1'), bytesField(2, 'Status')]);
  return Buffer.concat([MAGIC, bytesField(1, typeMeta), bytesField(2, status), bytesField(3, ''), bytesField(4, '')]);
}

/** A negotiated output: the encoding, and whether the object is converted to a meta.k8s.io Table first. */
export interface Output {
  readonly type: 'json' | 'yaml' | 'protobuf';
  readonly table: boolean;
}

/**
 * What k8s.io/apiserver's NegotiateOutputMediaType picks for an Accept header among the media types the package
 * server's codec factory offers (JSON, YAML, protobuf): the clauses by quality (highest first, in order among
 * equals), the first whose type matches one offered (a wildcard: JSON, the first offered) and whose conversion the
 * endpoint allows (its AllowsMediaTypeTransform): no `as`, the object itself in any of the three; `as=Table;g=meta.k8s.io`
 * only where `table` is allowed (a resource's get, list, watch: its TableConvertor) and only in JSON or YAML — never
 * protobuf; any other `as` never (ours has no PartialObjectMetadata). A Status error is negotiated with `table` false
 * (DefaultEndpointRestrictions: no conversion at all). Other parameters are ignored. Undefined: nothing fits (406).
 */
export function negotiateOutput(accept: string | undefined, table: boolean): Output | undefined {
  if (accept === undefined || accept.trim() === '') return { type: 'json', table: false };
  const clauses = accept
    .split(',')
    .map((part, i) => {
      const [type = '', ...rest] = part.split(';').map((p) => p.trim());
      const params = new Map(rest.map((p) => [p.slice(0, p.indexOf('=') < 0 ? p.length : p.indexOf('=')).trim().toLowerCase(), p.slice(p.indexOf('=') + 1).trim()] as const));
      const q = params.get('q');
      return { type: type.toLowerCase(), q: q === undefined ? 1 : Number(q), i, params };
    })
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const c of clauses) {
    const type = c.type === '*/*' || c.type === 'application/*' || c.type === 'application/json' ? 'json' : c.type === 'application/yaml' ? 'yaml' : c.type === PROTOBUF ? 'protobuf' : undefined;
    if (!type) continue;
    const as = c.params.get('as');
    if (as === undefined) return { type, table: false };
    const meta = c.params.get('g') === 'meta.k8s.io' && (c.params.get('v') === 'v1' || c.params.get('v') === 'v1beta1');
    if (table && meta && as === 'Table' && type !== 'protobuf') return { type, table: true };
  }
  return undefined;
}

/** The encoding negotiated for the object itself (no conversion), undefined when none fits. */
export function negotiatedType(accept: string | undefined): Output['type'] | undefined {
  return negotiateOutput(accept, false)?.type;
}
