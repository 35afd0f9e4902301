// The stage implementations operator-controller runs with: catalogd's HTTP content client, the
// catalog resolver, the registry+v1 renderer, the preflights and the revision applier, adapted
// to the OperatorControllerImplementations seam of setup.ts.
import { RevisionApplier } from './applier/index.ts';
import { HttpContentClient } from './contentclient/index.ts';
import type { OperatorControllerImplementations } from './setup.ts';
import { clusterPreflights } from './preflights/index.ts';
import { CERT_PROVIDERS, registryV1Renderer } from './render/index.ts';
import { CatalogResolver, createResolutionMetrics } from './resolve/index.ts';

export const defaultImplementations: OperatorControllerImplementations = {
  content: ({ caCerts, logger, cacheDir, tlsProfile }) => new HttpContentClient({ ...(caCerts && { caCerts }), logger, cacheDir, ...(tlsProfile && { tlsProfile }) }),
  resolver: ({ listCatalogs, content, metrics, bundleReleaseSupport }) =>
    new CatalogResolver({ listCatalogs, content, metrics: createResolutionMetrics(metrics.registry), bundleReleaseSupport }),
  renderer: ({ certProvider, singleOwnNamespaceInstallSupport, deploymentConfig }) => registryV1Renderer({ certProvider, singleOwnNamespaceInstallSupport, deploymentConfig }),
  preflights: ({ client, certProvider, serviceAccountInstalls }) => [
    clusterPreflights(client, { ...(certProvider && { certProvider: CERT_PROVIDERS[certProvider]! }), serviceAccountPermissions: serviceAccountInstalls }),
  ],
  applier: ({ serviceAccountInstalls, ...o }) => new RevisionApplier({ ...o, actAsServiceAccount: serviceAccountInstalls }),
};
