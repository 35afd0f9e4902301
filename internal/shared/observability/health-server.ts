// Probe and metrics endpoints on one small fastify server:
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
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from './logger.ts';
import { noopLogger } from './logger.ts';

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

  const app = Fastify({ logger: false });
  for (const [endpoint, checks] of Object.entries(endpoints)) {
    app.get(`/${endpoint}`, (req, reply) => aggregate(endpoint, checks, req, reply, log));
    app.get(`/${endpoint}/:check`, async (req: FastifyRequest<{ Params: { check: string } }>, reply) => {
      const check = checks.get(req.params.check);
      if (check === undefined) return text(reply.code(404), `no ${endpoint} check named "${req.params.check}"\n`);
      const err = await run(check);
      if (err !== undefined) return text(reply.code(500), `internal server error: ${err.message}\n`);
      return text(reply, 'ok');
    });
  }
  const registry = options.registry;
  if (registry !== undefined) {
    app.get('/metrics', async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  }

  await app.listen({ host: options.host ?? '0.0.0.0', port: options.port });
  const bound = app.server.address();
  if (bound === null || typeof bound === 'string') throw new Error(`health server bound to unexpected address ${String(bound)}`);
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  log.info('Health server listening', { address: `http://${host}:${bound.port}` });
  return {
    address: `http://${host}:${bound.port}`,
    port: bound.port,
    addReadyCheck: (name, check) => void endpoints.readyz.set(name, check),
    addHealthCheck: (name, check) => void endpoints.healthz.set(name, check),
    close: () => app.close(),
  };
}

async function aggregate(
  endpoint: string,
  checks: ReadonlyMap<string, HealthCheck>,
  req: FastifyRequest,
  reply: FastifyReply,
  log: Logger,
): Promise<FastifyReply> {
  const query = req.query as Record<string, string | string[] | undefined>;
  const excluded = new Set(([] as string[]).concat(query['exclude'] ?? []));
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
  if (failed) return text(reply.code(500), `${body}${endpoint} check failed\n`);
  if (!('verbose' in query)) return text(reply, 'ok');
  return text(reply, `${body}${endpoint} check passed\n`);
}

async function run(check: HealthCheck): Promise<Error | undefined> {
  try {
    return (await check()) === false ? new Error('check returned false') : undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function text(reply: FastifyReply, body: string): FastifyReply {
  return reply.header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(body);
}
