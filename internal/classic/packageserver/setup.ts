// packageServerSetup: the package server beside the CatalogSource controller — its provider over the CatalogSource
// informer and loaded content, the requestheader configuration (re-read every minute), the SubjectAccessReview
// authorizer and the HTTPS server.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogSource } from '../../../api/operators/index.ts';
import type { ContentRegistry } from '../catalogsource/index.ts';
import { createSignedServingPair, generateCA } from '../csv/index.ts';
import type { ManagerContext, ManagerParts } from '../../shared/manager/index.ts';
import { sleep } from '../../shared/toolkit/index.ts';
import { SubjectAccessReviewer, readRequestHeaderConfig, type RequestHeaderConfig } from './auth.ts';
import { packageProvider } from './provider.ts';
import { listen } from './server.ts';
import { PackageIndex } from './watch.ts';

export interface PackageServerSetupOptions {
  /** Where to listen (`--package-server-bind-address`). */
  readonly host: string;
  readonly port: number;
  readonly globalCatalogNamespace: string;
  /** The CatalogSource informer (its events keep the watch index current; without onEvent, only content changes do). */
  readonly catalogSources: { list(): CatalogSource[]; onEvent?(handler: (type: string, obj: CatalogSource) => void): () => void };
  readonly contents: ContentRegistry;
  /** A directory with tls.crt and tls.key; without it a self-signed certificate for `hosts` is made at start. */
  readonly certDir?: string;
  /** The serving certificate's host names when it is self-signed (default: localhost and the Service's names). */
  readonly hosts?: readonly string[];
  /** How often the requestheader ConfigMap is re-read (default 60 s). */
  readonly configRefreshMs?: number;
}

export interface PackageServerParts extends ManagerParts {
  /** The port listened on (the one asked for, or the one picked for port 0). */
  readonly port: number;
}

const DEFAULT_HOSTS = ['localhost', 'packageserver-service', 'packageserver-service.olmv1-system', 'packageserver-service.olmv1-system.svc'];

export function packageServerSetup(options: PackageServerSetupOptions): (ctx: ManagerContext) => Promise<PackageServerParts> {
  return async ({ client, logger }) => {
    const log = logger.child({ component: 'package-server' });
    let certPEM: string;
    let keyPEM: string;
    if (options.certDir) {
      certPEM = await readFile(join(options.certDir, 'tls.crt'), 'utf8');
      keyPEM = await readFile(join(options.certDir, 'tls.key'), 'utf8');
    } else {
      const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
      const pair = createSignedServingPair(notAfter, generateCA(notAfter), options.hosts ?? DEFAULT_HOSTS);
      certPEM = pair.certPEM;
      keyPEM = pair.keyPEM;
    }
    let config: RequestHeaderConfig | undefined = await readRequestHeaderConfig(client, log);
    const reviewer = new SubjectAccessReviewer(client);
    const index = new PackageIndex({ catalogSources: options.catalogSources, contents: options.contents });
    // No polling: a CatalogSource's manifests are computed again when its content or its object changes.
    const unsubscribe = [
      options.contents.onChange?.((namespace, name) => index.refresh(namespace, name)),
      options.catalogSources.onEvent?.((type, cs) => index.refresh(cs.metadata.namespace ?? '', cs.metadata.name ?? '', type === 'delete' ? null : cs)),
    ];
    index.refreshAll();
    const server = await listen(
      {
        provider: packageProvider({ ...options, index }),
        watch: { index, globalCatalogNamespace: options.globalCatalogNamespace },
        requestHeader: () => config,
        authorize: (user, attrs) => reviewer.authorize(user, attrs),
        certPEM,
        keyPEM,
        logger: log,
      },
      options.host,
      options.port,
    );
    log.info('serving packages.operators.coreos.com/v1', { host: options.host, port: server.port });
    const refresh = async (signal: AbortSignal): Promise<void> => {
      while (!signal.aborted) {
        await sleep(options.configRefreshMs ?? 60_000, signal);
        if (signal.aborted) return;
        const next = await readRequestHeaderConfig(client, log);
        if (next && next.clientCA !== config?.clientCA) server.setClientCA(next.clientCA);
        if (next) config = next;
      }
    };
    return { informers: [], controllers: [], runnables: [refresh], closers: [() => server.close(), async () => unsubscribe.forEach((u) => u?.())], port: server.port };
  };
}
