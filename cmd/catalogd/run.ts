// catalogd: reconciles ClusterCatalogs and serves their content. Wiring only; behaviour lives in
// internal/catalogd.
import { defaultImplementations } from '../../internal/catalogd/index.ts';
import { catalogdSetup } from '../../internal/catalogd/index.ts';
import { UsageError, main } from '../../internal/shared/manager/index.ts';
import { catalogdFlags, catalogdOptions } from './flags.ts';

main(
  'catalogd',
  (values) => {
    try {
      return catalogdSetup(catalogdOptions(values), defaultImplementations);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`${err.message}\nRun 'catalogd --help' for usage.\n`);
      process.exit(2);
    }
  },
  catalogdFlags,
);
