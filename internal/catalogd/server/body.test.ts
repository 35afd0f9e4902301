import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createGzip, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSync } from 'node:fs';
import { LARGE_CHUNK_BODIES, LARGE_WRITE_CHUNK, SYNC_READ_LIMIT, WRITE_CHUNK, fileBody, writeFileBody, type FileBody } from './body.ts';

const openFile = (p: string): number => openSync(p, 'r');

let dir: string;
let path: string;
const content = Buffer.alloc(3 * SYNC_READ_LIMIT + 12345);
for (let i = 0; i < content.length; i++) content[i] = (i * 7 + (i >> 9)) & 0xff;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'body-test-'));
  path = join(dir, 'catalog.jsonl');
  await writeFile(path, content);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A sink whose buffer fills after `highWaterMark` bytes (so 'drain' is waited for), recording every write. */
function sink(highWaterMark = 64 * 1024): { out: Writable; writes: number[]; bytes: () => Buffer; closed: Promise<void> } {
  const got: Buffer[] = [];
  const writes: number[] = [];
  const out = new Writable({
    highWaterMark,
    write(chunk: Buffer, _enc, cb) {
      got.push(Buffer.from(chunk)); // a socket is done with a chunk once it calls back; so is this sink
      writes.push(chunk.length);
      setImmediate(cb);
    },
  });
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  return { out, writes, bytes: () => Buffer.concat(got), closed };
}

const write = (out: Writable, body: FileBody, chunkSize?: number): Promise<number> =>
  new Promise((resolve) => writeFileBody(out, body, resolve, chunkSize));

describe('writeFileBody', () => {
  it('writes sections and literal buffers in order, small pieces coalesced into chunks of at most chunkSize', async () => {
    const sections = [
      { offset: 10, length: 100 },
      { offset: 5000, length: 2000 },
      { offset: 200_000, length: SYNC_READ_LIMIT + 1 }, // spans chunks
      { offset: 0, length: 1 },
    ];
    const parts = [Buffer.from('--head--'), ...sections, Buffer.from('--tail--')];
    const { out, writes, bytes, closed } = sink();
    const n = await write(out, fileBody(openFile(path), parts), 128 * 1024);
    await closed;
    const want = Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : content.subarray(p.offset, p.offset + p.length))));
    expect(n).toBe(want.length);
    expect(bytes().equals(want)).toBe(true);
    expect(Math.max(...writes)).toBeLessThanOrEqual(128 * 1024);
    expect(writes[0]).toBe(128 * 1024); // the first three pieces and the start of the big one: one write
  });

  it('streams a whole file in LARGE_WRITE_CHUNK chunks, their buffers reused once written', async () => {
    const { out, writes, bytes, closed } = sink();
    const seen = new Set<ArrayBufferLike>();
    const write0 = out.write.bind(out);
    out.write = ((chunk: Buffer, cb?: () => void) => (seen.add(chunk.buffer), write0(chunk, cb))) as typeof out.write;
    await write(out, fileBody(openFile(path), [{ offset: 0, length: content.length }]));
    await closed;
    expect(bytes().equals(content)).toBe(true);
    const full = Math.floor(content.length / LARGE_WRITE_CHUNK);
    expect(writes).toEqual([...Array<number>(full).fill(LARGE_WRITE_CHUNK), content.length - full * LARGE_WRITE_CHUNK]);
    expect(seen.size).toBeLessThanOrEqual(3); // the sink takes a chunk, the next waits: a few buffers go round
  });

  it('writes in WRITE_CHUNK chunks while LARGE_CHUNK_BODIES bodies are being written, large ones again after', async () => {
    // Sinks that hold their first write until let go: LARGE_CHUNK_BODIES bodies stay in flight.
    const held: (() => void)[] = [];
    const slow = Array.from({ length: LARGE_CHUNK_BODIES }, () => {
      const out = new Writable({ highWaterMark: 1, write: (_chunk, _enc, cb) => void held.push(cb) });
      return { out, done: write(out, fileBody(openFile(path), [{ offset: 0, length: content.length }])) };
    });
    const busy = sink();
    await write(busy.out, fileBody(openFile(path), [{ offset: 0, length: content.length }]));
    expect(busy.bytes().equals(content)).toBe(true);
    expect(Math.max(...busy.writes)).toBe(WRITE_CHUNK);

    for (const s of slow) s.out.destroy();
    for (const cb of held) cb();
    const cut = await Promise.all(slow.map((s) => s.done));
    expect(cut.every((n) => n === LARGE_WRITE_CHUNK)).toBe(true); // one large chunk each, then cut
    const alone = sink();
    await write(alone.out, fileBody(openFile(path), [{ offset: 0, length: content.length }]));
    expect(alone.writes[0]).toBe(LARGE_WRITE_CHUNK);
  });

  it('into a gzip stream: the bytes come out whole although chunk buffers are reused, and a short file destroys it', async () => {
    const zipped = createGzip();
    const { out, bytes, closed } = sink();
    zipped.pipe(out);
    await write(zipped, fileBody(openFile(path), [{ offset: 0, length: content.length }, Buffer.from('--tail--')]));
    await closed;
    expect(gunzipSync(bytes()).equals(Buffer.concat([content, Buffer.from('--tail--')]))).toBe(true);

    const cut = createGzip();
    cut.on('error', () => undefined);
    expect(await write(cut, fileBody(openFile(path), [{ offset: content.length - 10, length: 20 }]))).toBe(0);
    expect(cut.destroyed).toBe(true);
  });

  it('ends an empty body', async () => {
    const { out, bytes, closed } = sink();
    expect(await write(out, fileBody(openFile(path), []))).toBe(0);
    await closed;
    expect(bytes().length).toBe(0);
  });

  it('cuts the response when the file is shorter than its index', async () => {
    const { out, closed } = sink();
    let error = false;
    out.on('error', () => (error = true));
    const n = await write(out, fileBody(openFile(path), [{ offset: content.length - 10, length: 20 }]));
    await closed;
    expect(out.destroyed).toBe(true);
    expect(out.writableFinished).toBe(false);
    expect(n).toBe(0);
    expect(error).toBe(false);
  });

  it('stops reading when the response is closed early', async () => {
    const { out, writes, closed } = sink(1);
    const done = write(out, fileBody(openFile(path), [{ offset: 0, length: content.length }]), 4096);
    setImmediate(() => out.destroy());
    const n = await done;
    await closed;
    expect(n).toBeLessThan(content.length);
    expect(writes.length).toBeLessThan(content.length / 4096);
  });
});
