// Runs catalogd in this process against the shared control plane and registry, the way the
// manager runs it (informers and runnables on every replica, controllers only on the leader),
// with its cache inside a sandbox directory and its logs kept for assertions.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultImplementations } from '../../../internal/catalogd/index.ts';
import { catalogdSetup, type CatalogdOptions, type CatalogdParts } from '../../../internal/catalogd/index.ts';
import { ItemExponentialFailureRateLimiter } from '../../../internal/shared/controller/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { createMetrics } from '../../../internal/shared/observability/index.ts';
import { controlPlane, registry } from '../../support/env.ts';
import { capturedLogger, inProcessManagerOptions, runParts, type LogLine } from '../../support/in-process.ts';
import { freePort } from '../../support/net.ts';

export type { LogLine } from '../../support/in-process.ts';

export interface RunningCatalogd {
  readonly parts: CatalogdParts;
  /** The sandbox: holds only `cache` unless something escaped. */
  readonly sandbox: string;
  readonly cacheDir: string;
  /** http://127.0.0.1:<port> — also the external address, so status.urls.base is fetchable. */
  readonly serverUrl: string;
  readonly logs: LogLine[];
  stop(): Promise<void>;
}

const running = new Set<RunningCatalogd>();

/** Stops every catalogd this file started (afterAll). */
export async function stopAll(): Promise<void> {
  for (const r of [...running]) await r.stop();
}

export interface StartOptions {
  /** Run the ClusterCatalog controller (default true). */
  readonly leader?: boolean;
  readonly options?: Partial<CatalogdOptions>;
}

export async function startCatalogd(start: StartOptions = {}): Promise<RunningCatalogd> {
  const sandbox = await mkdtemp(join(tmpdir(), 'catalogd-it-'));
  const cacheDir = join(sandbox, 'cache');
  const port = await freePort();
  const { logger, logs } = capturedLogger('catalogd', 'CATALOGD_TEST_LOG');
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const managerOptions = inProcessManagerOptions('catalogd-operator-lock');
  const options: CatalogdOptions = {
    catalogsServerAddr: `127.0.0.1:${port}`,
    externalAddress: `127.0.0.1:${port}`,
    cacheDir,
    gcIntervalMs: 12 * 3600_000,
    insecureRegistries: [registry().host],
    minuteMs: 1000,
    registry: { retries: 1, retryDelayMs: 50 },
    rateLimiter: () => new ItemExponentialFailureRateLimiter(100, 2000),
    ...start.options,
  };
  const parts = await catalogdSetup(options, defaultImplementations)({ options: managerOptions, client, logger, metrics: createMetrics({ defaultMetrics: false }) });
  const run = await runParts(parts, { client, sandbox, leader: start.leader ?? true });
  const handle: RunningCatalogd = {
    parts,
    sandbox,
    cacheDir,
    serverUrl: `http://127.0.0.1:${port}`,
    logs,
    async stop() {
      running.delete(handle);
      await run.stop();
    },
  };
  running.add(handle);
  return handle;
}
