// The dynamic client: any kind, as plain JSON (unknown fields kept), addressed by apiVersion +
// kind and mapped to paths by the RESTMapper. Reads, writes, patches of every type, server-side
// apply, the status subresource, deletes with preconditions, paginated lists and raw watches.
// `impersonate()` and `asServiceAccount()` give a client that acts as someone else over the same
// connection and discovery cache.
import type { KubeObject, List } from '../../../api/meta/v1.ts';
import { loadKubeConfig, type ClusterAccess, type LoadOptions } from './config.ts';
import { ApiError, NetworkError } from './errors.ts';
import { RESTMapper, type ResourceMapping } from './restmapper.ts';
import { fieldSelectorParam, labelSelectorParam, type FieldSelectorInput, type LabelSelectorInput } from './selectors.ts';
import { Connection, type ConnectionOptions, type HttpRequest, type QueryValue, type WarningHandler } from './transport.ts';
import { refOf, type KindRef, type ObjectRef, type WatchEvent } from './types.ts';

/** Patch flavours and their content types. Server-side apply has its own method, `apply`. */
export const PATCH_CONTENT_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;
export type PatchType = keyof typeof PATCH_CONTENT_TYPES;
export const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';

/** Who a client acts as (Impersonate-User, repeated Impersonate-Group, Impersonate-Uid, Impersonate-Extra-*). */
export interface Impersonation {
  readonly user: string;
  /** Omit for service accounts: the API server then adds the account's groups itself. */
  readonly groups?: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface RequestOptions {
  readonly signal?: AbortSignal;
}

export interface ListOptions extends RequestOptions {
  readonly labelSelector?: LabelSelectorInput;
  readonly fieldSelector?: FieldSelectorInput;
  /** Page size; the answer's metadata.continue fetches the next page. */
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface WriteOptions extends RequestOptions {
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

export interface PatchOptions extends WriteOptions {
  readonly subresource?: string;
}

export interface ApplyOptions extends RequestOptions {
  /** Required: the owner of the applied fields. */
  readonly fieldManager: string;
  /** Take fields other managers own instead of failing with a 409 Conflict. */
  readonly force?: boolean;
  readonly dryRun?: boolean;
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  readonly subresource?: string;
}

export interface DeleteOptions extends RequestOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
  /** The delete fails with 409 Conflict unless the object still has this uid / resourceVersion. */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
}

export interface WatchOptions extends RequestOptions {
  readonly labelSelector?: LabelSelectorInput;
  readonly fieldSelector?: FieldSelectorInput;
  /** Events after this version; omit for "now" (no initial events). */
  readonly resourceVersion?: string;
  /** The server ends the watch after this long. */
  readonly timeoutSeconds?: number;
  /** Default true. */
  readonly allowWatchBookmarks?: boolean;
}

export class KubeClient {
  readonly connection: Connection;
  readonly mapper: RESTMapper;
  readonly impersonation: Impersonation | undefined;
  readonly #headers: Readonly<Record<string, string | readonly string[]>>;
  readonly #onWarning: WarningHandler | undefined;

  /** Loads the configuration (see loadKubeConfig) and connects. */
  static async fromConfig(options: LoadOptions & ConnectionOptions = {}): Promise<KubeClient> {
    return KubeClient.forAccess(await loadKubeConfig(options), options);
  }

  static forAccess(access: ClusterAccess, options: ConnectionOptions = {}): KubeClient {
    return new KubeClient(new Connection(access, options));
  }

  constructor(connection: Connection, mapper?: RESTMapper, impersonation?: Impersonation, onWarning?: WarningHandler) {
    this.connection = connection;
    this.mapper = mapper ?? new RESTMapper(connection);
    this.impersonation = impersonation;
    this.#headers = impersonation ? impersonationHeaders(impersonation) : {};
    this.#onWarning = onWarning;
  }

  /** The kubeconfig context's namespace (in a pod: the pod's), else `default`. */
  get defaultNamespace(): string {
    return this.connection.access.namespace;
  }

  /** A client acting as `who`, sharing this one's connection and discovery cache. */
  impersonate(who: Impersonation): KubeClient {
    return new KubeClient(this.connection, this.mapper, who, this.#onWarning);
  }

  /**
   * The same client (identity, connection, discovery cache) that also hands every API `Warning`
   * header of its answers to `handler` (client-go's `rest.Config.WarningHandler`); clients made
   * from it by `impersonate` keep the handler.
   */
  withWarningHandler(handler: WarningHandler): KubeClient {
    return new KubeClient(this.connection, this.mapper, this.impersonation, handler);
  }

  /** A client acting as `system:serviceaccount:<namespace>:<name>`, with exactly that account's rights. */
  asServiceAccount(namespace: string, name: string): KubeClient {
    return this.impersonate({ user: `system:serviceaccount:${namespace}:${name}` });
  }

  mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    return this.mapper.mapping(apiVersion, kind);
  }

  async get<T extends KubeObject = KubeObject>(ref: ObjectRef, options: RequestOptions = {}): Promise<T> {
    return this.#call<T>({ method: 'GET', path: await this.#path(ref, ref.name), signal: options.signal });
  }

  /** One page (or all, without `limit`) of a kind, optionally in one namespace. */
  async list<T extends KubeObject = KubeObject>(kind: KindRef, options: ListOptions = {}): Promise<List<T>> {
    const list = await this.#call<List<T>>({
      method: 'GET',
      path: await this.#path(kind),
      query: {
        labelSelector: labelSelectorParam(options.labelSelector),
        fieldSelector: fieldSelectorParam(options.fieldSelector),
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
      },
      signal: options.signal,
    });
    list.items ??= [];
    // Items of a list carry no apiVersion/kind; give them theirs, so they can be written back.
    for (const item of list.items) {
      item.apiVersion ??= kind.apiVersion;
      item.kind ??= kind.kind;
    }
    return list;
  }

  /** Every page of a list (`pageSize` items per request, default 500), as one list. */
  async listAll<T extends KubeObject = KubeObject>(kind: KindRef, options: Omit<ListOptions, 'continue' | 'limit'> & { readonly pageSize?: number } = {}): Promise<List<T>> {
    const { pageSize = 500, ...rest } = options;
    const items: T[] = [];
    let token: string | undefined;
    let last: List<T>;
    do {
      last = await this.list<T>(kind, { ...rest, limit: pageSize, ...(token && { continue: token }) });
      items.push(...last.items);
      token = last.metadata?.continue || undefined;
    } while (token);
    return { ...last, metadata: { ...(last.metadata?.resourceVersion !== undefined && { resourceVersion: last.metadata.resourceVersion }) }, items };
  }

  async create<T extends KubeObject = KubeObject>(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#call<T>({ method: 'POST', path: await this.#path(typeOf(obj)), query: writeQuery(options), body: obj, signal: options.signal });
  }

  /** PUT; fails with 409 Conflict when metadata.resourceVersion is stale. */
  async update<T extends KubeObject = KubeObject>(obj: T, options: WriteOptions = {}): Promise<T> {
    const ref = refOf(obj);
    return this.#call<T>({ method: 'PUT', path: await this.#path(ref, ref.name), query: writeQuery(options), body: obj, signal: options.signal });
  }

  /** PUT to the status subresource: only `.status` changes. */
  async updateStatus<T extends KubeObject = KubeObject>(obj: T, options: WriteOptions = {}): Promise<T> {
    const ref = refOf(obj);
    return this.#call<T>({ method: 'PUT', path: await this.#path(ref, ref.name, 'status'), query: writeQuery(options), body: obj, signal: options.signal });
  }

  async patch<T extends KubeObject = KubeObject>(ref: ObjectRef, type: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> {
    return this.#call<T>({
      method: 'PATCH',
      path: await this.#path(ref, ref.name, options.subresource),
      query: writeQuery(options),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      signal: options.signal,
    });
  }

  patchStatus<T extends KubeObject = KubeObject>(ref: ObjectRef, type: PatchType, patch: unknown, options: WriteOptions = {}): Promise<T> {
    return this.patch<T>(ref, type, patch, { ...options, subresource: 'status' });
  }

  /**
   * Server-side apply: the object is the full intent of `fieldManager`. A field another manager
   * owns makes it fail with 409 Conflict ("Apply failed with 1 conflict: ...") unless `force`.
   */
  async apply<T extends KubeObject = KubeObject>(obj: KubeObject, options: ApplyOptions): Promise<T> {
    if (!options.fieldManager) throw new TypeError('server-side apply needs a fieldManager');
    const ref = refOf(obj);
    return this.#call<T>({
      method: 'PATCH',
      path: await this.#path(ref, ref.name, options.subresource),
      query: { ...writeQuery(options), force: options.force ? true : undefined },
      body: obj,
      contentType: APPLY_CONTENT_TYPE,
      signal: options.signal,
    });
  }

  applyStatus<T extends KubeObject = KubeObject>(obj: KubeObject, options: Omit<ApplyOptions, 'subresource'>): Promise<T> {
    return this.apply<T>(obj, { ...options, subresource: 'status' });
  }

  /**
   * Deletes; resolves the object when it still exists (finalizers pending, foreground deletion),
   * undefined when it is gone. NotFound rejects (see ignoreNotFound).
   */
  async delete<T extends KubeObject = KubeObject>(ref: ObjectRef, options: DeleteOptions = {}): Promise<T | undefined> {
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(options.propagationPolicy && { propagationPolicy: options.propagationPolicy }),
      ...(options.gracePeriodSeconds !== undefined && { gracePeriodSeconds: options.gracePeriodSeconds }),
      ...(options.preconditions && { preconditions: options.preconditions }),
      ...(options.dryRun && { dryRun: ['All'] }),
    };
    const res = await this.#call<T | { kind: 'Status' }>({ method: 'DELETE', path: await this.#path(ref, ref.name), body, signal: options.signal });
    return res && res.kind !== 'Status' ? (res as T) : undefined;
  }

  /**
   * A raw watch. Yields events until the server ends the watch (timeoutSeconds) or `signal` aborts;
   * an ERROR line rejects with its ApiError (410 Gone: `isGone`), a broken stream with NetworkError.
   */
  async *watch<T extends KubeObject = KubeObject>(kind: KindRef, options: WatchOptions = {}): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const req: HttpRequest = {
      method: 'GET',
      path: await this.#path(kind),
      query: {
        watch: true,
        resourceVersion: options.resourceVersion,
        allowWatchBookmarks: options.allowWatchBookmarks ?? true,
        timeoutSeconds: options.timeoutSeconds,
        labelSelector: labelSelectorParam(options.labelSelector),
        fieldSelector: fieldSelectorParam(options.fieldSelector),
      },
      headers: this.#headers,
      signal: options.signal,
    };
    const body = await this.connection.stream(req);
    body.setEncoding('utf8');
    let buffered = '';
    try {
      for await (const chunk of body as AsyncIterable<string>) {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line) yield parseWatchLine<T>(line, req);
        }
      }
      const rest = buffered.trim();
      if (rest) yield parseWatchLine<T>(rest, req);
    } catch (err) {
      if (options.signal?.aborted) return;
      if (err instanceof ApiError || err instanceof NetworkError) throw err;
      throw new NetworkError(`${req.method} ${req.path}: watch stream broke: ${(err as Error).message}`, (err as { code?: string }).code ?? 'EWATCH', { cause: err });
    } finally {
      body.destroy();
    }
  }

  /** Closes the connection's sockets (shared with impersonating clients made from this one). */
  close(): Promise<void> {
    return this.connection.close();
  }

  #call<T>(req: HttpRequest): Promise<T> {
    return this.connection.request<T>({ ...req, headers: this.#headers, onWarning: this.#onWarning });
  }

  /** `/api(s)/<gv>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]`. */
  async #path(kind: KindRef, name?: string, subresource?: string): Promise<string> {
    const m = await this.mapper.mapping(kind.apiVersion, kind.kind);
    let path = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`;
    if (m.namespaced && kind.namespace) path += `/namespaces/${encodeURIComponent(kind.namespace)}`;
    else if (m.namespaced && name !== undefined) {
      throw new TypeError(`${kind.kind} "${name}" is namespaced: a namespace is required`);
    }
    path += `/${m.resource}`;
    if (name !== undefined) {
      if (!name) throw new TypeError(`${kind.kind}: a name is required`);
      path += `/${encodeURIComponent(name)}`;
      if (subresource) path += `/${subresource}`;
    }
    return path;
  }
}

function typeOf(obj: KubeObject): KindRef {
  if (!obj.apiVersion || !obj.kind) throw new TypeError('object needs apiVersion and kind');
  const ns = obj.metadata?.namespace;
  return ns ? { apiVersion: obj.apiVersion, kind: obj.kind, namespace: ns } : { apiVersion: obj.apiVersion, kind: obj.kind };
}

function writeQuery(o: { fieldManager?: string; dryRun?: boolean; fieldValidation?: string }): Record<string, QueryValue> {
  return { fieldManager: o.fieldManager, dryRun: o.dryRun ? 'All' : undefined, fieldValidation: o.fieldValidation };
}

function impersonationHeaders(who: Impersonation): Record<string, string | readonly string[]> {
  const h: Record<string, string | readonly string[]> = { 'impersonate-user': who.user };
  if (who.groups?.length) h['impersonate-group'] = who.groups;
  if (who.uid) h['impersonate-uid'] = who.uid;
  for (const [k, v] of Object.entries(who.extra ?? {})) h[`impersonate-extra-${encodeURIComponent(k).toLowerCase()}`] = v;
  return h;
}

function parseWatchLine<T extends KubeObject>(line: string, req: HttpRequest): WatchEvent<T> {
  let ev: { type?: string; object?: unknown };
  try {
    ev = JSON.parse(line) as typeof ev;
  } catch (err) {
    throw new NetworkError(`${req.method} ${req.path}: watch sent a line that is not JSON: ${line.slice(0, 200)}`, 'EBADRESPONSE', { cause: err });
  }
  if (ev.type === 'ERROR') {
    const status = (ev.object ?? {}) as { code?: number };
    throw new ApiError(status.code ?? 500, status, req);
  }
  if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED' && ev.type !== 'BOOKMARK') {
    throw new NetworkError(`${req.method} ${req.path}: unknown watch event type "${String(ev.type)}"`, 'EBADRESPONSE');
  }
  return { type: ev.type, object: ev.object as T };
}
