import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { decompressedStream, sniffCompression, sniffFile, type Compression } from './compression.ts';
import { ZstdFormatError, zstdDecompress } from './zstd.ts';

// Real zstd frames come from the `zstd` CLI (Debian package `zstd`).
const zstd = (data: Uint8Array, ...args: string[]): Buffer => execFileSync('zstd', ['-q', '-c', ...args], { input: data, maxBuffer: 1 << 28 });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'compression-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of it) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

async function* chunks(buf: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function viaFile(name: string, data: Buffer, c: Compression): Promise<Buffer> {
  const p = join(dir, name);
  await writeFile(p, data);
  expect(await sniffFile(p)).toBe(c);
  return collect(decompressedStream(p, c));
}

const sample = Buffer.from(Array.from({ length: 200_000 }, (_, i) => `line ${i} ${i % 7 === 0 ? 'seven' : 'other'}\n`).join(''));

describe('sniffCompression', () => {
  it.each([
    { name: 'gzip', head: [0x1f, 0x8b, 0x08, 0], want: 'gzip' },
    { name: 'zstd', head: [0x28, 0xb5, 0x2f, 0xfd], want: 'zstd' },
    { name: 'bzip2', head: [0x42, 0x5a, 0x68, 0x39], want: 'bzip2' },
    { name: 'xz', head: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], want: 'xz' },
    { name: 'tar', head: [0x61, 0x2f, 0, 0], want: 'none' },
    { name: 'empty', head: [], want: 'none' },
  ])('$name', ({ head, want }) => {
    expect(sniffCompression(Uint8Array.from(head))).toBe(want);
  });
});

describe('decompressedStream', () => {
  it('inflates gzip, zstd (with checksum, long window, multiple frames) and passes plain data', async () => {
    expect((await viaFile('a.gz', gzipSync(sample), 'gzip')).equals(sample)).toBe(true);
    expect((await viaFile('a.zst', zstd(sample, '-9'), 'zstd')).equals(sample)).toBe(true);
    expect((await viaFile('b.zst', zstd(sample, '--no-check', '--long=24'), 'zstd')).equals(sample)).toBe(true);
    const two = Buffer.concat([zstd(sample.subarray(0, 1000)), zstd(sample.subarray(1000))]);
    expect((await viaFile('two.zst', two, 'zstd')).equals(sample)).toBe(true);
    expect((await viaFile('plain', sample, 'none')).equals(sample)).toBe(true);
  });

  it('handles tiny and empty zstd frames and skippable frames', async () => {
    const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0]), Buffer.from('abc')]);
    for (const data of [Buffer.from(''), Buffer.from('a'), Buffer.from('abcdef')]) {
      const framed = Buffer.concat([zstd(data), skippable, zstd(data)]);
      for (const size of [1, 5, 4096]) {
        expect((await collect(zstdDecompress(chunks(framed, size)))).toString()).toBe(`${data}${data}`);
      }
    }
  });

  it('refuses a zstd frame whose window is larger than allowed, before allocating it', async () => {
    // Frame header: magic, FHD 0 (no single segment), window descriptor 0xa8 → 2^31 bytes.
    const frame = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x01, 0x00, 0x00]);
    await expect(collect(zstdDecompress(chunks(frame, 64)))).rejects.toThrow(
      new ZstdFormatError('zstd frame window of 2147483648 bytes exceeds the limit of 134217728'),
    );
    const ok = zstd(sample, '--long=27');
    await expect(collect(zstdDecompress(chunks(ok, 65536), { maxWindowBytes: 1 << 20 }))).rejects.toThrow(/exceeds the limit of 1048576/);
  });

  it('refuses truncated and garbage zstd input', async () => {
    const z = zstd(sample);
    await expect(collect(zstdDecompress(chunks(z.subarray(0, z.length - 10), 1000)))).rejects.toThrow(ZstdFormatError);
    await expect(collect(zstdDecompress(chunks(Buffer.concat([z, Buffer.from('garbage!')]), 1000)))).rejects.toThrow('invalid zstd frame magic');
  });

  it('stops inflating when the consumer stops (a zstd bomb is not inflated ahead)', async () => {
    const bomb = zstd(Buffer.alloc(64 << 20)); // 64 MiB of zeros in a few KiB
    let out = 0;
    for await (const c of zstdDecompress(chunks(bomb, 4096))) {
      out += c.length;
      if (out > 1 << 20) break;
    }
    expect(out).toBeLessThan(2 << 20);
  });
});
