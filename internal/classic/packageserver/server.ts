// The HTTPS side of the package server: what k8s.io/apiserver would serve for upstream's PackageManifest storage —
// discovery (/apis, the group, the version), get and list of packagemanifests (namespaced and across namespaces),
// label selectors, the `metadata.name` field selector, Table output (upstream's Name / Catalog / Age columns) and
// Kubernetes Status errors (401, 403, 404, 405, 400); and (ours, additive: upstream's storage has none) watch.
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dump } from 'js-yaml';
import { goQuote, humanDuration } from '../../shared/gocompat/index.ts';
import { parseSelector, type LabelMatcher } from '../../shared/kube/index.ts';
import { realClock, type Clock, type Logger } from '../../shared/toolkit/index.ts';
import { authenticate, type Attributes, type RequestHeaderConfig, type UserInfo } from './auth.ts';
import { API_VERSION, GROUP, KIND, RESOURCE, VERSION, type PackageManifest } from './manifest.ts';
import type { PackageProvider } from './provider.ts';
import { decodeListQuery, queryBool } from './listoptions.ts';
import { negotiateOutput, PROTOBUF, statusProtobuf, type Output } from './protobuf.ts';
import { watchEvent, type PackageIndex, type WatchScope } from './watch.ts';

export interface PackageServerOptions {
  readonly provider: PackageProvider;
  /** The requestheader configuration in force (undefined: nobody is authenticated). */
  readonly requestHeader: () => RequestHeaderConfig | undefined;
  readonly authorize: (user: UserInfo, attrs: Attributes) => Promise<{ allowed: boolean; reason: string }>;
  readonly certPEM: string;
  readonly keyPEM: string;
  readonly logger: Logger;
  /** The wall time of Tables' AGE column; default the toolkit's realClock. */
  readonly clock?: Clock;
  /** Watch (ours): the index of revisions and changes; without it a watch is 405, as upstream. */
  readonly watch?: {
    readonly index: PackageIndex;
    readonly globalCatalogNamespace: string;
  };
}

interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason?: string; message: string; field?: string }[] };
  code: number;
}

const status = (code: number, reason: string, message: string, details?: Status['details']): Status => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  ...(details && { details }),
  code,
});
const QUALIFIED = `${RESOURCE}.${GROUP}`;
const resourceDetails = (name?: string): Status['details'] => ({ ...(name && { name }), group: GROUP, kind: RESOURCE });

export const unauthorized = (): Status => status(401, 'Unauthorized', 'Unauthorized');
/** responsewriters.ForbiddenStatusError. */
export function forbidden(user: string, attrs: Attributes, reason: string): Status {
  const suffix = reason === '' ? '' : `: ${reason}`;
  if (!attrs.resourceRequest) return status(403, 'Forbidden', `forbidden: User ${goQuote(user)} cannot ${attrs.verb} path ${goQuote(attrs.path)}${suffix}`, {});
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace ? `in the namespace ${goQuote(attrs.namespace)}` : 'at the cluster scope';
  const msg = `User ${goQuote(user)} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.group)} ${where}${suffix}`;
  const qualified = `${attrs.resource}.${attrs.group}`;
  return status(403, 'Forbidden', attrs.name ? `${qualified} ${goQuote(attrs.name)} is forbidden: ${msg}` : `${qualified} is forbidden: ${msg}`, {
    ...(attrs.name && { name: attrs.name }),
    group: attrs.group,
    kind: attrs.resource,
  });
}
export const notFound = (name: string): Status => status(404, 'NotFound', `${QUALIFIED} ${goQuote(name)} not found`, resourceDetails(name));
const pathNotFound = (): Status => status(404, 'NotFound', 'the server could not find the requested resource', {});
/** apierrors.NewGenericServerResponse for go-restful's 405 and 406 (serviceErrorHandler: no resource, no causes). */
const restfulStatus = (code: 405 | 406, produces: readonly string[] = []): Status =>
  code === 405
    ? status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {})
    : status(406, 'NotAcceptable', `406: Not Acceptable\n\nAvailable representations: ${produces.join(', ')}`, {});
const methodNotSupported = (action: string): Status =>
  status(405, 'MethodNotAllowed', `${action} is not supported on resources of kind ${goQuote(QUALIFIED)}`, resourceDetails());
const badRequest = (message: string): Status => status(400, 'BadRequest', message);
/** A plain (non-Status) error of a storage, as responsewriters.ErrorToAPIStatus answers it: no reason, no details. */
const unknownError = (code: number, message: string): Status => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code });
const internalError = (message: string): Status => status(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });

const GROUP_VERSION = { groupVersion: API_VERSION, version: VERSION };
const API_GROUP = { name: GROUP, versions: [GROUP_VERSION], preferredVersion: GROUP_VERSION };
export const DISCOVERY = {
  '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [API_GROUP] },
  [`/apis/${GROUP}`]: { kind: 'APIGroup', apiVersion: 'v1', ...API_GROUP },
  [`/apis/${API_VERSION}`]: {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: API_VERSION,
    resources: [
      { name: RESOURCE, singularName: 'packagemanifest', namespaced: true, kind: KIND, verbs: ['get', 'list', 'watch'] },
      // a connect subresource: the installer lists its ConnectMethods (GET) as their verbs (installer.go, toDiscoveryKubeVerb)
      { name: `${RESOURCE}/icon`, singularName: '', namespaced: true, kind: KIND, verbs: ['get'] },
    ],
  },
} as const satisfies Record<string, object>;

const definition = (kind: string, description: string): object => ({
  description,
  type: 'object',
  'x-kubernetes-group-version-kind': [{ group: GROUP, kind, version: VERSION }],
});
/**
 * The OpenAPI v2 document the aggregator merges (without it the API server retries and logs a failed download):
 * the two kinds, their schemas left open.
 */
export const OPENAPI_V2 = {
  swagger: '2.0',
  info: { title: 'Package server', version: VERSION },
  paths: {},
  definitions: {
    'com.github.operator-framework.operator-lifecycle-manager.pkg.package-server.apis.operators.v1.PackageManifest': definition(
      KIND,
      'PackageManifest holds information about a package, which is a reference to one (or more) channels under a single package.',
    ),
    'com.github.operator-framework.operator-lifecycle-manager.pkg.package-server.apis.operators.v1.PackageManifestList': definition(
      `${KIND}List`,
      'PackageManifestList is a list of PackageManifest objects.',
    ),
  },
};

/**
 * The routes upstream's generic API server installs for a namespaced Getter + Lister and a GET Connecter subresource
 * (k8s.io/apiserver's endpoints/installer.go): list in a namespace and across namespaces, get in a namespace, the icon
 * in a namespace. Nothing else under the version has a route (go-restful's 404), and every route is GET only.
 */
export function routeOf(path: string): { kind: 'list' | 'get' | 'icon' } | undefined {
  const prefix = `/apis/${API_VERSION}/`;
  if (!path.startsWith(prefix)) return undefined;
  const parts = path.slice(prefix.length).split('/');
  if (parts.length === 1 && parts[0] === RESOURCE) return { kind: 'list' };
  if (parts[0] !== 'namespaces' || !parts[1] || parts[2] !== RESOURCE) return undefined;
  if (parts.length === 3) return { kind: 'list' };
  if (parts.length === 4 && parts[3]) return { kind: 'get' };
  if (parts.length === 5 && parts[3] && parts[4] === 'icon') return { kind: 'icon' };
  return undefined;
}

/** What the get and list routes produce (the codec factory's media types; the stream types never match an Accept). */
const PRODUCES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
/** And a list route's watch stream types (go-restful names them in its 406). */
const STREAM_PRODUCES = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

/** go-restful's Route.matchesAccept: an Accept without a type, with the any-type wildcard, or with a type the route produces. */
export function acceptsAnyOf(accept: string | undefined, produces: readonly string[]): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]!.trim();
    return type === '*/*' || produces.includes(type);
  });
}

/** A watch without timeoutSeconds ends after this many seconds × [1, 2) (the API server's --min-request-timeout). */
const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

const VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The request's attributes (k8s.io/apiserver's RequestInfo) when the path is this API's resource; else a non-resource request. */
export function requestAttributes(method: string, path: string, query: URLSearchParams): Attributes & { collection?: boolean } {
  const prefix = `/apis/${API_VERSION}/`;
  const verbOf = (collection: boolean): string => {
    if (method === 'GET' || method === 'HEAD') {
      if (collection && queryBool(query, 'watch')) return 'watch';
      return collection ? 'list' : 'get';
    }
    if (method === 'DELETE' && collection) return 'deletecollection';
    return VERBS[method] ?? method.toLowerCase();
  };
  if (path.startsWith(prefix)) {
    const parts = path.slice(prefix.length).split('/').filter((p) => p !== '');
    let namespace = '';
    if (parts[0] === 'namespaces' && parts.length >= 3) {
      namespace = parts[1]!;
      parts.splice(0, 2);
    }
    if (parts[0] === RESOURCE && parts.length <= 3) {
      const collection = parts.length === 1;
      return {
        resourceRequest: true,
        verb: verbOf(collection),
        group: GROUP,
        version: VERSION,
        resource: RESOURCE,
        subresource: parts[2] ?? '',
        namespace,
        name: parts[1] ?? '',
        collection,
      };
    }
  }
  return { resourceRequest: false, verb: method.toLowerCase(), path };
}

/** A field selector's term (apimachinery's fields hasTerm / notHasTerm). */
interface FieldTerm {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

/**
 * apimachinery's fields.ParseSelector (k8s.io/apimachinery/pkg/fields/selector.go): terms split at unescaped commas,
 * sorted, each split at its first `!=`, `==` or `=`, the value unescaped (`\\`, `\,`, `\=`); no space is trimmed.
 * Throws with apimachinery's words.
 */
export function parseFieldSelector(text: string): FieldTerm[] {
  const parts: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text !== '') parts.push(text.slice(start));
  parts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const terms: FieldTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const m = /!=|==|=/.exec(part);
    if (!m) throw new Error(`invalid selector: '${text}'; can't understand '${part}'`);
    terms.push({ field: part.slice(0, m.index), op: m[0] === '!=' ? '!=' : '=', value: unescapeFieldValue(part.slice(m.index + m[0].length)) });
  }
  // hasTerm.Transform: a term with neither field nor value selects everything.
  return terms.filter((t) => t.field !== '' || t.value !== '');
}

/** fields.UnescapeValue; an unescaped `,` or `=` is named by its code point, as Go's %v prints a rune. */
function unescapeFieldValue(s: string): string {
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/**
 * A list's `fieldSelector` as upstream's package server takes it (k8s.io/apiserver's endpoints/handlers/get.go
 * listOpts, then pkg/package-server/storage/reststorage.go nameFor): a selector that does not parse is 400 BadRequest
 * with apimachinery's words; a field other than metadata.name and metadata.namespace is 400 BadRequest from the
 * scheme's default field label conversion (runtime.DefaultMetaV1FieldSelectorConversion); then only an exact
 * `metadata.name` is served, anything else is nameFor's plain error, which the API server answers 500 without a reason.
 */
export function nameFromFieldSelector(text: string | null): { name: string } | { error: Status } {
  if (!text) return { name: '' };
  let terms: FieldTerm[];
  try {
    terms = parseFieldSelector(text);
  } catch (err) {
    return { error: badRequest((err as Error).message) };
  }
  for (const t of terms) {
    if (t.field !== 'metadata.name' && t.field !== 'metadata.namespace') {
      return { error: badRequest(`${goQuote(t.field)} is not a known field selector: only "metadata.name", "metadata.namespace"`) };
    }
  }
  const exact = terms.find((t) => t.field === 'metadata.name' && t.op === '=');
  if (exact) return { name: exact.value };
  if (terms.length === 0) return { name: '' };
  return { error: unknownError(500, `field label not supported: ${terms[0]!.field}`) };
}

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** upstream's printer (storage/printer.go): Name, Catalog (the CatalogSource's display name), Age. */
export function table(items: readonly PackageManifest[], now: number, includeObject: string | null): object {
  const age = (ts: string | null): string => {
    const t = ts ? Date.parse(ts) : NaN;
    return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
  };
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {},
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 },
      { name: 'Catalog', type: 'string', format: '', description: 'The source catalog for this package', priority: 0 },
      { name: 'Age', type: 'string', format: '', description: CREATION_DOC, priority: 0 },
    ],
    rows: items.map((pm) => ({
      cells: [pm.metadata.name, pm.status.catalogSourceDisplayName, age(pm.metadata.creationTimestamp)],
      ...(includeObject === 'None'
        ? {}
        : { object: includeObject === 'Object' ? pm : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pm.metadata } }),
    })),
  };
}

/**
 * How a response's body is encoded: `object` for what the handler serves (JSON until the resource's handler
 * negotiates), `status` for a Status error — negotiated without conversions (responsewriters.ErrorNegotiated), and
 * `raw` when no clause fits: WriteRawJSON's indented JSON.
 */
type Encoding = { object: Output['type']; status: Output['type'] | 'raw' };
const encodings = new WeakMap<ServerResponse, Encoding>();

/** The media types the resource's codec factory offers (NegotiateOutputMediaType's 406 names them). */
const NOT_ACCEPTABLE = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';
const WATCH_NOT_ACCEPTABLE = 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch';

function send(res: ServerResponse, code: number, body: object): void {
  const encoding = encodings.get(res) ?? { object: 'json', status: 'json' };
  const isStatus = (body as { kind?: string }).kind === 'Status';
  const type = isStatus ? encoding.status : encoding.object;
  if (type === 'protobuf') {
    // A Status goes out in protobuf; an object cannot (errNotMarshalable: 406, itself a Status, negotiated as errors are).
    if (!isStatus) return send(res, 406, status(406, 'NotAcceptable', `object *v1.${(body as { kind?: string }).kind ?? ''} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`));
    const data = statusProtobuf(body as Status);
    res.writeHead(code, { 'content-type': PROTOBUF, 'x-content-type-options': 'nosniff', 'content-length': data.length });
    return void res.end(data);
  }
  // sigs.k8s.io/yaml (JSON → YAML: keys sorted, sequences at their key's indentation); JSON as encoding/json's
  // Encoder writes it (a trailing newline); raw: WriteRawJSON's two-space indentation.
  const [contentType, text] =
    type === 'yaml'
      ? ['application/yaml', dump(body, { sortKeys: true, noArrayIndent: true, lineWidth: -1, quotingType: '"' })]
      : ['application/json', type === 'raw' ? JSON.stringify(body, null, 2) : `${JSON.stringify(body)}\n`];
  res.writeHead(code, { 'content-type': contentType, 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Serves one request (exported for tests that drive it without TLS). */
export async function handle(o: PackageServerOptions, req: IncomingMessage, res: ServerResponse, user: UserInfo | undefined): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  const method = req.method ?? 'GET';
  encodings.set(res, { object: 'json', status: negotiateOutput(req.headers.accept, false)?.type ?? 'raw' });
  if (!user) return send(res, 401, unauthorized());
  const attrs = requestAttributes(method, path, url.searchParams);
  const decision = await o.authorize(user, attrs);
  if (!decision.allowed) return send(res, 403, forbidden(user.name, attrs, decision.reason));
  if (!attrs.resourceRequest) {
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end('ok');
    }
    const doc = path === '/openapi/v2' ? OPENAPI_V2 : (DISCOVERY as Record<string, object>)[path];
    if (!doc || (method !== 'GET' && method !== 'HEAD')) return send(res, 404, pathNotFound());
    return send(res, 200, doc);
  }
  const route = routeOf(path);
  // go-restful's answers before any handler runs (k8s.io/apiserver's server/handler.go serviceErrorHandler):
  // no route for the path, a route but not for the method, a route that produces none of the accepted types.
  if (!route) return send(res, 404, pathNotFound());
  if (method !== 'GET') return send(res, 405, restfulStatus(405));
  if (route.kind !== 'icon') {
    const produces = route.kind === 'list' ? [...PRODUCES, ...STREAM_PRODUCES] : PRODUCES;
    if (!acceptsAnyOf(req.headers.accept, produces)) return send(res, 406, restfulStatus(406, produces));
  }
  if (route.kind === 'icon') return serveIcon(o, req, res, url, attrs.namespace, attrs.name);
  // NegotiateOutputMediaType, before the list options are read: what the object (or its Table) is encoded as.
  const output = negotiateOutput(req.headers.accept, true);
  if (!output) return send(res, 406, status(406, 'NotAcceptable', NOT_ACCEPTABLE));
  encodings.set(res, { ...encodings.get(res)!, object: output.type });
  if (route.kind === 'list') {
    const decoded = decodeListQuery(url.searchParams);
    if ('error' in decoded) {
      const e = decoded.error;
      return send(res, e.code, e.code === 400 ? badRequest(e.message) : status(422, e.reason, e.message, { group: 'meta.k8s.io', kind: 'ListOptions', causes: e.causes }));
    }
  }
  if (attrs.verb === 'watch' && !o.watch) return send(res, 405, methodNotSupported(attrs.verb));
  const now = (o.clock ?? realClock).date().getTime();
  const asTable = output.table;
  if (attrs.verb === 'get') {
    const pm = o.provider.get(attrs.namespace, attrs.name);
    if (!pm) return send(res, 404, notFound(attrs.name));
    return send(res, 200, asTable ? table([pm], now, url.searchParams.get('includeObject')) : pm);
  }
  let selector: LabelMatcher | undefined;
  const labelText = url.searchParams.get('labelSelector');
  if (labelText) {
    try {
      selector = parseSelector(labelText);
    } catch (err) {
      return send(res, 400, badRequest((err as Error).message));
    }
  }
  const field = nameFromFieldSelector(url.searchParams.get('fieldSelector'));
  if ('error' in field) return send(res, field.error.code, field.error);
  const scope: WatchScope = { namespace: attrs.namespace, globalCatalogNamespace: o.watch?.globalCatalogNamespace ?? '', ...(selector && { selector }), name: field.name };
  if (attrs.verb === 'watch' && o.watch) return serveWatch(o, o.watch, res, url, scope, output, now);
  const items = o.provider.list(attrs.namespace, selector).filter((pm) => field.name === '' || pm.metadata.name === field.name);
  const metadata = o.watch ? { resourceVersion: String(o.watch.index.revision) } : {};
  if (asTable) return send(res, 200, { ...table(items, now, url.searchParams.get('includeObject')), metadata });
  return send(res, 200, { kind: `${KIND}List`, apiVersion: API_VERSION, metadata, items: items.map(listItem) });
}

/**
 * A list item as upstream's package server encodes it: without apiVersion and kind (the generic API server sets them
 * on the list and on a single object it serves, never on the items of a list).
 */
export function listItem(pm: PackageManifest): Omit<PackageManifest, 'apiVersion' | 'kind'> {
  const { apiVersion: _apiVersion, kind: _kind, ...item } = pm;
  return item;
}

/**
 * A watch (ours), as the API server's watch cache serves one: without a resourceVersion, or "0", ADDED for every
 * PackageManifest there is, then the changes; from a resourceVersion, the changes after it (410 Expired as an ERROR
 * event when they are no longer kept); sendInitialEvents=true: the ADDED events then a BOOKMARK with
 * `k8s.io/initial-events-end`. JSON lines; ends after timeoutSeconds.
 */
function serveWatch(o: PackageServerOptions, w: NonNullable<PackageServerOptions['watch']>, res: ServerResponse, url: URL, scope: WatchScope, output: Output, now: number): void {
  const asTable = output.table;
  const q = url.searchParams;
  const rvText = q.get('resourceVersion') ?? '';
  const sendInitial = q.get('sendInitialEvents') === 'true';
  let from: number | undefined;
  if (rvText !== '' && rvText !== '0') {
    // the watch cache's answer for configmaps: a 500 without a reason naming strconv.ParseUint's error
    const parse = !/^\d+$/.test(rvText) ? 'invalid syntax' : BigInt(rvText) >= 2n ** 64n ? 'value out of range' : undefined;
    if (parse) return send(res, 500, unknownError(500, `resourceVersion: Invalid value: ${goQuote(rvText)}: strconv.ParseUint: parsing ${goQuote(rvText)}: ${parse}`));
    from = Number(rvText);
    if (from > w.index.revision) {
      const message = `Too large resource version: ${from}, current: ${w.index.revision}`;
      return send(res, 504, status(504, 'Timeout', `Timeout: ${message}`, { causes: [{ message }] }));
    }
  }
  // after the storage's Watch: the stream serializers are JSON's and protobuf's (NegotiateOutputMediaTypeStream's 406)
  if (output.type === 'yaml') return send(res, 406, status(406, 'NotAcceptable', WATCH_NOT_ACCEPTABLE));
  const timeoutText = q.get('timeoutSeconds');
  const timeoutSeconds = timeoutText && /^\d+$/.test(timeoutText) && Number(timeoutText) > 0 ? Number(timeoutText) : MIN_REQUEST_TIMEOUT_SECONDS * (Math.random() + 1);
  const includeObject = q.get('includeObject');
  const line = (type: string, object: object): string => `${JSON.stringify({ type, object })}\n`;
  const event = (type: string, pm: PackageManifest): string => line(type, asTable ? { ...table([pm], now, includeObject), metadata: { resourceVersion: pm.metadata.resourceVersion ?? '' } } : pm);
  const replay = from === undefined || sendInitial ? undefined : w.index.since(from);
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'x-content-type-options': 'nosniff', 'transfer-encoding': 'chunked' });
  if (from !== undefined && !sendInitial && !replay) {
    return void res.end(line('ERROR', status(410, 'Expired', `too old resource version: ${from} (${w.index.revision})`)));
  }
  const chunks: string[] = [];
  if (replay) {
    for (const c of replay) {
      const ev = watchEvent(c, scope);
      if (ev) chunks.push(event(ev.type, ev.object));
    }
  } else {
    for (const pm of o.provider.list(scope.namespace, scope.selector)) if (scope.name === '' || pm.metadata.name === scope.name) chunks.push(event('ADDED', pm));
    if (sendInitial) {
      const bookmark = { kind: KIND, apiVersion: API_VERSION, metadata: { resourceVersion: String(w.index.revision), annotations: { 'k8s.io/initial-events-end': 'true' } } };
      chunks.push(line('BOOKMARK', bookmark));
    }
  }
  // Subscribed in the same turn as the state above was read: no change falls between them.
  const unsubscribe = w.index.subscribe((c) => {
    const ev = watchEvent(c, scope);
    if (ev) res.write(event(ev.type, ev.object));
  });
  const timer = setTimeout(() => res.end(), timeoutSeconds * 1000);
  res.on('close', () => {
    unsubscribe();
    clearTimeout(timer);
  });
  res.write(chunks.join(''));
}

/**
 * upstream's LogoStorage: the default channel's head CSV's first icon, its media type and etag; the default icon (an
 * SVG) when it has none; a bare 404 for no such package; 304 when asked with If-None-Match and a resourceVersion.
 */
function serveIcon(o: PackageServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, namespace: string, name: string): void {
  if (req.headers['if-none-match'] && url.searchParams.get('resourceVersion')) {
    res.writeHead(304);
    return void res.end();
  }
  const found = o.provider.icon(namespace, name);
  if (!found.found) {
    res.writeHead(404);
    return void res.end();
  }
  const icon = found.icon ?? { data: Buffer.from(DEFAULT_ICON), mediatype: 'image/svg+xml', etag: '' };
  res.writeHead(200, { 'content-type': icon.mediatype, 'content-length': icon.data.length, etag: icon.etag });
  res.end(icon.data);
}

/** upstream's defaultIcon (storage/subresources.go). */
export const DEFAULT_ICON = `
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 258.51 258.51"><defs><style>.cls-1{fill:#d1d1d1;}.cls-2{fill:#8d8d8f;}</style></defs><title>Asset 4</title><g id="Layer_2" data-name="Layer 2"><g id="Layer_1-2" data-name="Layer 1"><path class="cls-1" d="M129.25,20A109.1,109.1,0,0,1,206.4,206.4,109.1,109.1,0,1,1,52.11,52.11,108.45,108.45,0,0,1,129.25,20m0-20h0C58.16,0,0,58.16,0,129.25H0c0,71.09,58.16,129.26,129.25,129.26h0c71.09,0,129.26-58.17,129.26-129.26h0C258.51,58.16,200.34,0,129.25,0Z"/><path class="cls-2" d="M177.54,103.41H141.66L154.9,65.76c1.25-4.4-2.33-8.76-7.21-8.76H102.93a7.32,7.32,0,0,0-7.4,6l-10,69.61c-.59,4.17,2.89,7.89,7.4,7.89h36.9L115.55,197c-1.12,4.41,2.48,8.55,7.24,8.55a7.58,7.58,0,0,0,6.47-3.48L184,113.85C186.86,109.24,183.29,103.41,177.54,103.41Z"/></g></g></svg>
`;

export interface RunningServer {
  readonly port: number;
  /** Puts a new requestheader client CA in force for new connections. */
  setClientCA(ca: string | undefined): void;
  /** Puts a new serving certificate and key in force for new connections (throws when they do not load). */
  setCertificate(certPEM: string, keyPEM: string): void;
  close(): Promise<void>;
}

/**
 * Listens on host:port with TLS, asking every client for a certificate (checked against the requestheader client CA,
 * which the request handler then requires).
 */
export async function listen(o: PackageServerOptions, host: string, port: number): Promise<RunningServer> {
  let pair = { cert: o.certPEM, key: o.keyPEM };
  let clientCA = o.requestHeader()?.clientCA;
  const context = (): { cert: string; key: string; ca?: string } => ({ ...pair, ...(clientCA && { ca: clientCA }) });
  const server: Server = createServer({ ...context(), requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' }, (req, res) => {
    handle(o, req, res, authenticate(req, o.requestHeader())).catch((err: unknown) => {
      o.logger.error('serving a package server request', { path: req.url, error: (err as Error).message });
      if (!res.headersSent) send(res, 500, internalError((err as Error).message));
      else res.destroy();
    });
  });
  server.listen({ host, port });
  await once(server, 'listening'); // rejects on an 'error' first
  return {
    port: (server.address() as AddressInfo).port,
    setClientCA: (ca) => {
      clientCA = ca;
      server.setSecureContext(context());
    },
    setCertificate: (cert, key) => {
      const previous = pair;
      pair = { cert, key };
      try {
        server.setSecureContext(context());
      } catch (err) {
        pair = previous;
        throw err;
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
