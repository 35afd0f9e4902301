import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { negotiatedType, negotiateOutput, statusProtobuf } from './protobuf.ts';

// The two messages of k8s.io/apimachinery's generated.proto (runtime.Unknown, meta/v1 Status) the body holds.
const root = protobuf.parse(`
syntax = "proto2";
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message ListMeta { optional string selfLink = 1; }
message Status { optional ListMeta metadata = 1; optional string status = 2; optional string message = 3; optional string reason = 4; optional int32 code = 6; }
`).root;

describe('a Status in protobuf', () => {
  it('magic bytes, then a runtime.Unknown of v1 Status holding the Status', () => {
    const body = statusProtobuf({ message: 'object *v1.PackageManifestList does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message', reason: 'NotAcceptable', code: 406 });
    expect([...body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const unknown = root.lookupType('Unknown').toObject(root.lookupType('Unknown').decode(body.subarray(4))) as { typeMeta: object; raw: Uint8Array };
    expect(unknown.typeMeta).toEqual({ apiVersion: 'v1', kind: 'Status' });
    const st = root.lookupType('Status').toObject(root.lookupType('Status').decode(unknown.raw));
    expect(st).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'object *v1.PackageManifestList does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message',
      reason: 'NotAcceptable',
      code: 406,
    });
  });
});

describe('negotiation', () => {
  it('the first clause by quality that names a type the codec factory offers', () => {
    expect(negotiatedType(undefined)).toBe('json');
    expect(negotiatedType('application/vnd.kubernetes.protobuf')).toBe('protobuf');
    expect(negotiatedType('application/vnd.kubernetes.protobuf, application/json')).toBe('protobuf');
    expect(negotiatedType('application/vnd.kubernetes.protobuf;q=0.5, application/json')).toBe('json');
    expect(negotiatedType('text/html, */*')).toBe('json');
    expect(negotiatedType('application/yaml')).toBe('yaml');
    expect(negotiatedType('text/html')).toBeUndefined();
  });

  it('a Table only in JSON or YAML, where the endpoint converts; otherwise the next clause (kube-apiserver’s answers for configmaps)', () => {
    const t = 'as=Table;v=v1;g=meta.k8s.io';
    expect(negotiateOutput(`application/json;${t},application/json`, true)).toEqual({ type: 'json', table: true });
    expect(negotiateOutput(`application/yaml;${t}`, true)).toEqual({ type: 'yaml', table: true });
    expect(negotiateOutput(`application/vnd.kubernetes.protobuf;${t}`, true)).toBeUndefined();
    expect(negotiateOutput(`application/vnd.kubernetes.protobuf;${t},application/json;${t},application/json`, true)).toEqual({ type: 'json', table: true });
    expect(negotiateOutput(`application/vnd.kubernetes.protobuf;${t},application/json`, true)).toEqual({ type: 'json', table: false });
    expect(negotiateOutput(`application/json;${t},application/vnd.kubernetes.protobuf`, true)).toEqual({ type: 'json', table: true });
    // a Status error: no conversion
    expect(negotiateOutput(`application/json;${t},application/vnd.kubernetes.protobuf`, false)).toEqual({ type: 'protobuf', table: false });
    expect(negotiateOutput(`application/yaml;${t}`, false)).toBeUndefined();
    expect(negotiateOutput('application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', true)).toBeUndefined();
    expect(negotiateOutput('application/json;pretty=1', true)).toEqual({ type: 'json', table: false });
  });
});
