// `kubectl olm catalog push` / `bundle push` against the real registry (distribution v3), run in
// process through the CLI dispatcher, and the images pulled back with the project's own puller
// (catalog mode; the bundle filter operator-controller uses). A second registry with htpasswd
// auth checks credentials from a temp DOCKER_CONFIG / REGISTRY_AUTH_FILE.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCaptured } from '../../../internal/cli/index.ts';
import { bundleImage, publishCatalog } from '../../../internal/publish/index.ts';
import { validateDirectory } from '../../../internal/shared/fbc/index.ts';
import {
  buildImage,
  CATALOG_CONFIGS_LABEL,
  MediaTypes,
  parseDockerConfig,
  parseReference,
  pushImage,
  RegistryClient,
  type ImageManifest,
} from '../../../internal/shared/image/index.ts';
import { BUNDLE_PATHS, loadRegistryV1 } from '../../../internal/shared/registryv1/index.ts';
import { registry } from '../../support/env.ts';
import { Registry, type RegistryInfo } from '../../support/registry.ts';
import { rejectionOf, sandbox, type Sandbox } from '../image/support.ts';
import { RABBITMQ_BUNDLE } from '../../support/testdata.ts';

const exec = promisify(execFile);
// Optional independent readers (Debian packages `skopeo`, `umoci`), as in test/integration/image/independent-tools.
const TOOLS_MISSING = (
  await Promise.all(['skopeo', 'umoci'].map((t) => exec('sh', ['-c', `command -v ${t}`]).then(() => undefined, () => t)))
).filter((t): t is string => t !== undefined);
if (TOOLS_MISSING.length) console.warn(`[cli push] independent-tool checks SKIPPED: ${TOOLS_MISSING.join(', ')} not installed`);

const RABBITMQ = RABBITMQ_BUNDLE;

let tmp: string;
let home: string;
let box: Sandbox;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cli-push-it-'));
  home = join(tmp, 'home'); // no ~/.docker/config.json: anonymous
  await mkdir(home);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (argv: string[], env: NodeJS.ProcessEnv = { HOME: home }): Promise<Run> => runCaptured(argv, { cwd: tmp, env });

async function tree(name: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = join(tmp, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** Every file under `dir` (relative path → content). */
async function files(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[relative(dir, p)] = await readFile(p, 'utf8');
    }
  };
  await walk(dir);
  return out;
}

const catalogFiles = (pkg: string): Record<string, string> => ({
  [`${pkg}/package.yaml`]: `schema: olm.package\nname: ${pkg}\ndefaultChannel: stable\n`,
  [`${pkg}/channels/stable.json`]: JSON.stringify({ schema: 'olm.channel', package: pkg, name: 'stable', entries: [{ name: `${pkg}.v0.1.0` }] }),
  [`${pkg}/bundles/v0.1.0.yaml`]: [
    'schema: olm.bundle',
    `name: ${pkg}.v0.1.0`,
    `package: ${pkg}`,
    `image: quay.io/example/${pkg}-bundle:v0.1.0`,
    'properties:',
    '  - type: olm.package',
    `    value: {packageName: ${pkg}, version: 0.1.0}`,
    '',
  ].join('\n'),
});

const sha = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const digestRefPattern = (name: string): RegExp => new RegExp(`^${name.replaceAll('.', '\\.')}@sha256:[a-f0-9]{64}\n$`);

describe('kubectl olm catalog push', () => {
  it('pushes a catalog image that the puller reads back in catalog mode, with the configs label and correct diff_ids', async () => {
    const reg = registry();
    const dir = await tree('catalog', catalogFiles('demo'));
    const name = `${reg.host}/demo/catalog`;
    const r = await run(['catalog', 'push', dir, `${name}:v1`, '--plain-http']);
    expect(r.stderr).toBe(''); // not a terminal: no progress
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(digestRefPattern(name));
    const digestRef = r.stdout.trim();

    const pulled = await box.puller({ registry: { insecureRegistries: [reg.host] } }).pull(`${name}:v1`, { catalog: true });
    expect(pulled.digestRef).toBe(digestRef);
    expect(pulled.labels).toEqual({ [CATALOG_CONFIGS_LABEL]: '/configs' });
    expect(pulled.configsDir).toBe(join(pulled.dir, 'configs'));
    expect(await files(pulled.configsDir!)).toEqual(catalogFiles('demo'));
    expect(await validateDirectory(pulled.configsDir!)).toBeUndefined();

    // The image as stored: OCI manifest and config, linux/amd64, one gzip layer whose diff_id is its tar's sha256.
    const client = new RegistryClient({ insecureRegistries: [reg.host] });
    try {
      const ref = parseReference(`${name}:v1`);
      const top = await client.getManifest(ref, 'v1');
      expect(top.mediaType).toBe(MediaTypes.ociManifest);
      const manifest = top.manifest as ImageManifest;
      expect(manifest.config.mediaType).toBe(MediaTypes.ociConfig);
      expect(manifest.layers.map((l) => l.mediaType)).toEqual([MediaTypes.ociLayerGzip]);
      const config = JSON.parse((await client.getBlob(ref, manifest.config)).toString()) as Record<string, unknown>;
      expect(config).toMatchObject({ os: 'linux', architecture: 'amd64', config: { Labels: { [CATALOG_CONFIGS_LABEL]: '/configs' } } });
      const layer = await client.getBlob(ref, manifest.layers[0]!, {}, 64 << 20);
      expect(config.rootfs).toEqual({ type: 'layers', diff_ids: [sha(gunzipSync(layer))] });
    } finally {
      await client.close();
    }
  });

  it('gives the same digest when the same directory is pushed twice, or to another tag', async () => {
    const reg = registry();
    const dir = await tree('catalog-twice', catalogFiles('twice'));
    const first = await run(['catalog', 'push', dir, `${reg.host}/demo/twice:v1`, '--plain-http']);
    const again = await run(['catalog', 'push', dir, `${reg.host}/demo/twice:v1`, '--plain-http']);
    const other = await run(['catalog', 'push', dir, `${reg.host}/demo/twice:v2`, '--plain-http']);
    expect([first.code, again.code, other.code]).toEqual([0, 0, 0]);
    expect(again.stdout).toBe(first.stdout);
    expect(other.stdout).toBe(first.stdout);
  });

  it('refuses an invalid catalog with catalog validate’s message (exit 1) and pushes nothing', async () => {
    const reg = registry();
    const dir = await tree('catalog-invalid', {
      ...catalogFiles('broken'),
      'broken/channels/stable.json': JSON.stringify({ schema: 'olm.channel', package: 'broken', name: 'stable', entries: [{ name: 'broken.v9' }] }),
    });
    const validate = await run(['catalog', 'validate', dir]);
    expect(validate.code).toBe(1);
    const r = await run(['catalog', 'push', dir, `${reg.host}/demo/invalid:v1`, '--plain-http']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: validate.stderr });
    const client = new RegistryClient({ insecureRegistries: [reg.host], retries: 0 });
    try {
      const err = await rejectionOf(client.getManifest(parseReference(`${reg.host}/demo/invalid:v1`), 'v1'));
      expect(err.code).toBe('ManifestNotFound');
    } finally {
      await client.close();
    }
    expect(existsSync(join(reg.dir, 'data/docker/registry/v2/repositories/demo/invalid'))).toBe(false);
  });
});

describe('kubectl olm bundle push', () => {
  it('pushes a bundle image that operator-controller’s unpack filter and the renderer read back, annotations as labels', async () => {
    const reg = registry();
    const name = `${reg.host}/demo/rabbitmq-bundle`;
    const r = await run(['bundle', 'push', RABBITMQ, `${name}:v1.19.3`, '--plain-http']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(digestRefPattern(name));
    const pulled = await box.puller({ registry: { insecureRegistries: [reg.host] } }).pull(`${name}:v1.19.3`, { filter: BUNDLE_PATHS });
    expect(pulled.digestRef).toBe(r.stdout.trim());
    expect((await readdir(pulled.dir)).sort()).toEqual(['manifests', 'metadata']);
    expect(await files(pulled.dir)).toEqual(await files(RABBITMQ));
    expect(pulled.labels).toEqual((await bundleImage(RABBITMQ)).labels);
    expect(pulled.labels).toMatchObject({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.package.v1': 'rabbitmq-messaging-topology-operator',
    });
    const bundle = await loadRegistryV1(pulled.dir);
    expect(bundle.packageName).toBe('rabbitmq-messaging-topology-operator');
  });

  it('takes only manifests/ and metadata/, shows no progress when stderr is not a terminal, and pushes big layers', async () => {
    const reg = registry();
    const annotations = (await readFile(join(RABBITMQ, 'metadata/annotations.yaml'), 'utf8'));
    const dir = await tree('bundle-big', {
      'manifests/blob.bin': randomBytes(6 << 20), // incompressible: a 6 MiB layer
      'metadata/annotations.yaml': annotations,
      'bundle.Dockerfile': 'FROM scratch\n',
    });
    const r = await run(['bundle', 'push', dir, `${reg.host}/demo/big-bundle:v1`, '--plain-http']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const pulled = await box.puller({ registry: { insecureRegistries: [reg.host] } }).pull(`${reg.host}/demo/big-bundle:v1`);
    expect((await readdir(pulled.dir)).sort()).toEqual(['manifests', 'metadata']);
    expect((await stat(join(pulled.dir, 'manifests/blob.bin'))).size).toBe(6 << 20);
  });

  it('refuses a directory that is not a registry+v1 bundle (exit 1, one line)', async () => {
    const reg = registry();
    const dir = await tree('not-bundle', { 'manifests/a.yaml': 'kind: ConfigMap\n' });
    const r = await run(['bundle', 'push', dir, `${reg.host}/demo/not-bundle:v1`, '--plain-http']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: `${dir} is not a registry+v1 bundle: it has no metadata/annotations.yaml\n` });
  });
});

describe('the push protocol against the real registry', () => {
  it('uploads in PATCH chunks when asked, and the image reads back the same', async () => {
    const reg = registry();
    const dir = await tree('chunked', { 'manifests/blob.bin': randomBytes(3 << 20), 'metadata/annotations.yaml': await readFile(join(RABBITMQ, 'metadata/annotations.yaml')) });
    const built = await buildImage(await bundleImage(dir));
    const client = new RegistryClient({ insecureRegistries: [reg.host] });
    try {
      const pushed = await pushImage(client, `${reg.host}/demo/chunked:v1`, built, { chunkSize: 1 << 20 });
      expect(pushed.digest).toBe(built.digest);
      const pulled = await box.puller({ registry: { insecureRegistries: [reg.host] } }).pull(pushed.digestRef);
      expect(await readFile(join(pulled.dir, 'manifests/blob.bin'))).toEqual(await readFile(join(dir, 'manifests/blob.bin')));
    } finally {
      await built.dispose();
      await client.close();
    }
  });
});

// bcrypt (cost 4) of "pusher-pw", made with golang.org/x/crypto/bcrypt as distribution's htpasswd reads it.
const HTPASSWD = 'pusher:$2a$04$3YuEORuZ8EbBx./mgyUtouwGfsgIh/I72xFRFT8jY2f0vDIV2l6AK\n';

describe('a registry with htpasswd auth', () => {
  let authRegistry: Registry;
  let reg: RegistryInfo;
  let authDir: string;

  beforeAll(async () => {
    authDir = await mkdtemp(join(tmpdir(), 'cli-push-auth-'));
    await writeFile(join(authDir, 'htpasswd'), HTPASSWD);
    authRegistry = new Registry({ extraConfig: ['auth:', '  htpasswd:', '    realm: olm-test', `    path: ${join(authDir, 'htpasswd')}`].join('\n') });
    reg = await authRegistry.start();
  });
  afterAll(async () => {
    await authRegistry?.stop();
    await rm(authDir, { recursive: true, force: true });
  });

  const dockerConfig = async (name: string, user: string, password: string): Promise<string> => {
    const dir = join(authDir, name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.json'), JSON.stringify({ auths: { [reg.host]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } } }));
    return dir;
  };
  const repoDir = (repo: string): string => join(reg.dir, 'data/docker/registry/v2/repositories', repo);

  it('pushes with the credentials of $DOCKER_CONFIG/config.json, and the image pulls back with them', async () => {
    const dir = await tree('auth-catalog', catalogFiles('secure'));
    const config = await dockerConfig('good', 'pusher', 'pusher-pw');
    const r = await run(['catalog', 'push', dir, `${reg.host}/demo/catalog:v1`, '--plain-http'], { HOME: home, DOCKER_CONFIG: config });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const credentials = parseDockerConfig(await readFile(join(config, 'config.json'), 'utf8'));
    const pulled = await box.puller({ registry: { insecureRegistries: [reg.host], credentials } }).pull(`${reg.host}/demo/catalog:v1`, { catalog: true });
    expect(pulled.digestRef).toBe(r.stdout.trim());
    expect(await files(pulled.configsDir!)).toEqual(catalogFiles('secure'));
  });

  it('pushes with the credentials of $REGISTRY_AUTH_FILE (podman’s auth.json)', async () => {
    const dir = await tree('auth-bundle', { 'manifests/a.yaml': 'kind: ConfigMap\n', 'metadata/annotations.yaml': await readFile(join(RABBITMQ, 'metadata/annotations.yaml')) });
    const config = await dockerConfig('podman', 'pusher', 'pusher-pw');
    const r = await run(['bundle', 'push', dir, `${reg.host}/demo/bundle:v1`, '--plain-http'], {
      HOME: home,
      REGISTRY_AUTH_FILE: join(config, 'config.json'),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('says in one line that the registry refused wrong credentials (exit 1), and pushes nothing', async () => {
    const dir = await tree('auth-wrong', catalogFiles('wrong'));
    const config = await dockerConfig('bad', 'pusher', 'not-the-password');
    const r = await run(['catalog', 'push', dir, `${reg.host}/demo/wrong:v1`, '--plain-http'], { HOME: home, DOCKER_CONFIG: config });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `push to ${reg.host}/demo/wrong: the registry refused the credentials for ${reg.host} (401 Unauthorized)\n`,
    });
    expect(existsSync(repoDir('demo/wrong'))).toBe(false);
  });

  it('says in one line that the registry wants credentials when none are configured (exit 1)', async () => {
    const dir = await tree('auth-none', catalogFiles('none'));
    const r = await run(['catalog', 'push', dir, `${reg.host}/demo/none:v1`, '--plain-http']);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `push to ${reg.host}/demo/none: ${reg.host} wants credentials and none are configured for it (401 Unauthorized)\n`,
    });
    expect(existsSync(repoDir('demo/none'))).toBe(false);
  });
});

describe.skipIf(TOOLS_MISSING.length > 0)('independent tools read what is pushed (skopeo, umoci)', () => {
  it('skopeo sees the labels and platform; skopeo copy + umoci unpack give back the catalog', async () => {
    const reg = registry();
    const dir = await tree('catalog-tools', catalogFiles('tools'));
    const ref = `${reg.host}/demo/tools:v1`;
    const r = await run(['catalog', 'push', dir, ref, '--plain-http']);
    expect(r.code).toBe(0);
    const { stdout } = await exec('skopeo', ['inspect', '--tls-verify=false', `docker://${ref}`]);
    const info = JSON.parse(stdout) as { Digest: string; Labels: Record<string, string>; Os: string; Architecture: string };
    expect(`${reg.host}/demo/tools@${info.Digest}\n`).toBe(r.stdout);
    expect(info).toMatchObject({ Os: 'linux', Architecture: 'amd64', Labels: { [CATALOG_CONFIGS_LABEL]: '/configs' } });
    const work = join(tmp, 'tools-oci');
    await mkdir(work);
    await exec('skopeo', ['copy', '--src-tls-verify=false', `docker://${ref}`, `oci:${join(work, 'layout')}:v1`]);
    await exec('umoci', ['unpack', '--rootless', '--image', `${join(work, 'layout')}:v1`, join(work, 'bundle')]);
    expect(await files(join(work, 'bundle/rootfs/configs'))).toEqual(catalogFiles('tools'));
  });
});

describe('publishCatalog', () => {
  it('is what the command runs: the same digest for the same directory', async () => {
    const reg = registry();
    const dir = await tree('catalog-api', catalogFiles('api'));
    const cli = await run(['catalog', 'push', dir, `${reg.host}/demo/api:cli`, '--plain-http']);
    const client = new RegistryClient({ insecureRegistries: [reg.host] });
    try {
      const pushed = await publishCatalog(dir, parseReference(`${reg.host}/demo/api:lib`), { client });
      expect(`${pushed.digestRef}\n`).toBe(cli.stdout);
      expect(pushed.ref).toBe(`${reg.host}/demo/api:lib`);
    } finally {
      await client.close();
    }
  });
});
