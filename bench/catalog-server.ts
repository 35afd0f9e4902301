// catalogd's catalog server over loopback, the certified catalog stored by LocalDirStore:
//  - `/api/v1/all` without gzip, downloaded back to back on keep-alive connections, in MB/s;
//    baseline in the same run: a bare socket server piping fs.createReadStream of the same file
//  - `/api/v1/metas?schema=olm.bundle&package=…` with 200 keep-alive connections: closed loop
//    (every connection always busy: requests/s, p50/p99) and open loop at a fixed rate
//    (latency from the scheduled send time, so a stall is not hidden)
// The load runs in a child process (this file with `--load`) so client and server do not share
// an event loop. BENCH_CATALOG_SERVER_SECONDS sets the measuring time per load (default 5).
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { Client, Pool } from 'undici';
import { createCatalogServer } from '../internal/catalogd/server/index.ts';
import { LocalDirStore } from '../internal/catalogd/storage/index.ts';
import type { Figure } from './control-plane.ts';

const SHARED = process.env.OLM_SHARED_DIR ?? '/work/shared';
const CERTIFIED = join(SHARED, 'catalogs', 'certified-operators-v4.21');
const PACKAGE = 'openshift-fusion-access-operator';
const SECONDS = Number(process.env.BENCH_CATALOG_SERVER_SECONDS ?? 5);
const CONNECTIONS = 200;
const OPEN_LOOP_RATE = 2000;

type LoadSpec =
  | { mode: 'download'; url: string; connections: number; downloads: number }
  | { mode: 'closed' | 'open'; url: string; connections: number; seconds: number; rate?: number };

interface LoadResult {
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
  const clients = Array.from({ length: spec.connections }, () => new Client(u.origin));
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

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function latency(spec: Extract<LoadSpec, { mode: 'closed' | 'open' }>): Promise<LoadResult> {
  const u = new URL(spec.url);
  const pool = new Pool(u.origin, { connections: spec.connections, pipelining: 1 });
  const path = u.pathname + u.search;
  const samples: number[] = [];
  let bytes = 0;
  let errors = 0;
  let measuring = false;
  const one = async (scheduled: number): Promise<void> => {
    try {
      const res = await pool.request({ path, method: 'GET' });
      let n = 0;
      for await (const chunk of res.body) n += (chunk as Buffer).length;
      if (res.statusCode !== 200) errors++;
      if (measuring) {
        samples.push(performance.now() - scheduled);
        bytes += n;
      }
    } catch {
      errors++;
    }
  };
  // Open every connection first, then warm up for a second.
  await Promise.all(Array.from({ length: spec.connections }, () => one(performance.now())));
  const run = async (ms: number): Promise<void> => {
    const end = performance.now() + ms;
    if (spec.mode === 'closed') {
      await Promise.all(
        Array.from({ length: spec.connections }, async () => {
          while (performance.now() < end) await one(performance.now());
        }),
      );
      return;
    }
    const interval = 1000 / (spec.rate ?? 1000);
    const start = performance.now();
    const inflight = new Set<Promise<void>>();
    for (let i = 0; ; i++) {
      const at = start + i * interval;
      if (at >= end) break;
      const wait = at - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      // Latency counts from the scheduled time when sending late (no coordinated omission), from the send when early.
      const p = one(Math.max(at, performance.now())).finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
  };
  await run(1000);
  measuring = true;
  const t0 = performance.now();
  await run(spec.seconds * 1000);
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  const sorted = Float64Array.from(samples).sort();
  return { bytes, seconds, requests: samples.length, errors, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? 0 };
}

async function runLoad(spec: LoadSpec): Promise<LoadResult> {
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

const mbps = (r: LoadResult): number => r.bytes / 1e6 / r.seconds;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

export async function benchCatalogServer(): Promise<Figure[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-catalog-server-'));
  const store = new LocalDirStore({ root: join(tmp, 'catalogs') });
  const stored = await store.store('certified', `sha256:${'c'.repeat(64)}`, CERTIFIED);
  const server = createCatalogServer({ store, registry: new Registry() });
  const { url } = await server.listen('127.0.0.1', 0);
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
    const metas = `${url}/catalogs/certified/api/v1/metas?schema=olm.bundle&package=${PACKAGE}`;
    const closed = await runLoad({ mode: 'closed', url: metas, connections: CONNECTIONS, seconds: SECONDS });
    const bodyBytes = closed.requests ? Math.round(closed.bytes / closed.requests) : 0;
    figures.push(
      { name: `metas ${PACKAGE} bundles, ${CONNECTIONS} conns closed loop`, value: Math.round(closed.requests / closed.seconds), unit: 'req/s', note: `${bodyBytes} B body, ${closed.errors} errors` },
      { name: '  latency p50', value: round(closed.p50 ?? 0, 2), unit: 'ms' },
      { name: '  latency p99', value: round(closed.p99 ?? 0, 2), unit: 'ms' },
    );
    const open = await runLoad({ mode: 'open', url: metas, connections: CONNECTIONS, seconds: SECONDS, rate: OPEN_LOOP_RATE });
    figures.push(
      { name: `metas, ${CONNECTIONS} conns open loop at ${OPEN_LOOP_RATE} req/s`, value: Math.round(open.requests / open.seconds), unit: 'req/s', note: `${open.errors} errors` },
      { name: '  latency p50', value: round(open.p50 ?? 0, 2), unit: 'ms' },
      { name: '  latency p99', value: round(open.p99 ?? 0, 2), unit: 'ms' },
      { name: '  latency max', value: round(open.max ?? 0, 2), unit: 'ms' },
    );
  } finally {
    await raw.close();
    await server.close();
    await rm(tmp, { recursive: true, force: true });
  }
  return figures;
}

if (process.argv[2] === '--load' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const spec = JSON.parse(process.argv[3] ?? '{}') as LoadSpec;
  const result = spec.mode === 'download' ? await download(spec) : await latency(spec);
  process.stdout.write(JSON.stringify(result) + '\n');
}
