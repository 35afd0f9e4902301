// A small streaming tar reader (ustar, POSIX pax, GNU long names) for image layers.
//
// Why not node-tar: it sniffs and inflates compressed input on its own (on Node 20 a zstd stream
// inside a gzip layer throws an uncaught TypeError) and it decides about paths itself; the
// layer applier must see every raw entry to apply whiteouts and refuse what is unsafe. This
// reader only parses: names are returned as written, nothing touches the filesystem.
//
//   for await (const entry of readTar(chunks)) { for await (const part of entry.body()) … }
//
// A body that is not read is skipped. Every byte pulled from `source` is reported to
// `onBytes` first, so a caller can stop a decompression bomb while it streams. Metadata
// records (pax, GNU long names) are capped at 1 MiB. After the end-of-archive marker
// nothing more is read.

export type TarEntryType = 'file' | 'hardlink' | 'symlink' | 'char' | 'block' | 'dir' | 'fifo' | 'sparse' | 'unknown';

export interface TarEntry {
  /** The path as written in the archive (pax `path` / GNU long name applied). */
  readonly path: string;
  readonly type: TarEntryType;
  /** The raw typeflag character (`'0'`, `'5'`, …). */
  readonly typeflag: string;
  readonly mode: number;
  /** Bytes of data that follow (0 for everything but regular files). */
  readonly size: number;
  /** Link target of a symlink or hardlink. */
  readonly linkpath: string;
  /** Bytes of the archive before this entry's data (its header blocks included). */
  readonly offset: number;
  /** Yields the entry's data; may be called once. */
  body(): AsyncGenerator<Buffer>;
}

/** A malformed archive. */
export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
}

const BLOCK = 512;
const MAX_META_BYTES = 1 << 20;
const HEADER_ONLY = new Set(['1', '2', '3', '4', '5', '6']);

class ByteReader {
  private readonly it: AsyncIterator<Uint8Array>;
  private readonly onBytes: (n: number) => void;
  private chunks: Buffer[] = [];
  private length = 0;
  private eof = false;
  /** Bytes handed out so far (read-ahead not counted). */
  consumed = 0;

  constructor(source: AsyncIterable<Uint8Array>, onBytes: (n: number) => void) {
    this.it = source[Symbol.asyncIterator]();
    this.onBytes = onBytes;
  }

  /** Pulls until at least `n` bytes are buffered; false at end of input. */
  private async fill(n: number): Promise<boolean> {
    while (this.length < n) {
      if (this.eof) return false;
      const next = await this.it.next();
      if (next.done) {
        this.eof = true;
        return this.length >= n;
      }
      const buf = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      if (buf.length === 0) continue;
      this.onBytes(buf.length);
      this.chunks.push(buf);
      this.length += buf.length;
    }
    return true;
  }

  private take(n: number): Buffer {
    this.consumed += n;
    const first = this.chunks[0];
    if (first && first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.length -= n;
      return out;
    }
    const all = Buffer.concat(this.chunks, this.length);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.length -= n;
    return all.subarray(0, n);
  }

  /** Exactly `n` bytes, or undefined when the input ends first (at `n` = 0: an empty buffer). */
  async read(n: number): Promise<Buffer | undefined> {
    if (!(await this.fill(n))) return undefined;
    return this.take(n);
  }

  /** `n` bytes in the pieces they arrive in. */
  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.length === 0 && !(await this.fill(1))) throw new TarFormatError('unexpected end of archive in entry data');
      const piece = this.take(Math.min(left, this.length, 1 << 20));
      left -= piece.length;
      yield piece;
    }
  }

  async skip(n: number): Promise<void> {
    for await (const _ of this.stream(n)) {
      // discard
    }
  }

  async close(): Promise<void> {
    await this.it.return?.();
  }
}

function cString(buf: Buffer, start: number, len: number): string {
  const field = buf.subarray(start, start + len);
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? field.length : nul).toString('utf8');
}

/** Octal (NUL/space terminated) or GNU base-256 (high bit set) numeric field. */
function numeric(buf: Buffer, start: number, len: number, what: string): number {
  const field = buf.subarray(start, start + len);
  const first = field[0] ?? 0;
  if (first & 0x80) {
    if (first === 0xff) throw new TarFormatError(`negative ${what} in tar header`);
    let value = first & 0x7f;
    for (let i = 1; i < field.length; i++) {
      value = value * 256 + (field[i] ?? 0);
      if (value > Number.MAX_SAFE_INTEGER) throw new TarFormatError(`${what} too large in tar header`);
    }
    return value;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`invalid ${what} ${JSON.stringify(text)} in tar header`);
  const value = parseInt(text, 8);
  if (value > Number.MAX_SAFE_INTEGER) throw new TarFormatError(`${what} too large in tar header`);
  return value;
}

function checksumOk(header: Buffer): boolean {
  const want = numeric(header, 148, 8, 'checksum');
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
    unsigned += b;
    signed += b > 127 ? b - 256 : b;
  }
  return want === unsigned || want === signed;
}

/** `"<len> key=value\n"` records; later keys win. */
function parsePax(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    if (space === -1) break;
    const len = Number(data.subarray(pos, space).toString('latin1'));
    if (!Number.isInteger(len) || len <= 0 || pos + len > data.length) throw new TarFormatError('invalid pax record');
    const record = data.subarray(space + 1, pos + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq <= 0) throw new TarFormatError('invalid pax record');
    out.set(record.slice(0, eq), record.slice(eq + 1));
    pos += len;
  }
  return out;
}

/** Entry types by typeflag; any other flag is 'unknown'. */
const ENTRY_TYPES: Readonly<Record<string, TarEntryType>> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file',
  '1': 'hardlink',
  '2': 'symlink',
  '3': 'char',
  '4': 'block',
  '5': 'dir',
  '6': 'fifo',
  S: 'sparse',
};

const padding = (size: number): number => (BLOCK - (size % BLOCK)) % BLOCK;

export interface ReadTarOptions {
  /** Called with the size of every chunk pulled from the source, before it is parsed; may throw. */
  readonly onBytes?: (n: number) => void;
}

/** Parses a tar stream into entries. The source is closed when iteration ends, however it ends. */
export async function* readTar(source: AsyncIterable<Uint8Array>, options: ReadTarOptions = {}): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source, options.onBytes ?? (() => undefined));
  try {
    let pax = new Map<string, string>();
    let longName: string | undefined;
    let longLink: string | undefined;
    for (;;) {
      const header = await reader.read(BLOCK);
      if (header === undefined) {
        // A stream that ends on a block boundary without the end marker: accept what was read
        // (some writers omit it), but never in the middle of a pax/GNU record set.
        if (pax.size || longName !== undefined || longLink !== undefined) throw new TarFormatError('unexpected end of archive');
        return;
      }
      if (header.every((b) => b === 0)) return; // end-of-archive marker: stop reading here
      if (!checksumOk(header)) throw new TarFormatError('invalid tar header checksum');

      const flag = String.fromCharCode(header[156] ?? 0);
      const magic = header.subarray(257, 263).toString('latin1');
      const isPosixUstar = magic === 'ustar\0';
      let size = numeric(header, 124, 12, 'size');
      if (HEADER_ONLY.has(flag)) size = 0; // as Go's archive/tar: these types carry no data

      if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
        if (size > MAX_META_BYTES) throw new TarFormatError(`tar metadata record of ${size} bytes is too large`);
        const data = await reader.read(size + padding(size));
        if (data === undefined) throw new TarFormatError('unexpected end of archive in metadata record');
        const body = data.subarray(0, size);
        if (flag === 'x') for (const [k, v] of parsePax(body)) pax.set(k, v);
        else if (flag === 'L') longName = cString(body, 0, body.length);
        else if (flag === 'K') longLink = cString(body, 0, body.length);
        // 'g' (global pax) is parsed for validity and ignored, as containerd does.
        else parsePax(body);
        continue;
      }

      let path = cString(header, 0, 100);
      if (isPosixUstar) {
        const prefix = cString(header, 345, 155);
        if (prefix) path = `${prefix}/${path}`;
      }
      if (longName !== undefined) path = longName;
      let linkpath = longLink ?? cString(header, 157, 100);
      const paxPath = pax.get('path');
      if (paxPath !== undefined) path = paxPath;
      const paxLink = pax.get('linkpath');
      if (paxLink !== undefined) linkpath = paxLink;
      const paxSize = pax.get('size');
      if (paxSize !== undefined && !HEADER_ONLY.has(flag)) {
        if (!/^[0-9]+$/.test(paxSize) || Number(paxSize) > Number.MAX_SAFE_INTEGER) {
          throw new TarFormatError(`invalid pax size ${JSON.stringify(paxSize)}`);
        }
        size = Number(paxSize);
      }
      let type = ENTRY_TYPES[flag] ?? 'unknown';
      if ([...pax.keys()].some((k) => k.startsWith('GNU.sparse.'))) type = 'sparse';
      if (type === 'file' && (flag === '\0' || flag === '0') && path.endsWith('/')) type = 'dir'; // V7 directory
      if (type === 'dir') size = 0;
      const mode = numeric(header, 100, 8, 'mode');
      pax = new Map();
      longName = undefined;
      longLink = undefined;

      let started = false;
      let remaining = size;
      yield {
        path,
        type,
        typeflag: flag,
        mode,
        size,
        linkpath,
        offset: reader.consumed,
        body: async function* () {
          if (started) throw new Error('tar entry body read twice');
          started = true;
          for await (const piece of reader.stream(remaining)) {
            remaining -= piece.length;
            yield piece;
          }
        },
      };
      await reader.skip(remaining);
      await reader.skip(padding(size));
    }
  } finally {
    await reader.close();
  }
}
