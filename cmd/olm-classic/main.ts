// olm-classic: the OLM classic (operators.coreos.com) controllers — for now the CatalogSource
// controller. Wiring only; behaviour lives in internal/classic.
import { catalogSourceSetup } from '../../internal/classic/catalogsource/index.ts';
import { UsageError, main } from '../../internal/shared/manager/index.ts';
import { olmClassicFlags, olmClassicOptions } from './flags.ts';

main(
  'olm-classic',
  (values) => {
    try {
      return catalogSourceSetup(olmClassicOptions(values));
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`${err.message}\nRun 'olm-classic --help' for usage.\n`);
      process.exit(2);
    }
  },
  olmClassicFlags,
);
