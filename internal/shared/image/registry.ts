// A Docker Registry HTTP API v2 / OCI distribution client on undici: manifests (with platform
// selection in manifest lists and OCI indexes), blobs, and the auth challenge flow.
//
// * Every manifest and blob is verified against its digest while it streams (sha256/sha512),
//   and blobs against their declared size; manifests and configs are capped at 4 MiB.
// * Auth: a request goes out anonymously (or with a token cached for its registry and scope);
//   a 401 with `Bearer realm=…,service=…,scope=…` is answered by fetching a token (Basic
//   credentials, or an identity token as an OAuth2 refresh token) and retrying once; `Basic`
//   challenges get the Basic credentials. Tokens are cached until `expires_in`.
// * Plain HTTP is used only for registries listed in `insecureRegistries` (host[:port]), and for endpoints a
//   registries.conf marks `insecure` that do not answer over HTTPS (tried first, without TLS verification).
// * registries.conf (`registriesConf`): a pull tries the mirrors of the reference's registry, then its
//   (possibly rewritten) location, and keeps the first that serves the manifest for the rest of the pull;
//   blocked registries are refused. The resolved image keeps the reference that was asked for.
// * Blob redirects (S3, CDNs) are followed up to 5 hops; Authorization is dropped when the
//   origin changes, and an https → http downgrade is refused unless the target is insecure.
// * GET/HEAD are retried on connection errors, 429 and 5xx (honouring Retry-After);
//   a digest mismatch is not retried. A blob upload (POST, then one PUT or PATCHes + PUT) is
//   retried whole, from a fresh session, and a manifest PUT as is (both are idempotent).
// * Pushing asks for the scope `repository:<name>:pull,push`; an existing blob (HEAD 200) is not
//   uploaded again. An upload Location on another origin gets no Authorization.
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { pipeline } from 'node:stream/promises';
import { loadUndici, type Dispatcher, type Undici } from '../http/index.ts';
import { errorMessage, noopLogger, realClock, sleepOrThrow, type Clock, type Logger } from '../toolkit/index.ts';
import { caCertificates, isCaPool, type CaSource } from './ca.ts';
import { anonymous, parseChallenges, type Challenge, type Credential, type CredentialProvider } from './auth.ts';
import { DigestHasher, digestOf, digestProblem, parseDigest, sha256 } from './digest.ts';
import { DigestMismatchError, ImageError, RegistryHttpError } from './errors.ts';
import {
  isImageManifestMediaType,
  isIndexMediaType,
  MANIFEST_ACCEPT,
  MediaTypes,
} from './media-types.ts';
import { DEFAULT_PLATFORM, formatPlatform, selectPlatform, type Platform } from './platform.ts';
import { formatReference, registryApiHost, type ImageReference } from './reference.ts';
import type { PullSource, RegistriesConf } from './registries-conf.ts';

export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const TOKEN_DEFAULT_TTL_S = 60;
const TOKEN_EXPIRY_MARGIN_MS = 10_000;

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly platform?: Platform;
  readonly urls?: readonly string[];
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ImageManifest {
  readonly schemaVersion: 2;
  readonly mediaType: string;
  readonly config: Descriptor;
  readonly layers: readonly Descriptor[];
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ImageIndex {
  readonly schemaVersion: 2;
  readonly mediaType: string;
  readonly manifests: readonly Descriptor[];
}

export interface FetchedManifest {
  readonly mediaType: string;
  readonly digest: string;
  readonly bytes: Buffer;
  readonly manifest: ImageManifest | ImageIndex;
}

export interface ResolvedImage {
  /** Digest of the top-level manifest or index: the image's canonical identity. */
  readonly digest: string;
  readonly mediaType: string;
  /** The single-platform image manifest (the top-level one, or the one chosen from the index). */
  readonly manifest: ImageManifest;
  readonly manifestDigest: string;
  /** The platform chosen from an index; undefined for a single-platform image. */
  readonly platform?: Platform;
  /**
   * Where the manifest came from when registries.conf sent the pull elsewhere (a mirror, a rewritten location):
   * hand it on as `RequestContext.source` so the blobs come from there too. Undefined when no registry matched.
   */
  readonly source?: PullSource;
}

export interface RegistryClientOptions {
  /** Registries (host[:port], as in references) reached over plain HTTP. Nothing else ever is. */
  readonly insecureRegistries?: readonly string[];
  /** Default credentials; a request may bring its own. */
  readonly credentials?: CredentialProvider;
  /** The undici dispatcher to use (custom TLS, proxies); default: an Agent of this client's own. */
  readonly dispatcher?: Dispatcher;
  /**
   * Extra CA certificates (PEM) trusted for registries besides the system ones, when no dispatcher is given; a CaPool
   * (`--pull-cas-dir` watched) is read per request, and new connections are made when its generation changes.
   */
  readonly ca?: CaSource;
  readonly userAgent?: string;
  /** Retries of one request after the first try (default 3). */
  readonly retries?: number;
  /** First retry delay, doubled each time (default 250 ms). */
  readonly retryDelayMs?: number;
  readonly headersTimeoutMs?: number;
  /** Longest pause between two body chunks (default 60 s). */
  readonly bodyTimeoutMs?: number;
  readonly logger?: Logger;
  /** When cached registry tokens expire; default the real clock. */
  readonly clock?: Clock;
  /** containers-registries.conf(5) settings: mirrors, location rewrites, insecure and blocked registries. */
  readonly registriesConf?: RegistriesConf;
}

export interface RequestContext {
  readonly signal?: AbortSignal;
  readonly credentials?: CredentialProvider;
  /** Fetch from this pull source instead of the reference's own registry (`ResolvedImage.source`). */
  readonly source?: PullSource;
}

/** A blob to push: its digest and size, and a way to read it (again, when an upload is retried). */
export interface BlobSource {
  readonly digest: string;
  readonly size: number;
  /** The blob's bytes from the start; called once per upload attempt. */
  open(): Readable | AsyncIterable<Uint8Array> | Uint8Array;
}

/** Bytes of one blob sent so far (`sent` restarts at 0 when an upload is retried). */
export interface UploadProgress {
  readonly digest: string;
  readonly sent: number;
  readonly total: number;
}

export interface PushContext extends RequestContext {
  /** Called as the blob's bytes are sent. */
  readonly onProgress?: (progress: UploadProgress) => void;
  /** Blobs larger than this go up in PATCH chunks of this size; default: one monolithic PUT. */
  readonly chunkSize?: number;
}

type RequestBody = Readable | Uint8Array;

interface SendOptions {
  readonly accept?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Made anew for every attempt (the auth challenge re-sends the request). */
  readonly body?: () => RequestBody;
}

interface CachedAuth {
  readonly header: string;
  readonly expiresAt: number;
}

interface Repo {
  /** The reference requests go to (a registries.conf source's, else the one asked for). */
  readonly ref: ImageReference;
  readonly apiHost: string;
  readonly base: string;
  readonly scope: string;
  readonly credential: Credential | undefined;
  readonly signal: AbortSignal | undefined;
  /** Plain HTTP is allowed for this registry (token realms, redirects). */
  readonly insecure: boolean;
  /** TLS certificates are not verified (a registries.conf `insecure` endpoint reached over HTTPS). */
  readonly skipVerify: boolean;
}

const REDIRECTS = [301, 302, 303, 307, 308];
/** Redirects a request with a body may follow: the ones that keep the method and the body. */
const BODY_REDIRECTS = [307, 308];

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Whether `err` or one of its first four causes has a `code` in `codes`, or is an Error that `matches`. */
function anyCause(err: unknown, codes: ReadonlySet<string>, matches: (e: Error) => boolean): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
    if (e instanceof Error && matches(e)) return true;
  }
  return false;
}

const isRetryableNetworkError = (err: unknown): boolean =>
  anyCause(err, RETRYABLE_CODES, (e) => e.name !== 'AbortError' && /terminated|other side closed|socket hang up/i.test(e.message));

const TLS_RECORD_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);

const isTlsRecordMismatch = (err: unknown): boolean => anyCause(err, TLS_RECORD_CODES, (e) => /wrong version number|packet length too long/i.test(e.message));

/**
 * Go's one-line message for a non-TLS answer to a TLS handshake. The OpenSSL error is kept as `tlsError`, not as
 * `cause`, so `describeError` does not append its source path and newline.
 */
export class TlsRecordError extends Error {
  readonly tlsError: unknown;
  constructor(message: string, tlsError: unknown) {
    super(message);
    this.name = 'TlsRecordError';
    this.tlsError = tlsError;
  }
}


/** `message` plus the causes' messages (undici puts the useful part, e.g. ECONNREFUSED, in `cause`). */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const msg = errorMessage(e);
    if (msg && !parts.some((p) => p.includes(msg))) parts.push(msg);
  }
  return parts.join(': ') || 'unknown error';
}

/** A retryable HTTP status (429, 5xx), carried out of an attempt. */
class RetryableStatus extends Error {
  readonly error: RegistryHttpError;
  readonly retryAfterMs: number | undefined;
  constructor(error: RegistryHttpError, retryAfterMs: number | undefined) {
    super(error.message);
    this.error = error;
    this.retryAfterMs = retryAfterMs;
  }
}

function header(res: Dispatcher.ResponseData, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Registry error bodies: `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"…"}]}`. */
async function errorDetail(res: Dispatcher.ResponseData): Promise<string> {
  let text: string;
  try {
    text = await readLimited(res.body, 16 * 1024, 'error body').then((b) => b.toString('utf8'));
  } catch {
    return '';
  }
  try {
    const parsed = JSON.parse(text) as { errors?: { code?: string; message?: string }[] };
    const parts = (parsed.errors ?? []).map((e) => [e.code, e.message].filter(Boolean).join(': ')).filter(Boolean);
    if (parts.length) return parts.join('; ');
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 200);
}

async function readLimited(body: AsyncIterable<Uint8Array> & { destroy?: () => void }, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of body) {
    n += c.length;
    if (n > max) {
      body.destroy?.();
      throw new ImageError('TooLarge', `${what} is larger than ${max} bytes`);
    }
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks, n);
}

function asDescriptor(v: unknown, where: string): Descriptor {
  const d = v as Partial<Descriptor> | null;
  if (
    typeof d !== 'object' ||
    d === null ||
    typeof d.mediaType !== 'string' ||
    typeof d.digest !== 'string' ||
    typeof d.size !== 'number' ||
    !Number.isSafeInteger(d.size) ||
    d.size < 0
  ) {
    throw new ImageError('InvalidManifest', `${where}: invalid descriptor ${JSON.stringify(v)?.slice(0, 200)}`);
  }
  parseDigest(d.digest, `${where} digest`);
  return d as Descriptor;
}

function parseManifest(bytes: Buffer, contentType: string | undefined, where: string): { mediaType: string; manifest: ImageManifest | ImageIndex } {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new ImageError('InvalidManifest', `${where}: not valid JSON: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null) throw new ImageError('InvalidManifest', `${where}: not a JSON object`);
  const ct = contentType?.split(';')[0]?.trim();
  let mediaType = typeof json.mediaType === 'string' ? json.mediaType : undefined;
  if (json.schemaVersion === 1 || mediaType === MediaTypes.dockerSchema1 || mediaType === MediaTypes.dockerSchema1Signed ||
    ct === MediaTypes.dockerSchema1 || ct === MediaTypes.dockerSchema1Signed) {
    throw new ImageError('UnsupportedMediaType', `${where}: Docker schema 1 manifests are not supported`);
  }
  if (json.schemaVersion !== 2) throw new ImageError('InvalidManifest', `${where}: unsupported schemaVersion ${JSON.stringify(json.schemaVersion)}`);
  mediaType ??= ct && (isIndexMediaType(ct) || isImageManifestMediaType(ct)) ? ct : undefined;
  mediaType ??= Array.isArray(json.manifests) ? MediaTypes.ociIndex : MediaTypes.ociManifest;
  if (isIndexMediaType(mediaType)) {
    if (!Array.isArray(json.manifests)) throw new ImageError('InvalidManifest', `${where}: index has no "manifests"`);
    const manifests = json.manifests.map((m, i) => asDescriptor(m, `${where} manifests[${i}]`));
    return { mediaType, manifest: { schemaVersion: 2, mediaType, manifests } };
  }
  if (!isImageManifestMediaType(mediaType)) {
    throw new ImageError('UnsupportedMediaType', `${where}: unsupported manifest media type ${JSON.stringify(mediaType)}`);
  }
  if (!Array.isArray(json.layers)) throw new ImageError('InvalidManifest', `${where}: manifest has no "layers"`);
  const config = asDescriptor(json.config, `${where} config`);
  const layers = json.layers.map((l, i) => asDescriptor(l, `${where} layers[${i}]`));
  const annotations = json.annotations as Record<string, string> | undefined;
  return { mediaType, manifest: { schemaVersion: 2, mediaType, config, layers, ...(annotations ? { annotations } : {}) } };
}

export class RegistryClient {
  private readonly insecure: ReadonlySet<string>;
  private readonly credentials: CredentialProvider;
  /** The caller's dispatcher, or the options of this client's own Agent, made on the first request. */
  private readonly given: Dispatcher | undefined;
  private readonly ca: CaSource | undefined;
  /** The CA generation the own dispatchers were made for. */
  private caGeneration = 0;
  private ownDispatcher: Dispatcher | undefined;
  /** This client's own Agent that does not verify certificates, for registries.conf `insecure` endpoints. */
  private unverifiedDispatcher: Dispatcher | undefined;
  private readonly conf: RegistriesConf | undefined;
  /** The scheme each registries.conf `insecure` host answered on (https without verification, else http). */
  private readonly schemes = new Map<string, Promise<'https' | 'http'>>();
  private readonly userAgent: string;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly headersTimeoutMs: number;
  private readonly bodyTimeoutMs: number;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly authCache = new Map<string, CachedAuth>();

  constructor(options: RegistryClientOptions = {}) {
    this.insecure = new Set((options.insecureRegistries ?? []).map((h) => h.toLowerCase()));
    this.credentials = options.credentials ?? anonymous;
    this.headersTimeoutMs = options.headersTimeoutMs ?? 30_000;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 60_000;
    this.given = options.dispatcher;
    this.ca = isCaPool(options.ca) ? options.ca : options.ca === undefined ? undefined : caCertificates(options.ca).certs;
    this.userAgent = options.userAgent ?? 'olmv1-image-client';
    this.retries = options.retries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 250;
    this.log = options.logger ?? noopLogger;
    this.clock = options.clock ?? realClock;
    this.conf = options.registriesConf && !options.registriesConf.empty ? options.registriesConf : undefined;
  }

  /** Closes the connections of the dispatchers this client made (not one it was given). */
  async close(): Promise<void> {
    await Promise.all([this.ownDispatcher?.close(), this.unverifiedDispatcher?.close()]);
  }

  /** undici's `request` and the dispatcher to hand it: the caller's, or this client's own Agent, made once. */
  private async http(skipVerify = false): Promise<{ request: Undici['request']; dispatcher: Dispatcher }> {
    const undici = await loadUndici();
    const agent = (connect: Record<string, unknown>): Dispatcher =>
      new undici.Agent({ headersTimeout: this.headersTimeoutMs, bodyTimeout: this.bodyTimeoutMs, ...(Object.keys(connect).length ? { connect } : {}) });
    const trust = this.ca && caCertificates(this.ca);
    if (trust && trust.generation !== this.caGeneration) {
      // A reloaded pool: connections made from now on trust it; those open finish what they carry.
      this.caGeneration = trust.generation;
      for (const d of [this.ownDispatcher, this.unverifiedDispatcher]) void d?.close().catch(() => undefined);
      this.ownDispatcher = this.unverifiedDispatcher = undefined;
    }
    const ca = trust && trust.certs.length > 0 ? { ca: [...rootCertificates, ...trust.certs.map((c) => c.toString())] } : {};
    const dispatcher =
      this.given ?? (skipVerify ? (this.unverifiedDispatcher ??= agent({ ...ca, rejectUnauthorized: false })) : (this.ownDispatcher ??= agent(ca)));
    return { request: undici.request, dispatcher };
  }

  isInsecure(host: string): boolean {
    return this.insecure.has(host.toLowerCase());
  }

  /** True when a request for `ref` would carry credentials (the context's, or this client's). */
  hasCredentials(ref: ImageReference, ctx: RequestContext = {}): boolean {
    return (ctx.credentials ?? this.credentials).lookup(ref.domain, ref.path) !== undefined;
  }

  /**
   * Where requests for `ref` go: `ctx.source` when a registries.conf pull chose one. As containers/image does, a
   * registry that registries.conf blocks is refused, and its `insecure` (the source endpoint's, for a pull, else the
   * registry's) means HTTPS without certificate checks, or plain HTTP when HTTPS does not answer. Credentials are
   * looked up for where the request goes.
   */
  private async repo(asked: ImageReference, ctx: RequestContext, actions: 'pull' | 'pull,push' = 'pull'): Promise<Repo> {
    const ref = ctx.source?.ref ?? asked;
    const apiHost = registryApiHost(ref.domain);
    let scheme: 'http' | 'https' = this.isInsecure(ref.domain) || this.isInsecure(apiHost) ? 'http' : 'https';
    let confInsecure = false;
    if (this.conf) {
      const reg = this.conf.findRegistry(ref.name);
      if (reg?.blocked) throw new ImageError('RegistryBlocked', this.conf.blockedMessage(reg));
      confInsecure = ctx.source ? ctx.source.insecure : (reg?.insecure ?? false);
      if (confInsecure && scheme === 'https') scheme = await this.probeScheme(apiHost, ctx.signal);
    }
    return {
      ref,
      apiHost,
      base: `${scheme}://${apiHost}/v2/${ref.path}`,
      scope: `repository:${ref.path}:${actions}`,
      credential: (ctx.credentials ?? this.credentials).lookup(ref.domain, ref.path),
      signal: ctx.signal,
      insecure: scheme === 'http' || confInsecure,
      skipVerify: confInsecure && scheme === 'https',
    };
  }

  /**
   * containers/image's ping for an insecure registry: `GET /v2/` over HTTPS without certificate checks, else over
   * plain HTTP; 200 or 401 is an answer. Remembered for the life of this client once one answers.
   */
  private probeScheme(host: string, signal: AbortSignal | undefined): Promise<'https' | 'http'> {
    let known = this.schemes.get(host);
    if (!known) {
      const ping = async (scheme: 'https' | 'http'): Promise<void> => {
        const { request, dispatcher } = await this.http(scheme === 'https');
        this.log.debug('registry ping', { url: `${scheme}://${host}/v2/` });
        const res = await request(`${scheme}://${host}/v2/`, {
          method: 'GET',
          headers: { 'user-agent': this.userAgent },
          dispatcher,
          headersTimeout: this.headersTimeoutMs,
          bodyTimeout: this.bodyTimeoutMs,
          ...(signal ? { signal } : {}),
        });
        await res.body.dump().catch(() => undefined);
        if (res.statusCode !== 200 && res.statusCode !== 401) throw new Error(`${scheme}://${host}/v2/ answered ${res.statusCode}`);
      };
      known = (async (): Promise<'https' | 'http'> => {
        try {
          await ping('https');
          return 'https';
        } catch {
          signal?.throwIfAborted();
        }
        try {
          await ping('http');
          return 'http';
        } catch (err) {
          signal?.throwIfAborted();
          throw new ImageError('RegistryUnavailable', `pinging container registry ${host}: ${describeError(err)}`, { cause: err });
        }
      })();
      this.schemes.set(host, known);
      known.catch(() => this.schemes.delete(host));
    }
    return known;
  }

  /** GETs a manifest by tag or digest and verifies it (by the digest asked for, or the registry's header). */
  async getManifest(ref: ImageReference, tagOrDigest: string, ctx: RequestContext = {}): Promise<FetchedManifest> {
    const repo = await this.repo(ref, ctx);
    const byDigest = tagOrDigest.includes(':');
    const where = `manifest ${repo.ref.name}${byDigest ? '@' : ':'}${tagOrDigest}`;
    const url = `${repo.base}/manifests/${tagOrDigest}`;
    return this.withRetries(where, repo.signal, async () => {
      const res = await this.send(repo, 'GET', url, { accept: MANIFEST_ACCEPT.join(', ') });
      if (res.statusCode !== 200) throw await this.statusError(res, url, where, repo, 'ManifestNotFound');
      const bytes = await readLimited(res.body, MAX_MANIFEST_BYTES, where);
      let digest: string;
      if (byDigest) {
        digest = digestOf(bytes, tagOrDigest);
        if (digest !== tagOrDigest) throw new DigestMismatchError(where, tagOrDigest, digest);
      } else {
        // The canonical digest is sha256 of the bytes; a Docker-Content-Digest header must agree.
        digest = sha256(bytes);
        const claimed = header(res, 'docker-content-digest');
        if (claimed !== undefined && digestProblem(claimed) === undefined && digestOf(bytes, claimed) !== claimed) {
          throw new DigestMismatchError(where, claimed, digestOf(bytes, claimed));
        }
      }
      const parsed = parseManifest(bytes, header(res, 'content-type'), where);
      return { ...parsed, digest, bytes };
    });
  }

  /**
   * Resolves `ref` to its canonical digest and the image manifest for `platform`
   * (default linux/amd64) when the reference names a manifest list or OCI index.
   *
   * With a registries.conf whose registry matches `ref`, the top-level manifest is asked of each pull source in
   * turn (the mirrors that apply, then the primary location) and the first that serves it is the `source` of the
   * rest; when all fail the error is containers/image's `(Mirrors also failed: [<ref>: <error>]…): <ref>: <error>`
   * with the primary location's error code.
   */
  async resolve(ref: ImageReference, options: RequestContext & { platform?: Platform } = {}): Promise<ResolvedImage> {
    const platform = options.platform ?? DEFAULT_PLATFORM;
    const sources = options.source ? undefined : this.conf?.pullSources(ref);
    if (!sources) return this.resolveFrom(ref, await this.getManifest(ref, ref.digest ?? ref.tag ?? 'latest', options), platform, options);
    const attempts: { source: PullSource; err: unknown }[] = [];
    for (const source of sources) {
      this.log.debug('trying to access', { ref: formatReference(source.ref) });
      let top: FetchedManifest;
      try {
        top = await this.getManifest(ref, source.ref.digest ?? source.ref.tag ?? 'latest', { ...options, source });
      } catch (err) {
        options.signal?.throwIfAborted();
        this.log.debug('accessing failed', { ref: formatReference(source.ref), err });
        attempts.push({ source, err });
        continue;
      }
      if (source.mirror) this.log.debug('pulling from a mirror', { ref: formatReference(ref), mirror: formatReference(source.ref) });
      const resolved = await this.resolveFrom(ref, top, platform, { ...options, source });
      return { ...resolved, source };
    }
    const primary = attempts[attempts.length - 1];
    if (!primary) throw new ImageError('RegistryError', `${formatReference(ref)}: no pull source to try`);
    if (attempts.length === 1) throw primary.err;
    const extras = attempts.slice(0, -1).map((a) => `[${formatReference(a.source.ref)}: ${errorMessage(a.err)}]`);
    const message = `(Mirrors also failed: ${extras.join('\n')}): ${formatReference(primary.source.ref)}: ${errorMessage(primary.err)}`;
    const err = primary.err;
    if (err instanceof RegistryHttpError) throw new RegistryHttpError(err.code, err.status, err.url, message, { terminal: err.terminal, cause: err });
    if (err instanceof ImageError) throw new ImageError(err.code, message, { terminal: err.terminal, cause: err });
    throw new ImageError('RegistryUnavailable', message, { cause: err });
  }

  /** The platform's manifest from a fetched top-level manifest (an index's child comes from the same source). */
  private async resolveFrom(ref: ImageReference, top: FetchedManifest, platform: Platform, options: RequestContext): Promise<ResolvedImage> {
    if (!('manifests' in top.manifest)) {
      return { digest: top.digest, mediaType: top.mediaType, manifest: top.manifest, manifestDigest: top.digest };
    }
    const entry = selectPlatform(top.manifest.manifests, platform);
    if (!entry) {
      const available = top.manifest.manifests
        .map((m) => (m.platform ? formatPlatform(m.platform) : undefined))
        .filter((p): p is string => p !== undefined);
      throw new ImageError(
        'NoMatchingPlatform',
        `${formatReference(ref)}: no image for platform ${formatPlatform(platform)} in the ${top.mediaType === MediaTypes.ociIndex ? 'index' : 'manifest list'} (available: ${available.join(', ') || 'none'})`,
        { terminal: ref.digest !== undefined },
      );
    }
    const child = await this.getManifest(ref, entry.digest, options);
    if ('manifests' in child.manifest) {
      throw new ImageError('UnsupportedMediaType', `${ref.name}@${entry.digest}: nested indexes are not supported`);
    }
    return {
      digest: top.digest,
      mediaType: top.mediaType,
      manifest: child.manifest,
      manifestDigest: child.digest,
      ...(entry.platform ? { platform: entry.platform } : {}),
    };
  }

  /** A small blob (an image config) in memory, verified. */
  async getBlob(ref: ImageReference, desc: Descriptor, ctx: RequestContext = {}, max = MAX_CONFIG_BYTES): Promise<Buffer> {
    if (desc.size > max) throw new ImageError('TooLarge', `blob ${desc.digest} of ${ref.name} is ${desc.size} bytes (limit ${max})`);
    const repo = await this.repo(ref, ctx);
    const where = `blob ${repo.ref.name}@${desc.digest}`;
    return this.withRetries(where, repo.signal, async () => {
      const res = await this.openBlob(repo, desc, where);
      const bytes = await readLimited(res.body, desc.size, where).catch((err: unknown) => {
        if (err instanceof ImageError && err.code === 'TooLarge') {
          throw new ImageError('SizeMismatch', `${where}: more than the ${desc.size} bytes the manifest declares`);
        }
        throw err;
      });
      if (bytes.length !== desc.size) {
        throw new ImageError('SizeMismatch', `${where}: got ${bytes.length} bytes, the manifest declares ${desc.size}`);
      }
      const got = digestOf(bytes, desc.digest);
      if (got !== desc.digest) throw new DigestMismatchError(where, desc.digest, got);
      return bytes;
    });
  }

  /** Streams a blob into `file` (created or truncated), verifying size and digest as it goes. */
  async downloadBlob(ref: ImageReference, desc: Descriptor, file: string, ctx: RequestContext = {}): Promise<void> {
    const repo = await this.repo(ref, ctx);
    const where = `blob ${repo.ref.name}@${desc.digest}`;
    const hasher = new DigestHasher(desc.digest);
    await this.withRetries(where, repo.signal, async () => {
      const res = await this.openBlob(repo, desc, where);
      const length = header(res, 'content-length');
      if (length !== undefined && Number(length) !== desc.size) {
        await res.body.dump().catch(() => undefined);
        throw new ImageError('SizeMismatch', `${where}: registry sends ${length} bytes, the manifest declares ${desc.size}`);
      }
      hasher.reset();
      let n = 0;
      await pipeline(
        res.body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            n += chunk.length;
            if (n > desc.size) throw new ImageError('SizeMismatch', `${where}: more than the ${desc.size} bytes the manifest declares`);
            hasher.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(file),
        ...(repo.signal ? [{ signal: repo.signal }] : []),
      );
      if (n !== desc.size) throw new ImageError('SizeMismatch', `${where}: got ${n} bytes, the manifest declares ${desc.size}`);
      const got = hasher.digest();
      if (got !== desc.digest) throw new DigestMismatchError(where, desc.digest, got);
    });
  }

  private async openBlob(repo: Repo, desc: Descriptor, where: string): Promise<Dispatcher.ResponseData> {
    const url = `${repo.base}/blobs/${desc.digest}`;
    const res = await this.send(repo, 'GET', url, {});
    if (res.statusCode !== 200) throw await this.statusError(res, url, where, repo, 'BlobNotFound');
    return res;
  }

  /** The error for an unexpected answer; a 404 is `notFound` when the caller names what was not found. */
  private async statusError(
    res: Dispatcher.ResponseData,
    url: string,
    where: string,
    repo: Repo,
    notFound?: 'ManifestNotFound' | 'BlobNotFound',
  ): Promise<Error> {
    const detail = await errorDetail(res);
    const status = res.statusCode;
    const suffix = detail ? `: ${detail}` : '';
    const code = status === 404 ? notFound : undefined;
    if (code === 'ManifestNotFound') {
      return new RegistryHttpError(code, status, url, `${where}: not found in ${repo.ref.domain}${suffix}`);
    }
    if (code === 'BlobNotFound') return new RegistryHttpError(code, status, url, `${where}: not found${suffix}`);
    if (status === 401) {
      const creds = repo.credential ? 'the configured credentials were not accepted' : 'no credentials are configured for it';
      return new RegistryHttpError('Unauthorized', status, url, `${where}: 401 Unauthorized (${creds})${suffix}`);
    }
    if (status === 403) return new RegistryHttpError('Denied', status, url, `${where}: 403 Forbidden${suffix}`);
    const err = new RegistryHttpError(
      status === 429 ? 'TooManyRequests' : status >= 500 ? 'RegistryUnavailable' : 'RegistryError',
      status,
      url,
      `${where}: unexpected HTTP status ${status}${suffix}`,
    );
    if (status === 429 || status >= 500) {
      const ra = header(res, 'retry-after');
      const secs = ra !== undefined && /^\d+$/.test(ra) ? Number(ra) : undefined;
      return new RetryableStatus(err, secs === undefined ? undefined : Math.min(secs, 30) * 1000);
    }
    return err;
  }

  private async withRetries<T>(where: string, signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      signal?.throwIfAborted();
      try {
        return await attempt();
      } catch (err) {
        signal?.throwIfAborted();
        const retryable = err instanceof RetryableStatus || (!(err instanceof ImageError) && isRetryableNetworkError(err));
        if (!retryable || i >= this.retries) {
          if (err instanceof RetryableStatus) throw err.error;
          if (err instanceof ImageError) throw err;
          const attempts = i + 1 === 1 ? '' : ` (after ${i + 1} attempts)`;
          throw new ImageError('RegistryUnavailable', `${where}: ${describeError(err)}${attempts}`, { cause: err });
        }
        const backoff = this.retryDelayMs * 2 ** i;
        const delay = err instanceof RetryableStatus && err.retryAfterMs !== undefined ? err.retryAfterMs : backoff;
        this.log.warn('registry request failed, retrying', { what: where, attempt: i + 1, delayMs: delay, err });
        await sleepOrThrow(delay, signal);
      }
    }
  }

  /**
   * One request with auth (cached token, or the 401 challenge flow) and redirects. Returns a
   * response whose body the caller must consume; on a status the caller handles. Authorization
   * goes only to the registry's own origin; a request with a body follows only 307/308.
   */
  private async send(repo: Repo, method: Dispatcher.HttpMethod, url: string, extra: SendOptions = {}): Promise<Dispatcher.ResponseData> {
    const cacheKey = this.authKey(repo, repo.scope);
    let auth = this.cachedAuth(cacheKey);
    let challenged = false;
    let current = new URL(url);
    const origin = new URL(repo.base).origin;
    for (let hop = 0; ; ) {
      const sameOrigin = current.origin === origin;
      const headers: Record<string, string> = { 'user-agent': this.userAgent, ...extra.headers };
      if (extra.accept) headers.accept = extra.accept;
      if (auth && sameOrigin) headers.authorization = auth;
      this.log.debug('registry request', { method, url: current.href });
      let res: Dispatcher.ResponseData;
      try {
        const { request, dispatcher } = await this.http(repo.skipVerify);
        res = await request(current, {
          method,
          headers,
          ...(extra.body ? { body: extra.body() } : {}),
          dispatcher,
          headersTimeout: this.headersTimeoutMs,
          bodyTimeout: this.bodyTimeoutMs,
          ...(repo.signal ? { signal: repo.signal } : {}),
        });
      } catch (err) {
        if (current.protocol === 'https:' && isTlsRecordMismatch(err)) throw await this.tlsMismatch(current, err, repo.signal);
        throw err;
      }
      if (res.statusCode === 401 && sameOrigin && !challenged) {
        const challengeHeader = header(res, 'www-authenticate');
        await res.body.dump().catch(() => undefined);
        challenged = true;
        const answer = await this.answerChallenge(repo, challengeHeader, url);
        this.authCache.set(cacheKey, answer);
        auth = answer.header;
        continue;
      }
      if ((extra.body ? BODY_REDIRECTS : REDIRECTS).includes(res.statusCode)) {
        const location = header(res, 'location');
        await res.body.dump().catch(() => undefined);
        if (!location) throw new RegistryHttpError('RegistryError', res.statusCode, current.href, `${current.href}: redirect without a Location`);
        if (++hop > MAX_REDIRECTS) throw new RegistryHttpError('RegistryError', res.statusCode, current.href, `${url}: more than ${MAX_REDIRECTS} redirects`);
        current = this.nextUrl(location, current, url, res.statusCode, repo.insecure);
        continue;
      }
      return res;
    }
  }

  /**
   * A TLS handshake answered by something that is not TLS. OpenSSL says only "wrong version number" (with its
   * source path and a newline); Go's client tells a plain-HTTP server apart from anything else, so one plain
   * request to the same host decides which of Go's two one-line messages this is.
   */
  private async tlsMismatch(url: URL, err: unknown, signal: AbortSignal | undefined): Promise<Error> {
    let http = false;
    try {
      const { request, dispatcher } = await this.http();
      const probe = await request(`http://${url.host}/`, {
        method: 'GET',
        dispatcher,
        headersTimeout: Math.min(this.headersTimeoutMs, 5_000),
        bodyTimeout: Math.min(this.bodyTimeoutMs, 5_000),
        ...(signal ? { signal } : {}),
      });
      await probe.body.dump().catch(() => undefined);
      http = true;
    } catch {
      // not an HTTP server either
    }
    return new TlsRecordError(http ? 'http: server gave HTTP response to HTTPS client' : 'tls: first record does not look like a TLS handshake', err);
  }

  /** `location` resolved against `current`: http(s) only, and no https → http downgrade unless insecure. */
  private nextUrl(location: string, current: URL, url: string, status: number, insecure: boolean): URL {
    const next = new URL(location, current);
    if (next.protocol !== 'https:' && next.protocol !== 'http:') {
      throw new RegistryHttpError('RegistryError', status, current.href, `${url}: redirect to unsupported URL scheme ${next.protocol}`);
    }
    if (next.protocol === 'http:' && current.protocol === 'https:' && !insecure && !this.isInsecure(next.host)) {
      throw new ImageError('InsecureRegistry', `${url}: refusing a redirect from https to plain http (${next.origin})`);
    }
    return next;
  }

  // -------------------------------------------------------------------------------------------
  // push

  /**
   * Uploads `blob` to `ref`'s repository unless the registry has it already (HEAD). One POST
   * starts an upload session, then one PUT sends the whole blob, or (above `chunkSize`) PATCHes
   * send it in chunks and a PUT closes it. The registry checks the digest. Returns whether bytes
   * were sent.
   */
  async pushBlob(ref: ImageReference, blob: BlobSource, ctx: PushContext = {}): Promise<{ uploaded: boolean }> {
    parseDigest(blob.digest, 'blob digest');
    const repo = await this.repo(ref, ctx, 'pull,push');
    const where = `blob ${ref.name}@${blob.digest}`;
    const blobUrl = `${repo.base}/blobs/${blob.digest}`;
    const exists = await this.withRetries(where, repo.signal, async () => {
      const res = await this.send(repo, 'HEAD', blobUrl);
      if (res.statusCode === 200 || res.statusCode === 404) {
        await res.body.dump().catch(() => undefined);
        return res.statusCode === 200;
      }
      throw await this.statusError(res, blobUrl, where, repo);
    });
    if (exists) return { uploaded: false };
    const upload = `upload of ${where}`;
    await this.withRetries(upload, repo.signal, async () => {
      const startUrl = `${repo.base}/blobs/uploads/`;
      const start = await this.send(repo, 'POST', startUrl, { headers: { 'content-length': '0' } });
      if (start.statusCode !== 202) throw await this.statusError(start, startUrl, upload, repo);
      await start.body.dump().catch(() => undefined);
      let location = this.uploadLocation(start, new URL(startUrl), upload, repo.insecure);
      const progress = (sent: number): void => ctx.onProgress?.({ digest: blob.digest, sent, total: blob.size });
      const chunkSize = ctx.chunkSize;
      // The PUT that closes the upload carries the whole blob, unless PATCHes sent it in chunks.
      let closing: SendOptions = {
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(blob.size) },
        body: () => Readable.from(counted(blob.open(), progress)),
      };
      if (chunkSize !== undefined && blob.size > chunkSize) {
        let offset = 0;
        progress(0);
        for await (const chunk of rechunk(blob.open(), chunkSize)) {
          const res = await this.send(repo, 'PATCH', location.href, {
            headers: {
              'content-type': 'application/octet-stream',
              'content-length': String(chunk.length),
              'content-range': `${offset}-${offset + chunk.length - 1}`,
            },
            body: () => chunk,
          });
          if (res.statusCode !== 202) throw await this.statusError(res, location.href, upload, repo);
          await res.body.dump().catch(() => undefined);
          location = this.uploadLocation(res, location, upload, repo.insecure);
          offset += chunk.length;
          progress(offset);
        }
        closing = { headers: { 'content-length': '0' } };
      }
      const put = withQuery(location, 'digest', blob.digest);
      const res = await this.send(repo, 'PUT', put.href, closing);
      if (res.statusCode !== 201) throw await this.statusError(res, put.href, upload, repo);
      await res.body.dump().catch(() => undefined);
    });
    return { uploaded: true };
  }

  /** PUTs a manifest (or index) by tag or digest; returns its digest (sha256 of the bytes). */
  async putManifest(ref: ImageReference, tagOrDigest: string, mediaType: string, bytes: Uint8Array, ctx: RequestContext = {}): Promise<string> {
    const repo = await this.repo(ref, ctx, 'pull,push');
    const byDigest = tagOrDigest.includes(':');
    const where = `manifest ${ref.name}${byDigest ? '@' : ':'}${tagOrDigest}`;
    const url = `${repo.base}/manifests/${tagOrDigest}`;
    const digest = byDigest ? digestOf(bytes, tagOrDigest) : sha256(bytes);
    if (byDigest && digest !== tagOrDigest) throw new DigestMismatchError(where, tagOrDigest, digest);
    return this.withRetries(where, repo.signal, async () => {
      const res = await this.send(repo, 'PUT', url, {
        headers: { 'content-type': mediaType, 'content-length': String(bytes.length) },
        body: () => bytes,
      });
      if (res.statusCode !== 201) throw await this.statusError(res, url, where, repo);
      await res.body.dump().catch(() => undefined);
      const claimed = header(res, 'docker-content-digest');
      if (claimed !== undefined && digestProblem(claimed) === undefined && digestOf(bytes, claimed) !== claimed) {
        throw new DigestMismatchError(where, claimed, digestOf(bytes, claimed));
      }
      return digest;
    });
  }

  /** The upload session URL a POST/PATCH answered with (`Location`, relative to the request). */
  private uploadLocation(res: Dispatcher.ResponseData, requested: URL, where: string, insecure: boolean): URL {
    const location = header(res, 'location');
    if (!location) throw new RegistryHttpError('RegistryError', res.statusCode, requested.href, `${where}: the registry answered ${res.statusCode} without a Location`);
    return this.nextUrl(location, requested, where, res.statusCode, insecure);
  }

  private authKey(repo: Repo, scope: string): string {
    const c = repo.credential;
    const who = c ? `${c.username ?? ''}\0${c.password ?? ''}\0${c.identityToken ?? ''}\0${c.registryToken ?? ''}` : '';
    return `${repo.apiHost}\n${scope}\n${who}`;
  }

  private cachedAuth(key: string): string | undefined {
    const hit = this.authCache.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt - TOKEN_EXPIRY_MARGIN_MS < this.clock.now()) {
      this.authCache.delete(key);
      return undefined;
    }
    return hit.header;
  }

  /** The Authorization header that answers a 401 challenge, and until when it may be reused. */
  private async answerChallenge(repo: Repo, challengeHeader: string | undefined, url: string): Promise<CachedAuth> {
    const where = `${repo.ref.name} (${url})`;
    const challenges = challengeHeader ? parseChallenges(challengeHeader) : [];
    const bearer = challenges.find((c) => c.scheme === 'bearer');
    const basic = challenges.find((c) => c.scheme === 'basic');
    const cred = repo.credential;
    if (bearer) {
      if (cred?.registryToken) {
        return { header: `Bearer ${cred.registryToken}`, expiresAt: this.clock.now() + TOKEN_DEFAULT_TTL_S * 1000 };
      }
      const { token, ttlMs } = await this.fetchToken(repo, bearer, where);
      return { header: `Bearer ${token}`, expiresAt: this.clock.now() + ttlMs };
    }
    if (basic) {
      if (cred?.username === undefined || cred.password === undefined) {
        throw new RegistryHttpError('Unauthorized', 401, url, `${where}: 401 Unauthorized (the registry wants Basic credentials; none are configured for ${repo.ref.domain})`);
      }
      return { header: basicHeader(cred.username, cred.password), expiresAt: Number.MAX_SAFE_INTEGER };
    }
    throw new RegistryHttpError(
      'Unauthorized',
      401,
      url,
      `${where}: 401 Unauthorized with ${challengeHeader ? `an unsupported challenge ${JSON.stringify(challengeHeader)}` : 'no WWW-Authenticate challenge'}`,
    );
  }

  private async fetchToken(repo: Repo, challenge: Challenge, where: string): Promise<{ token: string; ttlMs: number }> {
    const realm = challenge.params.realm;
    if (!realm) throw new ImageError('Unauthorized', `${where}: Bearer challenge without a realm`);
    let realmUrl: URL;
    try {
      realmUrl = new URL(realm);
    } catch {
      throw new ImageError('Unauthorized', `${where}: Bearer challenge realm ${JSON.stringify(realm)} is not a URL`);
    }
    const registryInsecure = repo.insecure || this.isInsecure(repo.ref.domain) || this.isInsecure(repo.apiHost);
    if (realmUrl.protocol === 'http:' && !registryInsecure && !this.isInsecure(realmUrl.host)) {
      throw new ImageError('InsecureRegistry', `${where}: refusing to fetch a token over plain http from ${realmUrl.origin}`);
    }
    if (realmUrl.protocol !== 'http:' && realmUrl.protocol !== 'https:') {
      throw new ImageError('Unauthorized', `${where}: token realm ${realmUrl.href} is not http(s)`);
    }
    const scope = challenge.params.scope ?? repo.scope;
    const service = challenge.params.service;
    const cred = repo.credential;
    return this.withRetries(`token from ${realmUrl.origin}`, repo.signal, async () => {
      let res: Dispatcher.ResponseData;
      const headers: Record<string, string> = { 'user-agent': this.userAgent };
      const { request, dispatcher } = await this.http(repo.skipVerify);
      if (cred?.identityToken) {
        const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: cred.identityToken, client_id: 'olmv1', scope });
        if (service) form.set('service', service);
        headers['content-type'] = 'application/x-www-form-urlencoded';
        res = await request(realmUrl, {
          method: 'POST',
          headers,
          body: form.toString(),
          dispatcher,
          ...(repo.signal ? { signal: repo.signal } : {}),
        });
      } else {
        const u = new URL(realmUrl);
        if (service) u.searchParams.set('service', service);
        for (const s of scope.split(' ')) if (s) u.searchParams.append('scope', s);
        if (cred?.username !== undefined && cred.password !== undefined) {
          headers.authorization = basicHeader(cred.username, cred.password);
          u.searchParams.set('account', cred.username);
        }
        res = await request(u, { method: 'GET', headers, dispatcher, ...(repo.signal ? { signal: repo.signal } : {}) });
      }
      if (res.statusCode !== 200) {
        const detail = await errorDetail(res);
        const status = res.statusCode;
        const msg = `${where}: token request to ${realmUrl.origin}${realmUrl.pathname} answered ${status}${detail ? `: ${detail}` : ''}`;
        if (status === 401 || status === 403) {
          throw new RegistryHttpError(
            status === 401 ? 'Unauthorized' : 'Denied',
            status,
            realmUrl.href,
            `${msg} (${cred ? 'the configured credentials were not accepted' : 'no credentials are configured'})`,
          );
        }
        const err = new RegistryHttpError(status >= 500 || status === 429 ? 'RegistryUnavailable' : 'RegistryError', status, realmUrl.href, msg);
        throw status >= 500 || status === 429 ? new RetryableStatus(err, undefined) : err;
      }
      const body = (await readLimited(res.body, 1 << 20, 'token response').then((b) => JSON.parse(b.toString('utf8')))) as {
        token?: unknown;
        access_token?: unknown;
        expires_in?: unknown;
      };
      const token = typeof body.token === 'string' && body.token ? body.token : typeof body.access_token === 'string' ? body.access_token : '';
      if (!token) throw new ImageError('Unauthorized', `${where}: token response from ${realmUrl.origin} has no token`);
      const ttl = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : TOKEN_DEFAULT_TTL_S;
      return { token, ttlMs: ttl * 1000 };
    });
  }
}

const basicHeader = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function withQuery(url: URL, key: string, value: string): URL {
  const u = new URL(url);
  u.searchParams.set(key, value);
  return u;
}

async function* bodyChunks(source: Readable | AsyncIterable<Uint8Array> | Uint8Array): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) yield source;
  else yield* source as AsyncIterable<Uint8Array>;
}

/** Passes `source` through, reporting the running byte count. */
async function* counted(source: Readable | AsyncIterable<Uint8Array> | Uint8Array, progress: (sent: number) => void): AsyncGenerator<Uint8Array> {
  let sent = 0;
  progress(0);
  for await (const chunk of bodyChunks(source)) {
    sent += chunk.length;
    yield chunk;
    progress(sent);
  }
}

/** `source` cut into buffers of exactly `size` bytes (the last may be shorter). */
async function* rechunk(source: Readable | AsyncIterable<Uint8Array> | Uint8Array, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of bodyChunks(source)) {
    let c = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (c.length > 0) {
      const take = Math.min(size - length, c.length);
      parts.push(c.subarray(0, take));
      length += take;
      c = c.subarray(take);
      if (length === size) {
        yield Buffer.concat(parts, length);
        parts = [];
        length = 0;
      }
    }
  }
  if (length > 0) yield Buffer.concat(parts, length);
}
