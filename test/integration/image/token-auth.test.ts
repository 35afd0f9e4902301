// A second real distribution registry with `auth: token:` (a JWKS file with our ES256 key),
// and a token server in the test that checks Basic credentials and signs JWTs. The puller
// must follow the registry's Bearer challenge to it.
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { credentialsFromSecretData, parseDockerConfig } from '../../../internal/shared/image/index.ts';
import { pushCatalogImage, type PushedImage, type RegistryLike } from '../../support/images.ts';
import { Registry, type RegistryInfo } from '../../support/registry.ts';
import { rejectionOf, sandbox, startServer, type Sandbox, type TestServer } from './support.ts';

const SERVICE = 'test-registry';
const ISSUER = 'test-issuer';
const KID = 'olm-test-key';
const USERS: Readonly<Record<string, { password: string; access: boolean }>> = {
  alice: { password: 'alice-pw', access: true },
  eve: { password: 'eve-pw', access: false }, // authenticates, but is granted nothing
};

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

function jwt(key: KeyObject, subject: string, access: { type: string; name: string; actions: string[] }[]): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: KID }));
  const claims = b64url(
    JSON.stringify({ iss: ISSUER, sub: subject, aud: SERVICE, exp: now + 300, nbf: now - 10, iat: now, jti: randomBytes(8).toString('hex'), access }),
  );
  const signature = sign('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${header}.${claims}.${b64url(signature)}`;
}

let dir: string;
let key: KeyObject;
let tokenServer: TestServer;
let authRegistry: Registry;
let reg: RegistryInfo;
const tokenRequests: { account: string | null; scope: string | null; authorized: boolean }[] = [];
let pushed: PushedImage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'token-auth-'));
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  key = pair.privateKey;
  const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'ES256' };
  await writeFile(join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));

  tokenServer = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const [scheme, value] = (req.headers.authorization ?? '').split(' ');
    const [user = '', password] = scheme === 'Basic' ? Buffer.from(value ?? '', 'base64').toString().split(':') : [];
    const known = USERS[user];
    const authorized = known !== undefined && known.password === password;
    tokenRequests.push({ account: url.searchParams.get('account'), scope: url.searchParams.get('scope'), authorized });
    if (!authorized) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'invalid username or password' }] }));
      return;
    }
    const access = known.access
      ? url.searchParams.getAll('scope').map((s) => {
          const [type = '', name = '', actions = ''] = s.split(':');
          return { type, name, actions: actions.split(',') };
        })
      : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token: jwt(key, user, access), expires_in: 300 }));
  });

  authRegistry = new Registry({
    extraConfig: [
      'auth:',
      '  token:',
      `    realm: ${tokenServer.url}/token`,
      `    service: ${SERVICE}`,
      `    issuer: ${ISSUER}`,
      `    jwks: ${join(dir, 'jwks.json')}`,
    ].join('\n'),
  });
  reg = await authRegistry.start();
  const repo = 'secure/catalog';
  const pushAs: RegistryLike = {
    ...reg,
    headers: { authorization: `Bearer ${jwt(key, 'pusher', [{ type: 'repository', name: repo, actions: ['pull', 'push'] }])}` },
  };
  pushed = await pushCatalogImage(pushAs, `${repo}:v1`, { files: { 'pkg/catalog.json': { schema: 'olm.package', name: 'pkg' } } });
});

afterAll(async () => {
  await authRegistry?.stop();
  await tokenServer?.close();
  await rm(dir, { recursive: true, force: true });
});

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  tokenRequests.length = 0;
});
afterEach(async () => {
  await box.cleanup();
});

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('a registry with token auth', () => {
  it('pulls with credentials from a docker config, through the Bearer challenge', async () => {
    const credentials = parseDockerConfig({ auths: { [reg.host]: { auth: b64('alice:alice-pw') } } });
    const puller = box.puller({ registry: { insecureRegistries: [reg.host], credentials } });
    const got = await puller.pull(`${reg.host}/secure/catalog:v1`, { catalog: true });
    expect(got.digest).toBe(pushed.digest);
    expect(tokenRequests).toEqual([{ account: 'alice', scope: 'repository:secure/catalog:pull', authorized: true }]);
  });

  it('pulls with per-pull credentials from a kubernetes.io/dockerconfigjson Secret', async () => {
    const secretData = { '.dockerconfigjson': b64(JSON.stringify({ auths: { [reg.host]: { username: 'alice', password: 'alice-pw' } } })) };
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const got = await puller.pull(pushed.digestRef, { catalog: true, credentials: credentialsFromSecretData(secretData) });
    expect(got.digest).toBe(pushed.digest);
  });

  it('explains what went wrong without credentials, with wrong ones, and with too few rights', async () => {
    const puller = (c?: ReturnType<typeof parseDockerConfig>): ReturnType<Sandbox['puller']> =>
      box.puller({ registry: { insecureRegistries: [reg.host], ...(c ? { credentials: c } : {}) } });
    const ref = `${reg.host}/secure/catalog:v1`;
    const where = `${reg.host}/secure/catalog (http://${reg.host}/v2/secure/catalog/manifests/v1)`;

    const anon = await rejectionOf(puller().pull(ref));
    expect(anon.code).toBe('Unauthorized');
    expect(anon.message).toBe(
      `${where}: token request to ${tokenServer.url}/token answered 401: UNAUTHORIZED: invalid username or password (no credentials are configured)`,
    );

    const wrong = await rejectionOf(puller(parseDockerConfig({ auths: { [reg.host]: { auth: b64('alice:nope') } } })).pull(ref));
    expect(wrong.message).toBe(
      `${where}: token request to ${tokenServer.url}/token answered 401: UNAUTHORIZED: invalid username or password (the configured credentials were not accepted)`,
    );

    const eve = await rejectionOf(puller(parseDockerConfig({ auths: { [reg.host]: { auth: b64('eve:eve-pw') } } })).pull(ref));
    expect(eve.code).toBe('Unauthorized');
    expect(eve.message).toMatch(
      new RegExp(`^manifest ${reg.host}/secure/catalog:v1: 401 Unauthorized \\(the configured credentials were not accepted\\): UNAUTHORIZED: `),
    );
    expect(await box.cacheContents()).toEqual([]);
  });
});
