// Response bodies read from catalog.jsonl by byte sections: the whole file or a range streams
// from a read stream; the metas answer and multipart ranges read only their sections with
// positional reads. A file is opened before the status line is sent, so a file that just went
// away can still become a 404.
//
// Small answers (≤ 256 KiB) are read synchronously: the store has just written the file, so it
// is in the page cache, and open+read+close this way costs ~14 µs of CPU against ~58 µs through
// the thread pool (measured for 40 KB on this project's 2-core machine) — under load that is
// most of a metas request. Bigger answers are a FileBody: the server writes them straight to the
// response in chunks of up to 1 MiB (writeFileBody), no stream in between, small sections
// coalesced into one chunk and read synchronously, big pieces read asynchronously while the
// previous chunk is being written — at most two chunks of a response are in memory at once.
import { close, closeSync, createReadStream, openSync, read, readSync } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
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

/** The body as a stream (for gzip); closes its file when done. */
export function fileBodyStream(body: FileBody): Readable {
  const [only] = body.parts;
  if (body.parts.length === 1 && only && !Buffer.isBuffer(only)) return streamRange(body.fd, only.offset, only.length);
  return streamParts(body.fd, body.parts);
}

/** Drops a body that will not be sent. */
export function discardFileBody(body: FileBody): void {
  closeFile(body.fd);
}

const noop = (): void => undefined;

/**
 * Writes `body` to `res` (after its head) and ends it: chunks of up to `chunkSize` bytes, each the next parts
 * coalesced — a piece of up to SYNC_READ_LIMIT bytes read synchronously, a bigger one asynchronously while the
 * chunk before is on its way. Waits for 'drain' when the socket is full. A read error (the file shorter than its
 * index) destroys the response, as a failed copy cuts a Go response. Calls `done(bytesWritten)` once finished or
 * cut; the file is closed either way.
 */
/** What writeFileBody needs of a response (an http.ServerResponse, or any Writable). */
export type BodySink = Pick<Writable, 'write' | 'destroy' | 'destroyed' | 'on' | 'off' | 'once'> & { end(cb?: () => void): unknown };

export function writeFileBody(res: BodySink, body: FileBody, done: (bytes: number) => void = noop, chunkSize = STREAM_CHUNK): void {
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

  /** The next chunk, or undefined at the end; a promise only when a read goes through the thread pool. */
  const next = (): Buffer | undefined | Promise<Buffer | undefined> => {
    let size = 0;
    for (let i = part, off = at; i < parts.length && size < chunkSize; i++, off = 0) {
      size += Math.min((parts[i] as Section | Buffer).length - off, chunkSize - size);
    }
    if (size === 0) return undefined;
    const chunk = Buffer.allocUnsafe(size);
    let filled = 0;
    const fill = (): Buffer | Promise<Buffer> => {
      while (filled < size) {
        const p = parts[part] as Section | Buffer;
        const n = Math.min(p.length - at, size - filled);
        if (Buffer.isBuffer(p)) p.copy(chunk, filled, at, at + n);
        else if (n <= SYNC_READ_LIMIT) readSyncFully(fd, chunk, filled, n, p.offset + at);
        else {
          const offset = p.offset + at;
          const into = filled;
          advance(n);
          return readAsyncFully(fd, chunk, into, n, offset).then(fill);
        }
        advance(n);
      }
      return chunk;
    };
    const advance = (n: number): void => {
      filled += n;
      at += n;
      if (at === (parts[part] as Section | Buffer).length) {
        part++;
        at = 0;
      }
    };
    return fill();
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
      let chunk = await next();
      while (chunk !== undefined && !res.destroyed) {
        const more = res.write(chunk);
        written += chunk.length;
        const following = next(); // read ahead while this chunk is on its way
        if (following instanceof Promise) following.catch(noop); // its error is taken below, after the drain
        if (!more) await drained();
        chunk = await following;
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

async function readAsyncFully(fd: number, buf: Buffer, at: number, length: number, position: number): Promise<void> {
  for (let done = 0; done < length; ) {
    const { bytesRead } = await readAsync(fd, buf, at + done, length - done, position + done);
    if (bytesRead === 0) throw short(length - done);
    done += bytesRead;
  }
}
