// Streaming zstd decompression on Node 20 with fzstd (pure JS), behind a frame-level guard.
//
// fzstd allocates the window a frame header declares (up to 2 GiB) and copies the whole window
// after every block, and it decodes everything in a pushed chunk synchronously. So the
// compressed stream is walked here first, frame header by frame header and block by block:
// a frame that declares a window over `maxWindowBytes` is refused before fzstd sees it, and
// fzstd is fed one block at a time (at most 128 KiB of output each), with the event loop
// given a turn between blocks and the consumer's pace (backpressure) respected.
import { Decompress } from 'fzstd';
import { errorMessage } from '../toolkit/index.ts';

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const MAX_BLOCK = 128 * 1024;
export const DEFAULT_MAX_ZSTD_WINDOW = 128 * 1024 * 1024;

/** A step of the splitter that yields no bytes. */
const NOTHING = Buffer.alloc(0);

export class ZstdFormatError extends Error {
  override readonly name = 'ZstdFormatError';
}

type State =
  | { kind: 'magic' }
  | { kind: 'frameHeader' }
  | { kind: 'block'; checksum: boolean }
  | { kind: 'checksum' }
  | { kind: 'skip'; left: number };

/** Splits a zstd stream into frame headers and whole blocks, validating each header. */
class FrameSplitter {
  private buf: Buffer = Buffer.alloc(0);
  private state: State = { kind: 'magic' };
  private readonly maxWindow: number;

  constructor(maxWindow: number) {
    this.maxWindow = maxWindow;
  }

  /** The frame headers, blocks and checksums `chunk` completes. */
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Buffer[] = [];
    for (let unit = this.next(); unit !== undefined; unit = this.next()) if (unit.length) out.push(unit);
    return out;
  }

  /** True when the stream may end here (between frames). */
  get atBoundary(): boolean {
    return this.state.kind === 'magic' && this.buf.length === 0;
  }

  private takeBytes(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** The next unit, NOTHING when only the state moved on, undefined when more input is needed. */
  private next(): Buffer | undefined {
    const s = this.state;
    switch (s.kind) {
      case 'magic': {
        if (this.buf.length < 4) return undefined;
        const magic = this.buf.readUInt32LE(0);
        if (magic === ZSTD_MAGIC) {
          this.state = { kind: 'frameHeader' };
          return NOTHING;
        }
        if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
          if (this.buf.length < 8) return undefined;
          const size = this.buf.readUInt32LE(4);
          this.takeBytes(8);
          this.state = { kind: 'skip', left: size };
          return NOTHING;
        }
        throw new ZstdFormatError('invalid zstd frame magic');
      }
      case 'skip': {
        if (s.left === 0) {
          this.state = { kind: 'magic' };
          return NOTHING;
        }
        if (this.buf.length === 0) return undefined;
        const n = Math.min(s.left, this.buf.length);
        this.takeBytes(n);
        this.state = { kind: 'skip', left: s.left - n };
        return NOTHING;
      }
      case 'frameHeader': {
        if (this.buf.length < 5) return undefined;
        const fhd = this.buf[4] ?? 0;
        const singleSegment = (fhd >> 5) & 1;
        const checksum = ((fhd >> 2) & 1) === 1;
        if (fhd & 0x08) throw new ZstdFormatError('zstd frame header has the reserved bit set');
        const dictBytes = [0, 1, 2, 4][fhd & 3] ?? 0;
        const fcsFlag = fhd >> 6;
        const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
        const headerLen = 4 + 1 + (singleSegment ? 0 : 1) + dictBytes + fcsBytes;
        if (this.buf.length < headerLen) return undefined;
        if (dictBytes && readLE(this.buf, 5 + (singleSegment ? 0 : 1), dictBytes) !== 0) {
          throw new ZstdFormatError('zstd frames that need a dictionary are not supported');
        }
        let window: number;
        if (singleSegment) {
          window = readLE(this.buf, 5 + dictBytes, fcsBytes) + (fcsFlag === 1 ? 256 : 0);
        } else {
          const wd = this.buf[5] ?? 0;
          const base = 2 ** (10 + (wd >> 3));
          window = base + (base / 8) * (wd & 7);
        }
        if (window > this.maxWindow) {
          throw new ZstdFormatError(`zstd frame window of ${window} bytes exceeds the limit of ${this.maxWindow}`);
        }
        this.state = { kind: 'block', checksum };
        return this.takeBytes(headerLen);
      }
      case 'block': {
        if (this.buf.length < 3) return undefined;
        const h = (this.buf[0] ?? 0) | ((this.buf[1] ?? 0) << 8) | ((this.buf[2] ?? 0) << 16);
        const last = h & 1;
        const type = (h >> 1) & 3;
        const size = h >>> 3;
        if (type === 3) throw new ZstdFormatError('reserved zstd block type');
        if (size > MAX_BLOCK) throw new ZstdFormatError('zstd block larger than 128 KiB');
        const payload = type === 1 ? 1 : size;
        if (this.buf.length < 3 + payload) return undefined;
        this.state = last ? (s.checksum ? { kind: 'checksum' } : { kind: 'magic' }) : s;
        return this.takeBytes(3 + payload);
      }
      case 'checksum': {
        if (this.buf.length < 4) return undefined;
        this.state = { kind: 'magic' };
        return this.takeBytes(4);
      }
    }
  }
}

function readLE(buf: Buffer, offset: number, bytes: number): number {
  let v = 0;
  for (let i = bytes - 1; i >= 0; i--) v = v * 256 + (buf[offset + i] ?? 0);
  return v;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface ZstdOptions {
  /** Largest window a frame may declare (default 128 MiB, zstd's own default decoder limit). */
  readonly maxWindowBytes?: number;
}

/** Decompresses a (multi-frame) zstd stream. */
export async function* zstdDecompress(source: AsyncIterable<Uint8Array>, options: ZstdOptions = {}): AsyncGenerator<Buffer> {
  const splitter = new FrameSplitter(options.maxWindowBytes ?? DEFAULT_MAX_ZSTD_WINDOW);
  let out: Buffer[] = [];
  const decoder = new Decompress((data) => {
    if (data.length) out.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  // fzstd's complaint, for a unit of the stream and for the final flush alike.
  const push = (bytes: Uint8Array, final = false): void => {
    try {
      decoder.push(bytes, final);
    } catch (err) {
      throw new ZstdFormatError(`invalid zstd data: ${errorMessage(err)}`);
    }
  };
  let sawFrame = false;
  let pushed = 0;
  for await (const chunk of source) {
    for (const unit of splitter.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))) {
      sawFrame = true;
      push(unit);
      if (out.length) {
        const ready = out;
        out = [];
        for (const b of ready) yield b;
      }
      if (++pushed % 64 === 0) await yieldToEventLoop();
    }
  }
  if (!splitter.atBoundary) throw new ZstdFormatError('unexpected end of zstd stream');
  if (!sawFrame) return;
  push(new Uint8Array(0), true); // flushes a final frame shorter than fzstd's look-ahead
  for (const b of out) yield b;
}
