// The push side of the registry client on a mocked https registry (undici MockAgent): HEAD skips
// existing blobs, POST + PUT or PATCH chunks + PUT, Location handling, auth, and pushImage's one
// line per failure. The real registry is used in test/integration/cli.
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDockerConfig } from './auth.ts';
import { sha256 } from './digest.ts';
import { MediaTypes } from './media-types.ts';
import { pushImage } from './push.ts';
import { parseReference } from './reference.ts';
import { RegistryClient, type BlobSource, type UploadProgress } from './registry.ts';

let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  await agent.close();
});

const ref = parseReference('reg.example/ns/app:v1');
const data = Buffer.from('0123456789');
const blob: BlobSource = { digest: sha256(data), size: data.length, open: () => data };
const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociManifest }));
const creds = parseDockerConfig({ auths: { 'reg.example': { auth: Buffer.from('me:pw').toString('base64') } } });
const BASIC = `Basic ${Buffer.from('me:pw').toString('base64')}`;

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

const reading: Promise<void>[] = [];
/** Waits until every streamed request body has been read into its `Seen`. */
const settled = async (): Promise<void> => {
  await Promise.all(reading);
};

/** The body as text; a stream is read in the background (MockAgent's callback is synchronous). */
function readBody(body: unknown, into: Seen): void {
  if (body === undefined || body === null) return;
  if (typeof body === 'string') into.body = body;
  else if (body instanceof Uint8Array) into.body = Buffer.from(body).toString();
  else {
    reading.push(
      (async () => {
        const parts: Buffer[] = [];
        for await (const c of body as AsyncIterable<Uint8Array>) parts.push(Buffer.from(c));
        into.body = Buffer.concat(parts).toString();
      })(),
    );
  }
}

/** A scripted registry: each request is recorded, and answered by `answer`. */
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

function registry(origin: string, answer: (s: Seen) => Answer): Seen[] {
  const seen: Seen[] = [];
  const pool = agent.get(origin);
  pool
    .intercept({ path: () => true, method: () => true })
    .reply((opts) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries((opts.headers ?? {}) as Record<string, string>)) headers[k.toLowerCase()] = String(v);
      const s: Seen = { method: opts.method, path: opts.path, headers, body: '' };
      readBody(opts.body, s);
      seen.push(s);
      const a = answer(s);
      return { statusCode: a.status, data: a.body ?? '', responseOptions: { headers: a.headers ?? {} } };
    })
    .persist();
  return seen;
}

describe('RegistryClient push (https, mocked network)', () => {
  it('skips a blob the registry has (HEAD 200)', async () => {
    const seen = registry('https://reg.example', () => ({ status: 200 }));
    const client = new RegistryClient({ dispatcher: agent });
    expect(await client.pushBlob(ref, blob)).toEqual({ uploaded: false });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([`HEAD /v2/ns/app/blobs/${blob.digest}`]);
  });

  it('uploads with POST then one PUT to the (relative) Location, keeping its query and adding the digest', async () => {
    const progress: UploadProgress[] = [];
    const seen = registry('https://reg.example', (s) => {
      if (s.method === 'HEAD') return { status: 404 };
      if (s.method === 'POST') return { status: 202, headers: { location: '/v2/ns/app/blobs/uploads/u1?_state=abc' } };
      return { status: 201 };
    });
    const client = new RegistryClient({ dispatcher: agent });
    expect(await client.pushBlob(ref, blob, { onProgress: (p) => progress.push(p) })).toEqual({ uploaded: true });
    await settled();
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      `HEAD /v2/ns/app/blobs/${blob.digest}`,
      'POST /v2/ns/app/blobs/uploads/',
      `PUT /v2/ns/app/blobs/uploads/u1?_state=abc&digest=${encodeURIComponent(blob.digest)}`,
    ]);
    expect(seen[2]).toMatchObject({ body: '0123456789', headers: { 'content-length': '10', 'content-type': 'application/octet-stream' } });
    expect(progress.at(-1)).toEqual({ digest: blob.digest, sent: 10, total: 10 });
  });

  it('uploads in PATCH chunks with Content-Range above chunkSize, following each new Location', async () => {
    let n = 0;
    const seen = registry('https://reg.example', (s) => {
      if (s.method === 'HEAD') return { status: 404 };
      if (s.method === 'POST' || s.method === 'PATCH') return { status: 202, headers: { location: `https://reg.example/v2/ns/app/blobs/uploads/u${++n}` } };
      return { status: 201 };
    });
    const client = new RegistryClient({ dispatcher: agent });
    await client.pushBlob(ref, blob, { chunkSize: 4 });
    expect(seen.slice(1).map((s) => [s.method, s.path, s.headers['content-range'] ?? '', s.body])).toEqual([
      ['POST', '/v2/ns/app/blobs/uploads/', '', ''],
      ['PATCH', '/v2/ns/app/blobs/uploads/u1', '0-3', '0123'],
      ['PATCH', '/v2/ns/app/blobs/uploads/u2', '4-7', '4567'],
      ['PATCH', '/v2/ns/app/blobs/uploads/u3', '8-9', '89'],
      ['PUT', `/v2/ns/app/blobs/uploads/u4?digest=${encodeURIComponent(blob.digest)}`, '', ''],
    ]);
  });

  it('answers a Basic challenge with the credentials, and sends none to an upload Location on another origin', async () => {
    const seen = registry('https://reg.example', (s): Answer => {
      if (s.headers.authorization !== BASIC) return { status: 401, headers: { 'www-authenticate': 'Basic realm="registry"' } };
      if (s.method === 'HEAD') return { status: 404 };
      return { status: 202, headers: { location: 'https://storage.example/upload/1' } };
    });
    const storage = registry('https://storage.example', () => ({ status: 201 }));
    const client = new RegistryClient({ dispatcher: agent, credentials: creds });
    await client.pushBlob(ref, blob);
    await settled();
    expect(seen.map((s) => [s.method, s.headers.authorization ?? ''])).toEqual([
      ['HEAD', ''],
      ['HEAD', BASIC],
      ['POST', BASIC],
    ]);
    expect(storage.map((s) => [s.method, s.headers.authorization ?? '', s.body])).toEqual([['PUT', '', '0123456789']]);
  });

  it('refuses an upload Location that downgrades https to plain http', async () => {
    registry('https://reg.example', (s) => (s.method === 'HEAD' ? { status: 404 } : { status: 202, headers: { location: 'http://reg.example/up' } }));
    const client = new RegistryClient({ dispatcher: agent });
    await expect(client.pushBlob(ref, blob)).rejects.toMatchObject({ code: 'InsecureRegistry' });
  });

  it('PUTs a manifest by tag with its media type, and checks the Docker-Content-Digest answer', async () => {
    const seen = registry('https://reg.example', (s) =>
      s.path.endsWith('/v1') ? { status: 201, headers: { 'docker-content-digest': sha256(manifest) } } : { status: 201, headers: { 'docker-content-digest': sha256('x') } },
    );
    const client = new RegistryClient({ dispatcher: agent });
    expect(await client.putManifest(ref, 'v1', MediaTypes.ociManifest, manifest)).toBe(sha256(manifest));
    expect(seen[0]).toMatchObject({ method: 'PUT', path: '/v2/ns/app/manifests/v1', body: manifest.toString(), headers: { 'content-type': MediaTypes.ociManifest } });
    await expect(client.putManifest(ref, 'v2', MediaTypes.ociManifest, manifest)).rejects.toMatchObject({ code: 'DigestMismatch' });
  });
});

describe('pushImage', () => {
  const image = { mediaType: MediaTypes.ociManifest, manifest, blobs: () => [blob] };

  it('pushes the blobs, then the manifest by tag, and returns the digest reference', async () => {
    const seen = registry('https://reg.example', (s) => (s.method === 'HEAD' ? { status: 200 } : { status: 201 }));
    const client = new RegistryClient({ dispatcher: agent });
    expect(await pushImage(client, 'reg.example/ns/app:v1', image)).toEqual({
      ref: 'reg.example/ns/app:v1',
      digestRef: `reg.example/ns/app@${sha256(manifest)}`,
      digest: sha256(manifest),
    });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([`HEAD /v2/ns/app/blobs/${blob.digest}`, 'PUT /v2/ns/app/manifests/v1']);
  });

  it('says in one line that the registry refused the credentials (401 after credentials, or 403), and pushes nothing more', async () => {
    const seen = registry('https://reg.example', () => ({ status: 401, headers: { 'www-authenticate': 'Basic realm="registry"' } }));
    const client = new RegistryClient({ dispatcher: agent, credentials: creds });
    await expect(pushImage(client, 'reg.example/ns/app:v1', image)).rejects.toThrow(
      'push to reg.example/ns/app: the registry refused the credentials for reg.example (401 Unauthorized)',
    );
    expect(seen.map((s) => s.method)).toEqual(['HEAD', 'HEAD']);
    await agent.close();
    agent = new MockAgent();
    agent.disableNetConnect();
    registry('https://reg.example', (s) => (s.method === 'HEAD' ? { status: 404 } : { status: 403, body: '{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}' }));
    const denied = new RegistryClient({ dispatcher: agent, credentials: creds });
    await expect(pushImage(denied, 'reg.example/ns/app:v1', image)).rejects.toThrow(
      'push to reg.example/ns/app: the registry refused the credentials for reg.example (403 Forbidden)',
    );
    const anonymous = new RegistryClient({ dispatcher: agent });
    await expect(pushImage(anonymous, 'reg.example/ns/app:v1', image)).rejects.toThrow(
      'push to reg.example/ns/app: reg.example wants credentials and none are configured for it (403 Forbidden)',
    );
  });

  it('says in one line that the registry cannot be reached', async () => {
    const client = new RegistryClient({ insecureRegistries: ['127.0.0.1:1'], retries: 0 });
    try {
      await expect(pushImage(client, '127.0.0.1:1/ns/app:v1', image)).rejects.toThrow(
        /^push to 127\.0\.0\.1:1\/ns\/app: cannot reach 127\.0\.0\.1:1: .*ECONNREFUSED/,
      );
    } finally {
      await client.close();
    }
  });

  it('wants a tag', async () => {
    const client = new RegistryClient({ dispatcher: agent });
    await expect(pushImage(client, `reg.example/ns/app@${sha256('x')}`, image)).rejects.toMatchObject({ code: 'InvalidReference' });
  });
});
