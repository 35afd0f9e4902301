// What a controller run inside a test process needs from the manager: a logger whose JSON lines
// are kept for assertions (echoed when `echoEnv` is set), and manager options with leader
// election, health and metrics servers off; and running a setup's parts as the manager would.
import { setMaxListeners } from 'node:events';
import { forceRemove } from '../../internal/shared/image/index.ts';
import type { KubeClient } from '../../internal/shared/kube/index.ts';
import { partRunnables, type ManagerOptions, type ManagerParts } from '../../internal/shared/manager/index.ts';
import { createLogger, type Logger } from '../../internal/shared/observability/index.ts';
import { waitFor } from './net.ts';

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export function capturedLogger(name: string, echoEnv: string): { readonly logger: Logger; readonly logs: LogLine[] } {
  const logs: LogLine[] = [];
  const logger = createLogger({
    level: 'debug',
    fields: { logger: name },
    write: (line) => {
      const parsed = JSON.parse(line) as LogLine;
      logs.push(parsed);
      if (process.env[echoEnv] && parsed.level !== 'debug') console.log(line);
    },
  });
  return { logger, logs };
}

export const inProcessManagerOptions = (leaderElectionId: string): ManagerOptions => ({
  leaderElect: false,
  leaderElectionNamespace: 'olmv1-system',
  leaderElectionId,
  healthProbeBindAddress: '0',
  metricsBindAddress: '0',
  logLevel: 'debug',
});

/**
 * Runs what a setup function returned as the manager would (informers, runnables, and — when
 * `leader` — the controllers once the informers synced); `stop()` ends it all, closes `client`
 * and removes `sandbox`.
 */
export async function runParts(
  parts: ManagerParts,
  o: { readonly client: KubeClient; readonly sandbox: string; readonly leader?: boolean },
): Promise<{ stop(): Promise<void> }> {
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  for (const i of parts.informers) i.start();
  const runnables = partRunnables(parts).map((r) => r(stop.signal));
  let controllers: Promise<unknown> = Promise.resolve();
  if (o.leader ?? true) {
    await Promise.all(parts.informers.map((i) => i.waitForSync(stop.signal)));
    controllers = Promise.all(parts.controllers.map((c) => c.start(stop.signal)));
  }
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      stop.abort();
      await controllers;
      await Promise.allSettled(runnables);
      await Promise.all(parts.informers.map((i) => i.stop()));
      await o.client.close();
      await forceRemove(o.sandbox);
    },
  };
}

/** What a test reads of a controller's work queue. */
export interface QueueView {
  has(key: string): boolean;
  dueIn(key: string): number | undefined;
}

/**
 * Waits until a controller is done with `key` for everything it has seen: `caughtUp()` holds (e.g. its cache has the
 * object's latest resourceVersion, or the change the test made), no pass of `key` is queued or running, and — with
 * `quietMs` — none is due within that time. A check that "nothing happened" made after this holds because the
 * controller had its turn, not because some time went by.
 */
export async function waitForSettled(
  what: string,
  queue: QueueView,
  key: string,
  caughtUp: () => boolean | Promise<boolean>,
  { quietMs = 0, timeoutMs = 60_000 } = {},
): Promise<void> {
  await waitFor(
    `${what}: the controller done with ${key}`,
    async () => (await caughtUp()) && !queue.has(key) && !(quietMs > 0 && (queue.dueIn(key) ?? Infinity) < quietMs),
    { timeoutMs, intervalMs: 50 },
  );
}
