// Where the cluster is and how to authenticate: kubeconfig files or the in-cluster service
// account, read with @kubernetes/client-node 1.4.0 (its KubeConfig only: auth plugins, exec,
// OIDC, token files). Requests never go through that library; see transport.ts.
//
// Lookup order (controller-runtime's): the explicit path (--kubeconfig), $KUBECONFIG (a list,
// merged first-wins like client-go), the in-cluster service account, ~/.kube/config.
// Any problem is a KubeConfigError whose message is one line naming the file and what is wrong.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { Cluster, Context, KubeConfig, User } from '@kubernetes/client-node';
import yaml from 'js-yaml';
import { KubeConfigError } from './errors.ts';
import { noopLogger, type Logger } from './types.ts';

export interface LoadOptions {
  /** An explicit kubeconfig path (a --kubeconfig flag); wins over everything else. */
  readonly kubeconfig?: string;
  /** Context to use instead of the file's current-context. */
  readonly context?: string;
  /** Environment to read KUBECONFIG, HOME and KUBERNETES_SERVICE_HOST/PORT from; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Prefix of the service-account directory for in-cluster config (tests); default none. */
  readonly inClusterRoot?: string;
  /** Credentials are re-read (token files, exec plugins) when older than this; default 60 s. */
  readonly refreshMs?: number;
  readonly logger?: Logger;
}

/** TLS settings for the connection to the API server. */
export interface TlsOptions {
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly servername?: string;
  readonly rejectUnauthorized?: boolean;
}

/** What every request needs: TLS material and headers (Authorization, kubeconfig `as`). */
export interface Credentials {
  readonly tls: TlsOptions;
  readonly headers: Readonly<Record<string, string>>;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const DEFAULT_REFRESH_MS = 60_000;
const RETRY_FAILED_REFRESH_MS = 5_000;

/**
 * One cluster, one identity. `credentials()` returns cached credentials and re-reads them about
 * once a minute (or at once with `force`, e.g. after a 401), so rotated tokens are picked up.
 */
export class ClusterAccess {
  /** API server base URL, without a trailing slash. */
  readonly server: string;
  /** Where this came from, for messages: `kubeconfig /path (context x)` or `in-cluster service account`. */
  readonly source: string;
  /** The context's namespace (in-cluster: the pod's), else `default`. */
  readonly namespace: string;
  readonly #kc: KubeConfig;
  readonly #refreshMs: number;
  readonly #log: Logger;
  #cached: { creds: Credentials; expires: number } | undefined;
  #inflight: Promise<Credentials> | undefined;

  constructor(kc: KubeConfig, source: string, options: { refreshMs?: number; logger?: Logger } = {}) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new KubeConfigError('Invalid', `${source}: no cluster selected`);
    this.#kc = kc;
    this.server = cluster.server.replace(/\/+$/, '');
    this.source = source;
    const ctx = kc.getContextObject(kc.getCurrentContext());
    this.namespace = ctx?.namespace?.trim() || 'default';
    this.#refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
    this.#log = options.logger ?? noopLogger;
  }

  /** Current credentials; `force` re-reads them now. Concurrent callers share one read. */
  credentials(options: { readonly force?: boolean } = {}): Promise<Credentials> {
    const cached = this.#cached;
    if (cached && !options.force && Date.now() < cached.expires) return Promise.resolve(cached.creds);
    this.#inflight ??= this.#read().finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }

  async #read(): Promise<Credentials> {
    try {
      const creds = await readCredentials(this.#kc, this.server, this.source);
      this.#cached = { creds, expires: Date.now() + this.#refreshMs };
      return creds;
    } catch (err) {
      const previous = this.#cached;
      if (!previous) throw err;
      // Keep working with what we had (a token file mid-rotation, an exec plugin hiccup) and try again soon.
      this.#log.warn('could not refresh Kubernetes credentials; using the previous ones', { source: this.source, err });
      this.#cached = { creds: previous.creds, expires: Date.now() + RETRY_FAILED_REFRESH_MS };
      return previous.creds;
    }
  }
}

/** Finds and loads the configuration (see the file comment for the order) and checks it works. */
export async function loadKubeConfig(options: LoadOptions = {}): Promise<ClusterAccess> {
  const env = options.env ?? process.env;
  const { KubeConfig: KubeConfigClass } = await import('@kubernetes/client-node');
  const access = (kc: KubeConfig, source: string): Promise<ClusterAccess> =>
    checked(new ClusterAccess(kc, source, { ...(options.refreshMs !== undefined && { refreshMs: options.refreshMs }), ...(options.logger && { logger: options.logger }) }));

  if (options.kubeconfig) return access(...fromFiles(KubeConfigClass, [options.kubeconfig], 'kubeconfig', options.context));
  const list = (env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p.trim() !== '');
  if (list.length > 0) return access(...fromFiles(KubeConfigClass, list, 'kubeconfig (from $KUBECONFIG)', options.context));

  const root = options.inClusterRoot ?? '';
  if (env['KUBERNETES_SERVICE_HOST'] && env['KUBERNETES_SERVICE_PORT'] && exists(`${root}${SA_DIR}/token`)) {
    return access(inCluster(new KubeConfigClass(), root, env), 'in-cluster service account');
  }
  const home = env['HOME'] || (options.env ? '' : homedir());
  const fallback = home ? join(home, '.kube', 'config') : '';
  if (fallback && exists(fallback)) return access(...fromFiles(KubeConfigClass, [fallback], 'kubeconfig', options.context));
  throw new KubeConfigError(
    'NoConfiguration',
    'no Kubernetes configuration found: pass --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account',
  );
}

type KubeConfigClass = new () => KubeConfig;

/**
 * Loads kubeconfig files, merged first-wins like client-go (of a list, files that do not exist are
 * skipped unless none does), and selects the context.
 */
function fromFiles(Ctor: KubeConfigClass, files: readonly string[], label: string, context: string | undefined): [KubeConfig, string] {
  const what = (file: string): string => `${label} ${file}`;
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let current: string | undefined;
  const present = files.length > 1 ? files.filter(exists) : files;
  if (present.length === 0) throw new KubeConfigError('NotFound', `${label} ${files.join(delimiter)}: none of these files exists`, files[0]);
  for (const file of present) {
    const one = parseFile(Ctor, file, what(file));
    for (const c of one.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of one.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of one.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    current ||= one.getCurrentContext() || undefined;
  }
  const where = present.length === 1 ? what(present[0]!) : `${label} ${present.join(delimiter)}`;
  const name = context ?? current;
  if (!name) throw new KubeConfigError('Invalid', `${where}: no current-context is set and no context was given`, present[0]);
  const ctx = contexts.get(name);
  if (!ctx) throw new KubeConfigError('Invalid', `${where}: context "${name}" is not defined`, present[0]);
  const cluster = clusters.get(ctx.cluster);
  if (!cluster) throw new KubeConfigError('Invalid', `${where}: context "${name}" refers to cluster "${ctx.cluster}", which is not defined`, present[0]);
  if (ctx.user && !users.has(ctx.user)) {
    throw new KubeConfigError('Invalid', `${where}: context "${name}" refers to user "${ctx.user}", which is not defined`, present[0]);
  }
  let url: URL | undefined;
  try {
    url = new URL(cluster.server);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new KubeConfigError('Invalid', `${where}: cluster "${cluster.name}" has server "${cluster.server}", which is not an http(s) URL`, present[0]);
  }
  if (cluster.proxyUrl) {
    throw new KubeConfigError('Invalid', `${where}: cluster "${cluster.name}" sets proxy-url, which this client does not support`, present[0]);
  }
  const kc = new Ctor();
  kc.loadFromOptions({ clusters: [...clusters.values()], users: [...users.values()], contexts: [...contexts.values()], currentContext: name });
  return [kc, `${where} (context ${name})`];
}

/** Reads, parses and validates one file; every failure names the file. */
function parseFile(Ctor: KubeConfigClass, file: string, where: string): KubeConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KubeConfigError('NotFound', `${where}: file does not exist`, file, { cause: err });
    if (code === 'EISDIR') throw new KubeConfigError('Unreadable', `${where}: is a directory, not a file`, file, { cause: err });
    if (code === 'EACCES') throw new KubeConfigError('Unreadable', `${where}: permission denied`, file, { cause: err });
    throw new KubeConfigError('Unreadable', `${where}: cannot read: ${(err as Error).message}`, file, { cause: err });
  }
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    const e = err as { reason?: string; mark?: { line: number; column: number }; message: string };
    const at = e.mark ? ` (line ${e.mark.line + 1}, column ${e.mark.column + 1})` : '';
    throw new KubeConfigError('Malformed', `${where}: not valid YAML: ${e.reason ?? e.message}${at}`, file, { cause: err });
  }
  if (doc === undefined || doc === null) throw new KubeConfigError('Malformed', `${where}: file is empty`, file);
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new KubeConfigError('Malformed', `${where}: not a kubeconfig (expected a YAML mapping with clusters, users and contexts)`, file);
  }
  for (const section of ['clusters', 'users', 'contexts'] as const) {
    const value = (doc as Record<string, unknown>)[section];
    if (value != null && !Array.isArray(value)) throw new KubeConfigError('Malformed', `${where}: "${section}" must be a list`, file);
  }
  const kc = new Ctor();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new KubeConfigError('Invalid', `${where}: ${(err as Error).message}`, file, { cause: err });
  }
  const base = dirname(file);
  // Relative certificate paths are relative to the file; `tokenFile` is re-read like in-cluster tokens.
  const rawUsers = ((doc as { users?: { name?: string; user?: Record<string, unknown> }[] }).users ?? []).filter(Boolean);
  const users = kc.getUsers().map((u) => {
    const tokenFile = rawUsers.find((r) => r.name === u.name)?.user?.['tokenFile'];
    if (typeof tokenFile !== 'string' || u.token || u.authProvider) return u;
    const abs = isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile);
    return { ...u, authProvider: { name: 'tokenFile', config: { tokenFile: abs } } };
  });
  kc.loadFromOptions({ clusters: kc.getClusters(), users, contexts: kc.getContexts(), currentContext: kc.getCurrentContext() });
  kc.makePathsAbsolute(base);
  return kc;
}

function inCluster(kc: KubeConfig, root: string, env: Readonly<Record<string, string | undefined>>): KubeConfig {
  const where = 'in-cluster service account';
  if (!exists(`${root}${SA_DIR}/ca.crt`)) throw new KubeConfigError('Invalid', `${where}: ${root}${SA_DIR}/ca.crt does not exist`);
  const saved = { host: process.env['KUBERNETES_SERVICE_HOST'], port: process.env['KUBERNETES_SERVICE_PORT'] };
  // KubeConfig.loadFromCluster reads process.env; hand it the environment we were given.
  process.env['KUBERNETES_SERVICE_HOST'] = env['KUBERNETES_SERVICE_HOST'];
  process.env['KUBERNETES_SERVICE_PORT'] = env['KUBERNETES_SERVICE_PORT'];
  try {
    kc.loadFromCluster(root);
  } finally {
    restoreEnv('KUBERNETES_SERVICE_HOST', saved.host);
    restoreEnv('KUBERNETES_SERVICE_PORT', saved.port);
  }
  return kc;
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Reads credentials once at load, so a missing certificate file or a failing exec plugin shows now. */
async function checked(access: ClusterAccess): Promise<ClusterAccess> {
  await access.credentials();
  return access;
}

async function readCredentials(kc: KubeConfig, server: string, source: string): Promise<Credentials> {
  const opts: {
    headers?: Record<string, unknown>;
    ca?: string | Buffer;
    cert?: string | Buffer;
    key?: string | Buffer;
    servername?: string;
    rejectUnauthorized?: boolean;
    auth?: string;
  } = { headers: {} };
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (err) {
    // 1.4.0 refuses to build an agent for http:// servers unless TLS verification is off; the options
    // it filled before that are all we need (undici speaks plain HTTP without a TLS agent).
    const plainHttp = server.startsWith('http:') && /HTTP protocol is not allowed/.test(String((err as Error).message));
    if (!plainHttp) throw credentialError(err, source);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (typeof value === 'string' || typeof value === 'number') headers[name.toLowerCase()] = String(value).trim();
  }
  if (opts.auth) headers['authorization'] = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  // The library caches token files for 60 s on its own; read ours now, so `force` (after a 401) sees a rotated token.
  const tokenFile = (kc.getCurrentUser()?.authProvider as { config?: { tokenFile?: unknown } } | undefined)?.config?.tokenFile;
  if (typeof tokenFile === 'string') {
    try {
      const token = readFileSync(tokenFile, 'utf8').trim();
      if (token) headers['authorization'] = `Bearer ${token}`;
    } catch (err) {
      throw credentialError(err, source);
    }
  }
  const tls: TlsOptions = {
    ...(opts.ca !== undefined && { ca: opts.ca }),
    ...(opts.cert !== undefined && { cert: opts.cert }),
    ...(opts.key !== undefined && { key: opts.key }),
    ...(opts.servername !== undefined && { servername: opts.servername }),
    ...(opts.rejectUnauthorized !== undefined && { rejectUnauthorized: opts.rejectUnauthorized }),
  };
  return { tls, headers };
}

function credentialError(err: unknown, source: string): KubeConfigError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT' && e.path) return new KubeConfigError('Invalid', `${source}: file ${e.path} does not exist`, undefined, { cause: err });
  if (e.code === 'EACCES' && e.path) return new KubeConfigError('Invalid', `${source}: cannot read ${e.path}: permission denied`, undefined, { cause: err });
  return new KubeConfigError('Invalid', `${source}: cannot get credentials: ${e.message ?? String(err)}`, undefined, { cause: err });
}

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
