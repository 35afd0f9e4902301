// olm-classic: the OLM classic (operators.coreos.com) controllers, one process, each capability's parts
// merged into one manager. Wiring only; behaviour lives in internal/classic.
import { catalogSourceSetup } from '../../internal/classic/catalogsource/index.ts';
import { installPlanSetup } from '../../internal/classic/installplan/index.ts';
import { csvSetup } from '../../internal/classic/csv/index.ts';
import { olmCaches } from '../../internal/classic/olmcache/index.ts';
import { operatorSetup } from '../../internal/classic/operator/index.ts';
import { operatorConditionSetup } from '../../internal/classic/operatorcondition/index.ts';
import { operatorGroupSetup } from '../../internal/classic/operatorgroup/index.ts';
import { packageServerSetup } from '../../internal/classic/packageserver/index.ts';
import { subscriptionSetup } from '../../internal/classic/subscription/index.ts';
import { classicGatingSetup } from '../../internal/openshift/index.ts';
import { main, mergeParts, type ManagerParts } from '../../internal/shared/manager/index.ts';
import { olmClassicFlags, olmClassicOptions, olmOperatorOptions, packageServerOptions, writeStatusName } from './flags.ts';

main(
  'olm-classic',
  (values) => {
    const options = olmClassicOptions(values);
    const olmOptions = olmOperatorOptions(values);
    const statusName = writeStatusName(values);
    const packageServer = packageServerOptions(values);
    return async (ctx): Promise<ManagerParts> => {
      // The olm-operator side's caches (CSVs, OperatorGroups, Subscriptions, …) serve the Subscription side too.
      const olm = olmCaches(ctx);
      const catalog = await catalogSourceSetup(options)(ctx);
      const installPlans = await installPlanSetup({ operatorNamespace: options.globalCatalogNamespace, retryTimeoutMs: options.installPlanRetryTimeoutMs })(ctx);
      const subscriptions = await subscriptionSetup({
        ...options,
        catalogSources: catalog.catalogSources,
        contents: catalog.contents,
        registry: catalog.registry,
        shared: { subscriptions: olm.subscriptions, installPlans: installPlans.installPlans, csvs: olm.csvs, operatorGroups: olm.operatorGroups },
      })(ctx);
      // The package server (PackageManifests) over the CatalogSources' loaded content, when --package-server-bind-address is set.
      const packages = packageServer
        ? [await packageServerSetup({ ...packageServer, globalCatalogNamespace: options.globalCatalogNamespace, catalogSources: catalog.catalogSources, contents: catalog.contents })(ctx)]
        : [];
      const gating = statusName
        ? [classicGatingSetup({ name: statusName, releaseVersion: process.env.RELEASE_VERSION, namespace: options.globalCatalogNamespace })(ctx)]
        : [];
      // The olm-operator side: CSVs, OperatorGroups, OperatorConditions, Operators over one set of caches.
      const olmParts = [
        { informers: olm.informers, controllers: [] },
        csvSetup(olm, olmOptions)(ctx),
        operatorGroupSetup(olm)(ctx),
        operatorConditionSetup(olm)(ctx),
        operatorSetup(olm, { installPlans: installPlans.installPlans })(ctx),
      ];
      return mergeParts(catalog, subscriptions, installPlans, ...packages, ...gating, ...olmParts);
    };
  },
  olmClassicFlags,
);
