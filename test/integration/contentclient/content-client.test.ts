// operator-controller's content client against the real catalogd: catalog images pushed to the
// real registry, ClusterCatalogs created on the real API server, content read through
// HttpContentClient from `status.urls.base`. A new digest on the same tag replaces the cache;
// a catalog that is not served gives upstream's exact message; a catalogd that went away leaves
// a cached transport error. The client keeps each catalog's lines in an unlinked file of its cache directory, as
// operator-controller runs it.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import { HttpContentClient, indexFromDirectory } from '../../../internal/operator-controller/contentclient/index.ts';
import { registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import {
  condition,
  createCatalog,
  deleteCatalogs,
  fbc,
  getCatalog,
  patchCatalog,
  releaseFinalizers,
  serving,
  uniqueName,
  waitForCatalog,
} from '../catalogd/catalogs.ts';
import { startCatalogd, stopAll, type RunningCatalogd } from '../catalogd/harness.ts';

const created = new Set<string>();
let cd: RunningCatalogd;
let client: HttpContentClient;
let work = '';

beforeAll(async () => {
  cd = await startCatalogd();
  work = await mkdtemp(join(tmpdir(), 'content-client-it-'));
  client = new HttpContentClient({ retryBaseMs: 50, cacheDir: join(work, 'catalogs') });
});
afterAll(async () => {
  await client.close();
  await rm(work, { recursive: true, force: true });
  await deleteCatalogs(created);
  await stopAll();
  await releaseFinalizers();
});

async function newCatalog(prefix: string, image: { ref: string; pollIntervalMinutes?: number }, spec: Record<string, unknown> = {}): Promise<string> {
  const name = uniqueName(prefix);
  created.add(name);
  await createCatalog(name, image, spec);
  return name;
}

const versionsOf = (bundles: readonly { properties: readonly { type: string; value: unknown }[] }[]): string[] =>
  bundles.map((b) => (b.properties.find((p) => p.type === 'olm.package')?.value as { version: string }).version);

describe('content from the real catalogd', () => {
  it('resolves a package from status.urls.base, then follows a new digest pushed to the same tag', async () => {
    const first = await pushCatalogImage(registry(), 'contentclient/tagged:latest', { files: fbc('foo', ['1.0.0', '1.1.0']) });
    const name = await newCatalog('cc-tagged', { ref: first.ref, pollIntervalMinutes: 1 });
    const c1 = await waitForCatalog(name, 'Serving', serving);
    expect(c1.status?.resolvedSource?.image.ref).toBe(first.digestRef);
    expect(c1.status?.urls?.base).toBe(`${cd.serverUrl}/catalogs/${name}`);

    await client.syncCatalog(name, c1); // what the ClusterCatalog controller does on the event
    expect(client.cached(name)?.ref).toBe(first.digestRef);
    const foo = await client.getPackage(c1, 'foo');
    expect(foo.packages).toEqual([{ name: 'foo', defaultChannel: 'stable' }]);
    expect(foo.channels.map((ch) => [ch.name, ch.entries.map((e) => [e.name, e.replaces])])).toEqual([
      ['stable', [['foo.v1.0.0', ''], ['foo.v1.1.0', 'foo.v1.0.0']]],
    ]);
    expect(versionsOf(foo.bundles).sort()).toEqual(['1.0.0', '1.1.0']);
    expect(await client.getPackage(c1, 'bar')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [] });
    const fetchesAfterFirst = client.fetches;

    // A new image on the same tag: catalogd polls it (1 minute = 1 s in the harness) and serves the new digest.
    const second = await pushCatalogImage(registry(), 'contentclient/tagged:latest', { files: fbc('foo', ['1.0.0', '1.1.0', '2.0.0']) });
    expect(second.digestRef).not.toBe(first.digestRef);
    const c2 = await waitForCatalog(name, 'the new digest', (c) => serving(c) && c.status?.resolvedSource?.image.ref === second.digestRef, 60_000);

    // Reading with the new catalog object fetches the new digest once and replaces the cache.
    expect(versionsOf((await client.getPackage(c2, 'foo')).bundles).sort()).toEqual(['1.0.0', '1.1.0', '2.0.0']);
    expect(client.cached(name)?.ref).toBe(second.digestRef);
    expect(client.fetches).toBe(fetchesAfterFirst + 1);
    await client.syncCatalog(name, c2); // already cached: nothing fetched
    expect(client.fetches).toBe(fetchesAfterFirst + 1);
    // Only one version per catalog: the old digest is gone (read as upstream does, without fetching on demand).
    const upstream = new HttpContentClient({ populateOnDemand: false });
    try {
      await upstream.syncCatalog(name, c1); // a stale event: catalogd now serves the new digest's content
      await upstream.syncCatalog(name, c2);
      expect(upstream.cached(name)?.ref).toBe(second.digestRef);
      await expect(upstream.getPackage(c1, 'foo')).rejects.toThrow(new RegExp(`^cache for catalog "${name}" not found$`));
      expect(versionsOf((await upstream.getPackage(c2, 'foo')).bundles).sort()).toEqual(['1.0.0', '1.1.0', '2.0.0']);
    } finally {
      await upstream.close();
    }
  });

  it('serves what the catalog directory holds, package by package', async () => {
    const dir = join(import.meta.dirname, '../../../internal/shared/fbc/testdata/mixed');
    const pushed = await pushCatalogImage(registry(), 'contentclient/mixed:v1', { dir });
    const name = await newCatalog('cc-mixed', { ref: pushed.digestRef });
    const c = await waitForCatalog(name, 'Serving', serving);
    const want = await indexFromDirectory(dir);
    expect(want.packageNames().length).toBeGreaterThan(0);
    const index = await client.populateCache(c);
    expect(index.packageNames().sort()).toEqual(want.packageNames().sort());
    for (const pkg of want.packageNames()) expect(await client.getPackage(c, pkg), pkg).toEqual(want.getPackage(pkg));
    expect(index.retainedBytes).toBe(0); // the lines are in the cache directory's (unlinked) file
    expect(await readdir(join(work, 'catalogs'))).toEqual([]);
  });

  it("a cache directory that cannot be made gives upstream's message, cached as the populate's error", async () => {
    const blocked = join(work, 'blocked');
    await writeFile(blocked, 'a file where the directory should be');
    const broken = new HttpContentClient({ cacheDir: join(blocked, 'catalogs') });
    try {
      const pushed = await pushCatalogImage(registry(), 'contentclient/blocked:v1', { files: fbc('foo', ['1.0.0']) });
      const name = await newCatalog('cc-blocked', { ref: pushed.digestRef });
      const c = await waitForCatalog(name, 'Serving', serving);
      await expect(broken.getPackage(c, 'foo')).rejects.toThrow(
        new RegExp(`^error retrieving cache for catalog "${name}": error creating temporary directory to unpack catalog metadata: ENOTDIR`),
      );
    } finally {
      await broken.close();
    }
  });

  it('a catalog that is not served gives upstream’s message: availabilityMode Unavailable, and an image that does not exist', async () => {
    const pushed = await pushCatalogImage(registry(), 'contentclient/toggle:v1', { files: fbc('baz', ['0.1.0']) });
    const name = await newCatalog('cc-toggle', { ref: pushed.ref });
    const on = await waitForCatalog(name, 'Serving', serving);
    expect((await client.getPackage(on, 'baz')).bundles).toHaveLength(1);

    await patchCatalog(name, { spec: { availabilityMode: 'Unavailable' } });
    const off = await waitForCatalog(name, 'UserSpecifiedUnavailable', (c) => condition(c, 'Serving')?.reason === 'UserSpecifiedUnavailable');
    expect(condition(off, 'Serving')?.status).toBe('False');
    await expect(client.getPackage(off, 'baz')).rejects.toThrow(new RegExp(`^catalog "${name}" is not being served$`));
    await expect(client.syncCatalog(name, off)).resolves.toBeUndefined(); // no resolved ref any more: nothing to do

    const missing = await newCatalog('cc-missing', { ref: `${registry().host}/contentclient/absent:v1` });
    const never = await waitForCatalog(missing, 'a failed unpack', (c) => condition(c, 'Progressing')?.reason === 'Retrying');
    expect(condition(never, 'Serving')?.status).not.toBe('True');
    await expect(client.getPackage(never, 'baz')).rejects.toThrow(new RegExp(`^catalog "${missing}" is not being served$`));
  });

  it('a deleted catalog is removed from the cache on the delete event', async () => {
    const pushed = await pushCatalogImage(registry(), 'contentclient/deleted:v1', { files: fbc('qux', ['1.0.0']) });
    const name = await newCatalog('cc-deleted', { ref: pushed.ref });
    const c = await waitForCatalog(name, 'Serving', serving);
    await client.syncCatalog(name, c);
    expect(client.cached(name)?.index).toBeDefined();
    await deleteCatalogs([name]);
    created.delete(name);
    const gone: ClusterCatalog | undefined = await getCatalog(name);
    await client.syncCatalog(name, gone);
    expect(client.cached(name)).toBeUndefined();
  });

  it('once catalogd has gone away, populating caches the transport error and reads return it', async () => {
    const pushed = await pushCatalogImage(registry(), 'contentclient/gone:v1', { files: fbc('quux', ['1.0.0']) });
    const name = await newCatalog('cc-gone', { ref: pushed.ref });
    const c = await waitForCatalog(name, 'Serving', serving);
    await cd.stop();
    const fresh = new HttpContentClient();
    try {
      const url = `${c.status!.urls!.base}/api/v1/all`;
      const port = new URL(url).port;
      const want = `error performing request: Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`;
      await expect(fresh.syncCatalog(name, c)).rejects.toThrow(`error populating cache for catalog "${name}": ${want}`);
      await expect(fresh.getPackage(c, 'quux')).rejects.toThrow(`error retrieving cache for catalog "${name}": ${want}`);
      expect(fresh.fetches).toBe(1);
    } finally {
      await fresh.close();
    }
    // The catalog's finalizer needs a catalogd to go: start one for the cleanup in afterAll.
    cd = await startCatalogd();
  });
});
