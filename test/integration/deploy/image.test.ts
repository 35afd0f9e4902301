// cmd/image.ts (`make image-push-no-engine`) against the test registry: the image is its base's layers as they are
// plus one layer with what the Dockerfile copies (a stand-in dist, the production node_modules, package.json, the
// entrypoint), and the base's config with the Dockerfile's settings. The base is a small image pushed here first,
// in place of node:20-bookworm-slim.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, parseReference, pushImage, RegistryClient } from '../../../internal/shared/image/index.ts';
import { registry } from '../../support/env.ts';
import { buildAndPush, IMAGE_SETTINGS, productionPackages } from '../../../cmd/image.ts';
import { root } from './cluster.ts';

let work: string;
let client: RegistryClient;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olm-image-'));
  client = new RegistryClient({ insecureRegistries: [registry().host] });
});

afterAll(async () => {
  await client?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('cmd/image.ts', () => {
  it('builds on the base image, adds /app and the entrypoint in one layer with the Dockerfile settings, and pushes', { timeout: 120_000 }, async () => {
    const host = registry().host;
    const baseDir = join(work, 'base');
    await mkdir(join(baseDir, 'etc'), { recursive: true });
    await writeFile(join(baseDir, 'etc', 'os-release'), 'ID=debian\n');
    const base = await buildImage({ layers: [{ dir: baseDir }] });
    await pushImage(client, `${host}/image-test/base:1`, base);
    await base.dispose();

    const dist = join(work, 'dist');
    await mkdir(join(dist, 'bin', 'catalogd'), { recursive: true });
    await writeFile(join(dist, 'bin', 'catalogd', 'main.mjs'), 'console.log("catalogd")\n');
    const pushed = await buildAndPush({ target: `${host}/image-test/olmv1:dev`, base: `${host}/image-test/base:1`, dist, client });
    expect(pushed.ref).toBe(`${host}/image-test/olmv1:dev`);

    const ref = parseReference(pushed.digestRef);
    const resolved = await client.resolve(ref);
    const baseResolved = await client.resolve(parseReference(`${host}/image-test/base:1`));
    expect(resolved.manifest.layers).toHaveLength(2);
    expect(resolved.manifest.layers[0]!.digest).toBe(baseResolved.manifest.layers[0]!.digest);
    const config = JSON.parse((await client.getBlob(ref, resolved.manifest.config)).toString('utf8')) as {
      config: { Env: string[]; WorkingDir: string; User: string; Entrypoint: string[]; Cmd: unknown };
      rootfs: { diff_ids: string[] };
    };
    expect(config.config).toMatchObject({ WorkingDir: '/app', User: '65532:65532', Entrypoint: [...IMAGE_SETTINGS.entrypoint], Cmd: null });
    expect(config.config.Env).toContain('NODE_ENV=production');
    expect(config.rootfs.diff_ids).toHaveLength(2);

    const layerFile = join(work, 'layer.tar.gz');
    await client.downloadBlob(ref, resolved.manifest.layers[1]!, layerFile);
    const listing = execFileSync('tar', ['-tvzf', layerFile], { encoding: 'utf8', maxBuffer: 64 << 20 }).split('\n');
    const entry = (path: string): string | undefined => listing.find((l) => l.endsWith(` ${path}`));
    expect(entry('usr/local/bin/olmv1')).toMatch(/^-rwxr-xr-x/);
    expect(entry('app/dist/bin/catalogd/main.mjs')).toBeDefined();
    expect(entry('app/package.json')).toBeDefined();
    // Production packages only: what the bundles load from node_modules, not the dev tools.
    const prod = await productionPackages(root);
    expect(prod).toEqual(expect.arrayContaining(['logic-solver', '@grpc/grpc-js', 'js-yaml']));
    expect(prod).not.toContain('vitest');
    expect(entry('app/node_modules/logic-solver/package.json')).toBeDefined();
    expect(listing.some((l) => l.includes(' app/node_modules/vitest/'))).toBe(false);
    expect(listing.some((l) => l.includes('/.bin/'))).toBe(false);
    // No native addon: the layer suits every architecture (docs/deploy.md).
    expect(listing.filter((l) => l.endsWith('.node'))).toEqual([]);
  });
});
