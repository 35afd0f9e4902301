// catalogd's catalog server over loopback, the certified catalog stored by LocalDirStore:
//  - `/api/v1/all` without gzip, downloaded back to back on keep-alive connections, in MB/s;
//    baseline in the same run: a bare socket server piping fs.createReadStream of the same file
//  - `/api/v1/metas?schema=olm.bundle&package=…` with 200 keep-alive connections: closed loop
//    (every connection always busy: requests/s, p50/p99) and open loop at fixed rates (latency
//    from the time a request was due, so a stall is not hidden), stepping the rate up to find
//    the highest one whose p99 stays under 5 ms (best of two tries per step). Baseline in the same run: a trivial socket
//    server answering every request with the same response bytes from memory — the ceiling of
//    the load generator, which shares this 2-core machine with the server. Also: our server
//    with the metas answer cache off (every answer read from catalog.jsonl).
// The load runs in a child process (this file with `--load`) so client and server do not share
// an event loop. BENCH_CATALOG_SERVER_SECONDS sets the measuring time per load (default 5);
// BENCH_CATALOG_SERVER_RATES the open-loop steps (default 1000,2000,…).
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { Client } from 'undici';
import { createCatalogServer } from '../internal/catalogd/server/index.ts';
import { LocalDirStore } from '../internal/catalogd/storage/index.ts';
import type { Figure } from './control-plane.ts';
import { realCatalogDir } from '../test/support/testdata.ts';

const CERTIFIED = realCatalogDir('certified-operators-v4.21');
const PACKAGE = 'openshift-fusion-access-operator';
const SECONDS = Number(process.env.BENCH_CATALOG_SERVER_SECONDS ?? 5);
const CONNECTIONS = 200;
const OPEN_LOOP_RATES = (process.env.BENCH_CATALOG_SERVER_RATES ?? '1000,2000,3000,4000,5000,6000,7000,8000,10000,12000').split(',').map(Number);
const STEP_SECONDS = Math.max(2, Math.round(SECONDS / 2));
const P99_TARGET_MS = 5;

/** An `https:` URL is loaded over TLS without verifying the server's certificate (a bench's self-signed one). */
export type LoadSpec =
  | { mode: 'download'; url: string; connections: number; downloads: number }
  | { mode: 'closed' | 'open'; url: string; connections: number; seconds: number; rate?: number; post?: { body: string; contentType: string } };

const TLS_CLIENT = { rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] };

export interface LoadResult {
  bytes: number;
  seconds: number;
  requests: number;
  errors: number;
  p50?: number;
  p99?: number;
  max?: number;
}

// ---- load generator (child process) ----------------------------------------------------------

async function download(spec: Extract<LoadSpec, { mode: 'download' }>): Promise<LoadResult> {
  const u = new URL(spec.url);
  const clients = Array.from({ length: spec.connections }, () => new Client(u.origin, u.protocol === 'https:' ? { connect: TLS_CLIENT } : {}));
  let bytes = 0;
  let requests = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      while (next++ < spec.downloads) {
        const res = await c.request({ path: u.pathname + u.search, method: 'GET' });
        for await (const chunk of res.body) bytes += (chunk as Buffer).length;
        requests++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  return { bytes, seconds, requests, errors: 0 };
}

/** A chunked body read as it arrives: counts data bytes, tells the end (the zero chunk; no trailers expected). */
export class ChunkedBody {
  bytes = 0;
  private line = '';
  /** Bytes of the current chunk still to come, its CRLF included. */
  private left = 0;
  /** After the zero chunk: the CRLF that ends the body. */
  private tail = -1;

  /** Takes the next bytes; true once the body is complete. */
  eat(buf: Buffer): boolean {
    let i = 0;
    while (i < buf.length) {
      if (this.tail > 0) {
        const n = Math.min(this.tail, buf.length - i);
        this.tail -= n;
        i += n;
        if (this.tail === 0) return true;
        continue;
      }
      if (this.left > 0) {
        const n = Math.min(this.left, buf.length - i);
        this.bytes += Math.min(n, Math.max(0, this.left - 2));
        this.left -= n;
        i += n;
        continue;
      }
      const nl = buf.indexOf(10, i);
      if (nl < 0) {
        this.line += buf.toString('latin1', i);
        return false;
      }
      const size = parseInt(this.line + buf.toString('latin1', i, nl), 16);
      this.line = '';
      i = nl + 1;
      if (size === 0) this.tail = 2;
      else this.left = size + 2;
    }
    return this.tail === 0;
  }
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/**
 * Latency load on raw keep-alive sockets (one request in flight per connection, like undici's
 * pipelining 1): the request bytes are precomputed and a response is only parsed as far as its
 * status line and Content-Length (or, for a chunked body, its chunk sizes), so the generator costs far
 * less CPU than an HTTP client library and the server, not the client, is what saturates first on
 * this 2-core machine. An `https:` URL connects with TLS.
 */
async function latency(spec: Extract<LoadSpec, { mode: 'closed' | 'open' }>): Promise<LoadResult> {
  const u = new URL(spec.url);
  const request = spec.post
    ? Buffer.from(
        `POST ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: ${spec.post.contentType}\r\nContent-Length: ${Buffer.byteLength(spec.post.body)}\r\n\r\n${spec.post.body}`,
      )
    : Buffer.from(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`, 'latin1');
  const samples: number[] = [];
  let bytes = 0;
  let errors = 0;
  let measuring = false;

  interface Conn {
    send(scheduled: number): void;
    close(): void;
    onDone?: () => void;
  }
  const open = (): Promise<Conn> =>
    new Promise((resolve, reject) => {
      const tls = u.protocol === 'https:';
      const port = Number(u.port || (tls ? 443 : 80));
      const sock = tls ? tlsConnect({ host: u.hostname, port, ...TLS_CLIENT }) : connect({ host: u.hostname, port, noDelay: true });
      if (tls) sock.setNoDelay(true);
      let head = '';
      let remaining = -1; // body bytes still expected; -1 while reading the head
      let chunked: ChunkedBody | undefined; // a body without Content-Length, in chunks
      let status = 0;
      let bodyBytes = 0;
      let scheduled = 0;
      const conn: Conn = {
        send(at) {
          scheduled = at;
          head = '';
          remaining = -1;
          chunked = undefined;
          bodyBytes = 0;
          sock.write(request);
        },
        close: () => sock.destroy(),
      };
      const finish = (): void => {
        if (status !== 200) errors++;
        if (measuring) {
          samples.push(performance.now() - scheduled);
          bytes += bodyBytes;
        }
        remaining = -2;
        conn.onDone?.();
      };
      sock.on('data', (chunk: Buffer) => {
        let rest = chunk;
        if (remaining === -1) {
          head += chunk.toString('latin1');
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          status = Number(head.slice(9, 12));
          const m = /\r\ncontent-length: *(\d+)/i.exec(head.slice(0, end));
          remaining = m ? Number(m[1]) : 0;
          if (!m && /\r\ntransfer-encoding: *chunked/i.test(head.slice(0, end))) chunked = new ChunkedBody();
          rest = chunk.subarray(chunk.length - (head.length - end - 4));
        }
        if (chunked) {
          const done = chunked.eat(rest);
          bodyBytes = chunked.bytes;
          if (done) {
            chunked = undefined;
            finish();
          }
          return;
        }
        if (remaining >= 0) {
          bodyBytes += rest.length;
          remaining -= rest.length;
          if (remaining <= 0) finish();
        }
      });
      sock.once(tls ? 'secureConnect' : 'connect', () => resolve(conn));
      sock.on('error', (err) => {
        errors++;
        reject(err);
      });
    });
  const conns = await Promise.all(Array.from({ length: spec.connections }, open));

  const run = async (ms: number): Promise<void> => {
    const end = performance.now() + ms;
    if (spec.mode === 'closed') {
      await Promise.all(
        conns.map(
          (c) =>
            new Promise<void>((resolve) => {
              c.onDone = () => (performance.now() < end ? c.send(performance.now()) : resolve());
              c.send(performance.now());
            }),
        ),
      );
      return;
    }
    // Open loop: request i is due at start + i/rate on an idle connection; when none is idle it
    // waits, and its latency still counts from the time it was due (no coordinated omission).
    const interval = 1000 / (spec.rate ?? 1000);
    const idle = [...conns];
    const due: number[] = [];
    let busy = 0;
    let allSent = false;
    let drained: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (drained = resolve));
    const dispatch = (): void => {
      while (idle.length && due.length) {
        const c = idle.pop() as Conn;
        busy++;
        c.send(due.shift() as number);
      }
      if (allSent && busy === 0 && due.length === 0) drained();
    };
    for (const c of conns) {
      c.onDone = () => {
        busy--;
        idle.push(c);
        dispatch();
      };
    }
    const start = performance.now();
    for (let i = 0; ; i++) {
      const at = start + i * interval;
      if (at >= end) break;
      const wait = at - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      due.push(Math.min(at, performance.now()));
      dispatch();
    }
    allSent = true;
    dispatch();
    await done;
  };
  await run(1000);
  measuring = true;
  const t0 = performance.now();
  await run(spec.seconds * 1000);
  const seconds = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  const sorted = Float64Array.from(samples).sort();
  return { bytes, seconds, requests: samples.length, errors, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? 0 };
}

/** Runs one load in a child process (closed/open loops may POST a body). */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  // Start each load with a collected heap (the catalog was just stored in this process), so a
  // full GC of that garbage does not land inside a latency measurement.
  (globalThis as { gc?: () => void }).gc?.();
  const file = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--import', 'tsx', file, '--load', JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`load generator exited with ${String(code)}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as LoadResult;
}

// ---- servers ---------------------------------------------------------------------------------

/** The baseline: a socket server answering every request head with the file, piped from createReadStream. */
async function rawFileServer(path: string, size: number): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((sock) => {
    let pending = '';
    let busy = false;
    const serveNext = (): void => {
      const end = pending.indexOf('\r\n\r\n');
      if (busy || end < 0) return;
      pending = pending.slice(end + 4);
      busy = true;
      sock.write(`HTTP/1.1 200 OK\r\nContent-Type: application/jsonl\r\nContent-Length: ${size}\r\n\r\n`);
      const file = createReadStream(path, { highWaterMark: 1 << 20 });
      file.pipe(sock, { end: false });
      file.on('end', () => {
        busy = false;
        serveNext();
      });
    };
    sock.on('data', (d: Buffer) => {
      pending += d.toString('latin1');
      serveNext();
    });
    sock.on('error', () => sock.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}/file`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The generator's ceiling: every request head answered with `response` (status line, headers, body) from memory. */
async function trivialServer(response: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((sock) => {
    let pending = '';
    open.add(sock);
    sock.once('close', () => open.delete(sock));
    sock.setNoDelay(true);
    sock.on('data', (d: Buffer) => {
      pending += d.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        sock.write(response);
      }
    });
    sock.on('error', () => sock.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const c of open) c.destroy();
      }),
  };
}

/** One full keep-alive response of `url` (status line, headers, body) as the server sent it. */
async function rawResponse(url: string): Promise<Buffer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect({ host: u.hostname, port: Number(u.port) });
    let got = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /\r\ncontent-length: *(\d+)/i.exec(got.subarray(0, end).toString('latin1'));
      if (!m) reject(new Error(`no Content-Length from ${url}`));
      else if (got.length >= end + 4 + Number(m[1])) {
        sock.destroy();
        resolve(got.subarray(0, end + 4 + Number(m[1])));
      }
    });
    sock.on('error', reject);
    sock.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
  });
}

const mbps = (r: LoadResult): number => r.bytes / 1e6 / r.seconds;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

export async function benchCatalogServer(): Promise<Figure[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-catalog-server-'));
  const store = new LocalDirStore({ root: join(tmp, 'catalogs') });
  const stored = await store.store('certified', `sha256:${'c'.repeat(64)}`, CERTIFIED);
  const server = createCatalogServer({ store, registry: new Registry() });
  const { url } = await server.listen('127.0.0.1', 0);
  const uncached = createCatalogServer({ store, registry: new Registry(), metasCacheBytes: 0 });
  const { url: uncachedUrl } = await uncached.listen('127.0.0.1', 0);
  const raw = await rawFileServer(stored.jsonlPath, stored.size);
  const figures: Figure[] = [];
  try {
    const downloads = Math.max(8, Math.round((SECONDS * 300e6) / stored.size / 2));
    for (const connections of [1, 4]) {
      const ours: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < 3; i++) {
        base.push(mbps(await runLoad({ mode: 'download', url: raw.url, connections, downloads })));
        ours.push(mbps(await runLoad({ mode: 'download', url: `${url}/catalogs/certified/api/v1/all`, connections, downloads })));
      }
      const best = (xs: number[]): number => Math.max(...xs);
      figures.push(
        { name: `/api/v1/all, ${connections} connection(s), best of 3`, value: round(best(ours)), unit: 'MB/s', note: `${downloads} × ${(stored.size / 1e6).toFixed(1)} MB` },
        { name: `  baseline createReadStream → socket, ${connections} connection(s)`, value: round(best(base)), unit: 'MB/s' },
        { name: `  ratio server / baseline`, value: round(best(ours) / best(base), 2), unit: '×' },
      );
    }
    const query = `/catalogs/certified/api/v1/metas?schema=olm.bundle&package=${PACKAGE}`;
    const trivial = await trivialServer(await rawResponse(`${url}${query}`));
    const targets = [
      { label: 'catalog server', url: `${url}${query}` },
      { label: 'catalog server, metas cache off', url: `${uncachedUrl}${query}` },
      { label: 'baseline: trivial server, same bytes', url: `${trivial.url}${query}` },
    ];
    try {
      for (const t of targets) {
        const closed = await runLoad({ mode: 'closed', url: t.url, connections: CONNECTIONS, seconds: SECONDS });
        const bodyBytes = closed.requests ? Math.round(closed.bytes / closed.requests) : 0;
        figures.push(
          { name: `metas, ${CONNECTIONS} conns closed loop: ${t.label}`, value: Math.round(closed.requests / closed.seconds), unit: 'req/s', note: `${bodyBytes} B body, ${closed.errors} errors` },
          { name: '  latency p50 / p99', value: round(closed.p50 ?? 0, 2), unit: 'ms', note: `p99 ${round(closed.p99 ?? 0, 2)} ms` },
        );
      }
      for (const t of targets) {
        let best: { rate: number; r: LoadResult } | undefined;
        const steps: string[] = [];
        for (const rate of OPEN_LOOP_RATES) {
          // Two tries per step: the machine is shared, a stall of another process can spoil one.
          const ok = (x: LoadResult): boolean => x.errors === 0 && (x.p99 ?? Infinity) < P99_TARGET_MS;
          let r = await runLoad({ mode: 'open', url: t.url, connections: CONNECTIONS, seconds: STEP_SECONDS, rate });
          if (!ok(r)) r = await runLoad({ mode: 'open', url: t.url, connections: CONNECTIONS, seconds: STEP_SECONDS, rate });
          steps.push(`${rate}/s ${round(r.p50 ?? 0, 1)}/${round(r.p99 ?? 0, 1)}`);
          if (ok(r)) best = { rate, r };
          // Past saturation (the answers queue up): higher rates only queue more.
          if (r.requests / r.seconds < rate * 0.9) break;
        }
        figures.push({
          name: `metas, ${CONNECTIONS} conns open loop, highest rate with p99 < ${P99_TARGET_MS} ms: ${t.label}`,
          value: best ? Math.round(best.r.requests / best.r.seconds) : 0,
          unit: 'req/s',
          note: `p50/p99 ms per rate: ${steps.join(', ')}`,
        });
      }
    } finally {
      await trivial.close();
    }
  } finally {
    await raw.close();
    await server.close();
    await uncached.close();
    await rm(tmp, { recursive: true, force: true });
  }
  return figures;
}

if (process.argv[2] === '--load' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const spec = JSON.parse(process.argv[3] ?? '{}') as LoadSpec;
  const result = spec.mode === 'download' ? await download(spec) : await latency(spec);
  process.stdout.write(JSON.stringify(result) + '\n');
}
