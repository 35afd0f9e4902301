// olm-classic: the OLM classic (operators.coreos.com) controllers, one process, each capability's parts
// merged into one manager. Wiring only; behaviour lives in internal/classic.
import { catalogSourceSetup } from '../../internal/classic/catalogsource/index.ts';
import { csvSetup } from '../../internal/classic/csv/index.ts';
import { olmCaches } from '../../internal/classic/olmcache/index.ts';
import { operatorConditionSetup } from '../../internal/classic/operatorcondition/index.ts';
import { operatorGroupSetup } from '../../internal/classic/operatorgroup/index.ts';
import { UsageError, main, mergeParts, type ManagerParts } from '../../internal/shared/manager/index.ts';
import { olmClassicFlags, olmClassicOptions, olmOperatorOptions } from './flags.ts';

main(
  'olm-classic',
  (values) => {
    try {
      const options = olmClassicOptions(values);
      const olmOptions = olmOperatorOptions(values);
      return async (ctx): Promise<ManagerParts> => {
        const catalog = await catalogSourceSetup(options)(ctx);
        const olm = olmCaches(ctx);
        return mergeParts(catalog, { informers: olm.informers, controllers: [] }, csvSetup(olm, olmOptions)(ctx), operatorGroupSetup(olm)(ctx), operatorConditionSetup(olm)(ctx));
      };
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`${err.message}\nRun 'olm-classic --help' for usage.\n`);
      process.exit(2);
    }
  },
  olmClassicFlags,
);
