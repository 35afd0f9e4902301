// Builds container images in memory (or streamed) and pushes them to a registry with the
// production client's push side (internal/shared/image RegistryClient.pushBlob / putManifest:
// POST then one PUT, or PATCH chunks then PUT; manifest PUT by tag or digest). OCI or Docker media types; gzip, zstd (the `zstd` CLI, Debian package `zstd`)
// or uncompressed layers; labels in the config; multi-arch indexes.
//
//   await pushCatalogImage(registry(), 'catalogs/test:v1', { files: { 'pkg/catalog.yaml': yaml } });
//   await pushImage(registry(), 'x/y:v1', { layers: [{ entries: [{ path: 'a', content: 'b' }] }] });
//
// Hostile layers for tests: `tarBytes` writes raw entries exactly as given (`../evil`, devices,
// links anywhere), and `zeroFileGzipLayer` streams a gzip layer holding one huge zero-filled
// file without ever holding it in memory (a stream of small gzip members).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { getGlobalDispatcher } from 'undici';
import {
  parseReference,
  RegistryClient,
  sha256,
  type BlobSource,
  type Credential,
  type CredentialProvider,
  type ImageReference,
} from '../../internal/shared/image/index.ts';

export const CATALOG_LABEL = 'operators.operatorframework.io.index.configs.v1';

export const MEDIA = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayerZstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

export interface RegistryLike {
  /** host:port */
  readonly host: string;
  /** http://host:port */
  readonly url: string;
  /** `authorization: Bearer <token>` or `Basic <base64>`: the credentials that answer the registry's auth challenge. */
  readonly headers?: Readonly<Record<string, string>>;
}

// ---------------------------------------------------------------------------------------------
// tar

export type TarEntryKind = 'file' | 'dir' | 'symlink' | 'hardlink' | 'char' | 'block' | 'fifo';

export interface TarEntrySpec {
  /** Written exactly as given (no cleaning): `../evil` stays `../evil`. */
  readonly path: string;
  readonly type?: TarEntryKind;
  /** A raw typeflag character, overriding `type`. */
  readonly typeflag?: string;
  readonly content?: string | Uint8Array;
  readonly linkpath?: string;
  readonly mode?: number;
  /** Declared size when it should differ from the content (data written is still `content`). */
  readonly size?: number;
  /** Extra pax records. */
  readonly pax?: Readonly<Record<string, string>>;
  readonly devmajor?: number;
  readonly devminor?: number;
}

const TYPEFLAG: Record<TarEntryKind, string> = { file: '0', hardlink: '1', symlink: '2', char: '3', block: '4', dir: '5', fifo: '6' };
const MAX_OCTAL_SIZE = 0o77777777777;

function writeString(buf: Buffer, value: string, offset: number, length: number): void {
  buf.write(value, offset, Math.min(length, Buffer.byteLength(value)), 'utf8');
}

function writeOctal(buf: Buffer, value: number, offset: number, length: number): void {
  buf.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

function rawHeader(name: string, flag: string, size: number, mode: number, linkpath: string, prefix = '', dev?: [number, number]): Buffer {
  const h = Buffer.alloc(512);
  writeString(h, name, 0, 100);
  writeOctal(h, mode, 100, 8);
  writeOctal(h, 0, 108, 8);
  writeOctal(h, 0, 116, 8);
  writeOctal(h, size, 124, 12);
  writeOctal(h, 0, 136, 12);
  h.fill(0x20, 148, 156);
  h.write(flag, 156, 1, 'latin1');
  writeString(h, linkpath, 157, 100);
  h.write('ustar\0', 257, 6, 'latin1');
  h.write('00', 263, 2, 'latin1');
  writeOctal(h, dev?.[0] ?? 0, 329, 8);
  writeOctal(h, dev?.[1] ?? 0, 337, 8);
  writeString(h, prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return h;
}

function paxRecords(records: Record<string, string>): Buffer {
  let out = '';
  for (const [k, v] of Object.entries(records)) {
    const body = ` ${k}=${v}\n`;
    let len = Buffer.byteLength(body) + 1;
    while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
    out += `${len}${body}`;
  }
  return Buffer.from(out, 'utf8');
}

const pad = (n: number): Buffer => Buffer.alloc((512 - (n % 512)) % 512);

/** The header block(s) of one entry (a pax header first when a field does not fit ustar). */
export function tarHeader(e: TarEntrySpec, dataSize: number): Buffer {
  const flag = e.typeflag ?? TYPEFLAG[e.type ?? 'file'];
  const mode = e.mode ?? (e.type === 'dir' ? 0o755 : 0o644);
  const size = e.size ?? dataSize;
  const linkpath = e.linkpath ?? '';
  const pax: Record<string, string> = { ...e.pax };
  let name = e.path;
  let prefix = '';
  const ascii = (s: string): boolean => /^[\x20-\x7e]*$/.test(s);
  if (Buffer.byteLength(name) > 100 || !ascii(name)) {
    const slash = name.lastIndexOf('/', 155);
    if (ascii(name) && slash > 0 && name.length - slash - 1 <= 100 && slash <= 155) {
      prefix = name.slice(0, slash);
      name = name.slice(slash + 1);
    } else {
      pax.path = e.path;
      name = e.path.slice(0, 99);
    }
  }
  if (Buffer.byteLength(linkpath) > 100 || !ascii(linkpath)) pax.linkpath = linkpath;
  if (size > MAX_OCTAL_SIZE) pax.size = String(size);
  const dev: [number, number] = [e.devmajor ?? 0, e.devminor ?? 0];
  const main = rawHeader(name, flag, size > MAX_OCTAL_SIZE ? 0 : size, mode, pax.linkpath ? '' : linkpath, prefix, dev);
  if (Object.keys(pax).length === 0) return main;
  const body = paxRecords(pax);
  const paxName = `PaxHeaders/${name}`.slice(0, 99);
  return Buffer.concat([rawHeader(paxName, 'x', body.length, 0o644, ''), body, pad(body.length), main]);
}

/** A whole tar archive of `entries`, in order, with the end-of-archive marker unless `end: false`. */
export function tarBytes(entries: readonly TarEntrySpec[], options: { end?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.content === undefined ? Buffer.alloc(0) : Buffer.from(e.content);
    parts.push(tarHeader(e, data.length), data, pad(data.length));
  }
  if (options.end !== false) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** Entries for the files, directories and symlinks under `dir`, placed under `prefix` (e.g. `configs`). */
export async function tarDirectory(dir: string, prefix = ''): Promise<TarEntrySpec[]> {
  const out: TarEntrySpec[] = [];
  const base = prefix.replace(/^\/+|\/+$/g, '');
  if (base) {
    const parts = base.split('/');
    for (let i = 1; i <= parts.length; i++) out.push({ path: `${parts.slice(0, i).join('/')}/`, type: 'dir' });
  }
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of (await readdir(abs)).sort()) {
      const p = join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(p);
      if (st.isDirectory()) {
        out.push({ path: `${r}/`, type: 'dir', mode: st.mode & 0o777 });
        await walk(p, r);
      } else if (st.isSymbolicLink()) {
        out.push({ path: r, type: 'symlink', linkpath: await readlink(p) });
      } else if (st.isFile()) {
        out.push({ path: r, type: 'file', mode: st.mode & 0o777, content: await readFile(p) });
      }
    }
  };
  await walk(dir, base);
  return out;
}

/** Entries for in-memory files (`{'a/b.yaml': text}`) under `prefix`, with their directories. */
export function filesToEntries(files: Readonly<Record<string, string | Uint8Array | object>>, prefix = ''): TarEntrySpec[] {
  const base = prefix.replace(/^\/+|\/+$/g, '');
  const dirs = new Set<string>();
  const out: TarEntrySpec[] = [];
  for (const [name, value] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    const full = base ? `${base}/${name}` : name;
    const parts = full.split('/');
    for (let i = 1; i < parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      if (!dirs.has(d)) {
        dirs.add(d);
        out.push({ path: `${d}/`, type: 'dir' });
      }
    }
    const content = typeof value === 'string' || value instanceof Uint8Array ? value : JSON.stringify(value);
    out.push({ path: full, content });
  }
  if (base && !dirs.has(base)) out.unshift({ path: `${base}/`, type: 'dir' });
  return out;
}

// ---------------------------------------------------------------------------------------------
// compression

export type LayerCompression = 'gzip' | 'zstd' | 'none';

/** zstd via the `zstd` CLI (Debian package `zstd`). */
export function zstdCompress(data: Uint8Array): Buffer {
  return execFileSync('zstd', ['-q', '-c', '-3'], { input: data, maxBuffer: 1 << 30 });
}

export function compress(data: Uint8Array, c: LayerCompression): Buffer {
  if (c === 'gzip') return gzipSync(data);
  if (c === 'zstd') return zstdCompress(data);
  return Buffer.from(data);
}

/**
 * A layer holding one zero-filled file of `fileBytes` at `path`, as a stream of gzip members
 * (each a precomputed compressed MiB of zeros): ~1 KiB per MiB, never held in memory.
 */
export function zeroFileGzipLayer(fileBytes: number, path = 'configs/huge'): StreamLayer {
  const MiB = 1 << 20;
  const zeroMember = gzipSync(Buffer.alloc(MiB), { level: 9 });
  const head = gzipSync(tarHeader({ path }, fileBytes));
  const full = Math.floor(fileBytes / MiB);
  const rest = fileBytes % MiB;
  const tail = gzipSync(Buffer.concat([Buffer.alloc(rest), pad(fileBytes), Buffer.alloc(1024)]));
  return {
    mediaType: MEDIA.ociLayerGzip,
    stream: async function* () {
      yield head;
      for (let i = 0; i < full; i++) yield zeroMember;
      yield tail;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// registry API: the production client's push side (RegistryClient.pushBlob / putManifest)

/** `authorization: Bearer …` / `Basic …` headers as the credentials the client answers a challenge with. */
function credentialsFrom(headers: RegistryLike['headers']): CredentialProvider | undefined {
  const auth = headers?.authorization;
  if (!auth) return undefined;
  const [scheme = '', value = ''] = auth.split(' ');
  let cred: Credential;
  if (scheme.toLowerCase() === 'bearer') cred = { registryToken: value };
  else {
    const decoded = Buffer.from(value, 'base64').toString();
    const colon = decoded.indexOf(':');
    cred = { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { lookup: () => cred };
}

function clientFor(reg: RegistryLike): RegistryClient {
  const credentials = credentialsFrom(reg.headers);
  return new RegistryClient({ insecureRegistries: [reg.host], dispatcher: getGlobalDispatcher(), ...(credentials && { credentials }) });
}

const repoRef = (reg: RegistryLike, repo: string): ImageReference => parseReference(`${reg.host}/${repo}`);

export type UploadMode = 'monolithic' | 'chunked';

export interface BlobInfo {
  readonly digest: string;
  readonly size: number;
}

/** Uploads bytes as one blob (skipped when the registry has it): POST, then PUT (or PATCHes + PUT). */
export async function uploadBlob(reg: RegistryLike, repo: string, data: Uint8Array, mode: UploadMode = 'monolithic', chunkSize = 1 << 20): Promise<BlobInfo> {
  const blob: BlobSource = { digest: sha256(data), size: data.length, open: () => data };
  await clientFor(reg).pushBlob(repoRef(reg, repo), blob, mode === 'chunked' ? { chunkSize: Math.min(chunkSize, Math.max(1, data.length - 1)) } : {});
  return { digest: blob.digest, size: blob.size };
}

/** Uploads a stream as one blob: a first pass hashes it, a second one uploads it. */
async function uploadStream(reg: RegistryLike, repo: string, source: () => AsyncIterable<Uint8Array>): Promise<BlobInfo> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of source()) {
    hash.update(chunk);
    size += chunk.length;
  }
  const blob: BlobSource = { digest: `sha256:${hash.digest('hex')}`, size, open: () => Readable.from(source()) };
  await clientFor(reg).pushBlob(repoRef(reg, repo), blob);
  return { digest: blob.digest, size };
}

/** PUTs a manifest (any bytes, e.g. a custom or broken one) by tag or digest; returns its digest. */
export async function putManifest(reg: RegistryLike, repo: string, reference: string, mediaType: string, manifest: Uint8Array | object): Promise<string> {
  const body = manifest instanceof Uint8Array ? Buffer.from(manifest) : Buffer.from(JSON.stringify(manifest));
  return clientFor(reg).putManifest(repoRef(reg, repo), reference, mediaType, body);
}

// ---------------------------------------------------------------------------------------------
// images

export interface StreamLayer {
  /** Layer blob bytes (already compressed as they should be stored). */
  readonly stream: () => AsyncIterable<Uint8Array>;
  readonly mediaType?: string;
  /** Uncompressed digest for the config's rootfs.diff_ids (default: a placeholder). */
  readonly diffId?: string;
}

export type LayerSpec =
  | { readonly entries: readonly TarEntrySpec[]; readonly compression?: LayerCompression; readonly mediaType?: string }
  | { readonly dir: string; readonly prefix?: string; readonly compression?: LayerCompression; readonly mediaType?: string }
  | { readonly tar: Uint8Array; readonly compression?: LayerCompression; readonly mediaType?: string }
  /** Bytes stored as they are (hostile or pre-compressed blobs). */
  | { readonly blob: Uint8Array; readonly mediaType?: string; readonly diffId?: string }
  | StreamLayer;

export interface Platform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
}

export interface ImageSpec {
  readonly layers: readonly LayerSpec[];
  readonly labels?: Readonly<Record<string, string>>;
  /** Media types: OCI (default) or Docker schema2. */
  readonly format?: 'oci' | 'docker';
  /** Default compression of tar layers (default gzip). */
  readonly compression?: LayerCompression;
  readonly platform?: Platform;
  readonly upload?: UploadMode;
}

export interface PushedImage {
  /** host/repo:tag (or host/repo@digest when pushed by digest). */
  readonly ref: string;
  /** host/repo@digest */
  readonly digestRef: string;
  readonly digest: string;
  readonly mediaType: string;
  readonly manifest: Record<string, unknown>;
  readonly layers: readonly (BlobInfo & { readonly mediaType: string })[];
  readonly config: BlobInfo;
}

function layerMediaType(format: 'oci' | 'docker', c: LayerCompression): string {
  if (format === 'docker') return MEDIA.dockerLayerGzip; // Docker has only the gzip type; content is sniffed anyway
  return c === 'gzip' ? MEDIA.ociLayerGzip : c === 'zstd' ? MEDIA.ociLayerZstd : MEDIA.ociLayer;
}

async function buildLayer(reg: RegistryLike, repo: string, spec: ImageSpec, layer: LayerSpec): Promise<BlobInfo & { mediaType: string; diffId: string }> {
  const format = spec.format ?? 'oci';
  if ('stream' in layer) {
    const info = await uploadStream(reg, repo, layer.stream);
    return { ...info, mediaType: layer.mediaType ?? layerMediaType(format, 'gzip'), diffId: layer.diffId ?? `sha256:${'0'.repeat(64)}` };
  }
  if ('blob' in layer) {
    const info = await uploadBlob(reg, repo, layer.blob, spec.upload);
    return { ...info, mediaType: layer.mediaType ?? layerMediaType(format, 'gzip'), diffId: layer.diffId ?? sha256(layer.blob) };
  }
  const tar = 'tar' in layer ? Buffer.from(layer.tar) : tarBytes('entries' in layer ? layer.entries : await tarDirectory(layer.dir, layer.prefix));
  const c = layer.compression ?? spec.compression ?? 'gzip';
  const info = await uploadBlob(reg, repo, compress(tar, c), spec.upload);
  return { ...info, mediaType: layer.mediaType ?? layerMediaType(format, c), diffId: sha256(tar) };
}

function splitRepoTag(repoTag: string): [string, string] {
  const at = repoTag.indexOf('@');
  if (at !== -1) return [repoTag.slice(0, at), repoTag.slice(at + 1)];
  const colon = repoTag.lastIndexOf(':');
  if (colon === -1 || repoTag.slice(colon).includes('/')) return [repoTag, 'latest'];
  return [repoTag.slice(0, colon), repoTag.slice(colon + 1)];
}

/** Builds and pushes one image; `repoTag` is `repo:tag` (no host), or `repo` (tag `latest`), or `repo@` + '' to push by digest. */
export async function pushImage(reg: RegistryLike, repoTag: string, spec: ImageSpec): Promise<PushedImage> {
  const [repo, tag] = splitRepoTag(repoTag);
  return pushImageTo(reg, repo, tag, spec);
}

async function pushImageTo(reg: RegistryLike, repo: string, tag: string | undefined, spec: ImageSpec): Promise<PushedImage> {
  const format = spec.format ?? 'oci';
  const layers = [];
  for (const l of spec.layers) layers.push(await buildLayer(reg, repo, spec, l));
  const platform = spec.platform ?? { os: 'linux', architecture: 'amd64' };
  const config = {
    architecture: platform.architecture,
    os: platform.os,
    ...(platform.variant ? { variant: platform.variant } : {}),
    config: { Labels: { ...spec.labels } },
    rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
  };
  const configBytes = Buffer.from(JSON.stringify(config));
  const configInfo = await uploadBlob(reg, repo, configBytes);
  const mediaType = format === 'oci' ? MEDIA.ociManifest : MEDIA.dockerManifest;
  const manifest = {
    schemaVersion: 2,
    mediaType,
    config: { mediaType: format === 'oci' ? MEDIA.ociConfig : MEDIA.dockerConfig, digest: configInfo.digest, size: configInfo.size },
    layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.size })),
  };
  const body = Buffer.from(JSON.stringify(manifest));
  const digest = sha256(body);
  await putManifest(reg, repo, tag ?? digest, mediaType, body);
  return {
    ref: tag ? `${reg.host}/${repo}:${tag}` : `${reg.host}/${repo}@${digest}`,
    digestRef: `${reg.host}/${repo}@${digest}`,
    digest,
    mediaType,
    manifest,
    layers: layers.map(({ digest: d, size, mediaType: mt }) => ({ digest: d, size, mediaType: mt })),
    config: configInfo,
  };
}

export interface PushedIndex {
  readonly ref: string;
  readonly digestRef: string;
  readonly digest: string;
  readonly images: readonly PushedImage[];
}

/** Pushes one image per platform (by digest), then an OCI index / Docker manifest list by tag. */
export async function pushIndex(
  reg: RegistryLike,
  repoTag: string,
  images: readonly (ImageSpec & { readonly platform: Platform })[],
  options: { format?: 'oci' | 'docker' } = {},
): Promise<PushedIndex> {
  const [repo, tag] = splitRepoTag(repoTag);
  const format = options.format ?? 'oci';
  const pushed: PushedImage[] = [];
  for (const spec of images) pushed.push(await pushImageTo(reg, repo, undefined, { format, ...spec }));
  const mediaType = format === 'oci' ? MEDIA.ociIndex : MEDIA.dockerList;
  const index = {
    schemaVersion: 2,
    mediaType,
    manifests: pushed.map((p, i) => ({
      mediaType: p.mediaType,
      digest: p.digest,
      size: Buffer.byteLength(JSON.stringify(p.manifest)),
      platform: images[i]?.platform,
    })),
  };
  const digest = await putManifest(reg, repo, tag, mediaType, index);
  return { ref: `${reg.host}/${repo}:${tag}`, digestRef: `${reg.host}/${repo}@${digest}`, digest, images: pushed };
}

export interface ContentSource {
  /** A directory whose contents become the image directory. */
  readonly dir?: string;
  /** In-memory files, relative to the image directory (objects are written as JSON). */
  readonly files?: Readonly<Record<string, string | Uint8Array | object>>;
}

async function contentEntries(src: ContentSource, prefix: string): Promise<TarEntrySpec[]> {
  if (src.dir) return tarDirectory(src.dir, prefix);
  return filesToEntries(src.files ?? {}, prefix);
}

/** A catalog image: FBC under /configs and the label `operators.operatorframework.io.index.configs.v1=/configs`. */
export async function pushCatalogImage(
  reg: RegistryLike,
  repoTag: string,
  content: ContentSource,
  spec: Omit<ImageSpec, 'layers'> & { readonly extraLayers?: readonly LayerSpec[]; readonly configsDir?: string } = {},
): Promise<PushedImage> {
  const configsDir = spec.configsDir ?? '/configs';
  return pushImage(reg, repoTag, {
    ...spec,
    labels: { [CATALOG_LABEL]: configsDir, ...spec.labels },
    layers: [{ entries: await contentEntries(content, configsDir) }, ...(spec.extraLayers ?? [])],
  });
}

export interface BundleOptions {
  readonly packageName: string;
  readonly channels?: readonly string[];
  readonly defaultChannel?: string;
}

/** A registry+v1 bundle image: `/manifests`, `/metadata` from `content`, with the bundle labels. */
export async function pushBundleImage(
  reg: RegistryLike,
  repoTag: string,
  content: ContentSource,
  bundle: BundleOptions,
  spec: Omit<ImageSpec, 'layers'> = {},
): Promise<PushedImage> {
  const channels = bundle.channels ?? ['stable'];
  return pushImage(reg, repoTag, {
    ...spec,
    labels: {
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': bundle.packageName,
      'operators.operatorframework.io.bundle.channels.v1': channels.join(','),
      ...(bundle.defaultChannel ? { 'operators.operatorframework.io.bundle.channel.default.v1': bundle.defaultChannel } : {}),
      ...spec.labels,
    },
    layers: [{ entries: await contentEntries(content, '') }],
  });
}

/** Raw entries that an unpacker must refuse, keyed by what they try; each sits under `configs/`. */
export const HOSTILE_ENTRIES: Readonly<Record<string, readonly TarEntrySpec[]>> = {
  traversal: [{ path: 'configs/../../../../evil', content: 'escaped' }],
  dotdotPrefix: [{ path: '../../../evil', content: 'escaped' }],
  absoluteSymlink: [{ path: 'configs/etc', type: 'symlink', linkpath: '/etc' }],
  escapingSymlink: [{ path: 'configs/up', type: 'symlink', linkpath: '../../../../etc' }],
  symlinkChain: [
    { path: 'configs/', type: 'dir' },
    { path: 'configs/self', type: 'symlink', linkpath: '.' },
    { path: 'configs/chain', type: 'symlink', linkpath: 'self/self/../../..' },
  ],
  hardlinkEscape: [{ path: 'configs/passwd', type: 'hardlink', linkpath: '../../../../etc/passwd' }],
  charDevice: [{ path: 'configs/null', type: 'char', devmajor: 1, devminor: 3 }],
  blockDevice: [{ path: 'configs/sda', type: 'block', devmajor: 8, devminor: 0 }],
  fifo: [{ path: 'configs/pipe', type: 'fifo' }],
};
