// The package server's error answers, through the real API server's aggregation layer, compared with what the same
// kube-apiserver answers in the same test for the same request on a built-in resource: a field selector on an
// unsupported field, a malformed field selector, a malformed label selector; methods and subresources without a route;
// Accept variants; list options; watch from a stale or bad resourceVersion. Each expectation names where upstream's
// answer comes from: k8s.io/apiserver (endpoints/handlers/get.go listOpts, server/handler.go serviceErrorHandler),
// apimachinery (fields/selector.go, labels/selector.go), and upstream's pkg/package-server/storage/reststorage.go.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import protobuf from 'protobufjs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessPackageServer, type InProcessPackageServer } from '../../support/package-server-in-process.ts';
import { binaries } from '../../support/binaries.ts';
import { controlPlane } from '../../support/env.ts';

const API = '/apis/packages.operators.coreos.com/v1';
let ns: string;
let server: InProcessPackageServer | undefined;
let dispatcher: Agent;

type Answer = { status: number; contentType: string; text: string; length: string; body: Record<string, unknown> & { message?: string; reason?: string; code?: number; details?: unknown } };

/** A request as the admin, through the API server, with the headers given. */
async function ask(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await request(`${controlPlane().server}${path}`, {
    method: method as 'GET',
    dispatcher,
    headers: { authorization: `Bearer ${controlPlane().adminToken}`, accept: 'application/json', ...headers },
  });
  const buf = Buffer.from(await res.body.arrayBuffer());
  const contentType = String(res.headers['content-type'] ?? '');
  let body: Answer['body'] = {};
  if (method === 'HEAD') body = {};
  else if (contentType.startsWith('application/json')) body = jsonOrFirstLine(buf.toString('utf8'));
  else if (contentType.startsWith('application/yaml')) body = load(buf.toString('utf8')) as Answer['body'];
  else if (contentType.startsWith('application/vnd.kubernetes.protobuf')) body = decodeStatus(buf);
  return { status: res.statusCode, contentType, text: buf.toString('utf8'), length: String(res.headers['content-length'] ?? ''), body };
}

/** A JSON document, or a watch stream's first event (one JSON document a line). */
function jsonOrFirstLine(text: string): Answer['body'] {
  try {
    return JSON.parse(text) as Answer['body'];
  } catch {
    return JSON.parse(text.split('\n')[0]!) as Answer['body'];
  }
}

// runtime.Unknown and meta/v1 Status of k8s.io/apimachinery's generated.proto, to read a protobuf Status.
const proto = protobuf.parse(`
syntax = "proto2";
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message Status { optional string status = 2; optional string message = 3; optional string reason = 4; optional int32 code = 6; }
`).root;
function decodeStatus(buf: Buffer): Answer['body'] {
  const unknown = proto.lookupType('Unknown').toObject(proto.lookupType('Unknown').decode(buf.subarray(4))) as { typeMeta: { kind: string }; raw: Uint8Array };
  return { kind: unknown.typeMeta.kind, ...proto.lookupType('Status').toObject(proto.lookupType('Status').decode(unknown.raw)) };
}

/** What a Status answer shows a client: code, reason, message, details (kubectl prints the first three). */
const shown = (a: Answer): object => ({ status: a.status, code: a.body.code, reason: a.body.reason, message: a.body.message, details: a.body.details });

const pmList = (): string => `${API}/namespaces/${ns}/packagemanifests`;
const cmList = (): string => `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  server = await startInProcessPackageServer('classic-pkg-errors');
  ns = server.ns;
  dispatcher = new Agent({ connect: { ca: controlPlane().caPem } });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await dispatcher?.close();
});

describe('selectors: the same Status as kube-apiserver gives for configmaps', () => {
  it.each([
    ['a field selector on an unsupported field', 'fieldSelector=spec.foo%3Dbar'],
    ['a field selector on an unsupported field among supported ones', 'fieldSelector=metadata.name%3Dx%2Cstatus.phase%3DRunning'],
    ['a field selector that does not parse', 'fieldSelector=foo'],
    ['a field selector with an unescaped =', 'fieldSelector=a%3Db%3Dc'],
    ['a field selector with a bad escape', 'fieldSelector=a%3Db%5Cx'],
    ['a label selector that does not parse', `labelSelector=${encodeURIComponent('a in b')}`],
    ['a label selector with a bad key', `labelSelector=${encodeURIComponent('a_=b')}`],
    ['a label selector with a bad value', `labelSelector=${encodeURIComponent('x=a||y')}`],
  ])('%s: 400 BadRequest, the same message', async (_what, query) => {
    const builtIn = await ask('GET', `${cmList()}?${query}`);
    const ours = await ask('GET', `${pmList()}?${query}`);
    expect(builtIn.status).toBe(400);
    expect(shown(ours)).toEqual(shown(builtIn));
  });

  it('kubectl get --field-selector / -l prints the line it prints for configmaps', async () => {
    const kubectl = async (...args: string[]): Promise<string> => {
      const out = await promisify(execFile)((await binaries()).apiserver, ['kubectl', '--kubeconfig', controlPlane().kubeconfigPath, '-n', ns, 'get', ...args]).catch((err: { stderr: string }) => ({ stderr: err.stderr }));
      return 'stderr' in out ? String(out.stderr).trim() : '';
    };
    for (const flags of [['--field-selector', 'spec.foo=bar'], ['--field-selector', 'foo'], ['-l', 'a in b']]) {
      // kubectl's own wrapping names the resource ("Unable to find \"<group/version, Resource=…>\" that match …")
      const builtIn = (await kubectl('configmaps', ...flags)).replace('"/v1, Resource=configmaps"', '<resource>');
      expect(builtIn).toMatch(/^Error from server \(BadRequest\): /);
      expect((await kubectl('packagemanifests', ...flags)).replace('"packages.operators.coreos.com/v1, Resource=packagemanifests"', '<resource>')).toBe(builtIn);
    }
  });

  it('metadata.namespace and metadata.name!= pass the API server’s conversion, then upstream’s nameFor refuses them: 500 without a reason', async () => {
    // reststorage.go nameFor returns fmt.Errorf: responsewriters.ErrorToAPIStatus makes it a 500 with no reason.
    for (const [query, field] of [['fieldSelector=metadata.namespace%3Dx', 'metadata.namespace'], ['fieldSelector=metadata.name!%3Dx', 'metadata.name']] as const) {
      const ours = await ask('GET', `${pmList()}?${query}`);
      expect(ours.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `field label not supported: ${field}`, code: 500 });
      expect((await ask('GET', `${cmList()}?${query}`)).status).toBe(200);
    }
  });
});

describe('requests without a route: go-restful’s 404 and 405, as kube-apiserver answers them', () => {
  it.each([
    ['POST the collection', 'POST', () => pmList(), () => '/api/v1/componentstatuses'],
    ['DELETE the collection', 'DELETE', () => pmList(), () => '/api/v1/componentstatuses'],
    ['PUT an item', 'PUT', () => `${pmList()}/x`, () => '/api/v1/componentstatuses/x'],
    ['PATCH an item', 'PATCH', () => `${pmList()}/x`, () => '/api/v1/componentstatuses/x'],
    ['DELETE an item', 'DELETE', () => `${pmList()}/x`, () => '/api/v1/componentstatuses/x'],
    ['POST the icon', 'POST', () => `${pmList()}/x/icon`, () => '/api/v1/componentstatuses'],
  ])('%s: 405 MethodNotAllowed', async (_what, method, ours, builtIn) => {
    const b = await ask(method, builtIn());
    expect(b.status).toBe(405);
    expect(shown(await ask(method, ours()))).toEqual(shown(b));
  });

  it.each([
    ['an unknown subresource', () => `${pmList()}/x/status`, () => `${cmList()}/x/status`],
    ['a subresource of the icon', () => `${pmList()}/x/icon/more`, () => `${cmList()}/x/status/more`],
    ['an item outside a namespace', () => `${API}/packagemanifests/x`, () => '/apis/rbac.authorization.k8s.io/v1/roles/x'],
    ['an unknown resource of the version', () => `${API}/namespaces/${ns}/others`, () => `/api/v1/namespaces/${ns}/others`],
  ])('%s: 404 NotFound', async (_what, ours, builtIn) => {
    const b = await ask('GET', builtIn());
    expect(b.status).toBe(404);
    expect(shown(await ask('GET', ours()))).toEqual(shown(b));
  });
});

describe('Accept and query parameters', () => {
  it('an Accept naming no type the API produces: 406 as for configmaps', async () => {
    const b = await ask('GET', cmList(), { accept: 'text/html' });
    expect(b.status).toBe(406);
    expect(shown(await ask('GET', pmList(), { accept: 'text/html' }))).toEqual(shown(b));
  });

  it('JSON, Table, and protobuf with a JSON fallback are served', async () => {
    expect((await ask('GET', pmList(), { accept: 'application/json' })).body.kind).toBe('PackageManifestList');
    expect((await ask('GET', pmList(), { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' })).body.kind).toBe('Table');
    expect((await ask('GET', pmList(), { accept: 'application/vnd.kubernetes.protobuf;q=0.5, application/json' })).body.kind).toBe('PackageManifestList');
  });

  it('protobuf alone: 406 as upstream’s codec refuses a type without protobuf (errNotMarshalable), the Status in protobuf', async () => {
    const ours = await ask('GET', pmList(), { accept: 'application/vnd.kubernetes.protobuf' });
    expect(ours.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(ours.body).toEqual({
      kind: 'Status',
      status: 'Failure',
      code: 406,
      reason: 'NotAcceptable',
      message: 'object *v1.PackageManifestList does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message',
    });
    // the API server encodes its own Status answers the same way: a 404 asked in protobuf
    const builtIn = await ask('GET', `${cmList()}/absent`, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(builtIn.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(builtIn.body).toMatchObject({ kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' });
  });

  it('YAML only: the list, the Table and a Status in YAML (sigs.k8s.io/yaml: keys sorted), as kube-apiserver answers', async () => {
    const builtIn = await ask('GET', cmList(), { accept: 'application/yaml' });
    expect(builtIn.contentType).toBe('application/yaml');
    const ours = await ask('GET', pmList(), { accept: 'application/yaml' });
    expect(ours.status).toBe(200);
    expect(ours.contentType).toBe(builtIn.contentType);
    expect(ours.body).toEqual((await ask('GET', pmList())).body);
    expect(ours.text.split('\n').filter((l) => /^\S/.test(l))).toEqual(['apiVersion: packages.operators.coreos.com/v1', 'items: []', 'kind: PackageManifestList', 'metadata:']);
    // a Table asked in YAML
    const t = 'as=Table;v=v1;g=meta.k8s.io';
    expect((await ask('GET', cmList(), { accept: `application/yaml;${t}` })).contentType).toBe('application/yaml');
    const table = await ask('GET', pmList(), { accept: `application/yaml;${t}` });
    expect([table.contentType, table.body.kind]).toEqual(['application/yaml', 'Table']);
    // a Status in YAML, byte for byte: go-restful's 404
    const notFound = await ask('GET', `${cmList()}/x/status`, { accept: 'application/yaml' });
    expect([notFound.status, notFound.contentType]).toEqual([404, 'application/yaml']);
    const ours404 = await ask('GET', `${pmList()}/x/status`, { accept: 'application/yaml' });
    expect([ours404.status, ours404.contentType, ours404.text]).toEqual([404, 'application/yaml', notFound.text]);
  });

  it.each([
    ['protobuf Table alone: 406 naming the media types, in indented JSON (no clause fits a Status either)', 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io'],
    ['protobuf Table then JSON Table then JSON: the JSON Table', 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json'],
    ['protobuf Table then JSON: the list itself in JSON', 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json'],
    ['JSON Table then protobuf: the JSON Table', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf'],
  ])('protobuf with a Table Accept, a list: %s, as for configmaps', async (_what, accept) => {
    const b = await ask('GET', cmList(), { accept });
    const ours = await ask('GET', pmList(), { accept });
    const kindOf = (a: Answer): unknown => (a.body.kind === 'Status' ? shown(a) : String(a.body.kind).replace(/^(ConfigMap|PackageManifest)List$/, 'List'));
    expect([ours.status, ours.contentType, kindOf(ours)]).toEqual([b.status, b.contentType, kindOf(b)]);
    if (b.status === 406) expect(ours.text).toBe(b.text);
  });

  it.each([
    ['a JSON Table then protobuf: the Status in protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf'],
    ['a YAML Table only: the Status in indented JSON', 'application/yaml;as=Table;v=v1;g=meta.k8s.io'],
    ['protobuf Table then JSON: the Status in JSON', 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json'],
  ])('a Status asked with a Table Accept: %s, as for configmaps', async (_what, accept) => {
    const b = await ask('GET', `${cmList()}/x/status`, { accept });
    const ours = await ask('GET', `${pmList()}/x/status`, { accept });
    expect(b.status).toBe(404);
    expect([ours.contentType, shown(ours)]).toEqual([b.contentType, shown(b)]);
    if (!b.contentType.includes('protobuf')) expect(ours.text).toBe(b.text);
  });

  it.each([
    ['the list', () => pmList(), () => cmList()],
    ['an item', () => `${pmList()}/x`, () => `${cmList()}/x`],
  ])('HEAD %s: go-restful’s 405 without a body, the same headers as for configmaps', async (_what, ours, builtIn) => {
    const b = await ask('HEAD', builtIn());
    const o = await ask('HEAD', ours());
    expect(b.status).toBe(405);
    expect([o.status, o.contentType, o.length, o.text]).toEqual([b.status, b.contentType, b.length, '']);
  });

  it('unknown query parameters are ignored, as for configmaps', async () => {
    expect((await ask('GET', `${cmList()}?nosuch=1`)).status).toBe(200);
    expect((await ask('GET', `${pmList()}?nosuch=1`)).body.kind).toBe('PackageManifestList');
  });

  it.each([
    ['limit that is no number', 'limit=abc'],
    ['timeoutSeconds that is no number', 'timeoutSeconds=abc'],
    ['limit out of range', 'limit=99999999999999999999'],
    ['resourceVersionMatch unsupported, with continue', 'resourceVersion=1&resourceVersionMatch=Other&continue=x'],
    ['a watch with resourceVersionMatch but no sendInitialEvents', 'watch=1&resourceVersionMatch=NotOlderThan'],
    ['a watch with sendInitialEvents but no resourceVersionMatch', 'watch=yes&sendInitialEvents=true'],
    ['sendInitialEvents on a list', 'sendInitialEvents=true'],
    ['resourceVersionMatch without resourceVersion', 'resourceVersionMatch=Exact'],
  ])('list options: %s answered as for configmaps', async (_what, query) => {
    const b = await ask('GET', `${cmList()}?${query}`);
    expect(b.status).toBeGreaterThanOrEqual(400);
    expect(shown(await ask('GET', `${pmList()}?${query}`))).toEqual(shown(b));
  });

  it('limit and continue: upstream’s storage lists everything and returns no continue token', async () => {
    const list = await ask('GET', `${pmList()}?limit=1`);
    expect(list.status).toBe(200);
    expect((list.body.metadata as { continue?: string }).continue).toBeUndefined();
  });
});

describe('watch from a bad or stale resourceVersion, as for configmaps', () => {
  it('a resourceVersion that is no number: the same Status', async () => {
    const b = await ask('GET', `${cmList()}?watch=true&resourceVersion=abc`);
    expect(b.status).toBeGreaterThanOrEqual(400);
    expect(shown(await ask('GET', `${pmList()}?watch=true&resourceVersion=abc`))).toEqual(shown(b));
  });

  it('a watch asked in YAML: the stream serializers’ 406, in YAML (the same document; go-yaml folds its long message at 80 columns, ours is one line)', async () => {
    const b = await ask('GET', `${cmList()}?watch=true&timeoutSeconds=1`, { accept: 'application/yaml' });
    expect([b.status, b.contentType]).toEqual([406, 'application/yaml']);
    const ours = await ask('GET', `${pmList()}?watch=true&timeoutSeconds=1`, { accept: 'application/yaml' });
    expect([ours.contentType, shown(ours)]).toEqual([b.contentType, shown(b)]);
  });

  it('a resourceVersion older than the changes kept: 200 and one ERROR event 410 Expired, as the watch cache answers', async () => {
    // configmaps' watch cache in a young cluster still holds resourceVersion 1 (it was filled before the first write),
    // so the built-in answer is taken from CatalogSources: their CRD's watch cache started later, well after 1.
    const catalogSources = `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/catalogsources?watch=true&resourceVersion=1&timeoutSeconds=5`;
    const b = await ask('GET', catalogSources);
    const ours = await ask('GET', `${pmList()}?watch=true&resourceVersion=1&timeoutSeconds=5`);
    const event = (a: Answer): object => {
      const { type, object } = a.body as { type: string; object: Record<string, unknown> };
      return { status: a.status, contentType: a.contentType, lines: a.text.trim().split('\n').length, type, object: { ...object, message: String(object.message).replace(/\(\d+\)$/, '(<current>)') } };
    };
    expect(event(b)).toMatchObject({ status: 200, type: 'ERROR', lines: 1, object: { code: 410, reason: 'Expired', message: 'too old resource version: 1 (<current>)' } });
    expect(event(ours)).toEqual(event(b));
  });
});
