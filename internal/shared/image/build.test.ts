import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, imageConfig, type BuiltImage } from './build.ts';
import { MediaTypes } from './media-types.ts';
import { readTar, type TarEntry } from './tar.ts';
import { tarEntryHeader } from './tar-writer.ts';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'image-build-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const sha = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(tmp, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

interface Listed {
  path: string;
  type: TarEntry['type'];
  mode: number;
  linkpath: string;
  content: string;
}

async function list(tar: Buffer): Promise<Listed[]> {
  const out: Listed[] = [];
  for await (const e of readTar((async function* () {
    yield tar;
  })())) {
    const parts: Buffer[] = [];
    for await (const p of e.body()) parts.push(p);
    out.push({ path: e.path, type: e.type, mode: e.mode, linkpath: e.linkpath, content: Buffer.concat(parts).toString() });
  }
  return out;
}

const built: BuiltImage[] = [];
async function build(...args: Parameters<typeof buildImage>): Promise<BuiltImage> {
  const img = await buildImage(...args);
  built.push(img);
  return img;
}
afterAll(async () => {
  for (const b of built) await b.dispose();
});

describe('buildImage', () => {
  it('writes one gzip layer per directory, sorted, under the prefix, with fixed metadata', async () => {
    const dir = await tree('catalog', { 'pkg/b.yaml': 'b', 'pkg/a.json': '{}', 'README.md': 'hi', 'z/run.sh': '#!/bin/sh\n' });
    await chmod(join(dir, 'z/run.sh'), 0o700);
    await chmod(join(dir, 'pkg/a.json'), 0o600);
    await symlink('../pkg/a.json', join(dir, 'z/link'));
    const img = await build({ layers: [{ dir, prefix: 'configs' }], labels: { 'operators.operatorframework.io.index.configs.v1': '/configs' } });
    const [layer] = img.layers;
    const gz = await readFile(layer!.file);
    expect(layer!.descriptor).toEqual({ mediaType: MediaTypes.ociLayerGzip, digest: sha(gz), size: gz.length });
    expect(gz[9]).toBe(0xff);
    const tar = gunzipSync(gz);
    expect(layer!.diffId).toBe(sha(tar));
    expect(await list(tar)).toEqual([
      { path: 'configs/', type: 'dir', mode: 0o755, linkpath: '', content: '' },
      { path: 'configs/README.md', type: 'file', mode: 0o644, linkpath: '', content: 'hi' },
      { path: 'configs/pkg/', type: 'dir', mode: 0o755, linkpath: '', content: '' },
      { path: 'configs/pkg/a.json', type: 'file', mode: 0o644, linkpath: '', content: '{}' },
      { path: 'configs/pkg/b.yaml', type: 'file', mode: 0o644, linkpath: '', content: 'b' },
      { path: 'configs/z/', type: 'dir', mode: 0o755, linkpath: '', content: '' },
      { path: 'configs/z/link', type: 'symlink', mode: 0o777, linkpath: '../pkg/a.json', content: '' },
      { path: 'configs/z/run.sh', type: 'file', mode: 0o755, linkpath: '', content: '#!/bin/sh\n' },
    ]);
    // GNU tar reads it too, and sees owner 0/0 and mtime 0.
    const verbose = execFileSync('tar', ['-tvzf', layer!.file, '--numeric-owner'], { encoding: 'utf8' });
    expect(verbose.split('\n')[1]).toMatch(/^-rw-r--r-- 0\/0\s+2 1970-01-01 00:00 configs\/README\.md$/);
  });

  it('writes the config and manifest: platform, sorted labels, diff_ids, OCI media types', async () => {
    const dir = await tree('cfg', { 'a.txt': 'a' });
    const img = await build({ layers: [{ dir }], labels: { z: '1', a: '2' }, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } });
    expect(JSON.parse(img.config.toString())).toEqual({
      architecture: 'arm64',
      os: 'linux',
      variant: 'v8',
      config: { Labels: { a: '2', z: '1' } },
      rootfs: { type: 'layers', diff_ids: [img.layers[0]!.diffId] },
    });
    expect(img.config.toString()).toMatch(/"Labels":\{"a":"2","z":"1"\}/);
    expect(img.configDescriptor).toEqual({ mediaType: MediaTypes.ociConfig, digest: sha(img.config), size: img.config.length });
    const manifest = JSON.parse(img.manifest.toString()) as Record<string, unknown>;
    expect(manifest).toEqual({
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config: img.configDescriptor,
      layers: [img.layers[0]!.descriptor],
    });
    expect(img.digest).toBe(sha(img.manifest));
    expect(img.blobs().map((b) => b.digest)).toEqual([img.layers[0]!.descriptor.digest, img.configDescriptor.digest]);
    expect(JSON.parse(imageConfig({ os: 'linux', architecture: 'amd64' }, {}, []).toString())).toEqual({
      architecture: 'amd64',
      os: 'linux',
      config: {},
      rootfs: { type: 'layers', diff_ids: [] },
    });
  });

  it('writes how the image runs in the config, in the order an engine writes it, before the labels', () => {
    const config = imageConfig({ os: 'linux', architecture: 'amd64' }, { l: 'v' }, ['sha256:aa'], {
      entrypoint: ['/pause'],
      cmd: ['-x'],
      env: ['A=1'],
      workingDir: '/app',
      user: '65532:65532',
    }).toString();
    expect(config).toBe(
      '{"architecture":"amd64","os":"linux","config":{"User":"65532:65532","Env":["A=1"],"Entrypoint":["/pause"],"Cmd":["-x"],"WorkingDir":"/app","Labels":{"l":"v"}},"rootfs":{"type":"layers","diff_ids":["sha256:aa"]}}',
    );
  });

  it('gives the same digest for the same tree, whatever the mtimes, modes and creation order', async () => {
    const one = await tree('same-1', { 'b/x.yaml': 'x', 'a.yaml': 'a' });
    const two = await tree('same-2', { 'a.yaml': 'a', 'b/x.yaml': 'x' });
    await utimes(join(two, 'a.yaml'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    await chmod(join(two, 'a.yaml'), 0o664);
    const a = await build({ layers: [{ dir: one, prefix: 'configs' }], labels: { l: 'v' } });
    const b = await build({ layers: [{ dir: two, prefix: 'configs' }], labels: { l: 'v' } });
    const again = await build({ layers: [{ dir: one, prefix: 'configs' }], labels: { l: 'v' } });
    expect(b.digest).toBe(a.digest);
    expect(again.digest).toBe(a.digest);
    expect(b.layers[0]!.descriptor.digest).toBe(a.layers[0]!.descriptor.digest);
    const other = await build({ layers: [{ dir: one, prefix: 'configs' }], labels: { l: 'w' } });
    expect(other.digest).not.toBe(a.digest);
    expect(other.layers[0]!.descriptor.digest).toBe(a.layers[0]!.descriptor.digest);
  });

  it('takes only the included top-level names, and wants each of them', async () => {
    const dir = await tree('bundle', { 'manifests/csv.yaml': 'csv', 'metadata/annotations.yaml': 'a', 'Dockerfile': 'FROM scratch', 'tests/t.yaml': 't' });
    const img = await build({ layers: [{ dir, include: ['metadata', 'manifests'] }] });
    const paths = (await list(gunzipSync(await readFile(img.layers[0]!.file)))).map((e) => e.path);
    expect(paths).toEqual(['manifests/', 'manifests/csv.yaml', 'metadata/', 'metadata/annotations.yaml']);
    await expect(buildImage({ layers: [{ dir, include: ['manifests', 'nope'] }] })).rejects.toThrow(
      `cannot put "nope" of ${dir} in an image: no such file or directory`,
    );
  });

  it('refuses symlinks that leave the directory, and what is not a file, directory or symlink', async () => {
    const abs = await tree('abs', { 'a.yaml': 'a' });
    await symlink('/etc/passwd', join(abs, 'passwd'));
    await expect(buildImage({ layers: [{ dir: abs }] })).rejects.toMatchObject({
      code: 'InvalidLayerContent',
      message: `cannot put "passwd" of ${abs} in an image: symlink to the absolute path "/etc/passwd"`,
    });
    const up = await tree('up', { 'd/a.yaml': 'a' });
    await symlink('../../x', join(up, 'd/up'));
    await expect(buildImage({ layers: [{ dir: up }] })).rejects.toThrow('symlink "../../x" leads out of the directory');
    const fifo = await tree('fifo', { 'a.yaml': 'a' });
    execFileSync('mkfifo', [join(fifo, 'pipe')]);
    await expect(buildImage({ layers: [{ dir: fifo }] })).rejects.toThrow('"pipe" of');
    await expect(buildImage({ layers: [{ dir: join(tmp, 'missing') }] })).rejects.toThrow(`${join(tmp, 'missing')} is not a directory`);
  });

  it('stores long and non-ASCII names and link targets (ustar prefix or pax) so that readers get them back', async () => {
    const long = `${'d'.repeat(120)}/${'f'.repeat(90)}.yaml`;
    const longer = `${'x'.repeat(150)}.yaml`;
    const dir = await tree('long', { [long]: 'one', [longer]: 'two', 'ünï.yaml': 'three' });
    await symlink('y'.repeat(120), join(dir, 'ln'));
    const img = await build({ layers: [{ dir, prefix: 'configs' }] });
    const gz = await readFile(img.layers[0]!.file);
    const entries = await list(gunzipSync(gz));
    expect(entries.map((e) => [e.path, e.content || e.linkpath])).toEqual([
      ['configs/', ''],
      [`configs/${'d'.repeat(120)}/`, ''],
      [`configs/${long}`, 'one'],
      ['configs/ln', 'y'.repeat(120)],
      [`configs/${longer}`, 'two'],
      ['configs/ünï.yaml', 'three'],
    ]);
    const names = execFileSync('tar', ['-tzf', img.layers[0]!.file], { encoding: 'utf8' }).trim().split('\n');
    expect(names).toContain(`configs/${long}`);
    expect(names).toContain('configs/ünï.yaml');
    // A size that needs pax (over 8 GiB - 1) is written as a pax record.
    expect(tarEntryHeader({ path: 'big', type: 'file', mode: 0o644, size: 2 ** 34 }).toString('latin1')).toContain(' size=17179869184\n');
  });
});
