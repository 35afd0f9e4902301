// `kubectl olm catalog push <dir> <ref>` and `kubectl olm bundle push <dir> <ref>`: build the
// catalog or bundle image and push it with the user's docker/podman credentials, no container
// engine needed. The work is internal/publish's; this file parses flags, finds credentials, shows
// progress on a terminal and prints the pushed digest reference.
import { resolve } from 'node:path';
import { publishBundle, publishCatalog, PublishContentError, type PublishOptions } from '../publish/index.ts';
import {
  isImageError,
  loadUserCredentials,
  parsePlatform,
  parseReference,
  RegistryClient,
  type ImageReference,
  type UploadProgress,
} from '../shared/image/index.ts';
import { realClock } from '../shared/toolkit/index.ts';
import { asUsage, CliUsageError, insecureRegistries, parseStrict, type CliCommand, type CliIO } from './types.ts';

/** Blobs smaller than this go up without a progress line. */
const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;
const PROGRESS_INTERVAL_MS = 200;

const FLAGS_USAGE = [
  'Flags:',
  '  --plain-http                      reach the registry over plain HTTP instead of https (as oras --plain-http)',
  '  --insecure-registries <h[:p],...> registries always reached over plain HTTP (default: $OLM_INSECURE_REGISTRIES,',
  '                                    as the controllers’ --insecure-registries)',
  '  --platform <os/arch[/variant]>    the platform the image config names (default linux/amd64)',
  '',
  'Credentials are those of `docker login` / `podman login`: $REGISTRY_AUTH_FILE, $DOCKER_CONFIG/config.json,',
  '$XDG_RUNTIME_DIR/containers/auth.json, ~/.docker/config.json (first match wins; credential helpers are',
  'not used). Prints the pushed image as <repository>@sha256:<digest>; the same directory always gives the',
  'same digest. Progress of large uploads goes to stderr when it is a terminal. Exit 1 when the registry',
  'cannot be reached or refuses the credentials, with one line naming the registry and the repository.',
];

function parse(args: readonly string[], io: CliIO, what: string) {
  const { values, positionals } = parseStrict(args, { 'plain-http': { type: 'boolean' }, 'insecure-registries': { type: 'string' }, platform: { type: 'string' } });
  if (positionals.length !== 2) throw new CliUsageError(`expected a ${what} directory and an image reference, got ${positionals.length} arguments`);
  const [dir, text] = positionals as [string, string];
  const ref = asUsage(() => parseReference(text));
  if (ref.digest !== undefined) throw new CliUsageError(`push needs a tag, not a digest: ${JSON.stringify(text)}`);
  const platform = values.platform === undefined ? undefined : asUsage(() => parsePlatform(values.platform!));
  const listed = insecureRegistries(values['insecure-registries'], io.env);
  const insecure = values['plain-http'] ? [...listed, ref.domain] : listed;
  return { dir: resolve(io.cwd, dir), ref, insecureRegistries: insecure, platform };
}

/** `sha256:0123456789ab  12.5 / 40.0 MiB` lines on a terminal; nothing otherwise. */
export function progressReporter(stderr: NodeJS.WritableStream): ((p: UploadProgress) => void) | undefined {
  if ((stderr as { isTTY?: boolean }).isTTY !== true) return undefined;
  let last = -Infinity;
  const mib = (n: number): string => (n / (1024 * 1024)).toFixed(1);
  return (p) => {
    if (p.total < PROGRESS_MIN_BYTES) return;
    const done = p.sent >= p.total;
    const now = realClock.now();
    if (!done && p.sent !== 0 && now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    stderr.write(`\r${p.digest.slice(0, 19)}  ${mib(p.sent)} / ${mib(p.total)} MiB${done ? '\n' : ''}`);
  };
}

async function push(
  args: ReturnType<typeof parse>,
  io: CliIO,
  publish: (dir: string, ref: ImageReference, options: PublishOptions) => Promise<{ digestRef: string }>,
): Promise<number> {
  let client: RegistryClient | undefined;
  try {
    const credentials = await loadUserCredentials(io.env);
    client = new RegistryClient({ insecureRegistries: args.insecureRegistries, credentials, userAgent: 'kubectl-olm' });
    const onProgress = progressReporter(io.stderr);
    const pushed = await publish(args.dir, args.ref, {
      client,
      ...(args.platform && { platform: args.platform }),
      ...(onProgress && { onProgress }),
      plainHttpHint: 'use --plain-http',
    });
    io.stdout.write(`${pushed.digestRef}\n`);
    return 0;
  } catch (err) {
    if (err instanceof PublishContentError || isImageError(err)) {
      io.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await client?.close();
  }
}

export const catalogPush: CliCommand = {
  path: ['catalog', 'push'],
  summary: 'validate a file-based catalog directory and push it as a catalog image (no container engine needed)',
  usage: [
    'Usage: kubectl olm catalog push <catalog dir> <image ref> [--plain-http] [--insecure-registries <hosts>] [--platform <os/arch>]',
    '',
    'Validates the file-based catalog in <catalog dir> as `kubectl olm catalog validate` does; an invalid',
    'catalog is not pushed (its problem is printed, exit 1). Then builds a single-layer OCI image holding',
    'the catalog under /configs, labelled operators.operatorframework.io.index.configs.v1=/configs (what',
    'catalogd and `opm serve` read), and pushes it to <image ref>, a tag (default "latest").',
    '',
    ...FLAGS_USAGE,
    '',
    'Example:',
    '  kubectl olm catalog push ./catalog quay.io/example/my-catalog:v1',
    '  kubectl olm catalog push ./catalog localhost:5000/my-catalog:latest --plain-http',
  ].join('\n'),
  async run(args, io) {
    return push(parse(args, io, 'catalog'), io, publishCatalog);
  },
};

export const bundlePush: CliCommand = {
  path: ['bundle', 'push'],
  summary: 'push a registry+v1 bundle directory as a bundle image (no container engine needed)',
  usage: [
    'Usage: kubectl olm bundle push <bundle dir> <image ref> [--plain-http] [--insecure-registries <hosts>] [--platform <os/arch>]',
    '',
    'Builds a single-layer OCI image of the registry+v1 bundle in <bundle dir>: its manifests/ and metadata/',
    'at the image root, and every annotation of metadata/annotations.yaml as an image label (as the',
    'bundle.Dockerfile of `operator-sdk generate bundle` sets them). Pushes it to <image ref>, a tag',
    '(default "latest"). A directory without metadata/annotations.yaml or manifests/, or whose annotations',
    'name another media type or no package, is refused (exit 1). The manifests are not validated here:',
    '`kubectl olm bundle render` does that.',
    '',
    ...FLAGS_USAGE,
    '',
    'Example:',
    '  kubectl olm bundle push ./bundle quay.io/example/my-operator-bundle:v1.2.3',
  ].join('\n'),
  async run(args, io) {
    return push(parse(args, io, 'bundle'), io, publishBundle);
  },
};
