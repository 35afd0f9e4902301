import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tarBytes, tarHeader } from '../../../test/support/images.ts';
import { readTar, TarFormatError, type TarEntry } from './tar.ts';

async function* chunks(buf: Buffer, size = 777): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

interface Seen {
  path: string;
  type: TarEntry['type'];
  linkpath: string;
  size: number;
  content: string;
}

async function list(buf: Buffer, chunkSize?: number): Promise<Seen[]> {
  const out: Seen[] = [];
  for await (const e of readTar(chunks(buf, chunkSize))) {
    const parts: Buffer[] = [];
    for await (const p of e.body()) parts.push(p);
    out.push({ path: e.path, type: e.type, linkpath: e.linkpath, size: e.size, content: Buffer.concat(parts).toString('utf8') });
  }
  return out;
}

const LONG = `${'dir-with-a-long-name/'.repeat(8)}file-${'x'.repeat(40)}.yaml`; // > 155 + 100

describe('readTar', () => {
  it('reads ustar entries, the ustar prefix and pax long names and link targets', async () => {
    const mid = `${'p'.repeat(120)}/name.txt`; // fits prefix + name
    const buf = tarBytes([
      { path: 'a.txt', content: 'hello' },
      { path: 'dir/', type: 'dir' },
      { path: mid, content: 'mid' },
      { path: LONG, content: 'long' },
      { path: 'ln', type: 'symlink', linkpath: `${'t'.repeat(150)}` },
      { path: 'hl', type: 'hardlink', linkpath: 'a.txt' },
      { path: 'ünïcode', content: 'u' },
    ]);
    expect(await list(buf)).toEqual([
      { path: 'a.txt', type: 'file', linkpath: '', size: 5, content: 'hello' },
      { path: 'dir/', type: 'dir', linkpath: '', size: 0, content: '' },
      { path: mid, type: 'file', linkpath: '', size: 3, content: 'mid' },
      { path: LONG, type: 'file', linkpath: '', size: 4, content: 'long' },
      { path: 'ln', type: 'symlink', linkpath: 't'.repeat(150), size: 0, content: '' },
      { path: 'hl', type: 'hardlink', linkpath: 'a.txt', size: 0, content: '' },
      { path: 'ünïcode', type: 'file', linkpath: '', size: 1, content: 'u' },
    ]);
  });

  it.each(['gnu', 'pax', 'ustar', 'v7'])('reads what GNU tar writes in %s format', async (format) => {
    const dir = await mkdtemp(join(tmpdir(), 'tar-gnu-'));
    try {
      const src = join(dir, 'src');
      const short = format === 'ustar' || format === 'v7';
      const long = short ? 'd/long-ish-name.txt' : LONG;
      await mkdir(join(src, long, '..'), { recursive: true });
      await writeFile(join(src, long), 'L');
      await writeFile(join(src, 'plain'), 'P'.repeat(1000));
      await symlink('plain', join(src, 'sym'));
      execFileSync('tar', ['-C', src, `--format=${format}`, '--sort=name', '-cf', join(dir, 'out.tar'), '.']);
      const buf = execFileSync('cat', [join(dir, 'out.tar')]);
      const seen = await list(buf, 300);
      const files = Object.fromEntries(seen.filter((s) => s.type !== 'dir').map((s) => [s.path.replace(/^\.\//, ''), s.type === 'symlink' ? `->${s.linkpath}` : s.content]));
      expect(files).toEqual({ [long]: 'L', plain: 'P'.repeat(1000), sym: '->plain' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads GNU base-256 sizes', async () => {
    const h = tarHeader({ path: 'big' }, 0);
    // size field: 0x80 then big-endian 5 → base-256
    h.fill(0, 124, 136);
    h[124] = 0x80;
    h[135] = 5;
    h.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
    const buf = Buffer.concat([h, Buffer.from('12345'), Buffer.alloc(507), Buffer.alloc(1024)]);
    expect(await list(buf)).toEqual([{ path: 'big', type: 'file', linkpath: '', size: 5, content: '12345' }]);
  });

  it('skips unread and partly read bodies', async () => {
    const buf = tarBytes([
      { path: 'a', content: 'A'.repeat(3000) },
      { path: 'b', content: 'B'.repeat(3000) },
      { path: 'c', content: 'C' },
    ]);
    const names: string[] = [];
    for await (const e of readTar(chunks(buf, 100))) {
      names.push(e.path);
      if (e.path === 'b') {
        for await (const _ of e.body()) break; // read one piece, then stop
      }
      if (e.path === 'c') for await (const p of e.body()) expect(p.toString()).toBe('C');
    }
    expect(names).toEqual(['a', 'b', 'c']);
  });

  it('stops at the end-of-archive marker without reading what follows', async () => {
    const buf = tarBytes([{ path: 'a', content: 'x' }]);
    let pulled = 0;
    async function* src(): AsyncGenerator<Buffer> {
      yield buf;
      pulled++;
      for (;;) {
        pulled++;
        yield Buffer.alloc(1 << 20); // would go on for ever
      }
    }
    const seen: string[] = [];
    for await (const e of readTar(src())) seen.push(e.path);
    expect(seen).toEqual(['a']);
    expect(pulled).toBe(0);
  });

  it.each([
    { name: 'bad checksum', buf: (() => { const b = tarBytes([{ path: 'a' }]); b[10] = 1; return b; })(), msg: 'invalid tar header checksum' },
    { name: 'truncated data', buf: tarBytes([{ path: 'a', content: 'x'.repeat(2000) }]).subarray(0, 1024), msg: 'unexpected end of archive in entry data' },
    {
      name: 'huge pax record',
      buf: Buffer.concat([tarHeader({ path: 'x', typeflag: 'x' }, 2 << 20)]),
      msg: 'tar metadata record of 2097152 bytes is too large',
    },
    { name: 'bad octal', buf: (() => { const b = tarHeader({ path: 'a' }, 0); b.write('9999', 124, 'latin1'); return fixSum(b); })(), msg: 'invalid size "99990000000" in tar header' },
  ])('refuses $name', async ({ buf, msg }) => {
    await expect(list(buf)).rejects.toThrow(new TarFormatError(msg));
  });

  it('marks GNU sparse entries', async () => {
    const buf = tarBytes([{ path: 's', typeflag: 'S' }, { path: 'p', pax: { 'GNU.sparse.major': '1' } }]);
    expect((await list(buf)).map((s) => s.type)).toEqual(['sparse', 'sparse']);
  });
});

function fixSum(h: Buffer): Buffer {
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return h;
}
