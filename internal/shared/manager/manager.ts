// The process around the controllers: flags → cluster access (retried with backoff, one clear
// log line per failure) → health and metrics servers → caches → leader election → controllers,
// and a clean stop on SIGTERM/SIGINT. `cmd/*/run.ts` hands it a setup function; nothing else.
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Backoff, KubeClient, KubeConfigError, LeaderElector, loadKubeConfig } from '../kube/index.ts';
import type { Controller } from '../controller/index.ts';
import { realClock, sleep, untilAborted, type Clock } from '../toolkit/index.ts';
import {
  createLogger,
  createMetrics,
  errorMessage,
  startHealthServer,
  tuneMemory,
  type HealthServer,
  type Logger,
  type Metrics,
} from './deps.ts';
import { kubeReviewer, startSecureMetricsServer } from './metrics-server.ts';
import { parseBindAddress, type ManagerOptions } from './options.ts';

export interface ManagerContext {
  readonly options: ManagerOptions;
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * The process's one time source (durations and wall time); `realClock` in the manager. A harness may pass a
   * ManualClock; when it passes none, setups use `realClock` (`clockOf(ctx)`).
   */
  readonly clock?: Clock;
}

/** The context's clock, `realClock` when it has none. */
export function clockOf(ctx: Pick<ManagerContext, 'clock'>): Clock {
  return ctx.clock ?? realClock;
}

/** The part of an informer the manager drives. */
export interface Cache {
  start(): void;
  stop(): Promise<void>;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** What a binary runs: caches start at once (every replica), controllers only on the leader. */
export interface ManagerParts {
  readonly informers: readonly Cache[];
  readonly controllers: readonly Controller[];
  /** Other long-running work that every replica runs (e.g. an HTTP server); resolves when stopped. */
  readonly runnables?: readonly ((signal: AbortSignal) => Promise<void>)[];
  /**
   * What to release when the process stops (servers, pullers, registry clients, watches): each is called once the
   * stop signal aborts, while the controllers wind down, and is waited for before the caches stop. One closer does
   * its steps in order; different closers run side by side.
   */
  readonly closers?: readonly (() => Promise<void>)[];
}

export type Setup = (ctx: ManagerContext) => Promise<ManagerParts> | ManagerParts;

/** Several capabilities in one process (e.g. olm-classic's catalog and OLM controllers): their parts side by side. */
export function mergeParts(...parts: readonly ManagerParts[]): ManagerParts {
  return {
    informers: parts.flatMap((p) => p.informers),
    controllers: parts.flatMap((p) => p.controllers),
    runnables: parts.flatMap((p) => p.runnables ?? []),
    closers: parts.flatMap((p) => p.closers ?? []),
  };
}

/** Everything of `parts` that runs beside the controllers: its runnables, then each closer waiting for the stop. */
export function partRunnables(parts: ManagerParts): ((signal: AbortSignal) => Promise<void>)[] {
  const closing = (parts.closers ?? []).map((close) => async (signal: AbortSignal): Promise<void> => {
    await untilAborted(signal);
    await close();
  });
  return [...(parts.runnables ?? []), ...closing];
}

/**
 * Runs until SIGTERM/SIGINT (exit 0) or until leadership is lost (exit 1, as controller-runtime
 * does, so the pod restarts with a clean state). Never returns normally.
 */
export async function runManager(options: ManagerOptions, setup: Setup, name: string): Promise<never> {
  const logger = createLogger({ level: options.logLevel, format: options.logFormat, fields: { logger: name } });
  const stop = new AbortController();
  // Every cache and controller of a process listens on this one signal (olm-classic has more than ten).
  setMaxListeners(0, stop.signal);
  const onSignal = (sig: string): void => {
    if (stop.signal.aborted) {
      logger.warn('second signal: exiting now', { signal: sig });
      process.exit(1);
    }
    logger.info('shutting down', { signal: sig });
    stop.abort();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  try {
    const code = await run(options, setup, logger, stop.signal);
    process.exit(code);
  } catch (err) {
    logger.error(errorMessage(err));
    process.exit(1);
  }
}

async function run(options: ManagerOptions, setup: Setup, logger: Logger, signal: AbortSignal): Promise<number> {
  const client = await connect(options, logger, signal);
  if (!client) return 0;
  const metrics = createMetrics();
  const servers: Pick<HealthServer, 'close'>[] = [];
  const health = parseBindAddress(options.healthProbeBindAddress);
  const metricsAddr = parseBindAddress(options.metricsBindAddress);
  const parts = await setup({ options, client, logger, metrics, clock: realClock });
  const informers = parts.informers;
  if (health) {
    const srv = await startHealthServer({ host: health.host, port: health.port, logger });
    srv.addReadyCheck('informers-synced', () => {
      const pending = informers.filter((i) => !i.hasSynced());
      if (pending.length) throw new Error(`${pending.length} cache(s) not synced`);
    });
    servers.push(srv);
    logger.info('serving health probes', { address: srv.address });
  }
  if (metricsAddr && options.metricsTLS) {
    const srv = await startSecureMetricsServer({
      host: metricsAddr.host,
      port: metricsAddr.port,
      ...options.metricsTLS,
      registry: metrics.registry,
      reviewer: kubeReviewer(client),
      logger,
    });
    servers.push(srv);
    logger.info('serving metrics', { address: `${srv.address}/metrics` });
  } else if (metricsAddr) {
    const srv = await startHealthServer({ host: metricsAddr.host, port: metricsAddr.port, registry: metrics.registry, logger });
    servers.push(srv);
    logger.info('serving metrics', { address: `${srv.address}/metrics` });
  }
  // The memory settings (../observability/memory.ts), once the servers listen: built-ins loaded after them compile
  // without node's code cache, and the first listen loads a few (Node's cluster, child_process, dgram).
  tuneMemory();
  for (const i of informers) i.start();
  // A runnable that fails ends the process, as a runnable's error ends controller-runtime's manager (exit 1).
  const others = partRunnables(parts).map((r) =>
    r(signal).catch((err: unknown) => {
      logger.error(errorMessage(err));
      process.exit(1);
    }),
  );

  const runControllers = async (leading: AbortSignal): Promise<void> => {
    await Promise.all(informers.map((i) => i.waitForSync(leading)));
    if (leading.aborted) return;
    logger.info('caches synced; starting controllers', { controllers: parts.controllers.length });
    await Promise.all(parts.controllers.map((c) => c.start(leading)));
  };

  let code = 0;
  if (options.leaderElect) {
    const elector = new LeaderElector({
      client,
      namespace: options.leaderElectionNamespace,
      name: options.leaderElectionId,
      identity: `${hostname()}_${randomUUID()}`,
      onStartedLeading: (leading) => {
        logger.info('became leader', { lease: `${options.leaderElectionNamespace}/${options.leaderElectionId}` });
        return runControllers(leading);
      },
      onNewLeader: (id) => logger.info('leader is', { identity: id }),
      logger,
    });
    const outcome = await elector.run(signal);
    if (outcome === 'lost') {
      logger.error('leader election lost; exiting');
      code = 1;
    }
  } else {
    await runControllers(signal);
  }
  await Promise.allSettled(others);
  await Promise.all(informers.map((i) => i.stop()));
  await Promise.all(servers.map((s) => s.close()));
  await client.close();
  logger.info('stopped');
  return code;
}

/**
 * Loads the cluster configuration, retrying with backoff: a kubeconfig that is missing or
 * broken (a Secret not mounted yet) or an API server that is down logs one line per attempt
 * naming the cause and the next delay — never a silent crash loop. Undefined when stopped.
 */
async function connect(options: ManagerOptions, logger: Logger, signal: AbortSignal): Promise<KubeClient | undefined> {
  const backoff = new Backoff({ initialMs: 1000, maxMs: 60_000 });
  while (!signal.aborted) {
    try {
      const access = await loadKubeConfig({ ...(options.kubeconfig && { kubeconfig: options.kubeconfig }), logger });
      return KubeClient.forAccess(access);
    } catch (err) {
      const delayMs = backoff.next();
      const fields: Record<string, unknown> = { retryInMs: delayMs, attempt: backoff.attempts };
      if (err instanceof KubeConfigError && err.file) fields.file = err.file;
      logger.error(`cannot use cluster configuration: ${errorMessage(err)}`, fields);
      await sleep(delayMs, signal);
    }
  }
  return undefined;
}
