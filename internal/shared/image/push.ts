// Pushes an image: every blob (skipped when the registry has it already), then the manifest by
// tag. Failures become one line that names the repository: `push to <name>: …`, with the
// registry's refusal of credentials, an unreachable registry, or the registry's own error.
import type { BuiltImage } from './build.ts';
import { ImageError, RegistryHttpError } from './errors.ts';
import { canonicalReference, formatReference, parseReference, registryApiHost, type ImageReference } from './reference.ts';
import { describeError, type PushContext, type RegistryClient } from './registry.ts';

export interface PushResult {
  /** `name:tag` as pushed. */
  readonly ref: string;
  /** `name@sha256:…`. */
  readonly digestRef: string;
  readonly digest: string;
}

export type PushableImage = Pick<BuiltImage, 'mediaType' | 'manifest' | 'blobs'>;

export interface PushImageOptions extends PushContext {
  /** What to tell a user whose https connection failed as if the registry spoke plain HTTP (e.g. a flag to use). */
  readonly plainHttpHint?: string;
}

/** Pushes `image` to `reference` (which must have a tag, not a digest) with `client`. */
export async function pushImage(
  client: RegistryClient,
  reference: string | ImageReference,
  image: PushableImage,
  ctx: PushImageOptions = {},
): Promise<PushResult> {
  const ref = typeof reference === 'string' ? parseReference(reference) : reference;
  if (ref.digest !== undefined || ref.tag === undefined) {
    throw new ImageError('InvalidReference', `push to ${formatReference(ref)}: push needs a tag, not a digest`, { terminal: true });
  }
  try {
    for (const blob of image.blobs()) await client.pushBlob(ref, blob, ctx);
    const digest = await client.putManifest(ref, ref.tag, image.mediaType, image.manifest, ctx);
    return { ref: `${ref.name}:${ref.tag}`, digestRef: canonicalReference(ref, digest), digest };
  } catch (err) {
    throw pushFailure(client, ref, err, ctx);
  }
}

const TLS_MISMATCH = /server gave HTTP response to HTTPS client|does not look like a TLS handshake|wrong version number|packet length too long|EPROTO|ERR_SSL/i;

function pushFailure(client: RegistryClient, ref: ImageReference, err: unknown, ctx: PushImageOptions): unknown {
  if (!(err instanceof ImageError)) return err;
  const what = `push to ${ref.name}`;
  const withCredentials = client.hasCredentials(ref, ctx);
  const status = err instanceof RegistryHttpError ? err.status : undefined;
  let message: string;
  if (err.code === 'Unauthorized' || err.code === 'Denied') {
    const answer = status === 403 || err.code === 'Denied' ? '403 Forbidden' : '401 Unauthorized';
    message = withCredentials
      ? `${what}: the registry refused the credentials for ${ref.domain} (${answer})`
      : `${what}: ${ref.domain} wants credentials and none are configured for it (${answer})`;
  } else if (err.code === 'RegistryUnavailable' && status === undefined) {
    // One line: OpenSSL's messages end with a newline (and a colon).
    const detail = describeError(err.cause ?? err).replace(/\s+/g, ' ').replace(/[\s:]+$/, '');
    const host = registryApiHost(ref.domain);
    const overHttps = !client.isInsecure(ref.domain) && !client.isInsecure(host);
    const hint = overHttps && TLS_MISMATCH.test(detail) ? ` (it may serve plain HTTP${ctx.plainHttpHint ? `: ${ctx.plainHttpHint}` : ''})` : '';
    message = `${what}: cannot reach ${host}${overHttps ? ' over https' : ''}${hint}: ${detail}`;
  } else {
    message = `${what}: ${err.message}`;
  }
  return new ImageError(err.code, message, { cause: err, terminal: err.terminal });
}
