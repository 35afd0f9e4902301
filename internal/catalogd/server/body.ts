// Response bodies read from catalog.jsonl by byte sections with positional reads: the whole file,
// a range, multipart ranges, the metas answer's sections. A file is opened before the status line is sent, so a file that just went
// away can still become a 404.
//
// Small answers (≤ 256 KiB) are read synchronously: the store has just written the file, so it
// is in the page cache, and open+read+close this way costs ~14 µs of CPU against ~58 µs through
// the thread pool (measured for 40 KB on this project's 2-core machine) — under load that is
// most of a metas request. Bigger answers are a FileBody: the server writes them straight to the
// response in pooled 64 KiB chunks (writeFileBody), no stream in between, sections coalesced
// and read synchronously — at most two chunks of a response are in memory at once. A gzipped
// body is the same writes into the gzip stream.
import { close, closeSync, openSync, readSync } from 'node:fs';
import type { Writable } from 'node:stream';

/** [offset, length] pieces of a file, in the order they are sent. */
export interface Section {
  readonly offset: number;
  readonly length: number;
}

/** Answers up to this size are read into one buffer, synchronously. */
export const SYNC_READ_LIMIT = 256 * 1024;

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
      readSyncFully(fd, buf, at, s.length, s.offset);
      at += s.length;
    }
    return buf;
  } finally {
    closeFile(fd);
  }
}

/** A body of file sections and literal buffers, in order, from an open file (closed once written or dropped). */
export interface FileBody {
  readonly kind: 'file';
  readonly fd: number;
  readonly parts: readonly (Section | Buffer)[];
  readonly length: number;
}

export function fileBody(fd: number, parts: readonly (Section | Buffer)[]): FileBody {
  return { kind: 'file', fd, parts, length: parts.reduce((n, p) => n + p.length, 0) };
}

export function isFileBody(body: unknown): body is FileBody {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && (body as Partial<FileBody>).kind === 'file';
}

/** Drops a body that will not be sent. */
export function discardFileBody(body: FileBody): void {
  closeFile(body.fd);
}

const noop = (): void => undefined;

/**
 * Bytes per write of a file body: 4 TLS records; two of them per response in flight at most. Under glibc's mmap
 * threshold (128 KiB, fixed by cmd/entrypoint.sh), so a chunk the pool cannot give comes from malloc's heap, not a
 * fresh mapping: 128 KiB chunks under that threshold served metas at half the rate.
 */
export const WRITE_CHUNK = 64 * 1024;
/** Chunk buffers kept for reuse between responses (4 MiB). */
const POOL_MAX = 64;
const pool: Buffer[] = [];

/** A chunk buffer: a pooled one for WRITE_CHUNK, else a new one. */
function takeChunk(size: number): Buffer {
  return (size === WRITE_CHUNK && pool.pop()) || Buffer.allocUnsafeSlow(size);
}

/** Gives a chunk back once the socket is done with it (its write callback ran). */
function releaseChunk(buf: Buffer): void {
  if (buf.length === WRITE_CHUNK && pool.length < POOL_MAX) pool.push(buf);
}

/** What writeFileBody needs of a response (an http.ServerResponse, or any Writable: the gzip stream in front of one). */
export type BodySink = Pick<Writable, 'write' | 'destroy' | 'destroyed' | 'on' | 'off' | 'once'> & { end(cb?: () => void): unknown };

/**
 * Writes `body` to `res` (after its head) and ends it, in chunks of `chunkSize` bytes (the next parts coalesced,
 * read synchronously: the store has just written the file, it is in the page cache). A chunk buffer comes from a
 * small pool and goes back once its write has been flushed to the socket, so a response holds at most the chunk
 * being written and the one queued behind it, and serving allocates almost nothing: freshly allocated
 * megabyte buffers per chunk kept the process's RSS 100+ MiB up after a load (glibc keeps what it handed out).
 * Waits for 'drain' when the socket is full. A read error (the file shorter than its index) destroys the response,
 * as a failed copy cuts a Go response. Calls `done(bytesWritten)` once finished or cut; the file is closed either way.
 */
export function writeFileBody(res: BodySink, body: FileBody, done: (bytes: number) => void = noop, chunkSize = WRITE_CHUNK): void {
  const { fd, parts } = body;
  let part = 0;
  let at = 0; // bytes of parts[part] already taken
  let written = 0;
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    res.off('close', finish);
    close(fd, noop);
    done(written);
  };
  res.once('close', finish);

  /** The next chunk (a pooled buffer and the bytes of it used), or undefined at the end. */
  const next = (): { buf: Buffer; size: number } | undefined => {
    if (part >= parts.length) return undefined;
    const buf = takeChunk(chunkSize);
    let size = 0;
    try {
      while (part < parts.length && size < chunkSize) {
        const p = parts[part] as Section | Buffer;
        const n = Math.min(p.length - at, chunkSize - size);
        if (Buffer.isBuffer(p)) p.copy(buf, size, at, at + n);
        else readSyncFully(fd, buf, size, n, p.offset + at);
        size += n;
        at += n;
        if (at === p.length) {
          part++;
          at = 0;
        }
      }
    } catch (err) {
      releaseChunk(buf);
      throw err;
    }
    return size === 0 ? (releaseChunk(buf), undefined) : { buf, size };
  };

  const drained = (): Promise<void> =>
    new Promise((resolve) => {
      const go = (): void => {
        res.off('drain', go);
        res.off('close', go);
        resolve();
      };
      res.on('drain', go);
      res.on('close', go);
    });

  void (async () => {
    try {
      for (let chunk = next(); chunk !== undefined && !res.destroyed; chunk = next()) {
        const { buf, size } = chunk;
        const more = res.write(size === buf.length ? buf : buf.subarray(0, size), () => releaseChunk(buf));
        written += size;
        if (!more) await drained();
      }
      if (!res.destroyed) res.end(finish);
    } catch {
      res.destroy();
    } finally {
      if (res.destroyed) finish();
    }
  })();
}

function readSyncFully(fd: number, buf: Buffer, at: number, length: number, position: number): void {
  for (let done = 0; done < length; ) {
    const n = readSync(fd, buf, at + done, length - done, position + done);
    if (n === 0) throw short(length - done);
    done += n;
  }
}
