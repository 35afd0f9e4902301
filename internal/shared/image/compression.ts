// Layer compression, told apart by magic bytes whatever the media type says (as containers/image
// AutoDecompress does): gzip 1f 8b 08, zstd 28 b5 2f fd, anything else is a plain tar. bzip2 and
// xz are recognised only to be refused with a clear message.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { zstdDecompress, type ZstdOptions } from './zstd.ts';

export type Compression = 'gzip' | 'zstd' | 'bzip2' | 'xz' | 'none';

export function sniffCompression(head: Uint8Array): Compression {
  const b = (i: number): number => head[i] ?? -1;
  if (b(0) === 0x1f && b(1) === 0x8b && b(2) === 0x08) return 'gzip';
  if (b(0) === 0x28 && b(1) === 0xb5 && b(2) === 0x2f && b(3) === 0xfd) return 'zstd';
  if (b(0) === 0x42 && b(1) === 0x5a && b(2) === 0x68) return 'bzip2';
  if (b(0) === 0xfd && b(1) === 0x37 && b(2) === 0x7a && b(3) === 0x58 && b(4) === 0x5a && b(5) === 0x00) return 'xz';
  return 'none';
}

export async function sniffFile(path: string): Promise<Compression> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(6);
    const { bytesRead } = await fh.read(head, 0, 6, 0);
    return sniffCompression(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/**
 * The decompressed bytes of the blob at `path`, streamed. Stopping the iteration early (the
 * unpack limit, an abort) destroys the underlying streams: nothing is inflated ahead of need.
 */
export function decompressedStream(path: string, compression: Compression, options: ZstdOptions = {}): AsyncIterable<Uint8Array> {
  const file = createReadStream(path, { highWaterMark: 64 * 1024 });
  switch (compression) {
    case 'none':
      return file;
    case 'gzip': {
      const gunzip = createGunzip({ chunkSize: 64 * 1024 });
      file.on('error', (err) => gunzip.destroy(err));
      gunzip.on('close', () => file.destroy());
      file.pipe(gunzip);
      return gunzip;
    }
    case 'zstd':
      // Ending the generator early ends its for-await over `file`, which destroys the file stream.
      return zstdDecompress(file, options);
    default:
      file.destroy();
      throw new Error(`unsupported layer compression ${compression}`);
  }
}
