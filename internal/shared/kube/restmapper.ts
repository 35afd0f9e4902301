// apiVersion + kind → resource plural and scope, from the API server's discovery documents (`/api/v1`,
// `/apis/<group>/<version>`). Answers are cached per group-version for `ttlMs`; a kind that is not found drops the
// cached document and asks again once, so a CRD installed a moment ago is found without waiting for the TTL.
import { ApiError, NoKindMatchError } from './errors.ts';
import type { Connection } from './transport.ts';
import { realClock, type Clock } from '../toolkit/index.ts';

export interface ResourceMapping {
  readonly apiVersion: string;
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The plural resource name used in paths, e.g. `configmaps`. */
  readonly resource: string;
  readonly namespaced: boolean;
  /** Subresources the server offers, e.g. `status`, `scale`. */
  readonly subresources: readonly string[];
  readonly verbs: readonly string[];
}

interface ApiResourceList {
  groupVersion?: string;
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

interface Entry {
  readonly fetched: number;
  readonly mappings: Promise<Map<string, ResourceMapping> | undefined>;
}

export class RESTMapper {
  readonly #conn: Connection;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #byGroupVersion = new Map<string, Entry>();

  constructor(conn: Connection, options: { readonly ttlMs?: number; readonly clock?: Clock } = {}) {
    this.#conn = conn;
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#clock = options.clock ?? realClock;
  }

  /** The resource for `kind` in `apiVersion`; NoKindMatchError when the server has none. */
  async mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    // A miss asks the server again once (a CRD installed a moment ago).
    const found = (await this.#resources(apiVersion, false))?.get(kind) ?? (await this.#resources(apiVersion, true))?.get(kind);
    if (!found) throw new NoKindMatchError(apiVersion, kind);
    return found;
  }

  /** Every top-level resource of a group-version, or undefined if the server does not serve it. */
  async resources(apiVersion: string): Promise<ResourceMapping[] | undefined> {
    const m = await this.#resources(apiVersion, false);
    return m && [...m.values()];
  }

  #resources(apiVersion: string, refresh: boolean): Promise<Map<string, ResourceMapping> | undefined> {
    const entry = this.#byGroupVersion.get(apiVersion);
    if (entry && !refresh && this.#clock.now() - entry.fetched < this.#ttlMs) return entry.mappings;
    const mappings = this.#fetch(apiVersion);
    const fresh: Entry = { fetched: this.#clock.now(), mappings };
    this.#byGroupVersion.set(apiVersion, fresh);
    // Failures (network, 5xx) are not cached; "not served" (undefined) is, until the next miss.
    mappings.catch(() => {
      if (this.#byGroupVersion.get(apiVersion) === fresh) this.#byGroupVersion.delete(apiVersion);
    });
    return mappings;
  }

  async #fetch(apiVersion: string): Promise<Map<string, ResourceMapping> | undefined> {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    let list: ApiResourceList;
    try {
      list = await this.#conn.request<ApiResourceList>({ method: 'GET', path: group ? `/apis/${group}/${version}` : `/api/${version}` });
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
    const subresources = new Map<string, string[]>();
    for (const r of list.resources ?? []) {
      const [base, sub] = r.name.split('/', 2);
      if (base && sub) subresources.set(base, [...(subresources.get(base) ?? []), sub]);
    }
    const byKind = new Map<string, ResourceMapping>();
    for (const r of list.resources ?? []) {
      if (r.name.includes('/') || byKind.has(r.kind)) continue;
      byKind.set(r.kind, {
        apiVersion,
        group,
        version,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        subresources: subresources.get(r.name) ?? [],
        verbs: r.verbs ?? [],
      });
    }
    return byKind;
  }
}
