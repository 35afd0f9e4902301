// Applies layer tars, in order, onto one directory (containerd archive.Apply + OCI whiteouts),
// refusing anything that could reach outside it.
//
// Rules, per entry:
// * The name is cleaned (leading `/` and `./`, empty and `.` components dropped); a `..`
//   component or a NUL is refused. An entry naming the root itself is ignored.
// * `.wh.<name>` deletes <name> from lower layers; `.wh..wh..opq` hides every child of its
//   directory that this layer did not write (applied when the layer ends, so entry order does
//   not matter); `.wh..wh.plnk` (AUFS hardlink store) is skipped. Whiteouts are never written.
// * Entries outside the kept paths (`PathSelector`) are skipped without writing.
// * Character/block devices, FIFOs, sparse files and unknown types are refused.
// * Symlinks: absolute targets and targets that lead out of the root (counted from the link's
//   directory) are refused; after the last layer every symlink is resolved again against the
//   real tree (following links the way the kernel would) and one that ends outside is refused.
// * Hardlinks must name a regular file already unpacked inside the root.
// * No write ever follows a symlink: every parent directory must be a real directory (a parent
//   that is a symlink is refused) and files are created with O_EXCL|O_NOFOLLOW.
// * An existing path is replaced unless both old and new are directories (then they merge).
// * Modes keep owner rwx plus group/other r-x bits; setuid/setgid/sticky and ownership are dropped.
// * Limits: the decompressed bytes read (checked as they stream, and before any entry's data is
//   read or written: the bytes read before it plus its declared size), the number of entries and
//   the number of files written.
//
// Memory does not grow with the number of files: entries stream from the tar reader to disk, and
// what a layer remembers for opaque whiteouts is only the paths it writes into directories that
// existed before it (the first layer remembers nothing: there is nothing below it to hide).
//
// Refusals are UnsafeLayerEntryError / UnpackLimitError naming the layer digest and the entry.
import { constants } from 'node:fs';
import { chmod, link, mkdir, open, opendir, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ImageError, UnpackLimitError, UnsafeLayerEntryError, type UnpackLimitKind } from './errors.ts';
import { DEFAULT_UNPACK_LIMITS, type UnpackLimits } from './limits.ts';
import { readTar, TarFormatError, type TarEntry } from './tar.ts';
import { lstatOrUndefined } from './tree.ts';
import { ZstdFormatError } from './zstd.ts';

const WHITEOUT_PREFIX = '.wh.';
const WHITEOUT_OPAQUE = '.wh..wh..opq';
const WHITEOUT_LINK_DIR = '.wh..wh.plnk';
const MAX_SYMLINK_HOPS = 40;

/** Progress shared by the layers of one unpack. */
export interface UnpackState {
  bytesRead: number;
  bytesWritten: number;
  entries: number;
  /** Files (regular files, symlinks, hardlinks) written. */
  files: number;
  /** Layers applied completely. */
  layers: number;
  /** Symlinks written (root-relative path → digest of the layer that wrote it), the first `SYMLINKS_LISTED`. */
  readonly symlinks: Map<string, string>;
  /** Layers that wrote symlinks beyond those listed: `verifySymlinks` then walks the whole tree. */
  readonly unlistedSymlinkLayers: Set<string>;
}

export const newUnpackState = (): UnpackState => ({
  bytesRead: 0,
  bytesWritten: 0,
  entries: 0,
  files: 0,
  layers: 0,
  symlinks: new Map(),
  unlistedSymlinkLayers: new Set(),
});

/** Symlinks remembered by path for `verifySymlinks`; with more, it finds them by walking the tree. */
export const SYMLINKS_LISTED = 4096;

/** Root-relative paths kept in the known-directories cache at most (it is only a cache of lstat answers). */
const KNOWN_DIRS_MAX = 4096;

/**
 * Which archive paths are kept: an entry is kept when, for every group, it is at or under one
 * of that group's prefixes. No groups: everything is kept. Prefixes are image paths such as
 * `/configs` (leading `/` optional); `/` or `` means everything.
 */
export class PathSelector {
  private readonly groups: readonly (readonly string[])[];

  constructor(groups: readonly (readonly string[])[] = []) {
    this.groups = groups.map((g) => g.map(normalizePrefix));
  }

  static all(): PathSelector {
    return new PathSelector();
  }

  /** A selector that also requires one of `prefixes`. */
  and(prefixes: readonly string[]): PathSelector {
    return new PathSelector([...this.groups, prefixes]);
  }

  keeps(rel: string): boolean {
    return this.groups.every((g) => g.some((p) => p === '' || rel === p || rel.startsWith(`${p}/`)));
  }

  /** True when deleting `rel` can affect kept content (it is kept, or an ancestor of a kept prefix). */
  touches(rel: string): boolean {
    return this.groups.every((g) =>
      g.some((p) => p === '' || rel === '' || rel === p || rel.startsWith(`${p}/`) || p.startsWith(`${rel}/`)),
    );
  }
}

function normalizePrefix(p: string): string {
  const parts = p.split('/').filter((c) => c !== '' && c !== '.');
  if (parts.includes('..')) throw new ImageError('InvalidCatalogLabel', `path ${JSON.stringify(p)} must not contain ".."`, { terminal: true });
  return parts.join('/');
}

export interface ApplyLayerOptions {
  /** Absolute path of the (existing) directory the image is unpacked into. */
  readonly root: string;
  readonly layerDigest: string;
  readonly keep?: PathSelector;
  readonly limits?: UnpackLimits;
  readonly state: UnpackState;
  readonly signal?: AbortSignal;
}

class LimitCrossed extends Error {}

/** Applies one decompressed layer tar onto `root`. */
export async function applyLayer(tar: AsyncIterable<Uint8Array>, options: ApplyLayerOptions): Promise<void> {
  await new LayerApplier(options).run(tar);
}

class LayerApplier {
  private readonly root: string;
  private readonly layer: string;
  private readonly keep: PathSelector;
  private readonly limits: UnpackLimits;
  private readonly state: UnpackState;
  private readonly signal: AbortSignal | undefined;
  /**
   * Whether lower layers exist, so opaque whiteouts can hide something and this layer must
   * remember what it wrote (false for the first layer).
   */
  private readonly lower: boolean;
  /**
   * Paths this layer wrote (with their ancestors) whose parent directory existed before this
   * layer. Children of a directory this layer created are all this layer's and are not listed.
   */
  private readonly written = new Set<string>();
  /** Directories this layer created (only when `lower`). */
  private readonly fresh = new Set<string>();
  private readonly opaque: string[] = [];
  /** Root-relative paths known to be real directories. */
  private knownDirs = new Set<string>(['']);
  private current = '';

  constructor(o: ApplyLayerOptions) {
    this.root = o.root;
    this.layer = o.layerDigest;
    this.keep = o.keep ?? PathSelector.all();
    this.limits = o.limits ?? DEFAULT_UNPACK_LIMITS;
    this.state = o.state;
    this.signal = o.signal;
    this.lower = o.state.layers > 0;
  }

  async run(tar: AsyncIterable<Uint8Array>): Promise<void> {
    const onBytes = (n: number): void => {
      this.state.bytesRead += n;
      if (this.state.bytesRead > this.limits.maxBytes) throw new LimitCrossed();
    };
    const readBefore = this.state.bytesRead;
    try {
      for await (const entry of readTar(tar, { onBytes })) {
        this.signal?.throwIfAborted();
        this.current = entry.path;
        if (++this.state.entries > this.limits.maxEntries) {
          throw this.limitError('entries', this.state.entries, `number of entries (${this.state.entries}) exceeds the limit of ${this.limits.maxEntries}`);
        }
        // Every entry's data is read (written or skipped): refuse one that cannot fit before
        // reading any of it, with the total it would reach.
        const before = readBefore + entry.offset;
        if (entry.size > 0 && before + entry.size > this.limits.maxBytes) {
          throw this.limitError(
            'bytes',
            before + entry.size,
            `decompressed size would exceed the limit of ${this.limits.maxBytes} bytes: ${before} bytes read before this entry + its declared size of ${entry.size} bytes = ${before + entry.size}`,
          );
        }
        await this.entry(entry);
      }
      this.current = '';
      for (const dir of this.opaque) await this.applyOpaque(dir);
      this.state.layers++;
    } catch (err) {
      throw this.classify(err);
    }
  }

  private limitError(kind: UnpackLimitKind, total: number, detail: string): UnpackLimitError {
    const limit = kind === 'bytes' ? this.limits.maxBytes : kind === 'entries' ? this.limits.maxEntries : (this.limits.maxFiles ?? Infinity);
    const hint = this.limits.hints?.[kind];
    return new UnpackLimitError(this.layer, this.current, kind, limit, total, hint ? `${detail}; ${hint}` : detail);
  }

  private classify(err: unknown): unknown {
    if (err instanceof LimitCrossed) {
      return this.limitError('bytes', this.state.bytesRead, `decompressed size exceeds the limit of ${this.limits.maxBytes} bytes (${this.state.bytesRead} bytes read)`);
    }
    const where = this.current ? ` (at entry ${JSON.stringify(this.current)})` : '';
    if (err instanceof TarFormatError || err instanceof ZstdFormatError || isZlibError(err)) {
      return new ImageError('CorruptLayer', `layer ${this.layer}: ${(err as Error).message}${where}`, { cause: err });
    }
    if (typeof (err as { errno?: unknown } | null)?.errno === 'number' && !(err instanceof ImageError)) {
      // The local filesystem failed (ENOSPC, EACCES, …): say where.
      return new ImageError('CacheError', `layer ${this.layer}: unpacking failed${where}: ${(err as Error).message}`, { cause: err });
    }
    return err;
  }

  private unsafe(path: string, reason: string): UnsafeLayerEntryError {
    return new UnsafeLayerEntryError(this.layer, path, reason);
  }

  private clean(raw: string, entryPath: string, what: string): string[] {
    if (raw.includes('\0')) throw this.unsafe(entryPath, `${what} contains a NUL character`);
    const parts = raw.split('/').filter((c) => c !== '' && c !== '.');
    if (parts.includes('..')) throw this.unsafe(entryPath, `${what} contains ".." (path traversal)`);
    return parts;
  }

  private async entry(e: TarEntry): Promise<void> {
    const parts = this.clean(e.path, e.path, 'path');
    if (parts.length === 0) return; // the root itself
    const rel = parts.join('/');
    const base = parts[parts.length - 1] ?? '';
    const parentRel = parts.slice(0, -1).join('/');

    if (parts.includes(WHITEOUT_LINK_DIR)) return;
    if (base.startsWith(WHITEOUT_PREFIX)) {
      if (base === WHITEOUT_OPAQUE) {
        if (this.keep.touches(parentRel)) this.opaque.push(parentRel);
        return;
      }
      const name = base.slice(WHITEOUT_PREFIX.length);
      if (name === '' || name === '.' || name === '..') throw this.unsafe(e.path, 'invalid whiteout name');
      const target = parentRel ? `${parentRel}/${name}` : name;
      if (this.keep.touches(target)) await this.whiteout(target, e.path);
      return;
    }
    if (!this.keep.keeps(rel)) return;

    if ((e.type === 'file' || e.type === 'symlink' || e.type === 'hardlink') && ++this.state.files > (this.limits.maxFiles ?? Infinity)) {
      throw this.limitError('files', this.state.files, `number of files (${this.state.files}) exceeds the limit of ${this.limits.maxFiles}`);
    }
    switch (e.type) {
      case 'dir':
      case 'file':
      case 'symlink':
      case 'hardlink':
        await this.ensureParents(parts, e.path);
        if (e.type === 'dir') await this.writeDir(rel, e.mode);
        else if (e.type === 'file') await this.writeFile(rel, e);
        else if (e.type === 'symlink') await this.writeSymlink(rel, parts, e);
        else await this.writeHardlink(rel, e);
        break;
      case 'char':
      case 'block':
        throw this.unsafe(e.path, `${e.type === 'char' ? 'character' : 'block'} device files are not allowed`);
      case 'fifo':
        throw this.unsafe(e.path, 'FIFOs are not allowed');
      case 'sparse':
        throw this.unsafe(e.path, 'sparse files are not supported');
      default:
        throw this.unsafe(e.path, `unsupported tar entry type ${JSON.stringify(e.typeflag)}`);
    }
    this.markWritten(rel);
  }

  private markWritten(rel: string): void {
    if (!this.lower) return;
    let p = rel;
    while (p !== '') {
      const slash = p.lastIndexOf('/');
      const parent = slash === -1 ? '' : p.slice(0, slash);
      if (!this.fresh.has(parent)) {
        if (this.written.has(p)) return;
        this.written.add(p);
      }
      p = parent;
    }
  }

  /** Remembers a directory this layer created (see `written`). */
  private created(rel: string): void {
    if (this.lower) this.fresh.add(rel);
  }

  private knownDir(rel: string): void {
    if (this.knownDirs.size >= KNOWN_DIRS_MAX) this.knownDirs = new Set(['']);
    this.knownDirs.add(rel);
  }

  private abs(rel: string): string {
    return rel === '' ? this.root : join(this.root, rel);
  }

  /** Creates missing parents; refuses a parent that is a symlink; replaces one that is a file. */
  private async ensureParents(parts: readonly string[], entryPath: string): Promise<void> {
    let rel = '';
    for (let i = 0; i < parts.length - 1; i++) {
      rel = rel ? `${rel}/${parts[i]}` : (parts[i] ?? '');
      if (this.knownDirs.has(rel)) continue;
      const st = await lstatOrUndefined(this.abs(rel));
      if (st?.isSymbolicLink()) throw this.unsafe(entryPath, `parent ${JSON.stringify(rel)} is a symlink`);
      if (st && !st.isDirectory()) await this.remove(rel);
      if (!st?.isDirectory()) {
        await mkdir(this.abs(rel), { mode: 0o755 });
        this.created(rel);
        this.markWritten(rel);
      }
      this.knownDir(rel);
    }
  }

  /** Removes `rel` (never following a symlink). */
  private async remove(rel: string): Promise<void> {
    await rm(this.abs(rel), { recursive: true, force: true });
    this.knownDirs = new Set(['']);
  }

  /** True when every parent of `rel` is a real directory (missing parents: false). */
  private async parentsAreDirs(rel: string, entryPath: string): Promise<boolean> {
    const parts = rel.split('/');
    let p = '';
    for (let i = 0; i < parts.length - 1; i++) {
      p = p ? `${p}/${parts[i]}` : (parts[i] ?? '');
      if (this.knownDirs.has(p)) continue;
      const st = await lstatOrUndefined(this.abs(p));
      if (!st) return false;
      if (st.isSymbolicLink()) throw this.unsafe(entryPath, `parent ${JSON.stringify(p)} is a symlink`);
      if (!st.isDirectory()) return false;
    }
    return true;
  }

  private async whiteout(target: string, entryPath: string): Promise<void> {
    if (!(await this.parentsAreDirs(target, entryPath))) return;
    await this.remove(target);
  }

  private async applyOpaque(dir: string): Promise<void> {
    // Nothing lies below the first layer, and a directory this layer created holds only its own.
    if (!this.lower || this.fresh.has(dir)) return;
    if (dir !== '' && !(await this.parentsAreDirs(dir, `${dir}/${WHITEOUT_OPAQUE}`))) return;
    const st = await lstatOrUndefined(this.abs(dir));
    if (!st?.isDirectory()) return;
    await this.hideUnwritten(dir);
  }

  private async hideUnwritten(dir: string): Promise<void> {
    for (const child of await readdir(this.abs(dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${child.name}` : child.name;
      if (this.fresh.has(rel)) continue; // created by this layer: all of it is this layer's
      if (!this.written.has(rel)) await this.remove(rel);
      else if (child.isDirectory()) await this.hideUnwritten(rel);
    }
  }

  private async writeDir(rel: string, mode: number): Promise<void> {
    const st = await lstatOrUndefined(this.abs(rel));
    if (st && !st.isDirectory()) await this.remove(rel);
    if (!st?.isDirectory()) {
      await mkdir(this.abs(rel));
      this.created(rel);
    }
    await chmod(this.abs(rel), dirMode(mode));
    this.knownDir(rel);
  }

  private async replace(rel: string): Promise<void> {
    if (await lstatOrUndefined(this.abs(rel))) await this.remove(rel);
  }

  private async writeFile(rel: string, e: TarEntry): Promise<void> {
    await this.replace(rel);
    const fh = await open(
      this.abs(rel),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      for await (const chunk of e.body()) {
        this.signal?.throwIfAborted();
        let off = 0;
        while (off < chunk.length) off += (await fh.write(chunk, off, chunk.length - off)).bytesWritten;
        this.state.bytesWritten += chunk.length;
      }
      await fh.chmod(fileMode(e.mode));
    } finally {
      await fh.close();
    }
  }

  private async writeSymlink(rel: string, parts: readonly string[], e: TarEntry): Promise<void> {
    const target = e.linkpath;
    if (target === '') throw this.unsafe(e.path, 'symlink has an empty target');
    if (target.includes('\0')) throw this.unsafe(e.path, 'symlink target contains a NUL character');
    if (target.startsWith('/')) throw this.unsafe(e.path, `absolute symlink target ${JSON.stringify(target)}`);
    if (escapesLexically(parts.slice(0, -1), target)) {
      throw this.unsafe(e.path, `symlink target ${JSON.stringify(target)} points outside the image root`);
    }
    await this.replace(rel);
    await symlink(target, this.abs(rel));
    if (this.state.symlinks.size < SYMLINKS_LISTED || this.state.symlinks.has(rel)) this.state.symlinks.set(rel, this.layer);
    else this.state.unlistedSymlinkLayers.add(this.layer);
  }

  private async writeHardlink(rel: string, e: TarEntry): Promise<void> {
    if (e.linkpath === '') throw this.unsafe(e.path, 'hardlink has an empty target');
    const targetParts = this.clean(e.linkpath, e.path, `hardlink target ${JSON.stringify(e.linkpath)}`);
    if (targetParts.length === 0) throw this.unsafe(e.path, 'hardlink target is the image root');
    const target = targetParts.join('/');
    if (target === rel) return;
    if (!this.keep.keeps(target)) {
      throw this.unsafe(e.path, `hardlink target ${JSON.stringify(e.linkpath)} is outside the unpacked paths`);
    }
    const st = (await this.parentsAreDirs(target, e.path)) ? await lstatOrUndefined(this.abs(target)) : undefined;
    if (!st) {
      throw new ImageError('CorruptLayer', `layer ${this.layer}: entry ${JSON.stringify(e.path)}: hardlink target ${JSON.stringify(e.linkpath)} does not exist`);
    }
    if (!st.isFile()) throw this.unsafe(e.path, `hardlink target ${JSON.stringify(e.linkpath)} is not a regular file`);
    await this.replace(rel);
    await link(this.abs(target), this.abs(rel));
  }
}

/** True when following `target` from directory `dir` (root-relative parts) ever leaves the root. */
function escapesLexically(dir: readonly string[], target: string): boolean {
  let depth = dir.length;
  for (const c of target.split('/')) {
    if (c === '' || c === '.') continue;
    depth += c === '..' ? -1 : 1;
    if (depth < 0) return true;
  }
  return false;
}

const fileMode = (mode: number): number => (mode & 0o755) | 0o600;
const dirMode = (mode: number): number => (mode & 0o755) | 0o700;

function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/**
 * Resolves every symlink the unpack wrote against the final tree, following links as the kernel
 * would (a `..` after a link applies to where the link led). A link that ends outside `root`
 * is refused; dangling links and loops are harmless and kept.
 */
export async function verifySymlinks(root: string, state: UnpackState): Promise<void> {
  const check = async (rel: string, layer: string): Promise<void> => {
    const target = await readlink(join(root, rel));
    if (await escapesRoot(root, rel)) {
      throw new UnsafeLayerEntryError(layer, rel, `symlink target ${JSON.stringify(target)} resolves outside the image root`);
    }
  };
  if (state.unlistedSymlinkLayers.size === 0) {
    for (const [rel, layer] of state.symlinks) {
      const st = await lstatOrUndefined(join(root, rel));
      if (st?.isSymbolicLink()) await check(rel, layer);
    }
    return;
  }
  // Too many to have remembered each: every symlink in the tree, named by the layer that wrote it
  // when it was listed, else by the layers whose symlinks were not listed.
  const unlisted = [...state.unlistedSymlinkLayers].join(' or ');
  const walk = async (dir: string): Promise<void> => {
    for await (const d of await opendir(dir === '' ? root : join(root, dir), { bufferSize: 128 })) {
      const rel = dir === '' ? d.name : `${dir}/${d.name}`;
      if (d.isDirectory()) await walk(rel);
      else if (d.isSymbolicLink()) await check(rel, state.symlinks.get(rel) ?? unlisted);
    }
  };
  await walk('');
}

async function escapesRoot(root: string, linkRel: string): Promise<boolean> {
  const stack = linkRel.split('/');
  const queue: string[] = [];
  let hops = 0;
  // Start as if the link itself were the next component to resolve.
  const last = stack.pop();
  if (last !== undefined) queue.push(last);
  while (queue.length) {
    const c = queue.shift() ?? '';
    if (c === '' || c === '.') continue;
    if (c === '..') {
      if (stack.length === 0) return true;
      stack.pop();
      continue;
    }
    stack.push(c);
    const st = await lstatOrUndefined(join(root, ...stack));
    if (!st) return false; // the rest cannot exist: resolution fails inside the root
    if (!st.isSymbolicLink()) continue;
    if (++hops > MAX_SYMLINK_HOPS) return false; // a loop: ELOOP, not an escape
    const t = await readlink(join(root, ...stack));
    if (t.startsWith('/')) return true;
    stack.pop();
    queue.unshift(...t.split('/'));
  }
  return false;
}
