// olm-classic: the OLM classic (operators.coreos.com) controllers, one process, each capability's parts
// merged into one manager. Wiring only; behaviour lives in internal/classic.
import { catalogSourceSetup } from '../../internal/classic/catalogsource/index.ts';
import { installPlanSetup } from '../../internal/classic/installplan/index.ts';
import { subscriptionSetup } from '../../internal/classic/subscription/index.ts';
import { classicGatingSetup } from '../../internal/openshift/index.ts';
import { UsageError, main, mergeParts, type ManagerParts } from '../../internal/shared/manager/index.ts';
import { olmClassicFlags, olmClassicOptions, writeStatusName } from './flags.ts';

main(
  'olm-classic',
  (values) => {
    try {
      const options = olmClassicOptions(values);
      const statusName = writeStatusName(values);
      return async (ctx): Promise<ManagerParts> => {
        const catalog = await catalogSourceSetup(options)(ctx);
        const subscriptions = await subscriptionSetup({ ...options, catalogSources: catalog.catalogSources, contents: catalog.contents, registry: catalog.registry })(ctx);
        const installPlans = await installPlanSetup({ operatorNamespace: options.globalCatalogNamespace, retryTimeoutMs: options.installPlanRetryTimeoutMs })(ctx);
        const gating = statusName
          ? [classicGatingSetup({ name: statusName, releaseVersion: process.env.RELEASE_VERSION, namespace: options.globalCatalogNamespace })(ctx)]
          : [];
        return mergeParts(catalog, subscriptions, installPlans, ...gating);
      };
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`${err.message}\nRun 'olm-classic --help' for usage.\n`);
      process.exit(2);
    }
  },
  olmClassicFlags,
);
