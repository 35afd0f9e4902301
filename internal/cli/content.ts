// The cluster's catalogs as the CLI reads them: the ClusterCatalogs from the API server, and their
// content from catalogd's HTTP API at `status.urls.base` — directly when that address is reachable
// from here (`make run`, an exposed catalogd), or through the API server's service proxy when it
// names an in-cluster Service (`https://catalogd-service.olmv1-system.svc/...`, the default), so a
// user outside the cluster needs no port-forward. Either way each catalog is read once per run.
import type { ClusterCatalog } from '../../api/v1/index.ts';
import { ClusterCatalogKind, GroupVersion, ReasonAvailable, TypeServing } from '../../api/v1/index.ts';
import {
  allEndpoint,
  ContentClientError,
  HttpContentClient,
  indexFromJsonl,
  validateCatalog,
  type CatalogContentClient,
  type CatalogIndex,
  type PackageContent,
} from '../operator-controller/contentclient/index.ts';
import type { KubeClient } from '../shared/kube/index.ts';
import { tryOr } from '../shared/toolkit/index.ts';
import { byName } from './output.ts';

export const CC = { apiVersion: GroupVersion, kind: ClusterCatalogKind } as const;

/** Every ClusterCatalog, by name. */
export async function listCatalogs(client: KubeClient): Promise<ClusterCatalog[]> {
  return (await client.list<ClusterCatalog>(CC)).items.sort(byName);
}

/** Serving=True with a resolved image: what catalogd serves (kubectl-operator's isCatalogServing, availability aside). */
export function isServing(c: ClusterCatalog): boolean {
  const serving = c.status?.conditions?.find((x) => x.type === TypeServing);
  return serving?.status === 'True' && serving.reason === ReasonAvailable && !!c.status?.resolvedSource?.image && !!c.status.urls?.base;
}

/**
 * The API server path that proxies to `base` when its host is an in-cluster Service name
 * (`<svc>.<ns>.svc[.cluster.local][:port]`); undefined for any other address.
 */
export function serviceProxyPath(base: string): string | undefined {
  const url = tryOr(() => new URL(base), undefined);
  if (!url) return undefined;
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?\.?$/.exec(url.hostname);
  if (!m) return undefined;
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port || (scheme === 'https' ? '443' : '80');
  return `/api/v1/namespaces/${m[3]}/services/${scheme}:${m[1]}:${port}/proxy${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * A CatalogContentClient over live catalogs. Reachable addresses go through operator-controller's
 * HttpContentClient (its messages); in-cluster Service addresses through the API server's proxy.
 */
export class LiveContent implements CatalogContentClient {
  readonly #client: KubeClient;
  readonly #http: HttpContentClient;
  readonly #proxied = new Map<string, Promise<CatalogIndex>>();

  constructor(client: KubeClient, opts: { readonly timeoutMs?: number } = {}) {
    this.#client = client;
    this.#http = new HttpContentClient({ timeoutMs: opts.timeoutMs ?? 60_000 });
  }

  /** The whole catalog's index (search reads every package). */
  async index(catalog: ClusterCatalog, signal?: AbortSignal): Promise<CatalogIndex> {
    const ref = validateCatalog(catalog);
    const name = catalog.metadata.name ?? '';
    const proxy = catalog.status?.urls?.base ? serviceProxyPath(catalog.status.urls.base) : undefined;
    if (proxy === undefined) return this.#http.populateCache(catalog, signal);
    const key = `${name}@${ref}`;
    if (!this.#proxied.has(key)) this.#proxied.set(key, this.#fetchProxied(proxy, signal));
    return this.#proxied.get(key)!;
  }

  async #fetchProxied(proxyPath: string, signal?: AbortSignal): Promise<CatalogIndex> {
    const path = new URL(allEndpoint(`http://proxy${proxyPath}`)).pathname;
    const body = await this.#client.connection.stream({ method: 'GET', path, signal }).catch((err: Error) => {
      throw new ContentClientError(`error performing request through the API server's service proxy (${path}): ${err.message}`, { cause: err });
    });
    return indexFromJsonl(body as AsyncIterable<Buffer>);
  }

  async getPackage(catalog: ClusterCatalog, packageName: string, signal?: AbortSignal): Promise<PackageContent> {
    const index = await this.index(catalog, signal);
    return index.getPackage(packageName);
  }

  close(): Promise<void> {
    return this.#http.close();
  }
}
