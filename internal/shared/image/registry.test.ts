// URL and protocol rules of the registry client that need an https registry (the local test
// registry is plain http): undici's MockAgent stands in for the network. Everything else is
// tested against the real registry in test/integration/image.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDockerConfig } from './auth.ts';
import { sha256 } from './digest.ts';
import { MediaTypes } from './media-types.ts';
import { parseReference } from './reference.ts';
import { RegistryClient, type Descriptor } from './registry.ts';

let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  await agent.close();
});

const ref = parseReference('reg.example/ns/app:v1');
const blob = Buffer.from('layer bytes');
const blobDesc: Descriptor = { mediaType: MediaTypes.ociLayerGzip, digest: sha256(blob), size: blob.length };
const manifest = Buffer.from(
  JSON.stringify({
    schemaVersion: 2,
    mediaType: MediaTypes.ociManifest,
    config: { mediaType: MediaTypes.ociConfig, digest: sha256('{}'), size: 2 },
    layers: [blobDesc],
  }),
);

async function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a failure');
}

describe('RegistryClient (https, mocked network)', () => {
  it('resolves a tag over https and checks Docker-Content-Digest', async () => {
    const pool = agent.get('https://reg.example');
    pool
      .intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' })
      .reply(200, manifest, { headers: { 'content-type': MediaTypes.ociManifest, 'docker-content-digest': sha256(manifest) } });
    pool
      .intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' })
      .reply(200, manifest, { headers: { 'content-type': MediaTypes.ociManifest, 'docker-content-digest': sha256('other') } });
    const client = new RegistryClient({ dispatcher: agent });
    const got = await client.resolve(ref);
    expect(got.digest).toBe(sha256(manifest));
    expect(got.manifest.layers).toEqual([blobDesc]);
    const err = await failure(client.resolve(ref));
    expect(err.code).toBe('DigestMismatch');
    expect(err.message).toBe(`manifest reg.example/ns/app:v1: digest mismatch: expected ${sha256('other')}, got ${sha256(manifest)}`);
  });

  it('refuses Docker schema 1 and oversized manifests', async () => {
    const pool = agent.get('https://reg.example');
    pool
      .intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' })
      .reply(200, JSON.stringify({ schemaVersion: 1, name: 'ns/app' }), { headers: { 'content-type': MediaTypes.dockerSchema1Signed } });
    pool.intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' }).reply(200, Buffer.alloc(5 << 20, 0x20));
    const client = new RegistryClient({ dispatcher: agent });
    expect((await failure(client.resolve(ref))).message).toBe('manifest reg.example/ns/app:v1: Docker schema 1 manifests are not supported');
    expect((await failure(client.resolve(ref))).message).toBe('manifest reg.example/ns/app:v1 is larger than 4194304 bytes');
  });

  it('follows a blob redirect to https storage but refuses one to plain http', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'registry-test-'));
    try {
      const pool = agent.get('https://reg.example');
      pool.intercept({ path: `/v2/ns/app/blobs/${blobDesc.digest}`, method: 'GET' }).reply(307, '', { headers: { location: 'https://cdn.example/b?sig=1' } });
      agent.get('https://cdn.example').intercept({ path: '/b?sig=1', method: 'GET' }).reply(200, blob);
      pool.intercept({ path: `/v2/ns/app/blobs/${blobDesc.digest}`, method: 'GET' }).reply(302, '', { headers: { location: 'http://cdn.example/b' } });
      const client = new RegistryClient({ dispatcher: agent });
      await client.downloadBlob(ref, blobDesc, join(dir, 'b'));
      expect(await readFile(join(dir, 'b'))).toEqual(blob);
      const err = await failure(client.downloadBlob(ref, blobDesc, join(dir, 'c')));
      expect(err.code).toBe('InsecureRegistry');
      expect(err.message).toBe(`https://reg.example/v2/ns/app/blobs/${blobDesc.digest}: refusing a redirect from https to plain http (http://cdn.example)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a plain-http token realm for an https registry', async () => {
    agent
      .get('https://reg.example')
      .intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' })
      .reply(401, '', { headers: { 'www-authenticate': 'Bearer realm="http://auth.example/token",service="reg"' } });
    const client = new RegistryClient({ dispatcher: agent, credentials: parseDockerConfig({ auths: { 'reg.example': { auth: Buffer.from('u:p').toString('base64') } } }) });
    const err = await failure(client.resolve(ref));
    expect(err.code).toBe('InsecureRegistry');
    expect(err.message).toBe('reg.example/ns/app (https://reg.example/v2/ns/app/manifests/v1): refusing to fetch a token over plain http from http://auth.example');
  });

  it('exchanges an identity token (OAuth2 refresh token) at the realm', async () => {
    const pool = agent.get('https://reg.example');
    pool
      .intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' })
      .reply(401, '', { headers: { 'www-authenticate': 'Bearer realm="https://auth.example/oauth",service="reg",scope="repository:ns/app:pull"' } });
    let form = '';
    agent
      .get('https://auth.example')
      .intercept({ path: '/oauth', method: 'POST', body: (b) => ((form = b), true) })
      .reply(200, { access_token: 'at-1', expires_in: 120 });
    pool
      .intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET', headers: { authorization: 'Bearer at-1' } })
      .reply(200, manifest, { headers: { 'content-type': MediaTypes.ociManifest } });
    const client = new RegistryClient({ dispatcher: agent, credentials: parseDockerConfig({ auths: { 'reg.example': { identitytoken: 'refresh-1' } } }) });
    expect((await client.resolve(ref)).digest).toBe(sha256(manifest));
    expect(Object.fromEntries(new URLSearchParams(form))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'refresh-1',
      client_id: 'olmv1',
      scope: 'repository:ns/app:pull',
      service: 'reg',
    });
  });

  it('checks a blob’s size against the manifest before and while reading it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'registry-test-'));
    try {
      const pool = agent.get('https://reg.example');
      const twice = Buffer.concat([blob, blob]);
      pool
        .intercept({ path: `/v2/ns/app/blobs/${blobDesc.digest}`, method: 'GET' })
        .reply(200, twice, { headers: { 'content-length': String(twice.length) } });
      pool.intercept({ path: `/v2/ns/app/blobs/${blobDesc.digest}`, method: 'GET' }).reply(200, twice); // no length: counted as it streams
      const client = new RegistryClient({ dispatcher: agent, retries: 0 });
      const where = `blob reg.example/ns/app@${blobDesc.digest}`;
      const declared = await failure(client.downloadBlob(ref, blobDesc, join(dir, 'b')));
      expect(declared.code).toBe('SizeMismatch');
      expect(declared.message).toBe(`${where}: registry sends ${twice.length} bytes, the manifest declares ${blob.length}`);
      const streamed = await failure(client.downloadBlob(ref, blobDesc, join(dir, 'b')));
      expect(streamed.message).toBe(`${where}: more than the ${blob.length} bytes the manifest declares`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('RegistryClient against a server that does not speak TLS (real sockets)', () => {
  async function listen(onConnection: (socket: Socket) => void): Promise<{ host: string; close: () => Promise<void> }> {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      onConnection(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const close = (): Promise<void> =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
    return { host: `127.0.0.1:${port}`, close };
  }

  it('says Go’s one line for a plain-HTTP registry: http: server gave HTTP response to HTTPS client', async () => {
    // A minimal HTTP/1.1 server on raw sockets: whatever arrives (a ClientHello, or a request), it answers 400.
    const srv = await listen((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
      socket.on('error', () => undefined);
    });
    const client = new RegistryClient({ retries: 0 });
    try {
      const err = await failure(client.resolve(parseReference(`${srv.host}/ns/app:v1`)));
      expect(err.message).toBe(`manifest ${srv.host}/ns/app:v1: http: server gave HTTP response to HTTPS client`);
    } finally {
      await client.close();
      await srv.close();
    }
  });

  it('says Go’s other line for something that is neither TLS nor HTTP', async () => {
    const srv = await listen((socket) => {
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
      socket.on('error', () => undefined);
    });
    const client = new RegistryClient({ retries: 0 });
    try {
      const err = await failure(client.resolve(parseReference(`${srv.host}/ns/app:v1`)));
      expect(err.message).toBe(`manifest ${srv.host}/ns/app:v1: tls: first record does not look like a TLS handshake`);
      expect(err.message).not.toMatch(/\n|openssl|ssl3_get_record/);
    } finally {
      await client.close();
      await srv.close();
    }
  });
});
