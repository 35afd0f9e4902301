// The connection layer against the real kube-apiserver: keep-alive reuse and credential rotation; and against
// servers that misbehave in ways the API server will not on request (silent, slow, several Warning headers).
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { KubeClient, NetworkError, type ApiWarning } from '../../../internal/shared/kube/index.ts';
import { ManualClock } from '../../../internal/shared/toolkit/index.ts';
import { kubeconfig } from '../../support/control-plane.ts';
import { controlPlane } from '../../support/env.ts';
import { freePort, sleep } from '../../support/net.ts';
import { kubeconfigFile } from './helpers.ts';
import { TcpProxy } from './tcp-proxy.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'transport-'));
});

async function whoAmI(client: KubeClient): Promise<string> {
  const review: KubeObject = await client.create({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });
  return (review['status'] as { userInfo: { username: string } }).userInfo.username;
}

/** A kubeconfig whose user reads its bearer token from `tokenPath` (kubeconfig `tokenFile`). */
async function tokenFileKubeconfig(tokenPath: string): Promise<string> {
  const path = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  const text = kubeconfig(controlPlane().server, controlPlane().caPem, 'unused').replace('    token: unused', `    tokenFile: ${tokenPath}`);
  await writeFile(path, text);
  return path;
}

describe('connection', () => {
  const proxies: TcpProxy[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
  });

  it('keeps reusing its keep-alive connections instead of opening one per request', async () => {
    const proxy = await TcpProxy.start(await freePort(), Number(new URL(controlPlane().server).port));
    proxies.push(proxy);
    const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(controlPlane(), controlPlane().adminToken, `https://127.0.0.1:${proxy.port}`) });
    await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' }); // discovery + get
    // A second socket may open when a request follows a large body at once; after that, none.
    const warm = proxy.accepted;
    expect(warm).toBeLessThanOrEqual(2);
    for (let i = 0; i < 30; i++) await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' });
    await client.list({ apiVersion: 'v1', kind: 'Namespace' });
    expect(proxy.accepted).toBe(warm);
    await client.close();
  });

  it('picks up a rotated token file on the next refresh', async () => {
    const tokenPath = join(dir, 'rotating-token');
    await writeFile(tokenPath, `${controlPlane().userTokens.alice}\n`);
    const clock = new ManualClock();
    const client = await KubeClient.fromConfig({ kubeconfig: await tokenFileKubeconfig(tokenPath), refreshMs: 500, clock });
    expect(await whoAmI(client)).toBe('alice');
    await writeFile(tokenPath, controlPlane().userTokens.bob);
    expect(await whoAmI(client)).toBe('alice'); // read less than refreshMs ago: not read again
    clock.advance(600);
    expect(await whoAmI(client)).toBe('bob');
    await client.close();
  });

  it('re-reads credentials at once and retries when the server answers 401', async () => {
    const tokenPath = join(dir, 'stale-token');
    await writeFile(tokenPath, 'a-token-the-server-does-not-know');
    const client = await KubeClient.fromConfig({ kubeconfig: await tokenFileKubeconfig(tokenPath) }); // refresh: 60 s
    await writeFile(tokenPath, controlPlane().userTokens.carol);
    expect(await whoAmI(client)).toBe('carol');
    await client.close();
  });

  /** A plain-HTTP server on 127.0.0.1 answering with `handler`; closed after the test. */
  async function httpServer(handler: Parameters<typeof createHttpServer>[1]): Promise<{ server: Server; url: string }> {
    const server = createHttpServer(handler);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
  }
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  it('a server that accepts and stays silent: a retryable NetworkError naming the request once the timeout passes', async () => {
    const silent = createTcpServer(() => undefined).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as { port: number }).port;
    const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(controlPlane(), 'x', `http://127.0.0.1:${port}`), requestTimeoutMs: 300 });
    const err = await client.connection.request({ method: 'GET', path: '/api/v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ETIMEDOUT', retryable: true, message: 'GET /api/v1: no answer from the server for 0.3s' });
    await client.close();
    silent.close();
  });

  it('a body that stops half way: the same timeout, not a hang', async () => {
    const { url } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"kind":');
    });
    const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(controlPlane(), 'x', url), requestTimeoutMs: 300 });
    const err = await client.connection.request({ method: 'GET', path: '/api/v1' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'NetworkError', code: 'ETIMEDOUT', message: 'GET /api/v1: no answer from the server for 0.3s' });
    await client.close();
  });

  it('a connection reset half way through a body: a NetworkError for that request, and the process lives on', async () => {
    const { url } = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"kind":', () => res.socket?.resetAndDestroy()); // once the first part is sent
    });
    const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(controlPlane(), 'x', url) });
    const err = await client.connection.request({ method: 'GET', path: '/api/v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toMatch(/^GET \/api\/v1: (aborted|read ECONNRESET)$/);
    await sleep(100); // a second error event from the same socket would have crashed the process by now
    await client.close();
  });

  it('a watch may stay silent longer than the request timeout', async () => {
    const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath, requestTimeoutMs: 300 });
    const started = performance.now();
    for await (const e of client.watch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-public' }, { timeoutSeconds: 1, allowWatchBookmarks: false })) expect(e.type).toBe('ADDED');
    // The API server ends the watch after timeoutSeconds: nothing was cut at 300 ms.
    expect(performance.now() - started).toBeGreaterThan(900);
    await client.close();
  });

  it('hands every Warning header to the handler, one by one', async () => {
    const { url } = await httpServer((_req, res) => {
      res.setHeader('warning', ['299 - "first, with a comma"', '299 - "second"']);
      res.setHeader('content-type', 'application/json');
      res.end('{"kind":"APIResourceList","resources":[]}');
    });
    const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(controlPlane(), 'x', url) });
    const seen: ApiWarning[] = [];
    await client.connection.request({ method: 'GET', path: '/api/v1', onWarning: (w) => seen.push(w) });
    expect(seen.map((w) => w.text)).toEqual(['first, with a comma', 'second']);
    await client.close();
  });

  it('close() lets a request in flight finish, then refuses new ones', async () => {
    let arrived!: () => void;
    const asked = new Promise<void>((r) => (arrived = r));
    const { url } = await httpServer((_req, res) => {
      arrived();
      setTimeout(() => res.end('{"kind":"APIResourceList","resources":[]}'), 200); // a slow answer
    });
    const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(controlPlane(), 'x', url) });
    const inFlight = client.connection.request<{ kind: string }>({ method: 'GET', path: '/api/v1' });
    await asked; // the request is in flight
    const closed = client.close();
    expect((await inFlight).kind).toBe('APIResourceList');
    await closed;
    await expect(client.connection.request({ method: 'GET', path: '/api/v1' })).rejects.toThrow('kube connection is closed');
  });
});
