// The Dockerfile's image built and pushed without a container engine, with the image builder of internal/shared/image
// (the one behind `kubectl olm bundle push` / `catalog push`): a base layer, plus one layer holding what the Dockerfile
// copies — /app/dist (the build's output: `npm run build` first), the production node_modules (package-lock.json's
// non-dev packages), /app/package.json and the entrypoint at /usr/local/bin/olmv1 — and the Dockerfile's settings
// (NODE_ENV, WORKDIR, USER, ENTRYPOINT). `make image-push-no-engine`.
//
// The base is assembled here by default (cmd/image-base.ts: Node.js from the npm registry, the Debian libraries it
// links, sh), so nothing is pulled; `--base <ref>` builds on an image from a registry instead (e.g. node:24-bookworm-slim,
// its layers as they are and its config with the Dockerfile's settings).
//
//   node --import tsx cmd/image.ts <image:tag> [--base <ref>] [--platform os/arch] [--plain-http]
//
// Credentials: the files `docker login` / `podman login` write ($REGISTRY_AUTH_FILE, ~/.docker/config.json, …).
import { createReadStream } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assembleBase } from './image-base.ts';
import {
  buildImage,
  DEFAULT_PLATFORM,
  loadUserCredentials,
  MediaTypes,
  parsePlatform,
  parseReference,
  pushImage,
  RegistryClient,
  sha256,
  type Platform,
  type PushableImage,
  type PushResult,
} from '../internal/shared/image/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The Dockerfile's final stage, as image config. */
export const IMAGE_SETTINGS = { env: 'NODE_ENV=production', workingDir: '/app', user: '65532:65532', entrypoint: ['/usr/local/bin/olmv1'] } as const;
/** The assembled base's PATH (node in /usr/local/bin, sh in /bin). */
const BASE_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** package-lock.json's top-level packages that are not dev-only (their nested node_modules come with them). */
export async function productionPackages(repo: string): Promise<string[]> {
  const lock = JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([path, p]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && p.dev !== true)
    .map(([path]) => path.slice('node_modules/'.length))
    .sort();
}

/** The files the image adds to its base, under `into` as they sit in the image (app/…, usr/local/bin/olmv1). */
export async function stageImageFiles(repo: string, dist: string, into: string): Promise<void> {
  if (!(await stat(join(dist, 'bin')).catch(() => undefined))?.isDirectory()) throw new Error(`${dist}/bin is missing: run npm run build first`);
  const app = join(into, 'app');
  await cp(dist, join(app, 'dist'), { recursive: true });
  for (const pkg of await productionPackages(repo)) {
    const from = join(repo, 'node_modules', pkg);
    // Optional packages of another platform are not installed.
    if (!(await stat(from).catch(() => undefined))) continue;
    await cp(from, join(app, 'node_modules', pkg), { recursive: true, dereference: true, filter: (src) => !src.endsWith('/.bin') });
  }
  await cp(join(repo, 'package.json'), join(app, 'package.json'));
  await mkdir(join(into, 'usr', 'local', 'bin'), { recursive: true });
  await cp(join(repo, 'cmd', 'entrypoint.sh'), join(into, 'usr', 'local', 'bin', 'olmv1'));
  await chmod(join(into, 'usr', 'local', 'bin', 'olmv1'), 0o755);
}

interface ImageConfigJson {
  config?: { Env?: string[]; WorkingDir?: string; User?: string; Entrypoint?: string[] | null; Cmd?: string[] | null; [k: string]: unknown };
  rootfs: { type: string; diff_ids: string[] };
  history?: unknown[];
  [k: string]: unknown;
}

/** The base's config with the Dockerfile's settings and one more layer. */
export function configOnBase(base: ImageConfigJson, diffId: string): Buffer {
  const env = (base.config?.Env ?? []).filter((e) => !e.startsWith('NODE_ENV='));
  const config = {
    ...base,
    config: { ...base.config, Env: [...env, IMAGE_SETTINGS.env], WorkingDir: IMAGE_SETTINGS.workingDir, User: IMAGE_SETTINGS.user, Entrypoint: [...IMAGE_SETTINGS.entrypoint], Cmd: null },
    rootfs: { type: 'layers', diff_ids: [...base.rootfs.diff_ids, diffId] },
    history: [...(base.history ?? []), { created_by: 'cmd/image.ts: /app (dist, node_modules, package.json), /usr/local/bin/olmv1' }],
  };
  delete (config as { created?: string }).created;
  return Buffer.from(JSON.stringify(config));
}

const OCI_LAYER: Readonly<Record<string, string>> = {
  'application/vnd.docker.image.rootfs.diff.tar.gzip': MediaTypes.ociLayerGzip,
  'application/vnd.docker.image.rootfs.diff.tar': MediaTypes.ociLayer,
};

export interface ImageBuild {
  readonly image: PushableImage;
  dispose(): Promise<void>;
}

/** Builds the image on `base` from the staged tree `staged`; base layers are fetched only when the target lacks them. */
export async function buildOnBase(client: RegistryClient, base: string, staged: string, platform: Platform = DEFAULT_PLATFORM): Promise<ImageBuild> {
  const baseRef = parseReference(base);
  const resolved = await client.resolve(baseRef, { platform });
  const ctx = resolved.source ? { source: resolved.source } : {};
  const baseConfig = JSON.parse((await client.getBlob(baseRef, resolved.manifest.config, ctx)).toString('utf8')) as ImageConfigJson;
  const built = await buildImage({ layers: [{ dir: staged }], platform });
  const layer = built.layers[0]!;
  const config = configOnBase(baseConfig, layer.diffId);
  const configDescriptor = { mediaType: MediaTypes.ociConfig, digest: sha256(config), size: config.length };
  const baseLayers = resolved.manifest.layers.map((l) => ({ mediaType: OCI_LAYER[l.mediaType] ?? l.mediaType, digest: l.digest, size: l.size }));
  const manifest = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociManifest, config: configDescriptor, layers: [...baseLayers, layer.descriptor] }),
  );
  const downloads = await mkdtemp(join(tmpdir(), 'olmv1-image-base-'));
  const fromBase = (l: (typeof resolved.manifest.layers)[number]) => ({
    digest: l.digest,
    size: l.size,
    // Called only when the target registry lacks the blob.
    async *open() {
      const file = join(downloads, l.digest.replace(':', '-'));
      await client.downloadBlob(baseRef, l, file, ctx);
      yield* createReadStream(file) as AsyncIterable<Uint8Array>;
    },
  });
  return {
    image: {
      mediaType: MediaTypes.ociManifest,
      manifest,
      blobs: () => [...resolved.manifest.layers.map(fromBase), ...built.blobs().slice(0, 1), { digest: configDescriptor.digest, size: config.length, open: () => config }],
    },
    dispose: async () => {
      await built.dispose();
      await rm(downloads, { recursive: true, force: true });
    },
  };
}

/** Builds the image from the base assembled here (cmd/image-base.ts) and the staged tree `staged`: two layers. */
export async function buildAssembled(staged: string, platform: Platform = DEFAULT_PLATFORM): Promise<ImageBuild> {
  if (platform.os !== 'linux' || platform.architecture !== 'amd64') throw new Error(`the assembled base is linux/amd64 only; for ${platform.os}/${platform.architecture} add --base <ref>`);
  const base = await mkdtemp(join(tmpdir(), 'olmv1-image-base-'));
  try {
    await assembleBase(base);
    const built = await buildImage({
      layers: [{ dir: base }, { dir: staged }],
      platform,
      runtime: { env: [BASE_PATH, IMAGE_SETTINGS.env], workingDir: IMAGE_SETTINGS.workingDir, user: IMAGE_SETTINGS.user, entrypoint: [...IMAGE_SETTINGS.entrypoint] },
    });
    return { image: built, dispose: () => built.dispose() };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** Stages, builds and pushes the image to `target`: on `base` when given, else on the base assembled here. */
export async function buildAndPush(o: {
  target: string;
  base?: string;
  platform?: Platform;
  repo?: string;
  dist?: string;
  client: RegistryClient;
  plainHttpHint?: string;
}): Promise<PushResult> {
  const repo = o.repo ?? root;
  const staged = await mkdtemp(join(tmpdir(), 'olmv1-image-'));
  try {
    await stageImageFiles(repo, o.dist ?? join(repo, 'dist'), staged);
    const build = o.base === undefined ? await buildAssembled(staged, o.platform) : await buildOnBase(o.client, o.base, staged, o.platform);
    try {
      return await pushImage(o.client, o.target, build.image, o.plainHttpHint ? { plainHttpHint: o.plainHttpHint } : {});
    } finally {
      await build.dispose();
    }
  } finally {
    await rm(staged, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  const usage = 'usage: node --import tsx cmd/image.ts <image:tag> [--base <ref>] [--platform os/arch] [--plain-http]';
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { base: { type: 'string' }, platform: { type: 'string' }, 'plain-http': { type: 'boolean' } } });
  } catch (err) {
    process.stderr.write(`image: ${(err as Error).message}\n${usage}\n`);
    return 2;
  }
  const [target, ...rest] = parsed.positionals;
  if (target === undefined || rest.length > 0) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const ref = parseReference(target);
  const insecure = parsed.values['plain-http'] ? [ref.domain] : [];
  const client = new RegistryClient({ insecureRegistries: insecure, credentials: await loadUserCredentials(process.env), userAgent: 'olmv1-image' });
  try {
    const pushed = await buildAndPush({
      target,
      client,
      ...(parsed.values.base !== undefined && { base: parsed.values.base }),
      ...(parsed.values.platform !== undefined && { platform: parsePlatform(parsed.values.platform) }),
      plainHttpHint: 'add --plain-http',
    });
    process.stdout.write(`pushed ${pushed.ref} (${pushed.digestRef})\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`image: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
