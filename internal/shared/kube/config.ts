// Where the cluster is and how to authenticate: kubeconfig files or the in-cluster service
// account. Files are parsed here (js-yaml) into @kubernetes/client-node's shapes; certificates,
// tokens, token files, basic auth and `as` are applied here too. Only a user with an `exec` or
// `auth-provider` plugin (OIDC, cloud providers) loads @kubernetes/client-node 1.4.0 (its
// KubeConfig only), when that user is used: the library's generated models cost ~70 MiB of RSS and
// a second of start-up, which a controller in a pod never needs. Requests never go through that
// library; see transport.ts.
//
// Lookup order (controller-runtime's): the explicit path (--kubeconfig), $KUBECONFIG (a list,
// merged first-wins like client-go), the in-cluster service account, ~/.kube/config.
// Any problem is a KubeConfigError whose message is one line naming the file and what is wrong.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { isIPv6 } from 'node:net';
import type { Cluster, Context, KubeConfig, User } from '@kubernetes/client-node';
import { KubeConfigError } from './errors.ts';
import { noopLogger, realClock, tryOr, type Clock, type Logger } from '../toolkit/index.ts';

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
  /** What `refreshMs` is measured on; default the real clock. */
  readonly clock?: Clock;
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

/** The selected cluster, user and context, in @kubernetes/client-node's shapes (types only). */
export interface Selected {
  readonly cluster: Cluster;
  readonly user: User | undefined;
  readonly context: Context;
}

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
  readonly #selected: Selected;
  readonly #refreshMs: number;
  readonly #log: Logger;
  /** An exec / auth-provider user's KubeConfig, built on first use. */
  #plugin: Promise<KubeConfig> | undefined;
  readonly #clock: Clock;
  #cached: { creds: Credentials; expires: number } | undefined;
  #inflight: Promise<Credentials> | undefined;

  constructor(selected: Selected, source: string, options: { refreshMs?: number; logger?: Logger; clock?: Clock } = {}) {
    this.#selected = selected;
    this.server = selected.cluster.server.replace(/\/+$/, '');
    this.source = source;
    this.namespace = selected.context.namespace?.trim() || 'default';
    this.#refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
    this.#log = options.logger ?? noopLogger;
    this.#clock = options.clock ?? realClock;
  }

  /** Current credentials; `force` re-reads them now. Concurrent callers share one read. */
  credentials(options: { readonly force?: boolean } = {}): Promise<Credentials> {
    const cached = this.#cached;
    if (cached && !options.force && this.#clock.now() < cached.expires) return Promise.resolve(cached.creds);
    this.#inflight ??= this.#read().finally(() => (this.#inflight = undefined));
    return this.#inflight;
  }

  async #read(): Promise<Credentials> {
    try {
      const { cluster, user } = this.#selected;
      const creds = needsPlugin(user)
        ? await pluginCredentials(await (this.#plugin ??= pluginConfig(this.#selected)), this.server, this.source)
        : readCredentials(cluster, user, this.source);
      this.#cached = { creds, expires: this.#clock.now() + this.#refreshMs };
      return creds;
    } catch (err) {
      const previous = this.#cached;
      if (!previous) throw err;
      // Keep working with what we had (a token file mid-rotation, an exec plugin hiccup) and try again soon.
      this.#log.warn('could not refresh Kubernetes credentials; using the previous ones', { source: this.source, err });
      this.#cached = { creds: previous.creds, expires: this.#clock.now() + RETRY_FAILED_REFRESH_MS };
      return previous.creds;
    }
  }
}

/** exec and auth-provider users (OIDC, cloud providers); `tokenFile` is this file's own marker for a token file. */
const needsPlugin = (user: User | undefined): boolean =>
  Boolean(user?.exec) || (user?.authProvider !== undefined && user.authProvider !== null && (user.authProvider as { name?: unknown }).name !== 'tokenFile');

/** Finds and loads the configuration (see the file comment for the order) and checks it works. */
export async function loadKubeConfig(options: LoadOptions = {}): Promise<ClusterAccess> {
  const env = options.env ?? process.env;
  const access = async (selected: Selected, source: string): Promise<ClusterAccess> => {
    const a = new ClusterAccess(selected, source, options);
    await a.credentials(); // read once at load, so a missing certificate file or a failing exec plugin shows now
    return a;
  };

  if (options.kubeconfig) return access(...(await fromFiles([options.kubeconfig], 'kubeconfig', options.context)));
  const list = (env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p.trim() !== '');
  if (list.length > 0) return access(...(await fromFiles(list, 'kubeconfig (from $KUBECONFIG)', options.context)));

  const root = options.inClusterRoot ?? '';
  if (env['KUBERNETES_SERVICE_HOST'] && env['KUBERNETES_SERVICE_PORT'] && exists(`${root}${SA_DIR}/token`)) {
    return access(inCluster(root, env), 'in-cluster service account');
  }
  const home = env['HOME'] || (options.env ? '' : homedir());
  const fallback = home ? join(home, '.kube', 'config') : '';
  if (fallback && exists(fallback)) return access(...(await fromFiles([fallback], 'kubeconfig', options.context)));
  throw new KubeConfigError(
    'NoConfiguration',
    'no Kubernetes configuration found: pass --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account',
  );
}

/**
 * Loads kubeconfig files, merged first-wins like client-go (of a list, files that do not exist are
 * skipped unless none does), and selects the context.
 */
async function fromFiles(files: readonly string[], label: string, context: string | undefined): Promise<[Selected, string]> {
  const what = (file: string): string => `${label} ${file}`;
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let current: string | undefined;
  const present = files.length > 1 ? files.filter(exists) : files;
  if (present.length === 0) throw new KubeConfigError('NotFound', `${label} ${files.join(delimiter)}: none of these files exists`, files[0]);
  // js-yaml is imported only here: in a pod (service account) start-up never parses it.
  const { load } = await import('js-yaml');
  for (const file of present) {
    const one = parseFile(file, what(file), load);
    for (const c of one.clusters) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of one.users) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of one.contexts) if (!contexts.has(c.name)) contexts.set(c.name, c);
    current ||= one.currentContext || undefined;
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
  const url = URL.canParse(cluster.server) ? new URL(cluster.server) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new KubeConfigError('Invalid', `${where}: cluster "${cluster.name}" has server "${cluster.server}", which is not an http(s) URL`, present[0]);
  }
  if (cluster.proxyUrl) {
    throw new KubeConfigError('Invalid', `${where}: cluster "${cluster.name}" sets proxy-url, which this client does not support`, present[0]);
  }
  return [{ cluster, user: ctx.user ? users.get(ctx.user) : undefined, context: ctx }, `${where} (context ${name})`];
}

interface ParsedFile {
  readonly clusters: readonly Cluster[];
  readonly users: readonly User[];
  readonly contexts: readonly Context[];
  readonly currentContext: string | undefined;
}

type Raw = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Reads, parses and validates one file (the checks and texts of client-node's loadFromString); every failure names the file. */
function parseFile(file: string, where: string, parseYaml: (text: string) => unknown): ParsedFile {
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
    doc = parseYaml(text);
  } catch (err) {
    const e = err as { reason?: string; mark?: { line: number; column: number }; message: string };
    const at = e.mark ? ` (line ${e.mark.line + 1}, column ${e.mark.column + 1})` : '';
    throw new KubeConfigError('Malformed', `${where}: not valid YAML: ${e.reason ?? e.message}${at}`, file, { cause: err });
  }
  if (doc === undefined || doc === null) throw new KubeConfigError('Malformed', `${where}: file is empty`, file);
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new KubeConfigError('Malformed', `${where}: not a kubeconfig (expected a YAML mapping with clusters, users and contexts)`, file);
  }
  const section = (name: 'clusters' | 'users' | 'contexts'): Raw[] => {
    const value = (doc as Raw)[name];
    if (value != null && !Array.isArray(value)) throw new KubeConfigError('Malformed', `${where}: "${name}" must be a list`, file);
    return ((value ?? []) as unknown[]).map((e) => (e !== null && typeof e === 'object' ? (e as Raw) : {}));
  };
  const invalid = (message: string): KubeConfigError => new KubeConfigError('Invalid', `${where}: ${message}`, file);
  const base = dirname(file);
  // Relative certificate and token file paths are relative to the file.
  const abs = (p: string | undefined): string | undefined => (p === undefined || isAbsolute(p) ? p : join(base, p));
  const clusters = section('clusters').map((e, i): Cluster => {
    if (!e['name']) throw invalid(`clusters[${i}].name is missing`);
    const c = e['cluster'] as Raw | undefined;
    if (!c) throw invalid(`clusters[${i}].cluster is missing`);
    if (!c['server']) throw invalid(`clusters[${i}].cluster.server is missing`);
    return {
      name: String(e['name']),
      server: String(c['server']).replace(/\/$/, ''),
      skipTLSVerify: c['insecure-skip-tls-verify'] === true,
      ...optional('caData', str(c['certificate-authority-data'])),
      ...optional('caFile', abs(str(c['certificate-authority']))),
      ...optional('tlsServerName', str(c['tls-server-name'])),
      ...optional('proxyUrl', str(c['proxy-url'])),
    };
  });
  const users = section('users').map((e, i): User => {
    if (!e['name']) throw invalid(`users[${i}].name is missing`);
    const u = (e['user'] ?? {}) as Raw;
    // client-go's `tokenFile` (and client-node's `token-file`) are re-read with every refresh, like in-cluster tokens.
    const tokenFile = str(u['tokenFile']) ?? str(u['token-file']);
    const token = str(u['token']);
    return {
      name: String(e['name']),
      ...optional('token', token),
      ...optional('certData', str(u['client-certificate-data'])),
      ...optional('certFile', abs(str(u['client-certificate']))),
      ...optional('keyData', str(u['client-key-data'])),
      ...optional('keyFile', abs(str(u['client-key']))),
      ...optional('username', str(u['username'])),
      ...optional('password', str(u['password'])),
      ...optional('impersonateUser', str(u['as'])),
      ...optional('exec', u['exec'] ?? undefined),
      ...optional('authProvider', u['auth-provider'] ?? (tokenFile && !token ? { name: 'tokenFile', config: { tokenFile: abs(tokenFile) } } : undefined)),
    } as User;
  });
  const contexts = section('contexts').map((e, i): Context => {
    if (!e['name']) throw invalid(`contexts[${i}].name is missing`);
    const c = e['context'] as Raw | undefined;
    if (!c) throw invalid(`contexts[${i}].context is missing`);
    if (!c['cluster']) throw invalid(`contexts[${i}].context.cluster is missing`);
    return { name: String(e['name']), cluster: String(c['cluster']), ...optional('user', str(c['user'])), ...optional('namespace', str(c['namespace'])) } as Context;
  });
  return { clusters, users, contexts, currentContext: str((doc as Raw)['current-context']) };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}

/** The pod's service account, as client-go's rest.InClusterConfig (and client-node's loadFromCluster) read it. */
function inCluster(root: string, env: Readonly<Record<string, string | undefined>>): Selected {
  const where = 'in-cluster service account';
  if (!exists(`${root}${SA_DIR}/ca.crt`)) throw new KubeConfigError('Invalid', `${where}: ${root}${SA_DIR}/ca.crt does not exist`);
  const host = env['KUBERNETES_SERVICE_HOST']!;
  const port = env['KUBERNETES_SERVICE_PORT']!;
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  const namespace = tryOr(() => readFileSync(`${root}${SA_DIR}/namespace`, 'utf8'), undefined);
  return {
    cluster: { name: 'inCluster', server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`, caFile: `${root}${SA_DIR}/ca.crt`, skipTLSVerify: false },
    user: { name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: `${root}${SA_DIR}/token` } } },
    context: { name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser', ...optional('namespace', namespace) } as Context,
  };
}

/** Certificates, token, token file, basic auth and `as`, in the order client-node applies them. */
function readCredentials(cluster: Cluster, user: User | undefined, source: string): Credentials {
  const headers: Record<string, string> = {};
  let tls: TlsOptions;
  try {
    const fileOrData = (file: string | undefined, data: string | undefined): Buffer | undefined =>
      file ? readFileSync(file) : data ? Buffer.from(data, 'base64') : undefined;
    const ca = fileOrData(cluster.caFile, cluster.caData);
    const cert = user && fileOrData(user.certFile, user.certData);
    const key = user && fileOrData(user.keyFile, user.keyData);
    tls = {
      ...(cluster.skipTLSVerify && { rejectUnauthorized: false }),
      ...(cluster.tlsServerName && { servername: cluster.tlsServerName }),
      ...(ca && { ca }),
      ...(cert && { cert }),
      ...(key && { key }),
    };
    if (user?.impersonateUser != null) headers['impersonate-user'] = user.impersonateUser.trim();
    if (user?.token) headers['authorization'] = `Bearer ${user.token.trim()}`;
    if (user?.username) headers['authorization'] = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
    const tokenFile = (user?.authProvider as { config?: { tokenFile?: unknown } } | undefined)?.config?.tokenFile;
    if (typeof tokenFile === 'string') {
      const token = readFileSync(tokenFile, 'utf8').trim();
      if (token) headers['authorization'] = `Bearer ${token}`;
    }
  } catch (err) {
    throw credentialError(err, source);
  }
  return { tls, headers };
}

/** A user with an exec or auth-provider plugin: client-node's KubeConfig, loaded now and only for it. */
async function pluginConfig(selected: Selected): Promise<KubeConfig> {
  const { KubeConfig: KubeConfigClass } = await import('@kubernetes/client-node');
  const kc = new KubeConfigClass();
  kc.loadFromOptions({ clusters: [selected.cluster], users: selected.user ? [selected.user] : [], contexts: [selected.context], currentContext: selected.context.name });
  return kc;
}

async function pluginCredentials(kc: KubeConfig, server: string, source: string): Promise<Credentials> {
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
  return tryOr(() => statSync(path).isFile(), false);
}
