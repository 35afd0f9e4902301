import { describe, expect, it } from 'vitest';
import { chainCredentials, credentialsFromSecretData, normalizeAuthKey, parseChallenges, parseDockerConfig } from './auth.ts';
import { ImageError } from './errors.ts';
import { parsePlatform, platformMatches, selectPlatform } from './platform.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('docker config credentials', () => {
  const config = {
    auths: {
      'https://index.docker.io/v1/': { auth: b64('hub:hubpass') },
      'quay.io': { auth: b64('quay:pa:ss:with:colons') },
      'quay.io/team': { username: 'team', password: 'teampass' },
      'http://registry.local:5000/v2/': { identitytoken: 'refresh-me' },
      'tokens.example': { registrytoken: 'bearer-token' },
      'empty.example': {},
    },
  };
  const creds = parseDockerConfig(JSON.stringify(config));

  it.each([
    { domain: 'docker.io', path: 'library/busybox', want: { username: 'hub', password: 'hubpass' } },
    { domain: 'quay.io', path: 'other/cat', want: { username: 'quay', password: 'pa:ss:with:colons' } },
    { domain: 'quay.io', path: 'team/cat', want: { username: 'team', password: 'teampass' } },
    { domain: 'registry.local:5000', path: 'x', want: { identityToken: 'refresh-me' } },
    { domain: 'tokens.example', path: 'x', want: { registryToken: 'bearer-token' } },
    { domain: 'empty.example', path: 'x', want: undefined },
    { domain: 'ghcr.io', path: 'x', want: undefined },
  ])('$domain/$path', ({ domain, path, want }) => {
    expect(creds.lookup(domain, path)).toEqual(want);
  });

  it('normalises keys', () => {
    expect(normalizeAuthKey('https://index.docker.io/v1/')).toBe('docker.io');
    expect(normalizeAuthKey('registry-1.docker.io')).toBe('docker.io');
    expect(normalizeAuthKey('HTTP://Quay.IO/ns/')).toBe('quay.io/ns');
    expect(normalizeAuthKey('localhost:5000/v2')).toBe('localhost:5000');
  });

  it('reads pull Secret data (.dockerconfigjson and legacy .dockercfg)', () => {
    const json = credentialsFromSecretData({ '.dockerconfigjson': b64(JSON.stringify(config)) });
    expect(json.lookup('quay.io', 'x/y')?.username).toBe('quay');
    const legacy = credentialsFromSecretData({ '.dockercfg': b64(JSON.stringify({ 'quay.io': { auth: b64('old:pw') } })) });
    expect(legacy.lookup('quay.io', 'x/y')).toEqual({ username: 'old', password: 'pw' });
  });

  it('explains bad input', () => {
    expect(() => parseDockerConfig('{', 'secret ns/pull')).toThrow(/^secret ns\/pull: not valid JSON/);
    expect(() => parseDockerConfig({ auths: { 'q.io': { auth: b64('nocolon') } } })).toThrow(
      'docker config: auths["q.io"].auth is not base64 of "user:password"',
    );
    expect(() => credentialsFromSecretData({ other: '' })).toThrow(ImageError);
  });

  it('chains providers, first match wins', () => {
    const a = parseDockerConfig({ auths: { 'quay.io': { auth: b64('a:1') } } });
    const b = parseDockerConfig({ auths: { 'quay.io': { auth: b64('b:2') }, 'ghcr.io': { auth: b64('g:3') } } });
    const c = chainCredentials(undefined, a, b);
    expect(c.lookup('quay.io', 'x')?.username).toBe('a');
    expect(c.lookup('ghcr.io', 'x')?.username).toBe('g');
  });
});

describe('parseChallenges', () => {
  it.each([
    {
      in: 'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull"',
      want: [{ scheme: 'bearer', params: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/busybox:pull' } }],
    },
    { in: 'Basic realm="Registry Realm"', want: [{ scheme: 'basic', params: { realm: 'Registry Realm' } }] },
    {
      in: 'Bearer realm="https://r/token", service=svc, error="insufficient_scope", Basic realm="x \\"q\\""',
      want: [
        { scheme: 'bearer', params: { realm: 'https://r/token', service: 'svc', error: 'insufficient_scope' } },
        { scheme: 'basic', params: { realm: 'x "q"' } },
      ],
    },
    { in: 'Negotiate', want: [{ scheme: 'negotiate', params: {} }] },
    { in: '', want: [] },
  ])('$in', ({ in: header, want }) => {
    expect(parseChallenges(header)).toEqual(want);
  });
});

describe('platforms', () => {
  const entries = [
    { digest: 'amd', platform: { os: 'linux', architecture: 'amd64' } },
    { digest: 'armv6', platform: { os: 'linux', architecture: 'arm', variant: 'v6' } },
    { digest: 'armv7', platform: { os: 'linux', architecture: 'arm', variant: 'v7' } },
    { digest: 'arm64', platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } },
    { digest: 'att', platform: { os: 'unknown', architecture: 'unknown' } },
    { digest: 'win', platform: { os: 'windows', architecture: 'amd64' } },
    { digest: 'none' },
  ];
  it.each([
    { want: 'linux/amd64', got: 'amd' },
    { want: 'linux/x86_64', got: 'amd' },
    { want: 'linux/arm64', got: 'arm64' },
    { want: 'linux/aarch64', got: 'arm64' },
    { want: 'linux/arm', got: 'armv7' },
    { want: 'linux/arm/v6', got: 'armv6' },
    { want: 'windows/amd64', got: 'win' },
    { want: 'linux/s390x', got: undefined },
  ])('$want → $got', ({ want, got }) => {
    expect(selectPlatform(entries, parsePlatform(want))?.digest).toBe(got);
  });
  it('treats arm64 with no variant as v8', () => {
    expect(platformMatches({ os: 'linux', architecture: 'arm64', variant: 'v8' }, { os: 'linux', architecture: 'arm64' })).toBe(true);
  });
  it('refuses malformed platforms', () => {
    expect(() => parsePlatform('linux')).toThrow('invalid platform "linux": want os/architecture[/variant]');
  });
});
