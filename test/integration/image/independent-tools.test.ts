// Images written by independent tools: umoci builds an OCI layout (two layers, its own
// whiteouts, Go's archive/tar), skopeo copies it to the registry as OCI/gzip, Docker schema2,
// and OCI/zstd (klauspost zstd). And the reverse: skopeo must accept what test/support/images.ts
// pushes, so our own test images are checked by someone else's reader.
//
// Needs the Debian packages `skopeo` and `umoci` (apt-get install -y skopeo umoci).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../../support/env.ts';
import { CATALOG_LABEL, MEDIA, pushCatalogImage, pushIndex } from '../../support/images.ts';
import { sandbox, tree, type Sandbox } from './support.ts';

const run = promisify(execFile);
const TOOLS = ['skopeo', 'umoci'];

async function onPath(tool: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
}

const missing: string[] = [];
for (const t of TOOLS) if (!(await onPath(t))) missing.push(t);
if (missing.length) {
  console.warn(`[independent-tools] SKIPPED: ${missing.join(', ')} not installed; install with: apt-get install -y ${missing.join(' ')}`);
}

let work: string;
let layout: string;
beforeAll(async () => {
  if (missing.length) return;
  work = await mkdtemp(join(tmpdir(), 'umoci-'));
  layout = join(work, 'oci');
  await run('umoci', ['init', '--layout', layout]);
  await run('umoci', ['new', '--image', `${layout}:v1`]);
  // layer 1
  const b1 = join(work, 'b1');
  await run('umoci', ['unpack', '--image', `${layout}:v1`, b1]);
  const r1 = join(b1, 'rootfs');
  await mkdir(join(r1, 'configs/pkg'), { recursive: true });
  await mkdir(join(r1, 'configs/gone'), { recursive: true });
  await writeFile(join(r1, 'configs/pkg/catalog.json'), '{"schema":"olm.package","name":"pkg"}');
  await writeFile(join(r1, 'configs/old.txt'), 'old');
  await writeFile(join(r1, 'configs/gone/x'), 'x');
  await writeFile(join(r1, 'configs', `${'long-name-'.repeat(12)}.yaml`), 'long');
  await symlink('pkg/catalog.json', join(r1, 'configs/link.json'));
  await writeFile(join(r1, 'outside.txt'), 'not a config');
  await run('umoci', ['repack', '--image', `${layout}:v1`, b1]);
  // layer 2: deletions become umoci's whiteouts
  const b2 = join(work, 'b2');
  await run('umoci', ['unpack', '--image', `${layout}:v1`, b2]);
  const r2 = join(b2, 'rootfs');
  await unlink(join(r2, 'configs/old.txt'));
  await rm(join(r2, 'configs/gone'), { recursive: true });
  await writeFile(join(r2, 'configs/new.txt'), 'new');
  await run('umoci', ['repack', '--image', `${layout}:v1`, b2]);
  await run('umoci', ['config', '--image', `${layout}:v1`, '--config.label', `${CATALOG_LABEL}=/configs`]);
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const skopeo = (...args: string[]): Promise<{ stdout: string }> => run('skopeo', ['--insecure-policy', ...args], { maxBuffer: 16 << 20 });

describe.skipIf(missing.length > 0)('images from independent tools (umoci + skopeo)', () => {
  it.each([
    { name: 'OCI, gzip', args: [] as string[], manifestType: MEDIA.ociManifest, layerType: MEDIA.ociLayerGzip },
    { name: 'Docker schema2', args: ['--format', 'v2s2'], manifestType: MEDIA.dockerManifest, layerType: MEDIA.dockerLayerGzip },
    // Recompressed into a second layout first: pushing straight to the registry, skopeo would
    // reuse the gzip blobs it already pushed there (its blob-info cache) instead of recompressing.
    { name: 'OCI, zstd', args: [], zstd: true, manifestType: MEDIA.ociManifest, layerType: MEDIA.ociLayerZstd },
  ])('pulls a catalog that umoci built and skopeo pushed ($name)', async ({ name, args, zstd, manifestType, layerType }) => {
    const reg = registry();
    const tag = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const dest = `${reg.host}/indep/umoci-${tag}:v1`;
    let src = `oci:${layout}:v1`;
    if (zstd) {
      const zlayout = join(work, 'oci-zstd');
      await rm(zlayout, { recursive: true, force: true });
      await skopeo('copy', '--dest-compress-format', 'zstd', '--dest-compress', src, `oci:${zlayout}:v1`);
      src = `oci:${zlayout}:v1`;
    }
    await skopeo('copy', '--dest-tls-verify=false', ...args, src, `docker://${dest}`);
    const raw = JSON.parse((await skopeo('inspect', '--tls-verify=false', '--raw', `docker://${dest}`)).stdout) as {
      mediaType?: string;
      layers: { mediaType: string }[];
    };
    expect(raw.mediaType ?? manifestType).toBe(manifestType);
    expect(raw.layers.map((l) => l.mediaType)).toEqual([layerType, layerType]);

    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const got = await puller.pull(dest, { catalog: true });
    expect(await tree(got.dir)).toEqual({
      'configs/pkg/catalog.json': '{"schema":"olm.package","name":"pkg"}',
      'configs/link.json': '-> pkg/catalog.json',
      'configs/new.txt': 'new',
      [`configs/${'long-name-'.repeat(12)}.yaml`]: 'long',
    });
    const full = await puller.pull(dest);
    expect(Object.keys(await tree(full.dir))).toContain('outside.txt');
  });

  it('skopeo reads what our test helper pushes (single images and indexes, OCI and Docker)', async () => {
    const reg = registry();
    const cat = await pushCatalogImage(reg, 'indep/ours:v1', { files: { 'p/catalog.json': { schema: 'olm.package', name: 'p' } } }, { compression: 'zstd' });
    const idx = await pushIndex(
      reg,
      'indep/ours-index:v1',
      [
        { platform: { os: 'linux', architecture: 'amd64' }, layers: [{ entries: [{ path: 'a', content: 'amd64' }] }] },
        { platform: { os: 'linux', architecture: 'arm64' }, layers: [{ entries: [{ path: 'a', content: 'arm64' }] }] },
      ],
      { format: 'docker' },
    );
    for (const [ref, extra] of [
      [cat.ref, []],
      [idx.ref, ['--override-arch', 'arm64']],
    ] as const) {
      const out = join(box.dir, `copy-${ref.split(':').pop()}-${extra.length}`);
      await skopeo('copy', '--src-tls-verify=false', ...extra, `docker://${ref}`, `dir:${out}`);
      expect((await readdir(out)).length).toBeGreaterThan(2);
      await rm(out, { recursive: true, force: true });
    }
    const inspected = JSON.parse((await skopeo('inspect', '--tls-verify=false', `docker://${cat.ref}`)).stdout) as { Labels: Record<string, string> };
    expect(inspected.Labels[CATALOG_LABEL]).toBe('/configs');
  });
});
