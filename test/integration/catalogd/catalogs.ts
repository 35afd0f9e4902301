// ClusterCatalogs in the shared control plane for catalogd's tests: create, patch, delete, wait on
// status, fetch served content over HTTP, and a small FBC to push.
import { readdir } from 'node:fs/promises';
import { request } from 'undici';
import type { Condition } from '../../../api/meta/v1.ts';
import { DeleteServerCacheFinalizer, GroupVersion, type ClusterCatalog } from '../../../api/v1/index.ts';
import { adminKube } from '../../support/env.ts';
import { poll, waitFor } from '../../support/net.ts';

const path = (name?: string): string => `/apis/${GroupVersion}/clustercatalogs${name ? `/${name}` : ''}`;
let seq = 0;

/** A fresh catalog name with `prefix`. */
export const uniqueName = (prefix: string): string => `${prefix}-${(seq++).toString(36)}-${Math.random().toString(36).slice(2, 7)}`;

export async function createCatalog(name: string, image: { ref: string; pollIntervalMinutes?: number }, spec: Record<string, unknown> = {}): Promise<ClusterCatalog> {
  return adminKube().must<ClusterCatalog>(
    adminKube().request('POST', path(), {
      apiVersion: GroupVersion,
      kind: 'ClusterCatalog',
      metadata: { name },
      spec: { source: { type: 'Image', image }, ...spec },
    }),
  );
}

export async function getCatalog(name: string): Promise<ClusterCatalog | undefined> {
  const r = await adminKube().request<ClusterCatalog>('GET', path(name));
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function patchCatalog(name: string, patch: Record<string, unknown>): Promise<ClusterCatalog> {
  return adminKube().must<ClusterCatalog>(adminKube().request('PATCH', path(name), patch, 'application/merge-patch+json'));
}

export async function deleteCatalog(name: string): Promise<void> {
  const r = await adminKube().request('DELETE', path(name));
  if (r.status !== 200 && r.status !== 202 && r.status !== 404) throw new Error(`DELETE ${name}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Deletes catalogs and waits until they are gone (their finalizer needs a running catalogd). */
export async function deleteCatalogs(names: Iterable<string>, timeoutMs = 30_000): Promise<void> {
  const list = [...names];
  await Promise.all(list.map(deleteCatalog));
  await waitFor(`catalogs ${list.join(', ')} to go away`, async () => (await Promise.all(list.map(getCatalog))).every((c) => c === undefined), {
    timeoutMs,
    intervalMs: 100,
  });
}

export const condition = (c: ClusterCatalog | undefined, type: string): Condition | undefined =>
  c?.status?.conditions?.find((x) => x.type === type);

/** Polls the catalog until `check` holds; the last object seen is in the timeout message. */
export async function waitForCatalog(
  name: string,
  what: string,
  check: (c: ClusterCatalog) => boolean,
  timeoutMs = 30_000,
): Promise<ClusterCatalog> {
  let last: ClusterCatalog | undefined;
  const met = await poll(async () => !!(last = await getCatalog(name)) && check(last), { timeoutMs, intervalMs: 100 });
  if (!met) throw new Error(`timed out waiting for ${name} ${what}; last seen: ${JSON.stringify(last?.status ?? last ?? null)}`);
  return last!;
}

/** Serving=True at the generation the catalog has now. */
export const serving = (c: ClusterCatalog): boolean => {
  const s = condition(c, 'Serving');
  return s?.status === 'True' && s.observedGeneration === c.metadata.generation;
};

/** Progressing with `reason` and a message matching `message`. */
export const progressing =
  (reason: string, message?: RegExp | string) =>
  (c: ClusterCatalog): boolean => {
    const p = condition(c, 'Progressing');
    if (p?.reason !== reason) return false;
    if (message === undefined) return true;
    return typeof message === 'string' ? p.message === message : message.test(p.message);
  };

// ---- Content -----------------------------------------------------------------------------------

export interface Fetched {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

export async function fetchAll(baseUrl: string): Promise<Fetched> {
  const res = await request(`${baseUrl}/api/v1/all`);
  return { status: res.statusCode, body: await res.body.text(), headers: res.headers };
}

/** The served catalog as parsed JSON lines. */
export async function fetchBlobs(baseUrl: string): Promise<unknown[]> {
  const r = await fetchAll(baseUrl);
  if (r.status !== 200) throw new Error(`GET ${baseUrl}/api/v1/all: ${r.status} ${r.body.slice(0, 200)}`);
  return r.body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** Names directly under `dir` (none when it does not exist). */
export async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * After catalogd stopped: takes catalogd's finalizer off every ClusterCatalog still carrying it
 * (catalogs of other test files it happened to see), so that none is left undeletable.
 */
export async function releaseFinalizers(): Promise<void> {
  const list = await adminKube().must<{ items: ClusterCatalog[] }>(adminKube().request('GET', path()));
  for (const c of list.items) {
    const finalizers = c.metadata.finalizers ?? [];
    if (!finalizers.includes(DeleteServerCacheFinalizer)) continue;
    const r = await adminKube().request('PATCH', path(c.metadata.name), {
      metadata: { finalizers: finalizers.filter((f) => f !== DeleteServerCacheFinalizer), resourceVersion: c.metadata.resourceVersion },
    }, 'application/merge-patch+json');
    if (r.status !== 200 && r.status !== 404 && r.status !== 409) throw new Error(`release ${c.metadata.name}: ${r.status}`);
  }
}

/** A small FBC: one package, one channel, `versions` bundles. */
export function fbc(pkg: string, versions: readonly string[]): Record<string, object> {
  const bundles = versions.map((v) => ({
    schema: 'olm.bundle',
    name: `${pkg}.v${v}`,
    package: pkg,
    image: `registry.test/${pkg}-bundle:v${v}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version: v } }],
  }));
  return {
    [`${pkg}/catalog.json`]: {
      schema: 'olm.package',
      name: pkg,
      defaultChannel: 'stable',
    },
    [`${pkg}/channel.json`]: {
      schema: 'olm.channel',
      name: 'stable',
      package: pkg,
      entries: versions.map((v, i) => ({ name: `${pkg}.v${v}`, ...(i > 0 ? { replaces: `${pkg}.v${versions[i - 1]}` } : {}) })),
    },
    ...Object.fromEntries(bundles.map((b, i) => [`${pkg}/bundle-${i}.json`, b])),
  };
}
