// registries.conf against the real registry: images pushed there are pulled through made-up host names that a
// registries.conf written here maps onto it — a `location` rewrite (upstream e2e's @mirrored-registry scenario) and
// `[[registry.mirror]]` lists in front of an unreachable primary location. A proxy in front of the registry shows
// where the bytes came from; the resolved image keeps naming the reference that was asked for.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachingImagePuller, loadRegistriesConf } from '../../../internal/shared/image/index.ts';
import { registry } from '../../support/env.ts';
import { pushCatalogImage, type PushedImage } from '../../support/images.ts';
import { freePort } from '../../support/net.ts';
import { blobGets, rejectionOf, sandbox, startProxy, type Sandbox, type TestServer } from './support.ts';

const FBC = { 'pkg/catalog.json': { schema: 'olm.package', name: 'pkg', defaultChannel: 'stable' } };

let box: Sandbox;
let proxy: TestServer;
let counter = 0;
beforeEach(async () => {
  box = await sandbox();
  proxy = await startProxy(registry().url);
});
afterEach(async () => {
  await proxy.close();
  await box.cleanup();
});

/** A catalog image pushed to the real registry under `<prefix>regconf-<n>:v1`. */
async function push(prefix = 'it/'): Promise<PushedImage & { repo: string }> {
  const repo = `${prefix}regconf-${++counter}`;
  const pushed = await pushCatalogImage(registry(), `${repo}:v1`, { files: FBC });
  return { ...pushed, repo };
}

/** Writes `text` as the sandbox's registries.conf and returns a puller using it. */
async function pullerWith(text: string): Promise<{ puller: CachingImagePuller; file: string }> {
  const file = join(box.dir, 'registries.conf');
  await writeFile(file, text);
  const registriesConf = loadRegistriesConf(file, { required: true });
  return { puller: box.puller({ registry: { registriesConf, retryDelayMs: 10, retries: 1 } }), file };
}

const manifestGets = (seen: TestServer['seen']): string[] => seen.filter((s) => s.method === 'GET' && s.url.includes('/manifests/')).map((s) => s.url);

describe('registries.conf with the real registry', () => {
  it('pulls through a made-up host whose location is the registry (upstream e2e’s mirrored-registry)', async () => {
    const img = await push();
    const logical = 'mirrored-registry.operator-controller-e2e.test:5000';
    const { puller } = await pullerWith(`
[[registry]]
prefix = "${logical}"
location = "${proxy.host}"
insecure = true
`);
    const got = await puller.pull(`${logical}/${img.repo}:v1`, { catalog: true });
    expect(got.digest).toBe(img.digest);
    expect(got.digestRef).toBe(`${logical}/${img.repo}@${img.digest}`);
    expect(JSON.parse(await readFile(join(got.configsDir ?? '', 'pkg/catalog.json'), 'utf8'))).toEqual(FBC['pkg/catalog.json']);
    // The bytes came from the location: the insecure ping (plain HTTP, after HTTPS got no answer), the manifest, the blobs.
    expect(proxy.seen.some((s) => s.url === '/v2/')).toBe(true);
    expect(manifestGets(proxy.seen)).toEqual([`/v2/${img.repo}/manifests/v1`]);
    expect(blobGets(proxy.seen).length).toBe(2);

    // By digest, from a new cache: the same image, still named by the logical reference.
    const fresh = new CachingImagePuller({ cacheDir: join(box.dir, 'cache2'), registry: { registriesConf: loadRegistriesConf(join(box.dir, 'registries.conf')) } });
    try {
      const byDigest = await fresh.pull(`${logical}/${img.repo}@${img.digest}`, { catalog: true });
      expect(byDigest).toMatchObject({ digestRef: `${logical}/${img.repo}@${img.digest}`, fromCache: false });
    } finally {
      await fresh.close();
    }
    expect(manifestGets(proxy.seen)).toContain(`/v2/${img.repo}/manifests/${img.digest}`);
  });

  it('pulls from a [[registry.mirror]] when the primary location is unreachable, blobs included', async () => {
    const img = await push('mirror/it/');
    const closed = await freePort();
    const { puller } = await pullerWith(`
[[registry]]
prefix = "primary.olm.test/it"
location = "127.0.0.1:${closed}/it"

[[registry.mirror]]
location = "127.0.0.1:${await freePort()}/nothing-listens"
insecure = true

[[registry.mirror]]
location = "${proxy.host}/mirror/it"
insecure = true
`);
    const name = img.repo.slice('mirror/it/'.length);
    const got = await puller.pull(`primary.olm.test/it/${name}:v1`, { catalog: true });
    expect(got.digest).toBe(img.digest);
    expect(got.digestRef).toBe(`primary.olm.test/it/${name}@${img.digest}`);
    expect(manifestGets(proxy.seen)).toEqual([`/v2/mirror/it/${name}/manifests/v1`]);
    expect(blobGets(proxy.seen).every((s) => s.url.startsWith(`/v2/mirror/it/${name}/blobs/`))).toBe(true);
    expect(blobGets(proxy.seen).length).toBe(2);
  });

  it('uses a digest-only mirror for digests only, and names every source when all fail', async () => {
    const img = await push('mirror/it/');
    const name = img.repo.slice('mirror/it/'.length);
    const closed = await freePort();
    const { puller } = await pullerWith(`
[[registry]]
prefix = "digests.olm.test"
location = "127.0.0.1:${closed}"

[[registry.mirror]]
location = "${proxy.host}/mirror"
insecure = true
pull-from-mirror = "digest-only"
`);
    const byDigest = await puller.pull(`digests.olm.test/it/${name}@${img.digest}`, { catalog: true });
    expect(byDigest.digestRef).toBe(`digests.olm.test/it/${name}@${img.digest}`);

    const seen = proxy.seen.length;
    const byTag = await rejectionOf(puller.pull(`digests.olm.test/it/${name}:v1`, { catalog: true }));
    expect(byTag.message).toMatch(new RegExp(`^manifest 127\\.0\\.0\\.1:${closed}/it/${name}:v1: .*ECONNREFUSED`));
    expect(proxy.seen.length).toBe(seen); // the mirror was not asked

    const missing = await rejectionOf(puller.pull(`digests.olm.test/it/absent@sha256:${'0'.repeat(64)}`));
    expect(missing.message).toMatch(
      new RegExp(
        `^\\(Mirrors also failed: \\[${proxy.host}/mirror/it/absent@sha256:0{64}: manifest ${proxy.host}/mirror/it/absent@sha256:0{64}: not found in ${proxy.host}.*\\]\\): ` +
          `127\\.0\\.0\\.1:${closed}/it/absent@sha256:0{64}: manifest 127\\.0\\.0\\.1:${closed}/it/absent@sha256:0{64}: .*ECONNREFUSED`,
      ),
    );
    expect(missing.code).toBe('RegistryUnavailable');
  });

  it('refuses a blocked registry, naming it and the configuration', async () => {
    const img = await push();
    const { puller, file } = await pullerWith(`
[[registry]]
prefix = "${proxy.host}/it"
location = "${proxy.host}/it"
blocked = true
insecure = true
`);
    const err = await rejectionOf(puller.pull(`${proxy.host}/${img.repo}:v1`, { catalog: true }));
    expect(err.message).toBe(`registry ${proxy.host}/it is blocked in ${file} or ${join(box.dir, 'registries.conf.d')}`);
    expect(err.code).toBe('RegistryBlocked');
    expect(proxy.seen).toEqual([]);
  });
});
