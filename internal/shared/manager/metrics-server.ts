// Secure metrics, as upstream's catalogd and operator-controller serve them: controller-runtime's metrics server with
// SecureServing and `filters.WithAuthenticationAndAuthorization`. HTTPS (HTTP/1.1 only) with the `--tls-cert` /
// `--tls-key` pair, reloaded when it changes, under the TLS profile; `/metrics` only (anything else: Go's 404); every
// request's bearer token authenticated by a TokenReview and the user authorized by a SubjectAccessReview for the
// non-resource URL, the verb the request's method in lower case. The answers and their texts are the filter's:
//   no bearer token                                 401 "Unauthorized"
//   a token the TokenReview does not authenticate   500 "Authentication failed" (k8s.io/apiserver's bearer-token
//                                                   authenticator reports an error, not a plain "no")
//   the TokenReview cannot be made                  500 "Authentication failed"
//   the SubjectAccessReview cannot be made          500 "Authorization for user <name> failed"
//   not allowed                                     403 "Authorization denied for user <name>"
// The delegating authenticator caches a token's answer for a minute; the authorizer caches an allow 5 minutes and a
// deny 30 seconds.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { KubeClient } from '../kube/index.ts';
import { listen, realClock, type Clock } from '../toolkit/index.ts';
import { serverOptions, watchCertificate, type TLSProfile } from '../tlsprofile/index.ts';
import { errorMessage, type Logger } from './deps.ts';

export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** The user a TokenReview authenticated (user.Info). */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The two reviews the filter asks the API server for (a KubeClient's by default; tests may count them). */
export interface Reviewer {
  /** The TokenReview's status; throws when it cannot be made. */
  tokenReview(token: string): Promise<{ authenticated?: boolean; user?: Partial<UserInfo>; error?: string }>;
  /** The SubjectAccessReview's status; throws when it cannot be made. */
  subjectAccessReview(user: UserInfo, path: string, verb: string): Promise<{ allowed?: boolean; denied?: boolean; reason?: string }>;
}

export function kubeReviewer(client: KubeClient): Reviewer {
  return {
    async tokenReview(token) {
      const review = await client.create<KubeObject & { status?: Awaited<ReturnType<Reviewer['tokenReview']>> }>({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        metadata: {},
        spec: { token },
      } as KubeObject);
      return review.status ?? {};
    },
    async subjectAccessReview(user, path, verb) {
      const review = await client.create<KubeObject & { status?: Awaited<ReturnType<Reviewer['subjectAccessReview']>> }>({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: {
          user: user.username,
          ...(user.uid && { uid: user.uid }),
          groups: [...user.groups],
          ...(user.extra && Object.keys(user.extra).length > 0 && { extra: user.extra }),
          nonResourceAttributes: { path, verb },
        },
      } as KubeObject);
      return review.status ?? {};
    },
  };
}

type Answer = { readonly status: number; readonly body: string } | { readonly user: UserInfo };

const TOKEN_TTL_MS = 60_000;
const ALLOW_TTL_MS = 5 * 60_000;
const DENY_TTL_MS = 30_000;
const MAX_CACHED = 10_000;

/** The filter: the request's answer when it is refused, or the user when it may read the metrics. */
export function metricsAuthFilter(reviewer: Reviewer, logger: Logger, clock: Clock = realClock): (req: IncomingMessage, path: string) => Promise<Answer> {
  const tokens = new Map<string, { at: number; user?: UserInfo }>();
  const decisions = new Map<string, { at: number; allowed: boolean }>();
  const remember = <V>(cache: Map<string, V>, key: string, value: V): void => {
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, value);
  };

  const authenticate = async (token: string): Promise<UserInfo | undefined> => {
    const key = createHash('sha256').update(token).digest('hex');
    const hit = tokens.get(key);
    if (hit && clock.now() - hit.at < TOKEN_TTL_MS) return hit.user;
    const at = clock.now();
    const status = await reviewer.tokenReview(token);
    const user =
      status.authenticated === true
        ? {
            username: status.user?.username ?? '',
            ...(status.user?.uid && { uid: status.user.uid }),
            // k8s.io/apiserver's AuthenticatedGroupAdder
            groups: [...(status.user?.groups ?? []), ...((status.user?.groups ?? []).includes('system:authenticated') ? [] : ['system:authenticated'])],
            ...(status.user?.extra && { extra: status.user.extra }),
          }
        : undefined;
    // A review that reported an error is not cached (the cached token authenticator's cacheErrs=false).
    if (user || !status.error) remember(tokens, key, { at, user });
    return user;
  };

  const authorize = async (user: UserInfo, path: string, verb: string): Promise<boolean> => {
    const key = JSON.stringify([user, path, verb]);
    const hit = decisions.get(key);
    if (hit && clock.now() - hit.at < (hit.allowed ? ALLOW_TTL_MS : DENY_TTL_MS)) return hit.allowed;
    const at = clock.now();
    const status = await reviewer.subjectAccessReview(user, path, verb);
    const allowed = status.allowed === true;
    remember(decisions, key, { at, allowed });
    if (!allowed) logger.debug('metrics request not authorized', { user: user.username, reason: status.reason ?? '' });
    return allowed;
  };

  return async (req, path) => {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return { status: 401, body: 'Unauthorized' };
    let user: UserInfo | undefined;
    try {
      user = await authenticate(token);
    } catch (err) {
      logger.error('Authentication failed', { err: errorMessage(err) });
      return { status: 500, body: 'Authentication failed' };
    }
    if (!user) {
      logger.error('Authentication failed', { err: 'invalid bearer token' });
      return { status: 500, body: 'Authentication failed' };
    }
    try {
      if (!(await authorize(user, path, (req.method ?? 'GET').toLowerCase()))) return { status: 403, body: `Authorization denied for user ${user.username}` };
    } catch (err) {
      const msg = `Authorization for user ${user.username} failed`;
      logger.error(msg, { err: errorMessage(err) });
      return { status: 500, body: msg };
    }
    return { user };
  };
}

/** k8s.io/apiserver's bearer-token authenticator: `Authorization: Bearer <token>` (scheme case-insensitive), else none. */
function bearerToken(header: string | undefined): string | undefined {
  const auth = (header ?? '').trim();
  if (auth === '') return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  // Go's SplitN(auth, " ", 3): the token is the second part, up to the next space.
  const token = parts[1]!;
  return token === '' ? undefined : token;
}

export interface SecureMetricsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  readonly profile: TLSProfile;
  readonly registry: MetricsSource;
  readonly reviewer: Reviewer;
  readonly logger: Logger;
  readonly clock?: Clock;
}

export interface SecureMetricsServer {
  /** `https://host:port` as bound. */
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Go's http.Error: the text and a newline, plain text, nosniff. */
function goError(res: ServerResponse, status: number, body: string): void {
  const text = `${body}\n`;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(text) });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

export async function startSecureMetricsServer(options: SecureMetricsServerOptions): Promise<SecureMetricsServer> {
  const log = options.logger.child({ component: 'metrics-server' });
  const tls = serverOptions(options.profile);
  const filter = metricsAuthFilter(options.reviewer, log, options.clock);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    if (path !== '/metrics') return goError(res, 404, '404 page not found');
    const answer = await filter(req, path);
    if ('status' in answer) return goError(res, answer.status, answer.body);
    const body = await options.registry.metrics();
    res.writeHead(200, { 'content-type': options.registry.contentType, 'content-length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  let server: Server | undefined;
  const certs = await watchCertificate({
    certFile: options.certFile,
    keyFile: options.keyFile,
    onChange: (pair) => server?.setSecureContext({ ...pair, ...tls }),
    logger: log,
  });
  try {
    server = createServer({ ...certs.current, ...tls, ALPNProtocols: ['http/1.1'] }, (req, res) => {
      void handle(req, res).catch((err: unknown) => {
        log.error('metrics request failed', { err: errorMessage(err) });
        if (!res.headersSent) goError(res, 500, 'Internal Server Error');
        else res.destroy();
      });
    });
  } catch (err) {
    certs.stop();
    throw err;
  }
  server.keepAliveTimeout = 72_000;
  let bound;
  try {
    bound = await listen(server, options.host, options.port, 'metrics server');
  } catch (err) {
    certs.stop();
    throw err;
  }
  const address = `https://${bound.hostPort}`;
  log.info('Serving metrics server', { bindAddress: `${options.host}:${options.port}`, secure: true, profile: options.profile.name });
  const srv = server;
  return {
    address,
    port: bound.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        certs.stop();
        srv.close((err) => (err ? reject(err) : resolve()));
        srv.closeIdleConnections();
      }),
  };
}
