// The registry client against a misbehaving network: a proxy in front of the real registry
// that tampers with bytes, resets connections mid-blob, throttles, demands Bearer or Basic
// auth, and redirects blobs to another origin.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DigestMismatchError, ImageError, parseDockerConfig } from '../../../internal/shared/image/index.ts';
import { registry } from '../../support/env.ts';
import { pushCatalogImage, type PushedImage } from '../../support/images.ts';
import { blobGets, isBlobGet, rejectionOf, sandbox, startProxy, startServer, type Sandbox, type TestServer } from './support.ts';

const FILES = { 'pkg/catalog.json': { schema: 'olm.package', name: 'pkg' }, 'pkg/big.txt': 'x'.repeat(300_000) };

let box: Sandbox;
const servers: TestServer[] = [];
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await box.cleanup();
});

async function track(p: Promise<TestServer>): Promise<TestServer> {
  const s = await p;
  servers.push(s);
  return s;
}

let counter = 0;
async function push(): Promise<PushedImage> {
  return pushCatalogImage(registry(), `it/net-${++counter}:v1`, { files: FILES }, { compression: 'none' });
}
const repoOf = (p: PushedImage): string => p.ref.slice(p.ref.indexOf('/') + 1);
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const unauthorized = (res: ServerResponse, challenge: string): true => {
  res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' });
  res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] }));
  return true;
};

describe('verification', () => {
  it('detects a tampered blob and keeps nothing', async () => {
    const pushed = await push();
    const layer = pushed.layers[0]?.digest ?? '';
    const proxy = await track(
      startProxy(registry().url, async (req, res, ctx) => {
        if (!isBlobGet(req) || !req.url?.endsWith(layer)) return false;
        const up = await ctx.forward();
        const body = Buffer.from(await up.body.arrayBuffer());
        const mid = body.length >> 1;
        body[mid] = (body[mid] ?? 0) ^ 0xff;
        res.writeHead(200, { 'content-length': String(body.length), 'content-type': 'application/octet-stream' });
        res.end(body);
        return true;
      }),
    );
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host] } });
    const err = await rejectionOf(puller.pull(`${proxy.host}/${repoOf(pushed)}`, { catalog: true }));
    expect(err).toBeInstanceOf(DigestMismatchError);
    expect(err.message).toMatch(new RegExp(`^blob ${proxy.host}/${repoOf(pushed).split(':')[0]}@${layer}: digest mismatch: expected ${layer}, got sha256:[a-f0-9]{64}$`));
    expect(err.terminal).toBe(false);
    expect(blobGets(proxy.seen).filter((s) => s.url.endsWith(layer))).toHaveLength(1); // not retried
    expect(await box.cacheContents()).toEqual([]);
  });

  it('detects a tampered manifest, by digest and against Docker-Content-Digest', async () => {
    const pushed = await push();
    const proxy = await track(
      startProxy(registry().url, async (req, res, ctx) => {
        if (!req.url?.includes('/manifests/')) return false;
        const up = await ctx.forward();
        const json = JSON.parse(await up.body.text()) as Record<string, unknown>;
        json.annotations = { injected: 'yes' };
        const body = Buffer.from(JSON.stringify(json));
        res.writeHead(200, {
          'content-type': String(up.headers['content-type']),
          'docker-content-digest': String(up.headers['docker-content-digest']),
          'content-length': String(body.length),
        });
        res.end(body);
        return true;
      }),
    );
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host] } });
    const name = `${proxy.host}/${repoOf(pushed).split(':')[0]}`;
    const byDigest = await rejectionOf(puller.pull(`${name}@${pushed.digest}`));
    expect(byDigest).toBeInstanceOf(DigestMismatchError);
    expect(byDigest.message).toMatch(new RegExp(`^manifest ${name}@${pushed.digest}: digest mismatch: expected ${pushed.digest}, got sha256:`));
    const byTag = await rejectionOf(puller.pull(`${name}:v1`));
    expect(byTag).toBeInstanceOf(DigestMismatchError);
    expect(byTag.message).toMatch(new RegExp(`^manifest ${name}:v1: digest mismatch: expected ${pushed.digest}, got sha256:`));
  });
});

describe('flaky connections', () => {
  /** Sends the headers and half the body, then drops the connection. */
  async function halfThenReset(req: IncomingMessage, res: ServerResponse, forward: () => ReturnType<typeof request>): Promise<void> {
    const up = await forward();
    const body = Buffer.from(await up.body.arrayBuffer());
    res.writeHead(200, { 'content-length': String(body.length), 'content-type': 'application/octet-stream' });
    await new Promise<void>((flushed) => res.write(body.subarray(0, body.length >> 1), () => flushed()));
    res.socket?.destroy();
    void req;
  }

  it('retries a blob whose connection is reset mid-way', async () => {
    const pushed = await push();
    const layer = pushed.layers[0]?.digest ?? '';
    let attempts = 0;
    const proxy = await track(
      startProxy(registry().url, async (req, res, ctx) => {
        if (!isBlobGet(req) || !req.url?.endsWith(layer) || ++attempts > 2) return false;
        await halfThenReset(req, res, ctx.forward);
        return true;
      }),
    );
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host], retryDelayMs: 10 } });
    const got = await puller.pull(`${proxy.host}/${repoOf(pushed)}`, { catalog: true });
    expect(got.digest).toBe(pushed.digest);
    expect(attempts).toBe(3);
  });

  it('gives up with a clear error when every attempt is reset', async () => {
    const pushed = await push();
    const layer = pushed.layers[0]?.digest ?? '';
    const proxy = await track(
      startProxy(registry().url, async (req, res, ctx) => {
        if (!isBlobGet(req) || !req.url?.endsWith(layer)) return false;
        await halfThenReset(req, res, ctx.forward);
        return true;
      }),
    );
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host], retries: 2, retryDelayMs: 10 } });
    const err = await rejectionOf(puller.pull(`${proxy.host}/${repoOf(pushed)}`, { catalog: true }));
    expect(err).toBeInstanceOf(ImageError);
    expect(err.code).toBe('RegistryUnavailable');
    expect(err.message).toMatch(new RegExp(`^blob ${proxy.host}/.*@${layer}: .*(terminated|other side closed|ECONNRESET).* \\(after 3 attempts\\)$`));
    expect(await box.cacheContents()).toEqual([]);
  });

  it('waits out a 429 with Retry-After and reports a registry that stays down', async () => {
    const pushed = await push();
    let throttled = 0;
    const proxy = await track(
      startProxy(registry().url, (req, res) => {
        if (req.url?.includes('/manifests/') && throttled++ === 0) {
          res.writeHead(429, { 'retry-after': '1' });
          res.end();
          return true;
        }
        return false;
      }),
    );
    const started = Date.now();
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host], retryDelayMs: 10 } });
    await puller.pull(`${proxy.host}/${repoOf(pushed)}`, { catalog: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    const down = await track(
      startServer((_req, res) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ code: 'UNAVAILABLE', message: 'maintenance' }] }));
      }),
    );
    const err = await rejectionOf(
      box.puller({ registry: { insecureRegistries: [down.host], retries: 1, retryDelayMs: 10 } }).pull(`${down.host}/x/y:v1`),
    );
    expect(err.message).toBe(`manifest ${down.host}/x/y:v1: unexpected HTTP status 503: UNAVAILABLE: maintenance`);
    expect(down.seen).toHaveLength(2);
  });
});

describe('shutdown', () => {
  it('close() stops a pull its caller gave up on and returns only once its temporary directory is gone', async () => {
    const pushed = await push();
    const layer = pushed.layers[0]?.digest ?? '';
    let stalled!: () => void;
    const reachedBlob = new Promise<void>((resolve) => (stalled = resolve));
    const proxy = await track(
      startProxy(registry().url, async (req, res, ctx) => {
        if (!isBlobGet(req) || !req.url?.endsWith(layer)) return false;
        const up = await ctx.forward();
        const body = Buffer.from(await up.body.arrayBuffer());
        // Half the blob, then nothing until the client goes away.
        res.writeHead(200, { 'content-length': String(body.length), 'content-type': 'application/octet-stream' });
        res.write(body.subarray(0, body.length >> 1));
        stalled();
        await new Promise<void>((resolve) => res.on('close', () => resolve()));
        return true;
      }),
    );
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host], retries: 0 } });
    const caller = new AbortController();
    const pulling = rejectionOf(puller.pull(`${proxy.host}/${repoOf(pushed)}`, { catalog: true, signal: caller.signal }));
    await reachedBlob;
    expect((await box.cacheContents()).filter((e) => e.startsWith('.tmp-'))).toHaveLength(1);
    caller.abort(new Error('the caller gave up'));
    expect((await pulling).message).toBe('the caller gave up');
    await puller.close();
    expect((await box.cacheContents()).filter((e) => e.startsWith('.tmp-'))).toEqual([]);
  });
});

describe('auth', () => {
  /** A proxy that wants `Bearer tok-<n>` tokens from its own /token endpoint, given Basic alice:s3cret. */
  async function bearerProxy(): Promise<{ proxy: TestServer; tokens: IncomingMessage[] }> {
    const tokens: IncomingMessage[] = [];
    let self = '';
    const proxy = await track(
      startProxy(registry().url, (req, res) => {
        if (req.url?.startsWith('/token')) {
          tokens.push(req);
          if (req.headers.authorization !== `Basic ${b64('alice:s3cret')}`) {
            res.writeHead(401, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'bad credentials' }] }));
            return true;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ token: `tok-${tokens.length}`, expires_in: 300 }));
          return true;
        }
        if (req.url?.startsWith('/v2/') && !/^Bearer tok-\d+$/.test(req.headers.authorization ?? '')) {
          const repo = /^\/v2\/(.+)\/(manifests|blobs)\//.exec(req.url)?.[1] ?? '';
          return unauthorized(res, `Bearer realm="${self}/token",service="test-proxy",scope="repository:${repo}:pull"`);
        }
        return false;
      }),
    );
    self = proxy.url;
    return { proxy, tokens };
  }

  it('answers a Bearer challenge with a token fetched with Basic credentials, and reuses it', async () => {
    const pushed = await push();
    const { proxy, tokens } = await bearerProxy();
    const credentials = parseDockerConfig({ auths: { [`http://${proxy.host}`]: { auth: b64('alice:s3cret') } } });
    const puller = box.puller({ registry: { insecureRegistries: [proxy.host], credentials } });
    const ref = `${proxy.host}/${repoOf(pushed)}`;
    const got = await puller.pull(ref, { catalog: true });
    expect(got.digest).toBe(pushed.digest);
    expect(tokens).toHaveLength(1);
    const q = new URL(tokens[0]?.url ?? '', proxy.url).searchParams;
    expect({ service: q.get('service'), scope: q.get('scope'), account: q.get('account') }).toEqual({
      service: 'test-proxy',
      scope: `repository:${repoOf(pushed).split(':')[0]}:pull`,
      account: 'alice',
    });
    await puller.delete(got.digest);
    await puller.pull(ref, { catalog: true });
    expect(tokens).toHaveLength(1); // the cached token served the second pull
  });

  it('explains a 401: no credentials, and credentials the token server refuses', async () => {
    const pushed = await push();
    const { proxy } = await bearerProxy();
    const ref = `${proxy.host}/${repoOf(pushed)}`;
    const anon = await rejectionOf(box.puller({ registry: { insecureRegistries: [proxy.host] } }).pull(ref));
    expect(anon.code).toBe('Unauthorized');
    const repo = repoOf(pushed).split(':')[0];
    expect(anon.message).toBe(
      `${proxy.host}/${repo} (${proxy.url}/v2/${repo}/manifests/v1): token request to ${proxy.url}/token answered 401: UNAUTHORIZED: bad credentials (no credentials are configured)`,
    );
    const wrong = parseDockerConfig({ auths: { [proxy.host]: { username: 'alice', password: 'nope' } } });
    const bad = await rejectionOf(box.puller({ registry: { insecureRegistries: [proxy.host] } }).pull(ref, { credentials: wrong }));
    expect(bad.message).toMatch(/answered 401: UNAUTHORIZED: bad credentials \(the configured credentials were not accepted\)$/);
  });

  it('answers a Basic challenge with Basic credentials', async () => {
    const pushed = await push();
    const proxy = await track(
      startProxy(registry().url, (req, res) => {
        if (req.headers.authorization !== `Basic ${b64('bob:pw')}`) return unauthorized(res, 'Basic realm="test"');
        return false;
      }),
    );
    const ref = `${proxy.host}/${repoOf(pushed)}`;
    const creds = parseDockerConfig({ auths: { [proxy.host]: { auth: b64('bob:pw') } } });
    const got = await box.puller({ registry: { insecureRegistries: [proxy.host], credentials: creds } }).pull(ref, { catalog: true });
    expect(got.digest).toBe(pushed.digest);
    const anon = await rejectionOf(box.puller({ registry: { insecureRegistries: [proxy.host] } }).pull(ref));
    expect(anon.message).toMatch(new RegExp(`401 Unauthorized \\(the registry wants Basic credentials; none are configured for ${proxy.host}\\)$`));
  });

  it('follows a blob redirect to another origin without sending the Authorization header there', async () => {
    const pushed = await push();
    const reg = registry();
    const cdn = await track(
      startServer(async (req, res) => {
        const digest = req.url?.split('/').pop() ?? '';
        const repo = repoOf(pushed).split(':')[0];
        const up = await request(`${reg.url}/v2/${repo}/blobs/${digest}`);
        res.writeHead(up.statusCode, { 'content-length': String(up.headers['content-length']) });
        for await (const c of up.body) res.write(c);
        res.end();
      }),
    );
    const { proxy, tokens } = await bearerProxy();
    const redirecting = await track(
      startProxy(proxy.url, (req, res) => {
        if (!isBlobGet(req)) return false;
        res.writeHead(307, { location: `${cdn.url}/cdn/${req.url?.split('/').pop()}` });
        res.end();
        return true;
      }),
    );
    // The redirecting front shares the bearer proxy's token endpoint (realm points at it).
    const credentials = parseDockerConfig({ auths: { [redirecting.host]: { auth: b64('alice:s3cret') }, [proxy.host]: { auth: b64('alice:s3cret') } } });
    const puller = box.puller({ registry: { insecureRegistries: [redirecting.host, proxy.host, cdn.host], credentials } });
    const got = await puller.pull(`${redirecting.host}/${repoOf(pushed)}`, { catalog: true });
    expect(got.digest).toBe(pushed.digest);
    expect(tokens.length).toBeGreaterThan(0);
    const toFront = blobGets(redirecting.seen);
    expect(toFront.length).toBe(2);
    expect(toFront.every((s) => s.authorization?.startsWith('Bearer '))).toBe(true);
    expect(cdn.seen).toHaveLength(2);
    expect(cdn.seen.every((s) => s.authorization === undefined)).toBe(true);
  });
});
