// Builds an OCI image from directories: one gzip layer per directory, written to a temp file
// while both the tar (the config's `rootfs.diff_ids`) and the gzip bytes (the layer digest) are
// hashed, so a layer is never held in memory and is read once more only to upload it.
//
// The output depends only on the tree: entries in sorted order (parents first), mtime 0,
// uid/gid 0 and no names, modes normalised (directories 0755, files 0644 or 0755 when any
// execute bit is set, symlinks 0777), no timestamps in the config, and the gzip header's OS byte
// set to 255 (unknown, as Go writes it) so the bytes do not depend on the machine's zlib build.
// The same directory therefore always gives the same digest.
//
// Regular files, directories and relative symlinks that stay inside the directory are taken;
// anything else (sockets, FIFOs, devices, absolute or escaping symlinks) is refused.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdtemp, readdir, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { sha256 } from './digest.ts';
import { ImageError } from './errors.ts';
import { MediaTypes } from './media-types.ts';
import { DEFAULT_PLATFORM, type Platform } from './platform.ts';
import type { BlobSource, Descriptor } from './registry.ts';
import { TAR_END, tarEntryHeader, tarPadding, type TarWriteEntry } from './tar-writer.ts';

export interface LayerContent {
  /** Directory whose contents go into the layer. */
  readonly dir: string;
  /** Image directory they go under, e.g. `configs` (default: the image root). */
  readonly prefix?: string;
  /** Only these top-level names of `dir` (each must exist), e.g. `['manifests', 'metadata']`. */
  readonly include?: readonly string[];
}

export interface BuildImageOptions {
  /** One layer each, in order. */
  readonly layers: readonly LayerContent[];
  /** Config labels (`config.Labels`). */
  readonly labels?: Readonly<Record<string, string>>;
  /** How a container of the image runs (`config.Entrypoint`, `Cmd`, `Env`, `WorkingDir`, `User`); none by default. */
  readonly runtime?: ImageRuntime;
  /** Default linux/amd64. */
  readonly platform?: Platform;
  /** Parent of the temp directory the layer files go to; default the OS temp directory. */
  readonly tmpDir?: string;
  readonly signal?: AbortSignal;
}

/** The OCI image config's execution fields, as a container engine or the kubelet's runtime reads them. */
export interface ImageRuntime {
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  /** `NAME=value` entries. */
  readonly env?: readonly string[];
  readonly workingDir?: string;
  /** `uid`, `uid:gid` or a name. */
  readonly user?: string;
}

export interface BuiltLayer {
  readonly descriptor: Descriptor;
  /** sha256 of the uncompressed tar. */
  readonly diffId: string;
  /** The gzip blob on disk. */
  readonly file: string;
}

export interface BuiltImage {
  /** Digest of the manifest: the image's identity once pushed. */
  readonly digest: string;
  readonly mediaType: string;
  readonly manifest: Buffer;
  readonly config: Buffer;
  readonly configDescriptor: Descriptor;
  readonly layers: readonly BuiltLayer[];
  /** The blobs to push before the manifest: the layers, then the config. */
  blobs(): BlobSource[];
  /** Removes the layer files. */
  dispose(): Promise<void>;
}

interface LayerItem {
  readonly entry: TarWriteEntry;
  /** The file to read a regular file's data from. */
  readonly source?: string;
}

const refuse = (dir: string, path: string, why: string): ImageError =>
  new ImageError('InvalidLayerContent', `cannot put ${JSON.stringify(path)} of ${dir} in an image: ${why}`, { terminal: true });

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The entries of one layer, parents before children, siblings sorted. */
export async function layerEntries(content: LayerContent): Promise<LayerItem[]> {
  const root = content.dir;
  const st = await stat(root).catch(() => undefined);
  if (!st?.isDirectory()) throw new ImageError('InvalidLayerContent', `${root} is not a directory`, { terminal: true });
  const prefix = (content.prefix ?? '').split('/').filter((p) => p !== '' && p !== '.');
  if (prefix.includes('..')) throw new ImageError('InvalidLayerContent', `layer prefix ${JSON.stringify(content.prefix)} leads out of the image`, { terminal: true });
  const items: LayerItem[] = [];
  for (let i = 1; i <= prefix.length; i++) {
    items.push({ entry: { path: `${prefix.slice(0, i).join('/')}/`, type: 'dir', mode: 0o755, size: 0 } });
  }
  let names = (await readdir(root)).sort(byName);
  if (content.include) {
    for (const name of content.include) {
      if (!names.includes(name)) throw refuse(root, name, 'no such file or directory');
    }
    names = names.filter((n) => content.include?.includes(n));
  }
  const walk = async (abs: string, rel: string, list: readonly string[]): Promise<void> => {
    for (const name of list) {
      const file = join(abs, name);
      const relPath = rel ? `${rel}/${name}` : name;
      const imagePath = [...prefix, relPath].join('/');
      const info = await lstat(file);
      if (info.isDirectory()) {
        items.push({ entry: { path: `${imagePath}/`, type: 'dir', mode: 0o755, size: 0 } });
        await walk(file, relPath, (await readdir(file)).sort(byName));
      } else if (info.isFile()) {
        const mode = info.mode & 0o111 ? 0o755 : 0o644;
        items.push({ entry: { path: imagePath, type: 'file', mode, size: info.size }, source: file });
      } else if (info.isSymbolicLink()) {
        const target = await readlink(file);
        if (posix.isAbsolute(target)) throw refuse(root, relPath, `symlink to the absolute path ${JSON.stringify(target)}`);
        const resolved = posix.normalize(posix.join(posix.dirname(relPath), target));
        if (resolved === '..' || resolved.startsWith('../')) throw refuse(root, relPath, `symlink ${JSON.stringify(target)} leads out of the directory`);
        items.push({ entry: { path: imagePath, type: 'symlink', mode: 0o777, size: 0, linkpath: target } });
      } else {
        throw refuse(root, relPath, 'not a regular file, directory or symlink');
      }
    }
  };
  await walk(root, '', names);
  return items;
}

async function* tarStream(items: readonly LayerItem[]): AsyncGenerator<Buffer> {
  for (const { entry, source } of items) {
    yield tarEntryHeader(entry);
    if (entry.type !== 'file' || source === undefined) continue;
    let n = 0;
    for await (const chunk of createReadStream(source) as AsyncIterable<Buffer>) {
      n += chunk.length;
      if (n > entry.size) break;
      yield chunk;
    }
    if (n !== entry.size) throw new ImageError('InvalidLayerContent', `${source} changed while it was being read`, { terminal: true });
    yield tarPadding(entry.size);
  }
  yield TAR_END;
}

/** Writes one layer as a gzip tar to `file`; returns its digest, size and diff_id. */
async function writeLayer(items: readonly LayerItem[], file: string, signal: AbortSignal | undefined): Promise<BuiltLayer> {
  const tarHash = createHash('sha256');
  const gzHash = createHash('sha256');
  let size = 0;
  await pipeline(
    Readable.from(tarStream(items)),
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        tarHash.update(chunk);
        yield chunk;
      }
    },
    createGzip(),
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        // Byte 9 of the gzip header names the OS zlib was built for; 255 is "unknown".
        if (size <= 9 && size + chunk.length > 9) chunk[9 - size] = 0xff;
        size += chunk.length;
        gzHash.update(chunk);
        yield chunk;
      }
    },
    createWriteStream(file),
    ...(signal ? [{ signal }] : []),
  );
  return {
    descriptor: { mediaType: MediaTypes.ociLayerGzip, digest: `sha256:${gzHash.digest('hex')}`, size },
    diffId: `sha256:${tarHash.digest('hex')}`,
    file,
  };
}

/** The image config: platform, labels (sorted), how it runs and the layers' diff_ids; nothing time-dependent. */
export function imageConfig(platform: Platform, labels: Readonly<Record<string, string>>, diffIds: readonly string[], runtime: ImageRuntime = {}): Buffer {
  const sorted = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => byName(a, b)));
  const run = {
    ...(runtime.user !== undefined && { User: runtime.user }),
    ...(runtime.env && { Env: [...runtime.env] }),
    ...(runtime.entrypoint && { Entrypoint: [...runtime.entrypoint] }),
    ...(runtime.cmd && { Cmd: [...runtime.cmd] }),
    ...(runtime.workingDir !== undefined && { WorkingDir: runtime.workingDir }),
  };
  return Buffer.from(
    JSON.stringify({
      architecture: platform.architecture,
      os: platform.os,
      ...(platform.variant ? { variant: platform.variant } : {}),
      config: { ...run, ...(Object.keys(sorted).length && { Labels: sorted }) },
      rootfs: { type: 'layers', diff_ids: diffIds },
    }),
  );
}

/** Builds the image in a temp directory; call `dispose()` when done with it. */
export async function buildImage(options: BuildImageOptions): Promise<BuiltImage> {
  const work = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'olm-image-build-'));
  const dispose = (): Promise<void> => rm(work, { recursive: true, force: true });
  try {
    const layers: BuiltLayer[] = [];
    for (const [i, content] of options.layers.entries()) {
      const items = await layerEntries(content);
      layers.push(await writeLayer(items, join(work, `layer-${i}.tar.gz`), options.signal));
    }
    const config = imageConfig(options.platform ?? DEFAULT_PLATFORM, options.labels ?? {}, layers.map((l) => l.diffId), options.runtime);
    const configDescriptor: Descriptor = { mediaType: MediaTypes.ociConfig, digest: sha256(config), size: config.length };
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaTypes.ociManifest,
        config: configDescriptor,
        layers: layers.map((l) => l.descriptor),
      }),
    );
    return {
      digest: sha256(manifest),
      mediaType: MediaTypes.ociManifest,
      manifest,
      config,
      configDescriptor,
      layers,
      blobs: () => [
        ...layers.map((l) => ({ digest: l.descriptor.digest, size: l.descriptor.size, open: () => createReadStream(l.file) })),
        { digest: configDescriptor.digest, size: config.length, open: () => config },
      ],
      dispose,
    };
  } catch (err) {
    await dispose();
    throw err;
  }
}
