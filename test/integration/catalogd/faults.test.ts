// Registry faults under catalogd: a registry that wants a token (401 → token flow with the
// global pull secret), a missing manifest, a connection reset in the middle of a blob and a
// blob with the wrong digest. Each shows up as Progressing=Retrying with a clear message, is
// retried with backoff, and the content served before keeps being served until the fault heals.
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../../internal/shared/toolkit/index.ts';
import { adminKube, registry } from '../../support/env.ts';
import { pushCatalogImage, type PushedImage, type RegistryLike } from '../../support/images.ts';
import { waitFor } from '../../support/net.ts';
import { Registry, type RegistryInfo } from '../../support/registry.ts';
import { isBlobGet, startProxy, startServer, type ProxyContext, type TestServer } from '../image/support.ts';
import {
  condition,
  createCatalog,
  deleteCatalogs,
  fbc,
  fetchBlobs,
  progressing,
  releaseFinalizers,
  serving,
  uniqueName,
  waitForCatalog,
} from './catalogs.ts';
import { startCatalogd, stopAll } from './harness.ts';

// ---- A registry with `auth: token:` and its token server (see test/integration/image/token-auth.test.ts)

const SERVICE = 'catalogd-test-registry';
const ISSUER = 'catalogd-test-issuer';
const KID = 'catalogd-test-key';
const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

function jwt(key: KeyObject, subject: string, access: { type: string; name: string; actions: string[] }[]): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: KID }));
  const claims = b64url(JSON.stringify({ iss: ISSUER, sub: subject, aud: SERVICE, exp: now + 300, nbf: now - 10, iat: now, jti: randomBytes(8).toString('hex'), access }));
  const signature = sign('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${header}.${claims}.${b64url(signature)}`;
}

let keyDir: string;
let tokenServer: TestServer;
let authRegistry: Registry;
let authReg: RegistryInfo;
let pushAs: RegistryLike;

async function startTokenRegistry(): Promise<void> {
  keyDir = await mkdtemp(join(tmpdir(), 'catalogd-token-'));
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writeFile(join(keyDir, 'jwks.json'), JSON.stringify({ keys: [{ ...pair.publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'ES256' }] }));
  tokenServer = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const [scheme, value] = (req.headers.authorization ?? '').split(' ');
    const [user, password] = scheme === 'Basic' ? Buffer.from(value ?? '', 'base64').toString().split(':') : [];
    if (user !== 'alice' || password !== 'alice-pw') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'invalid username or password' }] }));
      return;
    }
    const access = url.searchParams.getAll('scope').map((s) => {
      const [type = '', name = '', actions = ''] = s.split(':');
      return { type, name, actions: actions.split(',') };
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: jwt(pair.privateKey, user, access), expires_in: 300 }));
  });
  authRegistry = new Registry({
    extraConfig: ['auth:', '  token:', `    realm: ${tokenServer.url}/token`, `    service: ${SERVICE}`, `    issuer: ${ISSUER}`, `    jwks: ${join(keyDir, 'jwks.json')}`].join('\n'),
  });
  authReg = await authRegistry.start();
  pushAs = { ...authReg, headers: { authorization: `Bearer ${jwt(pair.privateKey, 'pusher', [{ type: 'repository', name: 'secure/catalog', actions: ['pull', 'push'] }])}` } };
}

// ---- A proxy in front of the shared registry whose faults are switched per repository

type Fault = 'reset' | 'tamper';
const faults = new Map<string, { fault: Fault; layer: string }>();
const badLayerGets = new Map<string, number>();
let proxy: TestServer;
/** The shared registry again, on a host catalogd is not told is plain HTTP: it speaks TLS to it. */
let plainProxy: TestServer;

async function faulty(req: IncomingMessage, res: ServerResponse, ctx: ProxyContext): Promise<boolean> {
  if (!isBlobGet(req)) return false;
  const hit = [...faults.entries()].find(([repo, f]) => req.url?.startsWith(`/v2/${repo}/blobs/`) && req.url.endsWith(f.layer));
  if (!hit) return false;
  const [repo, { fault }] = hit;
  badLayerGets.set(repo, (badLayerGets.get(repo) ?? 0) + 1);
  const up = await ctx.forward();
  const body = Buffer.from(await up.body.arrayBuffer());
  res.writeHead(200, { 'content-length': String(body.length), 'content-type': 'application/octet-stream' });
  if (fault === 'tamper') {
    const mid = body.length >> 1;
    body[mid] = (body[mid] ?? 0) ^ 0xff;
    res.end(body);
  } else {
    await new Promise<void>((flushed) => res.write(body.subarray(0, body.length >> 1), () => flushed()));
    res.socket?.destroy(); // the connection drops in the middle of the blob
  }
  return true;
}

const NAMESPACE = `catalogd-faults-${Math.random().toString(36).slice(2, 7)}`;
const SECRET = 'global-pull-secret';
const created = new Set<string>();

beforeAll(async () => {
  await startTokenRegistry();
  proxy = await startProxy(registry().url, faulty);
  plainProxy = await startProxy(registry().url);
  await adminKube().must(adminKube().request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
  await startCatalogd({
    options: {
      insecureRegistries: [registry().host, proxy.host, authReg.host],
      globalPullSecret: { namespace: NAMESPACE, name: SECRET },
    },
  });
});

afterAll(async () => {
  await deleteCatalogs(created);
  await stopAll();
  await releaseFinalizers();
  await adminKube().request('DELETE', `/api/v1/namespaces/${NAMESPACE}`);
  await proxy?.close();
  await plainProxy?.close();
  await authRegistry?.stop();
  await tokenServer?.close();
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
});

async function newCatalog(prefix: string, image: { ref: string; pollIntervalMinutes?: number }): Promise<string> {
  const name = uniqueName(prefix);
  created.add(name);
  await createCatalog(name, image);
  return name;
}

const blobsOf = (files: Record<string, object>): object[] =>
  Object.keys(files)
    .sort()
    .map((k) => files[k]!);
/** Makes the content layer big enough (~300 kB) to be cut in the middle: a long package description. */
function padded(files: Record<string, object>, fill: string): Record<string, object> {
  const key = Object.keys(files).find((k) => k.endsWith('/catalog.json'))!;
  return { ...files, [key]: { ...files[key], description: fill.repeat(300_000) } };
}
const viaProxy = (p: PushedImage): string => p.digestRef.replace(registry().host, proxy.host);

describe('a registry that wants a token', () => {
  it('is Retrying with the 401 explained until the global pull secret exists, then serves', async () => {
    const files = fbc('secure', ['1.0.0']);
    const pushed = await pushCatalogImage(pushAs, 'secure/catalog:v1', { files });
    const name = await newCatalog('token', { ref: `${authReg.host}/secure/catalog:v1` });
    const unauthorized = await waitForCatalog(name, 'Retrying on 401', progressing('Retrying', /^source catalog content: .*answered 401: UNAUTHORIZED: invalid username or password \(no credentials are configured\)$/));
    expect(condition(unauthorized, 'Serving')).toBeUndefined();

    const auth = Buffer.from('alice:alice-pw').toString('base64');
    await adminKube().must(
      adminKube().request('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: SECRET },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { [authReg.host]: { auth } } })).toString('base64') },
      }),
    );
    const ok = await waitForCatalog(name, 'Serving', serving);
    expect(ok.status?.resolvedSource?.image.ref).toBe(`${authReg.host}/secure/catalog@${pushed.digest}`);
    expect(await fetchBlobs(ok.status!.urls!.base)).toEqual(blobsOf(files));
  });
});

describe('a plain-HTTP registry the catalog is not marked insecure for', () => {
  it('is Retrying with Go’s one line, server gave HTTP response to HTTPS client (no TLS-library text)', async () => {
    const pushed = await pushCatalogImage(registry(), 'catalogd/plain-http:v1', { files: fbc('plainhttp', ['1.0.0']) });
    const name = await newCatalog('plain-http', { ref: pushed.digestRef.replace(registry().host, plainProxy.host) });
    const c = await waitForCatalog(name, 'Retrying', progressing('Retrying', /server gave HTTP response to HTTPS client/));
    const message = condition(c, 'Progressing')?.message ?? '';
    // Upstream (containers/image over Go's net/http) ends its message the same way.
    expect(message).toMatch(/^source catalog content: .*: http: server gave HTTP response to HTTPS client$/);
    expect(message).not.toMatch(/\n|SSL|ssl_|\.c:\d+|wrong version number/);
    expect(condition(c, 'Serving')).toBeUndefined();
  });
});

describe('a missing manifest', () => {
  it('is Retrying with a not-found message', async () => {
    const name = await newCatalog('missing', { ref: `${registry().host}/catalogd/never-pushed:v1` });
    const c = await waitForCatalog(name, 'Retrying', progressing('Retrying', /^source catalog content: manifest .*never-pushed.*not found/));
    expect(condition(c, 'Progressing')?.status).toBe('True');
    expect(condition(c, 'Serving')).toBeUndefined();
  });
});

describe.each([
  { fault: 'reset' as const, says: /^source catalog content: blob .*: .*(terminated|other side closed|ECONNRESET|socket)/ },
  { fault: 'tamper' as const, says: /^source catalog content: blob .*: digest mismatch: expected sha256:[a-f0-9]{64}, got sha256:[a-f0-9]{64}$/ },
])('a blob fault ($fault) while polling a new digest', ({ fault, says }) => {
  it('is Retrying with backoff while the previous content stays served, and recovers', async () => {
    const repo = `catalogd/fault-${fault}`;
    const v1 = padded(fbc(`f${fault}`, ['1.0.0']), 'x');
    const first = await pushCatalogImage(registry(), `${repo}:latest`, { files: v1 }, { compression: 'none' });
    const name = await newCatalog(`fault-${fault}`, { ref: `${proxy.host}/${repo}:latest`, pollIntervalMinutes: 1 });
    const served = await waitForCatalog(name, 'Serving', serving);
    expect(served.status?.resolvedSource?.image.ref).toBe(viaProxy(first));

    const v2 = padded(fbc(`f${fault}`, ['1.0.0', '1.1.0']), 'y');
    const second = await pushCatalogImage(registry(), `${repo}:latest`, { files: v2 }, { compression: 'none' });
    faults.set(repo, { fault, layer: second.layers[0]!.digest });
    const failing = await waitForCatalog(name, 'Retrying', progressing('Retrying', says), 20_000);
    expect(condition(failing, 'Serving')).toMatchObject({ status: 'True', reason: 'Available' });
    expect(failing.status?.resolvedSource?.image.ref).toBe(viaProxy(first));
    expect(await fetchBlobs(failing.status!.urls!.base)).toEqual(blobsOf(v1));

    // Still retrying: the next GET of the bad layer. With backoff: few GETs in a window of at least 3 s (the window is
    // the measure of the rate, so it is waited out).
    const seen = badLayerGets.get(repo) ?? 0;
    const windowEnds = Date.now() + 3000;
    await waitFor(`catalogd to ask for ${repo}'s bad layer again`, async () => (badLayerGets.get(repo) ?? 0) > seen, { timeoutMs: 20_000, intervalMs: 20 });
    await sleep(Math.max(0, windowEnds - Date.now()));
    const more = (badLayerGets.get(repo) ?? 0) - seen;
    expect(more).toBeGreaterThanOrEqual(1); // still retrying …
    expect(more).toBeLessThan(20); // … with backoff, not in a hot loop

    faults.delete(repo);
    const healed = await waitForCatalog(name, 'on the new digest', (c) => c.status?.resolvedSource?.image.ref === viaProxy(second) && progressing('Succeeded')(c), 20_000);
    expect(await fetchBlobs(healed.status!.urls!.base)).toEqual(blobsOf(v2));
  });
});
