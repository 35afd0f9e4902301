// registries.conf: the parser and containers/image's rules (prefix matching, rewrites, mirrors, drop-ins,
// validation), and the registry client following them (undici's MockAgent stands in for the network; the
// real registry is in test/integration/image/registries-conf.test.ts).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from './digest.ts';
import { MediaTypes } from './media-types.ts';
import { formatReference, parseReference } from './reference.ts';
import {
  loadRegistriesConf,
  parseRegistriesConf,
  refMatchingPrefix,
  RegistriesConf,
  RegistriesConfError,
  type RegistryConfig,
} from './registries-conf.ts';
import { RegistryClient, type Descriptor } from './registry.ts';

const conf = (text: string, file = '/etc/containers/registries.conf'): RegistriesConf =>
  new RegistriesConf(parseRegistriesConf(text, file), { file, dir: `${file}.d`, files: [file] });

/** Where a pull of `ref` goes, as `ref` strings, mirrors first. */
const sources = (c: RegistriesConf, ref: string): string[] | undefined =>
  c.pullSources(parseReference(ref))?.map((s) => `${formatReference(s.ref)}${s.mirror ? ' (mirror)' : ''}${s.insecure ? ' (insecure)' : ''}`);

function parseError(text: string, file = '/etc/containers/registries.conf'): string {
  try {
    parseRegistriesConf(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(RegistriesConfError);
    return (err as Error).message;
  }
  throw new Error('expected a RegistriesConfError');
}

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('registries.conf parsing', () => {
  it('reads upstream e2e’s mirrored-registry configuration and rewrites the reference to the location', () => {
    const c = conf(`
[[registry]]
prefix = "mirrored-registry.operator-controller-e2e.svc.cluster.local:5000"
location = "docker-registry.operator-controller-e2e.svc.cluster.local:5000"
`);
    expect(c.registries).toEqual<RegistryConfig[]>([
      {
        prefix: 'mirrored-registry.operator-controller-e2e.svc.cluster.local:5000',
        location: 'docker-registry.operator-controller-e2e.svc.cluster.local:5000',
        insecure: false,
        blocked: false,
        mirrorByDigestOnly: false,
        mirrors: [],
        definedAt: '/etc/containers/registries.conf:2',
      },
    ]);
    expect(sources(c, 'mirrored-registry.operator-controller-e2e.svc.cluster.local:5000/bundles/registry-v1/test-operator:v1.0.0')).toEqual([
      'docker-registry.operator-controller-e2e.svc.cluster.local:5000/bundles/registry-v1/test-operator:v1.0.0',
    ]);
    expect(sources(c, `mirrored-registry.operator-controller-e2e.svc.cluster.local:5000/e2e/test-catalog@${DIGEST}`)).toEqual([
      `docker-registry.operator-controller-e2e.svc.cluster.local:5000/e2e/test-catalog@${DIGEST}`,
    ]);
    expect(sources(c, 'quay.io/ns/app:v1')).toBeUndefined();
  });

  it('ignores what pulls do not use: search registries, aliases, short-name mode, credential helpers, unknown keys', () => {
    const c = conf(`
unqualified-search-registries = ["registry.fedoraproject.org", "docker.io"]
short-name-mode = "enforcing"
credential-helpers = ["containers-auth.json"]
something-new = 1
[aliases]
"fedora" = "registry.fedoraproject.org/fedora"
[[registry]]
location = "quay.io"
color = "blue"
`);
    expect(c.registries.map((r) => r.prefix)).toEqual(['quay.io']);
    expect(conf('# nothing but comments\n').empty).toBe(true);
  });

  it('picks the longest matching prefix, at a host, namespace or repository boundary', () => {
    const c = conf(`
[[registry]]
prefix = "example.com"
location = "host.example.net"
[[registry]]
prefix = "example.com/ns"
location = "ns.example.net/mirror/ns"
[[registry]]
prefix = "example.com/ns/app"
location = "app.example.net/app"
`);
    expect(c.findRegistry('example.com/ns/app')?.prefix).toBe('example.com/ns/app');
    expect(c.findRegistry('example.com/ns/app2')?.prefix).toBe('example.com/ns');
    expect(c.findRegistry('example.com/nsx/app')?.prefix).toBe('example.com');
    expect(c.findRegistry('example.org/ns/app')).toBeUndefined();
    // As upstream warns: "example.com" also matches "example.com:5000" (the rest is appended to the location).
    expect(refMatchingPrefix('example.com:5000/x', 'example.com')).toBe('example.com'.length);
    expect(sources(c, 'example.com/ns/app:v1')).toEqual(['app.example.net/app:v1']);
    expect(sources(c, 'example.com/ns/other:v2')).toEqual(['ns.example.net/mirror/ns/other:v2']);
    expect(sources(c, `example.com/team/x@${DIGEST}`)).toEqual([`host.example.net/team/x@${DIGEST}`]);
  });

  it('matches *.domain wildcards on subdomains of the host only; a longer prefix still wins', () => {
    const c = conf(`
[[registry]]
prefix = "*.example.com"
location = "mirror.example.net"
[[registry]]
prefix = "special.example.com/app"
location = "special.example.net/app"
[[registry]]
prefix = "*.blocked.test"
blocked = true
`);
    expect(refMatchingPrefix('a.example.com/x', '*.example.com')).toBe('a.example.com'.length);
    expect(refMatchingPrefix('a.b.example.com:5000/x', '*.example.com')).toBe('a.b.example.com'.length);
    expect(refMatchingPrefix('example.com/x', '*.example.com')).toBe(-1);
    expect(refMatchingPrefix('other.org/a.example.com/x', '*.example.com')).toBe(-1);
    expect(refMatchingPrefix('a.example.community/x', '*.example.com')).toBe(-1);
    expect(sources(c, 'a.example.com/ns/x:v1')).toEqual(['mirror.example.net/ns/x:v1']);
    expect(sources(c, 'special.example.com/app:v1')).toEqual(['special.example.net/app:v1']);
    expect(sources(c, 'special.example.com/other:v1')).toEqual(['mirror.example.net/other:v1']);
    // A wildcard without a location keeps the reference as it is (here: to block it).
    expect(c.findRegistry('x.blocked.test/ns/app')?.blocked).toBe(true);
    expect(sources(c, 'x.blocked.test/ns/app:v1')).toEqual(['x.blocked.test/ns/app:v1']);
  });

  it('lists the mirrors in order before the primary location, by pull-from-mirror and mirror-by-digest-only', () => {
    const c = conf(`
[[registry]]
prefix = "quay.io/ns"
location = "quay.io/ns"
insecure = false

[[registry.mirror]]
location = "all.example.net/quay/ns"

[[registry.mirror]]
location = "digests.example.net/ns"
pull-from-mirror = "digest-only"
insecure = true

[[registry.mirror]]
location = "tags.example.net/ns"
pull-from-mirror = "tag-only"

[[registry.mirror]]
location = "explicit-all.example.net/ns"
pull-from-mirror = "all"

[[registry]]
location = "registry.example.org"
mirror-by-digest-only = true
[[registry.mirror]]
location = "m.example.org"
`);
    expect(sources(c, 'quay.io/ns/app:v1')).toEqual([
      'all.example.net/quay/ns/app:v1 (mirror)',
      'tags.example.net/ns/app:v1 (mirror)',
      'explicit-all.example.net/ns/app:v1 (mirror)',
      'quay.io/ns/app:v1',
    ]);
    expect(sources(c, `quay.io/ns/app@${DIGEST}`)).toEqual([
      `all.example.net/quay/ns/app@${DIGEST} (mirror)`,
      `digests.example.net/ns/app@${DIGEST} (mirror) (insecure)`,
      `explicit-all.example.net/ns/app@${DIGEST} (mirror)`,
      `quay.io/ns/app@${DIGEST}`,
    ]);
    expect(sources(c, 'registry.example.org/x:v1')).toEqual(['registry.example.org/x:v1']);
    expect(sources(c, `registry.example.org/x@${DIGEST}`)).toEqual([`m.example.org/x@${DIGEST} (mirror)`, `registry.example.org/x@${DIGEST}`]);
  });

  it('keeps the first registry of a prefix in one file, trims trailing slashes, and defaults the prefix to the location', () => {
    const c = conf(`
[[registry]]
location = "b.example.com/"
[[registry]]
prefix = "a.example.com"
location = "first.example.com"
[[registry]]
prefix = "a.example.com"
location = "second.example.com"
`);
    expect(c.registries.map((r) => [r.prefix, r.location])).toEqual([
      ['a.example.com', 'first.example.com'],
      ['b.example.com', 'b.example.com'],
    ]);
  });

  it('converts the v1 format as upstream does', () => {
    const c = conf(`
[registries.search]
registries = ["docker.io"]
[registries.insecure]
registries = ["insecure.example.com:5000", "both.example.com"]
[registries.block]
registries = ["blocked.example.com", "both.example.com"]
`);
    expect(c.registries.map((r) => [r.prefix, r.location, r.insecure, r.blocked])).toEqual([
      ['blocked.example.com', 'blocked.example.com', false, true],
      ['both.example.com', 'both.example.com', true, true],
      ['insecure.example.com:5000', 'insecure.example.com:5000', true, false],
    ]);
    expect(parseError('[registries.search]\nregistries = []\n[[registry]]\nlocation = "x.io"\n')).toBe(
      'loading registries configuration "/etc/containers/registries.conf": line 1: mixing sysregistry v1/v2 is not supported',
    );
  });

  it('refuses bad input with one line naming the file and the line', () => {
    const f = 'loading registries configuration "/etc/containers/registries.conf"';
    expect(parseError('[[registry]]\nprefix = "a.io"\nlocation = b.io\n')).toBe(`${f}: line 3: invalid value (column 12)`);
    expect(parseError('[[registry]]\nlocation = "a.io"\n[[registry]]\nlocation = "b.io"\ninsecure = "yes"\n')).toBe(
      `${f}: line 5: "insecure" of [[registry]] must be a boolean, not a string`,
    );
    expect(parseError('[[registry]]\nlocation = "a.io"\n\n[[registry.mirror]]\nlocation = "m.io"\npull-from-mirror = "sometimes"\n')).toBe(
      `${f}: line 6: unsupported pull-from-mirror value "sometimes" for mirror "m.io" (all, digest-only or tag-only)`,
    );
    expect(parseError('[[registry]]\nlocation = "a.io"\npull-from-mirror = "all"\n')).toBe(
      `${f}: line 3: pull-from-mirror must not be set for a non-mirror registry "a.io"`,
    );
    expect(parseError('[[registry]]\nlocation = "a.io"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = "m.io"\npull-from-mirror = "tag-only"\n')).toBe(
      `${f}: line 6: cannot set mirror usage mirror-by-digest-only for the registry ("a.io") and pull-from-mirror for per-mirror ("m.io") at the same time`,
    );
    expect(parseError('[[registry]]\nlocation = "a.io"\n[[registry.mirror]]\ninsecure = true\n')).toBe(`${f}: line 3: invalid condition: mirror location is unset`);
    expect(parseError('[[registry]]\nlocation = "https://a.io"\n')).toBe(`${f}: line 2: invalid location 'https://a.io': URI schemes are not supported`);
    expect(parseError('[[registry]]\ninsecure = true\n')).toBe(`${f}: line 1: invalid condition: both location and prefix are unset`);
    expect(parseError('[[registry]]\nprefix = "a.io"\n')).toBe(
      `${f}: line 1: invalid condition: location is unset and prefix is not in the format: *.example.com`,
    );
    expect(parseError('[[registry]]\nprefix = "*.a.io/ns"\nlocation = "b.io"\n')).toBe(
      `${f}: line 2: Wildcarded prefix should be in the format: *.example.com. Current prefix "*.a.io/ns" is incorrectly formatted`,
    );
    expect(parseError('[[registry]]\nprefix = "a.io"\nlocation = "mirror/ns"\n')).toBe(
      `${f}: line 3: invalid location 'mirror/ns': must be host[:port][/path], with the host written out (e.g. registry.example.com/ns)`,
    );
    expect(parseError('[[registry]]\nprefix = "a.io"\nlocation = "m.io"\ninsecure = true\n[[registry]]\nprefix = "b.io"\nlocation = "m.io"\n')).toBe(
      `${f}: line 5: registry 'm.io' is defined multiple times with conflicting 'insecure' setting`,
    );
    expect(parseError('registry = "quay.io"\n')).toBe(`${f}: line 1: "registry" must be an array of tables ([[registry]]), not a string`);
  });
});

describe('registries.conf files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'registries-conf-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('merges the drop-ins of registries.conf.d beside the file in lexical order; a later file replaces a prefix', async () => {
    const file = join(dir, 'registries.conf');
    await writeFile(file, '[[registry]]\nprefix = "a.io"\nlocation = "main.a.io"\n[[registry]]\nprefix = "b.io"\nlocation = "main.b.io"\n');
    await mkdir(join(dir, 'registries.conf.d', 'nested.conf'), { recursive: true });
    await writeFile(join(dir, 'registries.conf.d', '20-last.conf'), '[[registry]]\nprefix = "a.io"\nlocation = "last.a.io"\n');
    await writeFile(join(dir, 'registries.conf.d', '10-first.conf'), '[[registry]]\nprefix = "a.io"\nlocation = "first.a.io"\n[[registry]]\nprefix = "c.io"\nblocked = true\nlocation = "c.io"\n');
    await writeFile(join(dir, 'registries.conf.d', 'README'), 'not toml [');
    const c = loadRegistriesConf(file, { required: true });
    expect(c.files).toEqual([file, join(dir, 'registries.conf.d', '10-first.conf'), join(dir, 'registries.conf.d', '20-last.conf')]);
    expect(c.registries.map((r) => [r.prefix, r.location, r.blocked])).toEqual([
      ['a.io', 'last.a.io', false],
      ['b.io', 'main.b.io', false],
      ['c.io', 'c.io', true],
    ]);
    expect(c.blockedMessage(c.findRegistry('c.io/x')!)).toBe(`registry c.io is blocked in ${file} or ${join(dir, 'registries.conf.d')}`);
  });

  it('reads the drop-ins without the main file unless the file was named; refuses a v1 drop-in', async () => {
    const file = join(dir, 'registries.conf');
    expect(loadRegistriesConf(file).empty).toBe(true);
    expect(() => loadRegistriesConf(file, { required: true })).toThrow(`loading registries configuration ${JSON.stringify(file)}: no such file or directory`);
    await mkdir(join(dir, 'registries.conf.d'));
    await writeFile(join(dir, 'registries.conf.d', 'a.conf'), '[[registry]]\nlocation = "a.io"\n');
    expect(loadRegistriesConf(file).registries.map((r) => r.prefix)).toEqual(['a.io']);
    await writeFile(join(dir, 'registries.conf.d', 'b.conf'), '[registries.block]\nregistries = ["x.io"]\n');
    expect(() => loadRegistriesConf(file)).toThrow(
      `loading drop-in registries configuration ${JSON.stringify(join(dir, 'registries.conf.d', 'b.conf'))}: line 1: registry must be in v2 format but is in v1`,
    );
  });
});

describe('RegistryClient with registries.conf (mocked network)', () => {
  let agent: MockAgent;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  afterEach(async () => {
    await agent.close();
  });

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
  const headers = { 'content-type': MediaTypes.ociManifest, 'docker-content-digest': sha256(manifest) };
  const CONF = `
[[registry]]
prefix = "logical.example"
location = "primary.example/logical"
[[registry.mirror]]
location = "mirror-a.example"
[[registry.mirror]]
location = "mirror-b.example/copy"
[[registry]]
prefix = "closed.example"
location = "closed.example"
blocked = true
[[registry]]
prefix = "via-mirror.example"
location = "via-mirror.example"
blocked = true
[[registry.mirror]]
location = "open-mirror.example"
insecure = true
`;
  const client = (): RegistryClient => new RegistryClient({ dispatcher: agent, registriesConf: conf(CONF), retries: 0 });

  it('takes the manifest from the first mirror that has it, the blobs from there too, and keeps the logical reference', async () => {
    agent.get('https://mirror-a.example').intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' }).reply(404, { errors: [{ code: 'MANIFEST_UNKNOWN' }] });
    const b = agent.get('https://mirror-b.example');
    b.intercept({ path: '/v2/copy/ns/app/manifests/v1', method: 'GET' }).reply(200, manifest, { headers });
    b.intercept({ path: `/v2/copy/ns/app/blobs/${sha256('{}')}`, method: 'GET' }).reply(200, '{}');
    const c = client();
    const ref = parseReference('logical.example/ns/app:v1');
    const got = await c.resolve(ref);
    expect(got.digest).toBe(sha256(manifest));
    expect(got.source).toEqual({ ref: parseReference('mirror-b.example/copy/ns/app:v1'), insecure: false, mirror: true });
    expect((await c.getBlob(ref, got.manifest.config, { source: got.source! })).toString()).toBe('{}');
  });

  it('falls back to the primary location, and names every attempt when all fail (the primary’s error code)', async () => {
    agent.get('https://mirror-a.example').intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' }).reply(500, 'down');
    agent.get('https://mirror-b.example').intercept({ path: '/v2/copy/ns/app/manifests/v1', method: 'GET' }).reply(404, {});
    agent.get('https://primary.example').intercept({ path: '/v2/logical/ns/app/manifests/v1', method: 'GET' }).reply(200, manifest, { headers });
    const got = await client().resolve(parseReference('logical.example/ns/app:v1'));
    expect(got.source).toMatchObject({ ref: parseReference('primary.example/logical/ns/app:v1'), mirror: false });

    agent.get('https://mirror-a.example').intercept({ path: `/v2/ns/app/manifests/${DIGEST}`, method: 'GET' }).reply(404, '');
    agent.get('https://mirror-b.example').intercept({ path: `/v2/copy/ns/app/manifests/${DIGEST}`, method: 'GET' }).reply(404, '');
    agent.get('https://primary.example').intercept({ path: `/v2/logical/ns/app/manifests/${DIGEST}`, method: 'GET' }).reply(401, '');
    const err = (await client()
      .resolve(parseReference(`logical.example/ns/app@${DIGEST}`))
      .catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe('Unauthorized');
    expect(err.message).toBe(
      `(Mirrors also failed: [mirror-a.example/ns/app@${DIGEST}: manifest mirror-a.example/ns/app@${DIGEST}: not found in mirror-a.example]\n` +
        `[mirror-b.example/copy/ns/app@${DIGEST}: manifest mirror-b.example/copy/ns/app@${DIGEST}: not found in mirror-b.example]): ` +
        `primary.example/logical/ns/app@${DIGEST}: primary.example/logical/ns/app (https://primary.example/v2/logical/ns/app/manifests/${DIGEST}): ` +
        '401 Unauthorized with no WWW-Authenticate challenge',
    );
  });

  it('refuses a blocked registry as upstream words it, but pulls a blocked registry’s image from its mirror', async () => {
    const c = client();
    const err = (await c.resolve(parseReference('closed.example/ns/app:v1')).catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe('RegistryBlocked');
    expect(err.message).toBe('registry closed.example is blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d');
    // Pushes too: containers/image checks blocked for every client it makes.
    await expect(c.putManifest(parseReference('closed.example/ns/app:v1'), 'v1', MediaTypes.ociManifest, manifest)).rejects.toThrow('registry closed.example is blocked');

    // The mirror is insecure: no HTTPS answer, so plain HTTP (containers/image's ping, then the pull).
    const http = agent.get('http://open-mirror.example');
    http.intercept({ path: '/v2/', method: 'GET' }).reply(200, '{}');
    http.intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' }).reply(200, manifest, { headers });
    const got = await c.resolve(parseReference('via-mirror.example/ns/app:v1'));
    expect(got.source).toEqual({ ref: parseReference('open-mirror.example/ns/app:v1'), insecure: true, mirror: true });
    // When every source fails, the primary's error is the blocked one.
    agent.get('http://open-mirror.example').intercept({ path: '/v2/ns/app/manifests/v2', method: 'GET' }).reply(404, '');
    const blocked = (await c.resolve(parseReference('via-mirror.example/ns/app:v2')).catch((e: unknown) => e)) as Error & { code: string };
    expect(blocked.code).toBe('RegistryBlocked');
    expect(blocked.message).toBe(
      '(Mirrors also failed: [open-mirror.example/ns/app:v2: manifest open-mirror.example/ns/app:v2: not found in open-mirror.example]): ' +
        'via-mirror.example/ns/app:v2: registry via-mirror.example is blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d',
    );
  });

  it('uses HTTPS for an insecure endpoint that answers it', async () => {
    const c = new RegistryClient({ dispatcher: agent, registriesConf: conf('[[registry]]\nlocation = "tls.example"\ninsecure = true\n'), retries: 0 });
    const pool = agent.get('https://tls.example');
    pool.intercept({ path: '/v2/', method: 'GET' }).reply(401, '');
    pool.intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' }).reply(200, manifest, { headers });
    pool.intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' }).reply(200, manifest, { headers });
    expect((await c.resolve(parseReference('tls.example/ns/app:v1'))).digest).toBe(sha256(manifest));
    // The ping is remembered: the second pull asks for the manifest only (no second /v2/ is intercepted).
    expect((await c.resolve(parseReference('tls.example/ns/app:v1'))).digest).toBe(sha256(manifest));
    agent.assertNoPendingInterceptors();
  });

  it('changes nothing without a matching registry', async () => {
    agent.get('https://other.example').intercept({ path: '/v2/ns/app/manifests/v1', method: 'GET' }).reply(200, manifest, { headers });
    const got = await client().resolve(parseReference('other.example/ns/app:v1'));
    expect(got.source).toBeUndefined();
    expect(got.digest).toBe(sha256(manifest));
  });
});
