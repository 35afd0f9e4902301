// Response bodies read from catalog.jsonl by byte sections with positional reads: the whole file,
// a range, multipart ranges, the metas answer's sections. A file is opened before the status line is sent, so a file that just went
// away can still become a 404.
//
// Small answers (≤ 256 KiB) are read synchronously: the store has just written the file, so it
// is in the page cache, and open+read+close this way costs ~14 µs of CPU against ~58 µs through
// the thread pool (measured for 40 KB on this project's 2-core machine) — under load that is
// most of a metas request. Bigger answers are a FileBody: the server writes them straight to the
// response in pooled chunks (writeFileBody: 256 KiB while few bodies are being written, else 64 KiB), no stream in
// between, sections coalesced and read synchronously — at most two chunks of a response are in memory at once. A
// gzipped body is the same writes into the gzip stream.
import { close, closeSync, readSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { tryOr } from '../../shared/toolkit/index.ts';

/** [offset, length] pieces of a file, in the order they are sent. */
export interface Section {
  readonly offset: number;
  readonly length: number;
}

/** Answers up to this size are read into one buffer, synchronously. */
export const SYNC_READ_LIMIT = 256 * 1024;

/** Closes `fd`; one already closed is fine. A FileBody not sent is dropped by closing its `fd`. */
export const closeFile = (fd: number): void => tryOr(() => closeSync(fd), undefined);

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

const noop = (): void => undefined;

/**
 * Bytes per write of a file body while many are being written at once. Each write costs the same fixed work in node's
 * stream, http and TLS layers (and an event-loop turn while the socket drains), so a body goes out with less CPU in
 * fewer, larger writes — but a response holds two chunks at a time, so with many responses in flight a chunk is small:
 * 50 clients reading a 2 MB metas answer hold 6 MiB of chunks, not 25. Under glibc's mmap threshold (128 KiB, fixed by
 * cmd/entrypoint.sh): a chunk the pool cannot give comes from malloc's heap, not a fresh mapping.
 */
export const WRITE_CHUNK = 64 * 1024;
/**
 * Bytes per write while fewer than LARGE_CHUNK_BODIES bodies are being written (a client or four downloading
 * `/api/v1/all`): against 64 KiB writes the server's CPU per GB served over TLS fell by about a fifth (servers side
 * by side, curl and undici clients; with Go's cipher choice too, `npm run bench -- catalogd-peer` in one run: 1.71× →
 * 1.30× upstream's on 1 connection, 1.50× → 1.15× on 4); 128 KiB, 512 KiB and 1 MiB all cost more than 256 KiB on
 * this machine (the bigger ones no longer stay in the caches between the read, the encryption and the socket's copy).
 */
export const LARGE_WRITE_CHUNK = 256 * 1024;
/** Bodies being written at once below which a new one gets LARGE_WRITE_CHUNK: at most 2 MiB of large chunks. */
export const LARGE_CHUNK_BODIES = 4;

/** Chunk buffers kept for reuse between responses, per size: 4 MiB of small ones, every large one there can be. */
const pools = new Map<number, { free: Buffer[]; max: number }>([
  [WRITE_CHUNK, { free: [], max: 64 }],
  [LARGE_WRITE_CHUNK, { free: [], max: 2 * LARGE_CHUNK_BODIES }],
]);

/** A chunk buffer: a pooled one where there is a pool for the size, else a new one. */
function takeChunk(size: number): Buffer {
  return pools.get(size)?.free.pop() ?? Buffer.allocUnsafeSlow(size);
}

/** Gives a chunk back once the socket is done with it (its write callback ran). */
function releaseChunk(buf: Buffer): void {
  const pool = pools.get(buf.length);
  if (pool && pool.free.length < pool.max) pool.free.push(buf);
}

/** File bodies being written now (LARGE_CHUNK_BODIES). */
let writing = 0;

/** What writeFileBody needs of a response (an http.ServerResponse, or any Writable: the gzip stream in front of one). */
export type BodySink = Pick<Writable, 'write' | 'destroy' | 'destroyed' | 'on' | 'off' | 'once'> & { end(cb?: () => void): unknown };

/**
 * Writes `body` to `res` (after its head) and ends it, in chunks of `chunkSize` bytes (default: LARGE_WRITE_CHUNK
 * while fewer than LARGE_CHUNK_BODIES bodies are being written, else WRITE_CHUNK; the next parts coalesced,
 * read synchronously: the store has just written the file, it is in the page cache). A chunk buffer comes from a
 * small pool and goes back once its write has been flushed to the socket, so a response holds at most the chunk
 * being written and the one queued behind it, and serving allocates almost nothing: freshly allocated
 * megabyte buffers per chunk kept the process's RSS 100+ MiB up after a load (glibc keeps what it handed out).
 * Waits for 'drain' when the socket is full. A read error (the file shorter than its index) destroys the response,
 * as a failed copy cuts a Go response. Calls `done(bytesWritten)` once finished or cut; the file is closed either way.
 */
export function writeFileBody(res: BodySink, body: FileBody, done: (bytes: number) => void = noop, chunkSize?: number): void {
  const { fd, parts } = body;
  const perWrite = chunkSize ?? (writing < LARGE_CHUNK_BODIES ? LARGE_WRITE_CHUNK : WRITE_CHUNK);
  writing++;
  let part = 0;
  let at = 0; // bytes of parts[part] already taken
  let written = 0;
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    writing--;
    res.off('close', finish);
    close(fd, noop);
    done(written);
  };
  res.once('close', finish);

  /** The next chunk (a pooled buffer and the bytes of it used), or undefined at the end. */
  const next = (): { buf: Buffer; size: number } | undefined => {
    if (part >= parts.length) return undefined;
    const buf = takeChunk(perWrite);
    let size = 0;
    try {
      while (part < parts.length && size < perWrite) {
        const p = parts[part] as Section | Buffer;
        const n = Math.min(p.length - at, perWrite - size);
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
    if (n === 0) throw new Error(`catalog.jsonl ended ${length - done} bytes short of its index`);
    done += n;
  }
}
