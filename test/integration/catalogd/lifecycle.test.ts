// catalogd end to end against the real API server and registry: a catalog pushed by tag is
// pulled, stored and served over HTTP with upstream's status; polling follows the tag (one
// `pollIntervalMinutes` minute is 1 s here); availabilityMode Unavailable and deletion remove
// content and cache; a digest-pinned image without the configs label is Blocked; orphaned
// content is garbage-collected.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_NAME_LABEL } from '../../support/admission.ts';
import { registry } from '../../support/env.ts';
import { filesToEntries, pushCatalogImage, pushImage, type PushedImage } from '../../support/images.ts';
import { sleep, waitFor } from '../../support/net.ts';
import {
  condition,
  createCatalog,
  deleteCatalogs,
  entries,
  fbc,
  fetchAll,
  fetchBlobs,
  getCatalog,
  patchCatalog,
  progressing,
  releaseFinalizers,
  serving,
  uniqueName,
  waitForCatalog,
} from './catalogs.ts';
import { startCatalogd, stopAll, type RunningCatalogd } from './harness.ts';

const FINALIZER = 'olm.operatorframework.io/delete-server-cache';
const created = new Set<string>();
let cd: RunningCatalogd;

beforeAll(async () => {
  cd = await startCatalogd({ options: { gcIntervalMs: 1000 } });
});
afterAll(async () => {
  await deleteCatalogs(created);
  await stopAll();
  await releaseFinalizers();
});

/** Blobs in catalogd's order (fs.WalkDir: lexical paths). */
const blobsOf = (files: Record<string, object>): object[] =>
  Object.keys(files)
    .sort()
    .map((k) => files[k]!);

const repoOf = (p: PushedImage): string => p.digestRef.slice(p.digestRef.indexOf('/') + 1, p.digestRef.indexOf('@'));

async function newCatalog(prefix: string, image: { ref: string; pollIntervalMinutes?: number }): Promise<string> {
  const name = uniqueName(prefix);
  created.add(name);
  await createCatalog(name, image);
  return name;
}

const unpackDir = (name: string): string => join(cd.cacheDir, 'unpack', name);

describe('a catalog pushed by tag', () => {
  it('is served: upstream conditions, resolvedSource, urls.base, lastUnpacked, label, finalizer, content over HTTP', async () => {
    const files = fbc('foo', ['1.0.0', '1.1.0']);
    const pushed = await pushCatalogImage(registry(), 'catalogd/served:v1', { files });
    const before = Math.floor(Date.now() / 1000) * 1000;
    const name = await newCatalog('served', { ref: pushed.ref });
    const c = await waitForCatalog(name, 'Serving', serving);

    expect(c.metadata.labels?.[METADATA_NAME_LABEL]).toBe(name);
    expect(c.metadata.finalizers).toEqual([FINALIZER]);
    const { conditions, lastUnpacked, ...rest } = c.status!;
    expect(rest).toEqual({
      resolvedSource: { type: 'Image', image: { ref: pushed.digestRef } },
      urls: { base: `${cd.serverUrl}/catalogs/${name}` },
    });
    expect(lastUnpacked).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(lastUnpacked!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(lastUnpacked!)).toBeLessThanOrEqual(Date.now());
    expect(conditions?.map(({ lastTransitionTime: _t, ...k }) => k)).toEqual([
      {
        type: 'Progressing',
        status: 'True',
        reason: 'Succeeded',
        message: 'Successfully unpacked and stored content from resolved source',
        observedGeneration: 1,
      },
      { type: 'Serving', status: 'True', reason: 'Available', message: 'Serving desired content from resolved source', observedGeneration: 1 },
    ]);

    const all = await fetchAll(c.status!.urls!.base);
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toMatch(/^application\/jsonl/);
    expect(await fetchBlobs(c.status!.urls!.base)).toEqual(blobsOf(files));
    expect(await entries(unpackDir(name))).toHaveLength(1); // one cached digest for this catalog
    expect(await cd.parts.content.exists(name, pushed.digest)).toBe(true);
  });

  it('is polled: a new digest on the tag is served, lastUnpacked moves only with it; a vanished tag keeps the old content served', async () => {
    const v1 = fbc('bar', ['1.0.0']);
    const first = await pushCatalogImage(registry(), 'catalogd/polled:latest', { files: v1 });
    const name = await newCatalog('polled', { ref: first.ref, pollIntervalMinutes: 1 });
    const c1 = await waitForCatalog(name, 'Serving', serving);
    expect(c1.status?.resolvedSource?.image.ref).toBe(first.digestRef);

    // At least two polls of the same digest: nothing in status moves.
    const pollsOf = (): number => cd.logs.filter((l) => l.catalog === name && l.msg === 'unpack required: poll duration has elapsed').length;
    await waitFor('two polls', async () => pollsOf() >= 2, { timeoutMs: 10_000, intervalMs: 100 });
    const same = await getCatalog(name);
    expect(same?.status).toEqual(c1.status);

    const v2 = fbc('bar', ['1.0.0', '2.0.0']);
    await sleep(1000); // a later second for lastUnpacked
    const second = await pushCatalogImage(registry(), 'catalogd/polled:latest', { files: v2 });
    const c2 = await waitForCatalog(name, 'on the new digest', (c) => c.status?.resolvedSource?.image.ref === second.digestRef, 15_000);
    expect(Date.parse(c2.status!.lastUnpacked!)).toBeGreaterThan(Date.parse(c1.status!.lastUnpacked!));
    expect(c2.status?.urls).toEqual(c1.status?.urls);
    expect(await fetchBlobs(c2.status!.urls!.base)).toEqual(blobsOf(v2));
    expect(await entries(unpackDir(name))).toHaveLength(1); // the old digest left the cache

    // The tag disappears from the registry: Retrying, but what was served stays served.
    const del = await request(`${registry().url}/v2/${repoOf(second)}/manifests/${second.digest}`, { method: 'DELETE' });
    await del.body.dump();
    expect(del.statusCode).toBe(202);
    const c3 = await waitForCatalog(name, 'Retrying', progressing('Retrying', /^source catalog content: /), 15_000);
    expect(condition(c3, 'Progressing')?.message).toBe(
      `source catalog content: manifest ${registry().host}/catalogd/polled:latest: not found in ${registry().host}: MANIFEST_UNKNOWN: manifest unknown`,
    );
    expect(condition(c3, 'Serving')).toMatchObject({ status: 'True', reason: 'Available' });
    expect(c3.status?.resolvedSource?.image.ref).toBe(second.digestRef);
    expect(await fetchBlobs(c3.status!.urls!.base)).toEqual(blobsOf(v2));

    // The tag comes back (the first image): the catalog recovers.
    await pushCatalogImage(registry(), 'catalogd/polled:latest', { files: v1 });
    const c4 = await waitForCatalog(name, 'back on the first digest', (c) => c.status?.resolvedSource?.image.ref === first.digestRef && progressing('Succeeded')(c), 15_000);
    expect(await fetchBlobs(c4.status!.urls!.base)).toEqual(blobsOf(v1));
  });
});

describe('availabilityMode and deletion', () => {
  it('Unavailable removes content and cache, clears status, drops the finalizer; Available serves again', async () => {
    const files = fbc('baz', ['0.1.0']);
    const pushed = await pushCatalogImage(registry(), 'catalogd/toggle:v1', { files });
    const name = await newCatalog('toggle', { ref: pushed.ref });
    const on = await waitForCatalog(name, 'Serving', serving);
    const baseUrl = on.status!.urls!.base;

    await patchCatalog(name, { spec: { availabilityMode: 'Unavailable' } });
    const off = await waitForCatalog(name, 'UserSpecifiedUnavailable', (c) => condition(c, 'Serving')?.reason === 'UserSpecifiedUnavailable');
    expect(off.metadata.generation).toBe(2);
    expect(off.metadata.finalizers ?? []).toEqual([]);
    expect(off.status?.resolvedSource).toBeUndefined();
    expect(off.status?.urls).toBeUndefined();
    expect(off.status?.lastUnpacked).toBeUndefined();
    expect(off.status?.conditions?.map(({ lastTransitionTime: _t, ...k }) => k)).toEqual([
      { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'Catalog availability mode is set to Unavailable', observedGeneration: 2 },
      { type: 'Serving', status: 'False', reason: 'UserSpecifiedUnavailable', message: 'Catalog availability mode is set to Unavailable', observedGeneration: 2 },
    ]);
    expect((await fetchAll(baseUrl)).status).toBe(404);
    expect(cd.parts.store.get(name)).toBeUndefined();
    expect(await cd.parts.content.exists(name)).toBe(false);
    expect(await entries(join(cd.cacheDir, 'unpack'))).not.toContain(name);

    await patchCatalog(name, { spec: { availabilityMode: 'Available' } });
    const back = await waitForCatalog(name, 'Serving again', serving);
    expect(back.metadata.finalizers).toEqual([FINALIZER]);
    expect(await fetchBlobs(back.status!.urls!.base)).toEqual(blobsOf(files));
  });

  it('deleting a catalog removes content and image cache before the finalizer lets it go', async () => {
    const pushed = await pushCatalogImage(registry(), 'catalogd/deleted:v1', { files: fbc('qux', ['1.0.0']) });
    const name = await newCatalog('deleted', { ref: pushed.ref });
    const c = await waitForCatalog(name, 'Serving', serving);
    expect(await entries(unpackDir(name))).toHaveLength(1);

    await deleteCatalogs([name]);
    created.delete(name);
    expect((await fetchAll(c.status!.urls!.base)).status).toBe(404);
    expect(await cd.parts.content.exists(name)).toBe(false);
    expect(await entries(join(cd.cacheDir, 'unpack'))).not.toContain(name);
    expect(cd.logs.some((l) => l.level === 'error' && l.key === name)).toBe(false);
  });
});

describe('terminal errors', () => {
  it('a digest-pinned image without the configs label is Blocked and not retried; by tag it is Retrying', async () => {
    const pushed = await pushImage(registry(), 'catalogd/nolabel:v1', { layers: [{ entries: filesToEntries(fbc('nl', ['1.0.0']), 'configs') }] });
    const message = 'source catalog content: catalog image is missing the required label "operators.operatorframework.io.index.configs.v1"';
    const pinned = await newCatalog('nolabel-digest', { ref: pushed.digestRef });
    const byTag = await newCatalog('nolabel-tag', { ref: pushed.ref });

    const blocked = await waitForCatalog(pinned, 'Blocked', progressing('Blocked', message));
    expect(condition(blocked, 'Progressing')).toMatchObject({ status: 'False', observedGeneration: 1 });
    expect(condition(blocked, 'Serving')).toBeUndefined();
    const retrying = await waitForCatalog(byTag, 'Retrying', progressing('Retrying', message));
    expect(condition(retrying, 'Progressing')?.status).toBe('True');

    // The pinned one is not retried: besides its first attempt, only the event of its own
    // status write brings it back once (as upstream); the tag keeps being retried with backoff.
    const attempts = (n: string): number => cd.logs.filter((l) => l.msg === 'unpack required: no cached catalog metadata found for this catalog' && l.catalog === n).length;
    const pinnedAttempts = attempts(pinned);
    const tagAttempts = attempts(byTag);
    await waitFor('the tag to be retried', async () => attempts(byTag) >= tagAttempts + 3, { timeoutMs: 15_000, intervalMs: 100 });
    expect(pinnedAttempts).toBeLessThanOrEqual(2);
    expect(attempts(pinned)).toBe(pinnedAttempts);
    expect(cd.logs.some((l) => l.msg === 'Reconciler error (terminal, not retried)' && l.key === pinned)).toBe(true);
  });
});

describe('garbage collection', () => {
  it('removes content and image caches of catalogs that no longer exist, every --gc-interval and at start', async () => {
    const ghost = 'ghost-catalog';
    const fbcDir = join(cd.sandbox, 'ghost-fbc');
    await mkdir(join(fbcDir, 'g'), { recursive: true });
    await writeFile(join(fbcDir, 'g', 'catalog.json'), JSON.stringify({ schema: 'olm.package', name: 'g' }));
    await cd.parts.store.store(ghost, `sha256:${'0'.repeat(64)}`, fbcDir);
    const stray = join(cd.cacheDir, 'unpack', ghost, `sha256-${'1'.repeat(64)}`, 'fs');
    await mkdir(stray, { recursive: true });
    expect(await cd.parts.content.exists(ghost)).toBe(true);
    await waitFor('the running collector', async () => !(await cd.parts.content.exists(ghost)) && !(await entries(join(cd.cacheDir, 'unpack'))).includes(ghost), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(cd.logs.some((l) => l.msg === 'garbage collected orphaned catalog content')).toBe(true);

    // A replica starting on a cache dir with leftovers: collected once its cache has synced.
    const leftovers = join(cd.sandbox, 'leftovers');
    await mkdir(join(leftovers, 'unpack', ghost, `sha256-${'2'.repeat(64)}`), { recursive: true });
    const restarted = await startCatalogd({ leader: false, options: { cacheDir: leftovers } });
    await waitFor('the start-up collection', async () => !(await entries(join(leftovers, 'unpack'))).includes(ghost), { timeoutMs: 10_000, intervalMs: 100 });
    await restarted.stop();
  });
});

describe('TLS', () => {
  it('with --tls-cert/--tls-key the server speaks HTTPS and status.urls.base says https', async () => {
    await cd.stop(); // one leader at a time; the new one takes over every catalog of this file
    const dir = await mkdtemp(join(tmpdir(), 'catalogd-tls-'));
    const [cert, key] = [join(dir, 'tls.crt'), join(dir, 'tls.key')];
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert],
      { stdio: 'ignore' },
    );
    const secure = await startCatalogd({ options: { tls: { certFile: cert, keyFile: key } } });
    const files = fbc('tls', ['1.0.0']);
    const pushed = await pushCatalogImage(registry(), 'catalogd/tls:v1', { files });
    const name = await newCatalog('tls', { ref: pushed.ref });
    const c = await waitForCatalog(name, 'Serving', serving);
    expect(c.status?.urls?.base).toBe(`${secure.serverUrl.replace('http:', 'https:')}/catalogs/${name}`);
    const dispatcher = new Agent({ connect: { ca: await readFile(cert, 'utf8') } });
    try {
      const res = await request(`${c.status!.urls!.base}/api/v1/all`, { dispatcher });
      expect(res.statusCode).toBe(200);
      const lines = (await res.body.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
      expect(lines).toEqual(blobsOf(files));
    } finally {
      await dispatcher.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
