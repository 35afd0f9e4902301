// Probe and metrics endpoints on one small node:http server (no framework: a web framework and
// its dependencies would be the biggest thing operator-controller and olm-classic load at start):
//
//   GET /healthz, /readyz     200 "ok" when every check passes; 500 with the verbose list when not:
//                               [+]ping ok
//                               [-]informer-sync failed: reason withheld
//                               readyz check failed
//                             `?verbose` lists the checks on success too (ending "<endpoint> check
//                             passed"); `?exclude=<name>` (repeatable) skips checks.
//   GET /healthz/<name>, /readyz/<name>
//                             one check: 200 "ok", or 500 "internal server error: <error>"
//   GET /metrics              the registry in Prometheus text format
//
// Same format as Kubernetes (k8s.io/apiserver healthz) and controller-runtime's pkg/healthz;
// failure reasons stay out of the aggregate response, as upstream, and go to the debug log.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen } from '../toolkit/index.ts';
import { noopLogger, type Logger } from './logger.ts';

/** A named probe: fails by throwing, rejecting or returning false. */
export type HealthCheck = () => boolean | void | Promise<boolean | void>;

/** What /metrics needs from a prom-client Registry. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface HealthServerOptions {
  /** Default `0.0.0.0`, so kubelet probes reach it on the pod IP. */
  readonly host?: string;
  /** 0 picks a free port (see `HealthServer.port`). */
  readonly port: number;
  /** Served at /metrics; without it /metrics is 404. */
  readonly registry?: MetricsSource;
  /** Readiness checks for /readyz, e.g. `{ 'informer-sync': () => informer.hasSynced() }`. */
  readonly checks?: Readonly<Record<string, HealthCheck>>;
  /** Liveness checks for /healthz; default a single `ping` that always passes. */
  readonly healthChecks?: Readonly<Record<string, HealthCheck>>;
  readonly logger?: Logger;
}

export interface HealthServer {
  /** `http://host:port` as bound. */
  readonly address: string;
  readonly port: number;
  /** Adds (or replaces) a readiness check; applies from the next request. */
  addReadyCheck(name: string, check: HealthCheck): void;
  /** Adds (or replaces) a liveness check; applies from the next request. */
  addHealthCheck(name: string, check: HealthCheck): void;
  close(): Promise<void>;
}

const ping: HealthCheck = () => true;

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const log = (options.logger ?? noopLogger).child({ component: 'health-server' });
  const endpoints = {
    healthz: new Map(Object.entries(options.healthChecks ?? { ping })),
    readyz: new Map(Object.entries(options.checks ?? {})),
  };
  if (endpoints.readyz.size === 0) endpoints.readyz.set('ping', ping);

  const registry = options.registry;
  const server = createServer((req, res) => {
    handle(req, res, endpoints, registry, log).catch((err: unknown) => {
      log.error('health server request failed', { err });
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  // Keep-alive connections (kubelet, Prometheus) stay open 72 s between requests, as they always
  // have here; close() closes the idle ones, so they do not hold it up.
  server.keepAliveTimeout = 72_000;
  const bound = await listen(server, options.host ?? '0.0.0.0', options.port, 'health server');
  const address = `http://${bound.hostPort}`;
  log.info('Health server listening', { address });
  return {
    address,
    port: bound.port,
    addReadyCheck: (name, check) => void endpoints.readyz.set(name, check),
    addHealthCheck: (name, check) => void endpoints.healthz.set(name, check),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

type Endpoints = Readonly<Record<'healthz' | 'readyz', Map<string, HealthCheck>>>;

async function handle(req: IncomingMessage, res: ServerResponse, endpoints: Endpoints, registry: MetricsSource | undefined, log: Logger): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const [, first, second, extra] = url.pathname.split('/');
  const found = (first === 'healthz' || first === 'readyz') && extra === undefined ? first : undefined;
  if (found === undefined && !(first === 'metrics' && second === undefined && registry !== undefined)) {
    return send(res, 404, 'text/plain; charset=utf-8', `${req.method ?? ''} ${url.pathname} not found\n`);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
  }
  if (found === undefined) return send(res, 200, registry!.contentType, await registry!.metrics());
  const checks = endpoints[found];
  if (second === undefined) {
    const [status, body] = await aggregate(found, checks, url.searchParams, log);
    return text(res, status, body);
  }
  const name = decodeURIComponent(second);
  const check = checks.get(name);
  if (check === undefined) return text(res, 404, `no ${found} check named "${name}"\n`);
  const err = await run(check);
  if (err !== undefined) return text(res, 500, `internal server error: ${err.message}\n`);
  return text(res, 200, 'ok');
}

async function aggregate(endpoint: string, checks: ReadonlyMap<string, HealthCheck>, query: URLSearchParams, log: Logger): Promise<[number, string]> {
  const excluded = new Set(query.getAll('exclude'));
  const names = [...checks.keys()];
  const errors = await Promise.all(names.map((name) => (excluded.has(name) ? undefined : run(checks.get(name)!))));
  let body = '';
  let failed = false;
  names.forEach((name, i) => {
    const err = errors[i];
    if (excluded.delete(name)) body += `[+]${name} excluded: ok\n`;
    else if (err === undefined) body += `[+]${name} ok\n`;
    else {
      failed = true;
      body += `[-]${name} failed: reason withheld\n`;
      log.debug(`${endpoint} check failed`, { checker: name, err });
    }
  });
  if (excluded.size > 0) {
    body += `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => JSON.stringify(n)).join(',')}\n`;
  }
  if (failed) return [500, `${body}${endpoint} check failed\n`];
  if (!query.has('verbose')) return [200, 'ok'];
  return [200, `${body}${endpoint} check passed\n`];
}

async function run(check: HealthCheck): Promise<Error | undefined> {
  try {
    return (await check()) === false ? new Error('check returned false') : undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.setHeader('x-content-type-options', 'nosniff');
  send(res, status, 'text/plain; charset=utf-8', body);
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
