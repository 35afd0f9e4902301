// Pulls from the real distribution registry of the global setup.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_CONFIGS_LABEL, ImageError, MissingCatalogLabelError } from '../../../internal/shared/image/index.ts';
import { sleep } from '../../../internal/shared/toolkit/index.ts';
import { registry } from '../../support/env.ts';
import { CATALOG_LABEL, MEDIA, pushCatalogImage, pushImage, pushIndex, tarBytes } from '../../support/images.ts';
import { poll } from '../../support/net.ts';
import { blobGets, isBlobGet, rejectionOf, sandbox, startProxy, tree, type Sandbox } from './support.ts';

const FBC = {
  'argocd/catalog.json': { schema: 'olm.package', name: 'argocd', defaultChannel: 'alpha' },
  'argocd/channel.yaml': 'schema: olm.channel\nname: alpha\npackage: argocd\nentries:\n  - name: argocd.v0.0.1\n',
};

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('pull from the local registry', () => {
  it('pulls a catalog image by tag, then by digest from the cache without the network', async () => {
    const reg = registry();
    const pushed = await pushCatalogImage(reg, 'it/catalog:v1', { files: FBC }, { labels: { extra: 'yes' } });
    const proxy = await startProxy(reg.url);
    const proxiedRef = `${proxy.host}/it/catalog:v1`;
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host, reg.host] } });
    try {
      const got = await puller.pull(proxiedRef, { catalog: true });
      expect(got.digest).toBe(pushed.digest);
      expect(got.digestRef).toBe(`${proxy.host}/it/catalog@${pushed.digest}`);
      expect(got.fromCache).toBe(false);
      expect(got.labels).toEqual({ [CATALOG_LABEL]: '/configs', extra: 'yes' });
      expect(got.configsDir).toBe(join(got.dir, 'configs'));
      expect(got.dir.startsWith(box.cacheDir)).toBe(true);
      expect(await tree(got.dir)).toEqual({
        'configs/argocd/catalog.json': JSON.stringify(FBC['argocd/catalog.json']),
        'configs/argocd/channel.yaml': FBC['argocd/channel.yaml'],
      });
      expect((await stat(join(got.dir, 'configs/argocd/channel.yaml'))).mode & 0o222).toBe(0);

      const seenBefore = proxy.seen.length;
      await proxy.close();
      const again = await puller.pull(got.digestRef, { catalog: true });
      expect(again).toMatchObject({ digest: pushed.digest, dir: got.dir, fromCache: true, labels: got.labels });
      expect(again.unpackedAt.getTime()).toBe(got.unpackedAt.getTime());
      expect(proxy.seen.length).toBe(seenBefore);
    } finally {
      await proxy.close();
    }
  });

  it('resolves a tag again after it moves', async () => {
    const reg = registry();
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const v1 = await pushCatalogImage(reg, 'it/moving:latest', { files: { 'a/catalog.json': { v: 1 } } });
    const first = await puller.pull(`${reg.host}/it/moving:latest`, { catalog: true });
    const v2 = await pushCatalogImage(reg, 'it/moving:latest', { files: { 'a/catalog.json': { v: 2 } } });
    const second = await puller.pull(`${reg.host}/it/moving:latest`, { catalog: true });
    expect([first.digest, second.digest]).toEqual([v1.digest, v2.digest]);
    expect(await readFile(join(second.configsDir ?? '', 'a/catalog.json'), 'utf8')).toBe('{"v":2}');
  });

  it('selects the platform from an OCI index and a Docker manifest list', async () => {
    const reg = registry();
    const image = (arch: string): { platform: { os: string; architecture: string }; layers: { entries: { path: string; content: string }[] }[] } => ({
      platform: { os: 'linux', architecture: arch },
      layers: [{ entries: [{ path: 'arch', content: arch }] }],
    });
    for (const format of ['oci', 'docker'] as const) {
      const idx = await pushIndex(reg, `it/multi-${format}:v1`, [image('arm64'), image('amd64'), image('s390x')], { format });
      const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
      const amd = await puller.pull(`${reg.host}/it/multi-${format}:v1`);
      expect(amd.digest).toBe(idx.digest);
      expect(amd.mediaType).toBe(format === 'oci' ? MEDIA.ociIndex : MEDIA.dockerList);
      expect(amd.platform).toEqual({ os: 'linux', architecture: 'amd64' });
      expect(await readFile(join(amd.dir, 'arch'), 'utf8')).toBe('amd64');
      const s390 = await puller.pull(idx.digestRef, { platform: 'linux/s390x' });
      expect(await readFile(join(s390.dir, 'arch'), 'utf8')).toBe('s390x');
      const err = await rejectionOf(puller.pull(idx.digestRef, { platform: 'linux/ppc64le' }));
      expect(err.message).toBe(
        `${reg.host}/it/multi-${format}@${idx.digest}: no image for platform linux/ppc64le in the ${format === 'oci' ? 'index' : 'manifest list'} (available: linux/arm64, linux/amd64, linux/s390x)`,
      );
      expect(err.terminal).toBe(true);
    }
  });

  it('applies whiteouts across layers, with gzip, zstd and plain layers told apart by their bytes', async () => {
    const reg = registry();
    const pushed = await pushImage(reg, 'it/layers:v1', {
      format: 'docker', // Docker media types say gzip for every layer; the bytes decide
      layers: [
        { entries: [{ path: 'a/x', content: 'x' }, { path: 'a/y', content: 'y' }, { path: 'b/z', content: 'z' }, { path: 'keep', content: '1' }], compression: 'gzip' },
        { entries: [{ path: 'a/.wh.x' }, { path: '.wh.b' }, { path: 'keep', content: '2' }], compression: 'zstd' },
        { entries: [{ path: 'a/.wh..wh..opq' }, { path: 'a/new', content: 'n' }, { path: 'c', type: 'symlink', linkpath: 'a/new' }], compression: 'none' },
      ],
    });
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const got = await puller.pull(pushed.ref);
    expect(await tree(got.dir)).toEqual({ 'a/new': 'n', c: '-> a/new', keep: '2' });
    expect(pushed.layers.map((l) => l.mediaType)).toEqual([MEDIA.dockerLayerGzip, MEDIA.dockerLayerGzip, MEDIA.dockerLayerGzip]);
  });

  it('keeps only the filter paths, and caches a filtered and a full unpack apart', async () => {
    const reg = registry();
    const pushed = await pushImage(reg, 'it/bundle:v1', {
      upload: 'chunked',
      layers: [
        {
          entries: [
            { path: 'manifests/csv.yaml', content: 'kind: ClusterServiceVersion' },
            { path: 'metadata/annotations.yaml', content: 'annotations: {}' },
            { path: 'bin/tool', content: 'binary' },
          ],
        },
      ],
    });
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const filtered = await puller.pull(pushed.ref, { filter: ['/manifests', 'metadata/'] });
    expect(Object.keys(await tree(filtered.dir)).sort()).toEqual(['manifests/csv.yaml', 'metadata/annotations.yaml']);
    const full = await puller.pull(pushed.ref);
    expect(Object.keys(await tree(full.dir)).sort()).toEqual(['bin/tool', 'manifests/csv.yaml', 'metadata/annotations.yaml']);
    expect(full.dir).not.toBe(filtered.dir);
  });

  it('reports a catalog image without the configs label (terminal only by digest)', async () => {
    const reg = registry();
    const pushed = await pushImage(reg, 'it/nolabel:v1', { layers: [{ entries: [{ path: 'configs/x', content: 'x' }] }] });
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const byTag = await rejectionOf(puller.pull(pushed.ref, { catalog: true }));
    expect(byTag).toBeInstanceOf(MissingCatalogLabelError);
    expect(byTag.message).toBe(`catalog image is missing the required label "${CATALOG_CONFIGS_LABEL}"`);
    expect(byTag.terminal).toBe(false);
    const byDigest = await rejectionOf(puller.pull(pushed.digestRef, { catalog: true }));
    expect(byDigest).toBeInstanceOf(MissingCatalogLabelError);
    expect(byDigest.terminal).toBe(true);
    expect(await box.cacheContents()).toEqual([]);
  });

  it('reports a label that names a directory the image does not have', async () => {
    const reg = registry();
    const pushed = await pushImage(reg, 'it/badlabel:v1', {
      labels: { [CATALOG_LABEL]: '/catalog' },
      layers: [{ entries: [{ path: 'configs/x', content: 'x' }] }],
    });
    const err = await rejectionOf(box.puller({ registry: { insecureRegistries: [reg.host] } }).pull(pushed.ref, { catalog: true }));
    expect(err.message).toBe(`catalog image label "${CATALOG_LABEL}" names "/catalog", which is not a directory in the image`);
  });

  it('says clearly when the manifest, the repository or the registry is not there', async () => {
    const reg = registry();
    await pushCatalogImage(reg, 'it/exists:v1', { files: FBC });
    const puller = box.puller({ registry: { insecureRegistries: [reg.host], retries: 0 } });
    const noTag = await rejectionOf(puller.pull(`${reg.host}/it/exists:nope`));
    expect(noTag).toBeInstanceOf(ImageError);
    expect(noTag.code).toBe('ManifestNotFound');
    expect(noTag.message).toBe(`manifest ${reg.host}/it/exists:nope: not found in ${reg.host}: MANIFEST_UNKNOWN: manifest unknown`);
    const noRepo = await rejectionOf(puller.pull(`${reg.host}/it/absent@sha256:${'0'.repeat(64)}`));
    expect(noRepo.code).toBe('ManifestNotFound');
    expect(noRepo.message).toMatch(new RegExp(`^manifest ${reg.host}/it/absent@sha256:0{64}: not found in ${reg.host}: MANIFEST_UNKNOWN: manifest unknown$`));
    const offline = box.puller({ registry: { insecureRegistries: ['127.0.0.1:1'], retries: 1, retryDelayMs: 10 } });
    const down = await rejectionOf(offline.pull('127.0.0.1:1/it/x:v1'));
    expect(down.code).toBe('RegistryUnavailable');
    expect(down.message).toMatch(/^manifest 127\.0\.0\.1:1\/it\/x:v1: .*ECONNREFUSED.* \(after 2 attempts\)$/);
  });

  it('refuses plain http to a registry that is not listed as insecure', async () => {
    const reg = registry();
    const pushed = await pushCatalogImage(reg, 'it/tls:v1', { files: FBC });
    const err = await rejectionOf(box.puller({ registry: { retries: 0 } }).pull(pushed.ref));
    // https to a plain-http registry: a TLS/protocol failure, never a silent fallback to http
    expect(err.message).toMatch(new RegExp(`manifest ${reg.host}/it/tls:v1`));
  });

  it('shares one download between concurrent pulls of the same image', async () => {
    const reg = registry();
    const pushed = await pushCatalogImage(reg, 'it/shared:v1', { files: FBC });
    const proxy = await startProxy(reg.url, async (req) => {
      if (isBlobGet(req)) await sleep(100); // a slow registry keeps the first pull busy
      return false;
    });
    try {
      const puller = box.puller({ registry: { insecureRegistries: [proxy.host] } });
      const ref = `${proxy.host}/it/shared:v1`;
      const results = await Promise.all([1, 2, 3, 4].map(() => puller.pull(ref, { catalog: true })));
      expect(new Set(results.map((r) => r.dir)).size).toBe(1);
      expect(results.every((r) => r.digest === pushed.digest)).toBe(true);
      expect(blobGets(proxy.seen)).toHaveLength(2); // config + one layer, once
    } finally {
      await proxy.close();
    }
  });

  it('one caller aborting does not fail the others; all aborting stops the work and cleans up', async () => {
    const reg = registry();
    await pushCatalogImage(reg, 'it/abort:v1', { files: FBC });
    const proxy = await startProxy(reg.url, async (req) => {
      if (isBlobGet(req)) await sleep(300); // a slow registry: the pulls are still downloading when aborted
      return false;
    });
    try {
      const puller = box.puller({ registry: { insecureRegistries: [proxy.host] } });
      const ref = `${proxy.host}/it/abort:v1`;
      const a = new AbortController();
      const first = puller.pull(ref, { catalog: true, signal: a.signal });
      const second = puller.pull(ref, { catalog: true });
      // nothing outside the puller says when both callers wait on the one download: a moment for both to join it
      setTimeout(() => a.abort(new Error('caller went away')), 50);
      expect((await rejectionOf(first)).message).toBe('caller went away');
      expect((await second).fromCache).toBe(false);

      await puller.delete((await second).digest);
      const b = new AbortController();
      const lone = puller.pull(ref, { catalog: true, signal: b.signal });
      // aborted once the work unpacks into the cache: from then on the cache stays non-empty until the work ends,
      // with its entry if it was not stopped, empty if it was (and cleaned up after the caller's rejection)
      await poll(async () => (await box.cacheContents()).length > 0, { timeoutMs: 10_000, intervalMs: 10 });
      b.abort(new Error('stop'));
      expect((await rejectionOf(lone)).message).toBe('stop');
      await poll(async () => (await box.cacheContents()).length === 0, { timeoutMs: 5000, intervalMs: 20 });
      expect(await box.cacheContents()).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('deletes and garbage-collects cache entries', async () => {
    const reg = registry();
    const one = await pushCatalogImage(reg, 'it/gc:one', { files: { 'a/c.json': { n: 1 } } });
    const two = await pushCatalogImage(reg, 'it/gc:two', { files: { 'a/c.json': { n: 2 } } });
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const p1 = await puller.pull(one.ref, { catalog: true });
    const p2 = await puller.pull(two.ref, { catalog: true });
    await puller.pull(two.ref); // a second (full) entry for the same digest
    expect(await box.cacheContents()).toHaveLength(3);
    expect((await puller.list()).map((p) => p.digest).sort()).toEqual([one.digest, two.digest, two.digest].sort());
    const removed = await puller.gc([p1.digestRef]);
    expect(removed).toHaveLength(2);
    expect((await puller.list()).map((p) => p.digest)).toEqual([one.digest]);
    expect(await puller.delete(p1.digest)).toBe(true);
    expect(await puller.delete(p2.digest)).toBe(false);
    expect(await box.cacheContents()).toEqual([]);
  });

  it('pulls an image with many layers and a tar written by another tool', async () => {
    const reg = registry();
    const layers = Array.from({ length: 8 }, (_, i) => ({ tar: tarBytes([{ path: `l/${i}`, content: String(i) }]) }));
    const pushed = await pushImage(reg, 'it/many:v1', { layers });
    const got = await box.puller({ registry: { insecureRegistries: [reg.host] }, layerConcurrency: 2 }).pull(pushed.digestRef);
    expect(Object.keys(await tree(got.dir)).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `l/${i}`));
  });
});
