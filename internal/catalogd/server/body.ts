// Response bodies read from catalog.jsonl by byte sections: the whole file or a range streams
// from a read stream; the metas answer and multipart ranges read only their sections with
// positional reads. A file is opened before the status line is sent, so a file that just went
// away can still become a 404.
//
// Small answers (≤ 256 KiB) are read synchronously: the store has just written the file, so it
// is in the page cache, and open+read+close this way costs ~14 µs of CPU against ~58 µs through
// the thread pool (measured for 40 KB on this project's 2-core machine) — under load that is
// most of a metas request. Bigger answers stream with asynchronous reads.
import { close, closeSync, createReadStream, openSync, read, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';

/** [offset, length] pieces of a file, in the order they are sent. */
export interface Section {
  readonly offset: number;
  readonly length: number;
}

/** Answers up to this size are read into one buffer, synchronously. */
export const SYNC_READ_LIMIT = 256 * 1024;
/** Read size for streamed bodies. */
export const STREAM_CHUNK = 1 << 20;

const readAsync = promisify(read);

/** Opens for reading (synchronously; see above). Throws the fs error (ENOENT, EACCES, …). */
export function openFile(path: string): number {
  return openSync(path, 'r');
}

export function closeFile(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

const short = (missing: number): Error => new Error(`catalog.jsonl ended ${missing} bytes short of its index`);

/** The sections' bytes in one buffer, read synchronously; closes `fd`. */
export function readSectionsSync(fd: number, sections: readonly Section[], total: number): Buffer {
  try {
    const buf = Buffer.allocUnsafe(total);
    let at = 0;
    for (const s of sections) {
      for (let done = 0; done < s.length; ) {
        const n = readSync(fd, buf, at + done, s.length - done, s.offset + done);
        if (n === 0) throw short(s.length - done);
        done += n;
      }
      at += s.length;
    }
    return buf;
  } finally {
    closeFile(fd);
  }
}

/** A stream of `parts`: literal buffers and file sections, in order; closes `fd` when done or destroyed. */
export function streamParts(fd: number, parts: readonly (Section | Buffer)[]): Readable {
  async function* generate(): AsyncGenerator<Buffer> {
    try {
      for (const part of parts) {
        if (Buffer.isBuffer(part)) {
          yield part;
          continue;
        }
        for (let done = 0; done < part.length; ) {
          const n = Math.min(STREAM_CHUNK, part.length - done);
          const chunk = Buffer.allocUnsafe(n);
          for (let got = 0; got < n; ) {
            const { bytesRead } = await readAsync(fd, chunk, got, n - got, part.offset + done + got);
            if (bytesRead === 0) throw short(n - got);
            got += bytesRead;
          }
          done += n;
          yield chunk;
        }
      }
    } finally {
      close(fd, () => undefined);
    }
  }
  return Readable.from(generate(), { objectMode: false, highWaterMark: STREAM_CHUNK });
}

/** A byte range of the file as a read stream (the fast path for /api/v1/all); closes `fd`. */
export function streamRange(fd: number, start: number, length: number): Readable {
  if (length === 0) {
    closeFile(fd);
    return Readable.from([]);
  }
  return createReadStream('', { fd, start, end: start + length - 1, highWaterMark: STREAM_CHUNK, autoClose: true });
}
