// Helpers for the image integration tests: a programmable HTTP proxy in front of the real
// registry (to tamper with blobs, reset connections, demand auth, redirect), and a sandbox
// directory with a puller whose cache lives inside it.
import { mkdtemp, readdir, readFile, readlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { forceRemove } from '../../../internal/shared/image/index.ts';
import { CachingImagePuller, type CachingImagePullerOptions } from '../../../internal/shared/image/index.ts';

export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
}

export interface ProxyContext {
  /** Forwards the request to the target and returns the upstream response (body unread). */
  forward(): Promise<Dispatcher.ResponseData>;
  /** Sends an upstream response on unchanged. */
  relay(up: Dispatcher.ResponseData): Promise<void>;
  readonly seen: readonly Seen[];
}

/** Returns true when it answered the request itself. */
export type ProxyHook = (req: IncomingMessage, res: ServerResponse, ctx: ProxyContext) => Promise<boolean> | boolean;

export interface TestServer {
  readonly host: string;
  readonly url: string;
  readonly seen: Seen[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade', 'proxy-connection']);

async function listen(server: Server): Promise<{ host: string; url: string }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { host: `127.0.0.1:${port}`, url: `http://127.0.0.1:${port}` };
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** A small HTTP server; `handler` answers every request. */
export async function startServer(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => Promise<void> | void): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    Promise.resolve(handler(req, res, seen)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  const addr = await listen(server);
  return { ...addr, seen, close: closer(server) };
}

/** A proxy to `target` (http://host:port); `hook` may answer any request itself. */
export async function startProxy(target: string, hook?: ProxyHook): Promise<TestServer> {
  return startServer(async (req, res, seen) => {
    const forward = async (): Promise<Dispatcher.ResponseData> => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && typeof v === 'string') headers[k] = v;
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      return request(`${target}${req.url ?? '/'}`, {
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers,
        ...(hasBody ? { body: req } : {}),
      });
    };
    const relay = async (up: Dispatcher.ResponseData): Promise<void> => {
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
      res.writeHead(up.statusCode, headers);
      for await (const chunk of up.body) res.write(chunk);
      res.end();
    };
    const ctx: ProxyContext = { forward, relay, seen };
    if (hook && (await hook(req, res, ctx))) return;
    await relay(await forward());
  });
}

export const isBlobGet = (req: IncomingMessage): boolean => req.method === 'GET' && /\/blobs\/sha256:[a-f0-9]{64}$/.test(req.url ?? '');
export const blobGets = (seen: readonly Seen[]): Seen[] => seen.filter((s) => s.method === 'GET' && s.url.includes('/blobs/'));

export interface Sandbox {
  /** A directory that holds only `cache` (the puller's cache) unless something escaped. */
  readonly dir: string;
  readonly cacheDir: string;
  puller(options?: Omit<CachingImagePullerOptions, 'cacheDir'>): CachingImagePuller;
  /** Names in the sandbox (expected: ['cache']). */
  contents(): Promise<string[]>;
  /** Names in the cache directory. */
  cacheContents(): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function sandbox(): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'image-it-'));
  const cacheDir = join(dir, 'cache');
  const pullers: CachingImagePuller[] = [];
  return {
    dir,
    cacheDir,
    puller: (options = {}) => {
      const p = new CachingImagePuller({ cacheDir, ...options });
      pullers.push(p);
      return p;
    },
    contents: async () => (await readdir(dir)).sort(),
    cacheContents: async () => (await readdir(cacheDir).catch(() => [] as string[])).sort(),
    cleanup: async () => {
      for (const p of pullers) await p.close();
      await forceRemove(dir);
    },
  };
}

/** A pulled directory's files by relative path: a file's text, a symlink as `-> <target>`. */
export async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isSymbolicLink()) out[r] = `-> ${await readlink(join(dir, d.name))}`;
      else if (d.isDirectory()) await walk(join(dir, d.name), r);
      else out[r] = await readFile(join(dir, d.name), 'utf8');
    }
  };
  await walk(root, '');
  return out;
}

/** Catches a rejection so a test can look at it. */
export async function rejectionOf(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected the promise to reject');
}
