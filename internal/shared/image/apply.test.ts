import { mkdir, mkdtemp, readdir, readFile, readlink, lstat, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// The tar writer lives with the test image helpers (it writes hostile entries verbatim).
import { HOSTILE_ENTRIES, tarBytes, type TarEntrySpec } from '../../../test/support/images.ts';
import {
  applyLayer,
  newUnpackState,
  PathSelector,
  SYMLINKS_LISTED,
  verifySymlinks,
} from './apply.ts';
import type { UnpackLimits } from './limits.ts';
import { forceRemove, makeReadOnly } from './tree.ts';
import { ImageError, UnpackLimitError, UnsafeLayerEntryError } from './errors.ts';

const made: string[] = [];
afterEach(async () => {
  for (const d of made.splice(0)) await forceRemove(d);
});

async function* chunks(buf: Buffer, size = 1000): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

const layerDigest = (i: number): string => `sha256:${String(i).repeat(64).slice(0, 64)}`;

interface Unpacked {
  readonly parent: string;
  readonly root: string;
}

async function unpack(
  layers: readonly (readonly TarEntrySpec[])[],
  options: { keep?: PathSelector; limits?: UnpackLimits } = {},
): Promise<Unpacked> {
  const parent = await mkdtemp(join(tmpdir(), 'apply-test-'));
  made.push(parent);
  const root = join(parent, 'root');
  await mkdir(root);
  const state = newUnpackState();
  for (const [i, entries] of layers.entries()) {
    await applyLayer(chunks(tarBytes(entries)), {
      root,
      layerDigest: layerDigest(i),
      state,
      ...(options.keep ? { keep: options.keep } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    });
  }
  await verifySymlinks(root, state);
  return { parent, root };
}

/** rel path → 'dir' | 'file:<content>' | 'link:<target>' */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const d of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      const p = join(dir, d.name);
      if (d.isSymbolicLink()) out[r] = `link:${await readlink(p)}`;
      else if (d.isDirectory()) {
        out[r] = 'dir';
        await walk(p, r);
      } else out[r] = `file:${await readFile(p, 'utf8')}`;
    }
  };
  await walk(root, '');
  return out;
}

async function refusal(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a refusal');
}

describe('applyLayer', () => {
  it('writes files, directories, symlinks and hardlinks; cleans names; drops special mode bits', async () => {
    const { root } = await unpack([
      [
        { path: './', type: 'dir' },
        { path: '/abs/file', content: 'one', mode: 0o4777 },
        { path: './rel//dir/./f', content: 'two' },
        { path: 'rel/link', type: 'symlink', linkpath: 'dir/f' },
        { path: 'rel/hard', type: 'hardlink', linkpath: 'rel/dir/f' },
        { path: 'v7dir/', typeflag: '0' },
      ],
    ]);
    expect(await tree(root)).toEqual({
      abs: 'dir',
      'abs/file': 'file:one',
      rel: 'dir',
      'rel/dir': 'dir',
      'rel/dir/f': 'file:two',
      'rel/hard': 'file:two',
      'rel/link': 'link:dir/f',
      v7dir: 'dir',
    });
    expect((await stat(join(root, 'abs/file'))).mode & 0o7777).toBe(0o755);
    expect((await stat(join(root, 'rel/hard'))).ino).toBe((await stat(join(root, 'rel/dir/f'))).ino);
  });

  it('applies whiteouts across layers', async () => {
    const { root } = await unpack([
      [
        { path: 'a/', type: 'dir' },
        { path: 'a/x', content: 'x' },
        { path: 'a/y', content: 'y' },
        { path: 'b/', type: 'dir' },
        { path: 'b/z', content: 'z' },
        { path: 'c', content: 'c1' },
      ],
      [
        { path: 'a/.wh.x', content: '' },
        { path: '.wh.b' },
        { path: '.wh.missing' },
        { path: 'c', content: 'c2' },
      ],
      [{ path: 'b/new', content: 'back' }],
    ]);
    expect(await tree(root)).toEqual({ a: 'dir', 'a/y': 'file:y', b: 'dir', 'b/new': 'file:back', c: 'file:c2' });
  });

  it.each([
    { order: 'opaque marker first', marker: 0 },
    { order: 'opaque marker last', marker: 2 },
  ])('hides a directory’s lower contents with an opaque whiteout ($order)', async ({ marker }) => {
    const upper: TarEntrySpec[] = [
      { path: 'd/new', content: 'n' },
      { path: 'd/sub/new2', content: 'n2' },
    ];
    upper.splice(marker, 0, { path: 'd/.wh..wh..opq' });
    const { root } = await unpack([
      [
        { path: 'd/old', content: 'o' },
        { path: 'd/sub/old2', content: 'o2' },
        { path: 'e/keep', content: 'k' },
      ],
      upper,
    ]);
    expect(await tree(root)).toEqual({
      d: 'dir',
      'd/new': 'file:n',
      'd/sub': 'dir',
      'd/sub/new2': 'file:n2',
      e: 'dir',
      'e/keep': 'file:k',
    });
  });

  it('an opaque whiteout keeps what the layer wrote, in directories it created and in ones it merged', async () => {
    const { root } = await unpack([
      [
        { path: 'd/old', content: 'o' },
        { path: 'd/sub/old2', content: 'o2' },
        { path: 'd/sub/deeper/old3', content: 'o3' },
      ],
      [{ path: 'x', content: 'x' }],
      [
        { path: 'd/sub/deeper/new3', content: 'n3' },
        { path: 'd/fresh/a/b', content: 'b' },
        { path: 'd/.wh..wh..opq' },
        { path: 'd/fresh/.wh..wh..opq' },
        { path: 'd/fresh2/', type: 'dir' },
        { path: 'd/fresh2/c', content: 'c' },
      ],
    ]);
    expect(await tree(root)).toEqual({
      d: 'dir',
      'd/fresh': 'dir',
      'd/fresh/a': 'dir',
      'd/fresh/a/b': 'file:b',
      'd/fresh2': 'dir',
      'd/fresh2/c': 'file:c',
      'd/sub': 'dir',
      'd/sub/deeper': 'dir',
      'd/sub/deeper/new3': 'file:n3',
      x: 'file:x',
    });
  });

  it('an opaque whiteout in the first layer hides nothing', async () => {
    const { root } = await unpack([[{ path: 'd/a', content: 'a' }, { path: 'd/.wh..wh..opq' }, { path: 'd/b', content: 'b' }]]);
    expect(await tree(root)).toEqual({ d: 'dir', 'd/a': 'file:a', 'd/b': 'file:b' });
  });

  it('replaces a path unless both old and new are directories', async () => {
    const { root } = await unpack([
      [
        { path: 'f2d', content: 'file' },
        { path: 'd2f/inner', content: 'i' },
        { path: 'merge/a', content: 'a' },
        { path: 'l2f', type: 'symlink', linkpath: 'merge' },
      ],
      [
        { path: 'f2d/', type: 'dir' },
        { path: 'f2d/x', content: 'x' },
        { path: 'd2f', content: 'now a file' },
        { path: 'merge/', type: 'dir' },
        { path: 'merge/b', content: 'b' },
        { path: 'l2f', content: 'plain' },
      ],
    ]);
    expect(await tree(root)).toEqual({
      d2f: 'file:now a file',
      f2d: 'dir',
      'f2d/x': 'file:x',
      l2f: 'file:plain',
      merge: 'dir',
      'merge/a': 'file:a',
      'merge/b': 'file:b',
    });
  });

  it('keeps only selected paths, still applying whiteouts that reach them', async () => {
    const keep = PathSelector.all().and(['/configs']);
    const { root } = await unpack(
      [
        [
          { path: 'etc/localtime', type: 'symlink', linkpath: '/usr/share/zoneinfo/UTC' },
          { path: 'dev/null', type: 'char', devmajor: 1, devminor: 3 },
          { path: 'configs/a/catalog.json', content: '{}' },
          { path: 'configs/b/catalog.json', content: '{}' },
          { path: 'configsx/no', content: 'no' },
          { path: 'bin/opm', content: 'binary' },
        ],
        [{ path: 'configs/.wh.b' }, { path: '.wh.bin' }],
      ],
      { keep },
    );
    expect(await tree(root)).toEqual({ configs: 'dir', 'configs/a': 'dir', 'configs/a/catalog.json': 'file:{}' });
  });

  it('an opaque whiteout at the root removes kept content from lower layers', async () => {
    const keep = PathSelector.all().and(['configs']);
    const { root } = await unpack([[{ path: 'configs/old', content: 'o' }], [{ path: '.wh..wh..opq' }, { path: 'configs/new', content: 'n' }]], {
      keep,
    });
    expect(await tree(root)).toEqual({ configs: 'dir', 'configs/new': 'file:n' });
  });

  describe('refuses hostile entries, naming the layer and the entry, and writes nothing outside', () => {
    const cases: { name: string; entry: string; reason: RegExp }[] = [
      { name: 'traversal', entry: 'configs/../../../../evil', reason: /path traversal/ },
      { name: 'dotdotPrefix', entry: '../../../evil', reason: /path traversal/ },
      { name: 'absoluteSymlink', entry: 'configs/etc', reason: /absolute symlink target "\/etc"/ },
      { name: 'escapingSymlink', entry: 'configs/up', reason: /points outside the image root/ },
      { name: 'symlinkChain', entry: 'configs/chain', reason: /resolves outside the image root/ },
      { name: 'hardlinkEscape', entry: 'configs/passwd', reason: /hardlink target "..\/..\/..\/..\/etc\/passwd" contains ".."/ },
      { name: 'charDevice', entry: 'configs/null', reason: /character device files are not allowed/ },
      { name: 'blockDevice', entry: 'configs/sda', reason: /block device files are not allowed/ },
      { name: 'fifo', entry: 'configs/pipe', reason: /FIFOs are not allowed/ },
    ];
    it.each(cases)('$name', async ({ name, entry, reason }) => {
      const parent = await mkdtemp(join(tmpdir(), 'apply-hostile-'));
      made.push(parent);
      const root = join(parent, 'root');
      await mkdir(root);
      const state = newUnpackState();
      const err = await refusal(
        (async () => {
          await applyLayer(chunks(tarBytes([{ path: 'configs/ok', content: 'fine' }, ...(HOSTILE_ENTRIES[name] ?? [])])), {
            root,
            layerDigest: layerDigest(7),
            state,
          });
          await verifySymlinks(root, state);
        })(),
      );
      expect(err).toBeInstanceOf(UnsafeLayerEntryError);
      const e = err as UnsafeLayerEntryError;
      expect(e.code).toBe('UnsafeLayerEntry');
      expect(e.layerDigest).toBe(layerDigest(7));
      expect(e.message).toContain(`layer ${layerDigest(7)}`);
      expect(e.message).toContain(JSON.stringify(entry));
      expect(e.message).toMatch(reason);
      expect(await readdir(parent)).toEqual(['root']);
    });
  });

  it('still finds an escaping symlink chain among more symlinks than it lists, naming the layers', async () => {
    const many: TarEntrySpec[] = Array.from({ length: SYMLINKS_LISTED + 10 }, (_, i) => ({ path: `configs/l${i}`, type: 'symlink' as const, linkpath: 'self' }));
    const err = await refusal(unpack([[{ path: 'configs/', type: 'dir' }, ...many], HOSTILE_ENTRIES.symlinkChain!]));
    expect(err).toBeInstanceOf(UnsafeLayerEntryError);
    // Both layers wrote symlinks it did not list: it names both.
    expect(err.message).toBe(
      `layer ${layerDigest(0)} or ${layerDigest(1)}: refusing entry "configs/chain": symlink target "self/self/../../.." resolves outside the image root`,
    );
    const fine = await unpack([[{ path: 'configs/', type: 'dir' }, ...many]]);
    expect((await readdir(join(fine.root, 'configs'))).length).toBe(SYMLINKS_LISTED + 10);
  });

  it('refuses to write through a symlinked parent directory', async () => {
    const err = await refusal(
      unpack([
        [
          { path: 'real/', type: 'dir' },
          { path: 'link', type: 'symlink', linkpath: 'real' },
        ],
        [{ path: 'link/file', content: 'x' }],
      ]),
    );
    expect(err).toBeInstanceOf(UnsafeLayerEntryError);
    expect(err.message).toBe(`layer ${layerDigest(1)}: refusing entry "link/file": parent "link" is a symlink`);
  });

  it('refuses a hardlink to a symlink and reports a hardlink to nothing', async () => {
    const toLink = await refusal(
      unpack([
        [
          { path: 'd/', type: 'dir' },
          { path: 'd/l', type: 'symlink', linkpath: '../x' },
          { path: 'h', type: 'hardlink', linkpath: 'd/l' },
        ],
      ]),
    );
    expect(toLink.message).toContain('hardlink target "d/l" is not a regular file');
    const missing = await refusal(unpack([[{ path: 'h', type: 'hardlink', linkpath: 'nothing' }]]));
    expect(missing).toBeInstanceOf(ImageError);
    expect((missing as ImageError).code).toBe('CorruptLayer');
    expect(missing.message).toContain('"h": hardlink target "nothing" does not exist');
  });

  it('refuses a file whose declared size is over the limit before writing it', async () => {
    const limits = { maxBytes: 1 << 20, maxEntries: 100 };
    // The data is not even there: the header alone is refused.
    const header = tarBytes([{ path: 'configs/huge', size: 10 * 1024 ** 3 }], { end: false });
    const parent = await mkdtemp(join(tmpdir(), 'apply-bomb-'));
    made.push(parent);
    const err = await refusal(applyLayer(chunks(header), { root: parent, layerDigest: layerDigest(3), state: newUnpackState(), limits }));
    expect(err).toBeInstanceOf(UnpackLimitError);
    expect(err.message).toBe(
      `layer ${layerDigest(3)}: entry "configs/huge": decompressed size would exceed the limit of 1048576 bytes: ` +
        '1536 bytes read before this entry + its declared size of 10737418240 bytes = 10737419776',
    );
    expect(await readdir(parent)).toEqual([]);
  });

  it('names the running total, not one file’s size, when files that each fit add up to more than the limit', async () => {
    // Three files of 400 KiB against a 1 MiB limit: each fits, the third does not fit after the
    // first two. The refusal comes at the third's header, before any of its data is read.
    const limits = { maxBytes: 1 << 20, maxEntries: 100 };
    const size = 400 * 1024;
    const tar = tarBytes(['a', 'b', 'c'].map((n) => ({ path: `configs/${n}`, content: Buffer.alloc(size, 1) })));
    let pulled = 0;
    async function* counting(): AsyncGenerator<Buffer> {
      for await (const c of chunks(tar, 4096)) {
        pulled += c.length;
        yield c;
      }
    }
    const parent = await mkdtemp(join(tmpdir(), 'apply-total-'));
    made.push(parent);
    const err = await refusal(applyLayer(counting(), { root: parent, layerDigest: layerDigest(6), state: newUnpackState(), limits }));
    expect(err).toBeInstanceOf(UnpackLimitError);
    const before = 2 * (512 + size) + 512; // two entries, then the third's header
    expect(err.message).toBe(
      `layer ${layerDigest(6)}: entry "configs/c": decompressed size would exceed the limit of 1048576 bytes: ` +
        `${before} bytes read before this entry + its declared size of ${size} bytes = ${before + size}`,
    );
    expect(err.message).not.toMatch(/declared size \d+ exceeds/);
    expect((err as UnpackLimitError).kind).toBe('bytes');
    expect((err as UnpackLimitError).total).toBe(before + size);
    expect((err as UnpackLimitError).limit).toBe(1 << 20);
    // Nothing of the third file was read, let alone written.
    expect(pulled).toBeLessThanOrEqual(before + 4096);
    expect((await readdir(join(parent, 'configs'))).sort()).toEqual(['a', 'b']);
  });

  it('counts the bytes of earlier layers in the total', async () => {
    const limits = { maxBytes: 1 << 20, maxEntries: 100 };
    const size = 600 * 1024;
    const first = tarBytes([{ path: 'a', content: Buffer.alloc(size, 1) }]);
    const err = await refusal(unpack([[{ path: 'a', content: Buffer.alloc(size, 1) }], [{ path: 'b', content: Buffer.alloc(size, 2) }]], { limits }));
    expect(err).toBeInstanceOf(UnpackLimitError);
    const before = first.length + 512;
    expect(err.message).toBe(
      `layer ${layerDigest(1)}: entry "b": decompressed size would exceed the limit of 1048576 bytes: ` +
        `${before} bytes read before this entry + its declared size of ${size} bytes = ${before + size}`,
    );
  });

  it('stops reading as soon as the unpacked size crosses the limit, even for entries it skips', async () => {
    const limits = { maxBytes: 1 << 20, maxEntries: 1000 };
    const keep = PathSelector.all().and(['configs']); // nothing below is written, all of it is read
    const entries = Array.from({ length: 40 }, (_, i) => ({ path: `f${i}`, content: Buffer.alloc(100_000, 1) }));
    const tar = tarBytes(entries);
    let pulled = 0;
    async function* counting(): AsyncGenerator<Buffer> {
      for await (const c of chunks(tar, 64 * 1024)) {
        pulled += c.length;
        yield c;
      }
    }
    const parent = await mkdtemp(join(tmpdir(), 'apply-limit-'));
    made.push(parent);
    const err = await refusal(applyLayer(counting(), { root: parent, layerDigest: layerDigest(4), state: newUnpackState(), limits, keep }));
    expect(err).toBeInstanceOf(UnpackLimitError);
    expect(err.message).toMatch(/^layer sha256:4{64}: entry "f10": decompressed size would exceed the limit of 1048576 bytes: 1009152 bytes read before this entry/);
    expect(pulled).toBeLessThanOrEqual((1 << 20) + 64 * 1024);
  });

  it('stops reading when entries without data (headers only) pass the limit', async () => {
    const limits = { maxBytes: 64 * 1024, maxEntries: 100_000 };
    const tar = tarBytes(Array.from({ length: 200 }, (_, i) => ({ path: `d${i}/`, type: 'dir' as const })));
    const err = await refusal(unpack([[]]).then(async ({ root }) => applyLayer(chunks(tar, 4096), { root, layerDigest: layerDigest(7), state: newUnpackState(), limits })));
    expect(err).toBeInstanceOf(UnpackLimitError);
    expect(err.message).toMatch(/^layer sha256:7{64}: entry "d\d+\/": decompressed size exceeds the limit of 65536 bytes \(69632 bytes read\)$/);
  });

  it('limits the number of entries', async () => {
    const err = await refusal(
      unpack([Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, content: 'x' }))], { limits: { maxBytes: 1 << 20, maxEntries: 3 } }),
    );
    expect(err.message).toBe(`layer ${layerDigest(0)}: entry "f3": number of entries (4) exceeds the limit of 3`);
  });

  it('limits the number of files written, saying how to change the limit', async () => {
    const limits = { maxBytes: 1 << 20, maxEntries: 100, maxFiles: 3, hints: { files: 'change it with --max-files' } };
    const keep = PathSelector.all().and(['configs']);
    const entries = [
      { path: 'other/1', content: 'x' },
      { path: 'other/2', content: 'x' },
      { path: 'configs/', type: 'dir' as const },
      ...Array.from({ length: 5 }, (_, i) => ({ path: `configs/f${i}`, content: 'x' })),
    ];
    const err = await refusal(unpack([entries], { limits, keep }));
    expect(err).toBeInstanceOf(UnpackLimitError);
    expect((err as UnpackLimitError).kind).toBe('files');
    expect(err.message).toBe(`layer ${layerDigest(0)}: entry "configs/f3": number of files (4) exceeds the limit of 3; change it with --max-files`);
  });

  it('reports a corrupt archive with the layer digest', async () => {
    const tar = tarBytes([{ path: 'a', content: 'x' }]);
    tar[0] = 0x41; // breaks the checksum
    const err = await refusal(unpack([[]]).then(async ({ root }) => applyLayer(chunks(tar), { root, layerDigest: layerDigest(5), state: newUnpackState() })));
    expect((err as ImageError).code).toBe('CorruptLayer');
    expect(err.message).toBe(`layer ${layerDigest(5)}: invalid tar header checksum`);

    const truncated = tarBytes([{ path: 'a', content: Buffer.alloc(5000) }]).subarray(0, 2048);
    const err2 = await refusal(unpack([[]]).then(async ({ root }) => applyLayer(chunks(truncated), { root, layerDigest: layerDigest(5), state: newUnpackState() })));
    expect(err2.message).toBe(`layer ${layerDigest(5)}: unexpected end of archive in entry data (at entry "a")`);
  });

  it('makes the result read-only and can still remove it', async () => {
    const { parent, root } = await unpack([[{ path: 'd/f', content: 'x', mode: 0o777 }]]);
    await makeReadOnly(root);
    expect((await lstat(join(root, 'd/f'))).mode & 0o777).toBe(0o555);
    expect((await lstat(join(root, 'd'))).mode & 0o777).toBe(0o555);
    await forceRemove(root);
    expect(await readdir(parent)).toEqual([]);
    await rm(parent, { recursive: true, force: true });
  });
});
