// olm-classic's CatalogSource controller and package server in this process for one test file, registered with the
// shared cluster's aggregation layer (package-server.ts): a namespace for the package server's Service and a global
// catalog namespace of its own. Used by the integration files that ask PackageManifests through the API server.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogSourceSetup } from '../../internal/classic/catalogsource/index.ts';
import { packageServerSetup } from '../../internal/classic/packageserver/index.ts';
import { KubeClient } from '../../internal/shared/kube/index.ts';
import { mergeParts } from '../../internal/shared/manager/index.ts';
import { createMetrics } from '../../internal/shared/observability/index.ts';
import { installClassicCRDs } from './crds.ts';
import { adminKube, controlPlane, registry } from './env.ts';
import { capturedLogger, inProcessManagerOptions, runParts } from './in-process.ts';
import { PACKAGES_SERVICE, registerPackageServer, unregisterPackageServer } from './package-server.ts';

export interface InProcessPackageServer {
  /** The namespace of the package server's Service (`<prefix>-…`). */
  readonly ns: string;
  /** Its global catalog namespace (`<prefix>-global-…`). */
  readonly global: string;
  /** Where it listens on 127.0.0.1. */
  readonly port: number;
  /** Unregisters the APIService, stops the controllers and deletes both namespaces. */
  stop(): Promise<void>;
}

/** Starts the CatalogSource controller and the package server, and waits until the APIService is Available. */
export async function startInProcessPackageServer(prefix: string): Promise<InProcessPackageServer> {
  const kube = adminKube();
  await installClassicCRDs(kube);
  const ns = await kube.namespace(prefix);
  const global = await kube.namespace(`${prefix}-global`);
  const { logger } = capturedLogger('olm-classic', 'CLASSIC_TEST_LOG');
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const sandbox = await mkdtemp(join(tmpdir(), `olm-${prefix}-`));
  const ctx = { options: inProcessManagerOptions(`olm-${prefix}-test`), client, logger, metrics: createMetrics({ defaultMetrics: false }) };
  const catalog = await catalogSourceSetup({ globalCatalogNamespace: global, cacheDir: sandbox, insecureRegistries: [registry().host] })(ctx);
  const packages = await packageServerSetup({
    host: '127.0.0.1',
    port: 0,
    globalCatalogNamespace: global,
    catalogSources: catalog.catalogSources,
    contents: catalog.contents,
    // The Service registerPackageServer makes: the certificate the package server keeps is for its names.
    service: { namespace: ns, name: PACKAGES_SERVICE },
  })(ctx);
  const run = await runParts(mergeParts(catalog, packages), { client, sandbox });
  // The aggregated API: a Service the aggregator resolves to localhost:<port>, and the APIService.
  await registerPackageServer(kube, ns, packages.port);
  return {
    ns,
    global,
    port: packages.port,
    async stop() {
      await unregisterPackageServer(kube);
      await run.stop();
      for (const n of [ns, global]) await kube.request('DELETE', `/api/v1/namespaces/${n}`);
    },
  };
}
